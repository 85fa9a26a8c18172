"""Run keys: one hash of everything that decides a run's output bytes.

key = sha256 of the canonical JSON of {the run's params (seed included), the digest of
the Tcl sources, the ns binary's sha256}. Same key, same bytes: a run directory named
by its key can be reused as it is.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

KEY_LENGTH = 20  # hex digits: 80 bits, collision-free for any number of runs we will make


def canonical_json(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def tcl_digest(tcl_dir: str | Path) -> str:
    """sha256 over the relative paths and contents of every file under tcl/."""
    root = Path(tcl_dir)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def run_key(params: dict, tcl_sha256: str, ns_sha256: str) -> str:
    material = {"params": params, "tcl": tcl_sha256, "ns": ns_sha256}
    return hashlib.sha256(canonical_json(material)).hexdigest()[:KEY_LENGTH]
