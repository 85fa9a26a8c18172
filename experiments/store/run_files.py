"""A run directory's file list: every file it holds, with its size and sha256, written last, before the directory
is renamed into place (simulate.execute). A run directory is reused by its key; with the list, a directory that
lost or changed a file since (deleted, truncated, a link planted in it) is noticed and the run made again, where
before it was reused as it was and its damage failed every later job that read it.

Two depths of check: `problem(..., digests=False)` compares what each file's lstat says with the list (cheap
enough to run over every run of a sweep when Snakemake plans it: experiments.workflow.plan.Plan.batch_retry);
`digests=True` also reads every file and compares its sha256 (a batch job, before it reuses a run).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from experiments.common.files import sha256_file, write_atomic

FILE_LIST = "files.json"


def write(directory: Path) -> None:
    """List every file under `directory` (paths relative to it, posix), its size and sha256."""
    listing = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file() and path.name != FILE_LIST:
            listing[path.relative_to(directory).as_posix()] = {
                "bytes": path.stat().st_size,
                "sha256": sha256_file(path),
            }
    write_atomic(directory / FILE_LIST, json.dumps(listing, indent=1, sort_keys=True) + "\n")


def problem(directory: Path, digests: bool = False) -> str:
    """What is wrong with a run directory against its list ("" when nothing): missing, no list, a file missing,
    not a regular file, of another size or (`digests`) other bytes."""
    if directory.is_symlink() or not directory.is_dir():
        return "its directory is missing" if not directory.is_symlink() else "its directory is a symbolic link"
    try:
        listing = json.loads((directory / FILE_LIST).read_text())
    except FileNotFoundError:
        return f"it has no {FILE_LIST} (made before run directories listed their files, or damaged)"
    except (OSError, ValueError) as err:
        return f"its {FILE_LIST} cannot be read ({type(err).__name__})"
    folders_seen = set()
    for name, expected in listing.items():
        path = directory / name
        for folder in path.relative_to(directory).parents[:-1]:  # a linked tables/ would take its files elsewhere
            if folder not in folders_seen and (directory / folder).is_symlink():
                return f"{folder.as_posix()}/ is a symbolic link"
            folders_seen.add(folder)
        try:
            info = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return f"{name} is missing"
        if not stat.S_ISREG(info.st_mode):
            return f"{name} is not a regular file"
        if info.st_size != expected["bytes"]:
            return f"{name} has {info.st_size} bytes, {expected['bytes']} when made"
        if digests and sha256_file(path) != expected["sha256"]:
            return f"{name} has other bytes than when made"
    return ""
