"""Run keys: one hash of everything that decides a run's output bytes.

key = sha256 of the canonical JSON of {the run's params (seed included), the digest of
the Tcl sources, the ns binary's sha256, and the digest of the parsers}. The parsers
count because a run directory keeps the parsed tables, not the raw trace: a parser
change must re-run. Same key, same bytes: a run directory named by its key can be
reused as it is.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

KEY_LENGTH = 20  # hex digits: 80 bits, collision-free for any number of runs we will make


def canonical_json(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def tree_digest(directory: str | Path, pattern: str = "*") -> str:
    """sha256 over the relative paths and contents of the files under a directory."""
    root = Path(directory)
    return files_digest([p for p in root.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts], root)


def files_digest(paths: list[Path], root: Path) -> str:
    """sha256 over the given files' paths relative to `root` and contents."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def tcl_digest(tcl_dir: str | Path) -> str:
    return tree_digest(tcl_dir)


def parsers_digest() -> str:
    import parsers

    return tree_digest(Path(parsers.__file__).parent, "*.py")


def run_key(params: dict, tcl_sha256: str, ns_sha256: str, parsers_sha256: str = "") -> str:
    material = {"params": params, "tcl": tcl_sha256, "ns": ns_sha256, "parsers": parsers_sha256}
    return hashlib.sha256(canonical_json(material)).hexdigest()[:KEY_LENGTH]
