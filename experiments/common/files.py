"""Files written whole or not at all, and the digests that tie outputs to their inputs."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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


def sha256_file(path: str | Path) -> str:
    """sha256 of a file, read in blocks (outputs may be large traces)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary path beside `path`, renamed onto it when the block ends without an error, removed otherwise: a
    reader finds the old file or the new one whole, never a part of it. The name is unique per process and thread,
    so that writers racing on one file (two jobs filing one run's metrics) each rename a whole file of their own."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def write_atomic(path: str | Path, text: str) -> None:
    """A text file written whole or not at all (`replacing`)."""
    with replacing(path) as tmp:
        tmp.write_text(text)
