"""The plan, made once per content and then read back (issue 49: every Snakemake command, every Slurm job, planned
all five papers anew, about half a minute before printing anything).

`plan()` loads and checks every file, and checks every matrix cell of every experiment under every reading: its
answer is a function of what it reads, so it is cached under the digest of all of it: the workflow's settings, the
experiment files, the project's code and schemas (every file under experiments/, parsers/, figures/, configs/ and
workflows/schemas/: the checks import figure modules and read the schemas), the ns binary the knobs are checked
against, and the versions of Python and of the packages that parse and validate. A change to any of them is another
key. The cache lives beside the ns build cache, $NS2REPRO_CACHE (default ~/.cache/ns2-repro)/plans/<key>.pickle,
shared by every checkout and results folder of the same content (a test's fresh results folder included); a file
that cannot be read back is planned again, one that cannot be written only costs the next command the time. Only the
newest KEEP plans are kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.metadata
import pickle
import stat
import sys
from pathlib import Path

from experiments.common.files import canonical_json, files_digest, replacing, sha256_file
from experiments.config.load import MAX_FILE_BYTES
from experiments.planning.profiles import Settings
from experiments.references.ns_knobs import cache_root
from experiments.workflow.plan import Plan, plan

ROOT = Path(__file__).resolve().parents[2]
FORMAT = "ns2-repro/plan-cache/1"
# What plan() reads besides the experiment files and the binary (its code included: a change re-plans).
READ_TREES = ("experiments", "parsers", "figures", "configs", "workflows/schemas")
PACKAGES = ("PyYAML", "jsonschema", "snakemake")
KEEP = 32  # plans kept: the newest, as a code change makes every key new


def plan_key(settings: Settings, ns_binary: Path | None) -> str:
    """The digest of everything plan(settings, ns_binary) reads."""
    files = [
        path
        for tree in READ_TREES
        for path in (ROOT / tree).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    ]
    inputs = {
        "format": FORMAT,
        "settings": {k: str(v) if isinstance(v, Path) else v for k, v in dataclasses.asdict(settings).items()},
        "experiment_files": {path: sha256_file(Path(path)) for path in settings.experiment_files},
        "code": files_digest(files, ROOT),
        "ns": sha256_file(ns_binary) if ns_binary is not None and Path(ns_binary).is_file() else None,
        "python": sys.version,
        "packages": {name: importlib.metadata.version(name) for name in PACKAGES},
    }
    return hashlib.sha256(canonical_json(inputs)).hexdigest()[:32]


def _cacheable(path: Path) -> bool:
    try:
        info = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= MAX_FILE_BYTES


def cached_plan(settings: Settings, ns_binary: Path | None = None) -> Plan:
    """plan(settings, ns_binary), read from the cache when the same content was planned before. A file that is not
    a regular file of at most load.MAX_FILE_BYTES (a pipe, /dev/zero, a trace named by mistake) is not digested
    for the key, which would read it whole: plan() reads what it may and refuses it in one line."""
    if not all(_cacheable(Path(name)) for name in settings.experiment_files):
        return plan(settings, ns_binary)
    path = cache_root() / "plans" / f"{plan_key(settings, ns_binary)}.pickle"
    if path.is_file():
        with contextlib.suppress(Exception):  # a damaged or foreign pickle: plan again
            found = pickle.loads(path.read_bytes())
            if isinstance(found, Plan):
                return found
    made = plan(settings, ns_binary)  # a bad file raises here: nothing is cached
    with contextlib.suppress(OSError), replacing(path) as tmp:  # read whole or not at all, as parallel jobs may
        tmp.write_bytes(pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL))
    prune(path.parent)
    return made


def prune(folder: Path, keep: int = KEEP) -> None:
    """Delete all but the `keep` most recently written plans (another process may be doing the same)."""
    with contextlib.suppress(OSError):
        plans = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in plans[keep:]:
            old.unlink(missing_ok=True)
