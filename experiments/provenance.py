"""Hashes that tie every output to what produced it."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable
from pathlib import Path


def sha256_file(path: str | Path) -> str:
    """sha256 of a file, read in 1 MiB blocks (outputs may be large traces)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_stamp(artifacts: Iterable[str | Path], out: str | Path) -> None:
    """`sha256sum`-style listing of the artifacts, sorted by path, written atomically."""
    lines = [f"{sha256_file(p)}  {p}\n" for p in sorted(map(str, artifacts))]
    out = Path(out)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text("".join(lines))
    tmp.replace(out)


def git_commit(root: str | Path) -> str:
    """The commit checked out at `root` (`git rev-parse HEAD`), or "unknown" outside a git checkout (the container
    copies no .git) or without git."""
    try:
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
    except OSError:
        return "unknown"
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"
