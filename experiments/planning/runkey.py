"""Run keys: one hash of everything that decides a run's output bytes.

key = sha256 of the canonical JSON of {the run's params (seed included), the digest of the Tcl sources, the ns
binary's sha256, and the digest of the parsers}. The parsers count because a run directory keeps the parsed
tables, not the raw trace: a parser change must re-run. Same key, same bytes: a run directory named by its key can
be reused as it is.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from experiments.common.files import canonical_json, tree_digest

KEY_LENGTH = 20  # hex digits: 80 bits, collision-free for any number of runs we will make


def tcl_digest(tcl_dir: str | Path) -> str:
    return tree_digest(tcl_dir)


def parsers_digest() -> str:
    import parsers

    return tree_digest(Path(parsers.__file__).parent, "*.py")


def run_key(params: dict, tcl_sha256: str, ns_sha256: str, parsers_sha256: str = "") -> str:
    material = {"params": params, "tcl": tcl_sha256, "ns": ns_sha256, "parsers": parsers_sha256}
    return hashlib.sha256(canonical_json(material)).hexdigest()[:KEY_LENGTH]
