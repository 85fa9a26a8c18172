"""A results folder as a trust boundary: what it may hold, checked before an invocation writes into it.

The workflow writes and reads only paths store.layout builds under the folder. A symbolic link anywhere on those
paths would take a write or a read elsewhere: `.locks/<key>` pointing at a file outside truncated it, `runs`
pointing outside put every run there, a run directory linked to another folder's made that folder's runs read as
this one's. So a results folder may hold regular files and directories only, and nothing of the folder itself is a
link (the folder's own path may be one: a results folder placed on another disk). Anything else is refused, in
one line naming it, before the invocation holds the folder (experiments.store.lock); a link planted while the
workflow runs meets the lock files' O_NOFOLLOW (store.lock, simulate.execute) or a run directory's file list
(store.run_files).

The check reads directory entries only: the top of the folder and every folder under it, except the run
directories and the metrics cache, whose entries are checked by type in their listing (no stat each: a paper
profile's runs/ holds about 100,000 of them) and whose files are checked when they are read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from experiments.store import layout


class UnsafeResults(RuntimeError):
    """Something in a results folder that the workflow must not follow or write through; str() is the one line."""


def _refuse(path: str, what: str) -> UnsafeResults:
    return UnsafeResults(
        f"{path}: {what}; a results folder holds only the regular files and folders the workflow writes "
        "(no links, pipes or devices): remove it, or choose another results folder"
    )


def _kind(entry: os.DirEntry) -> str:
    """'dir', 'file' or what else the entry is, not following a link."""
    if entry.is_symlink():
        return "a symbolic link"
    if entry.is_dir(follow_symlinks=False):
        return "dir"
    if entry.is_file(follow_symlinks=False):
        return "file"
    mode = entry.stat(follow_symlinks=False).st_mode
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device or special file"


NAMES = {"dir": "folder", "file": "file"}
# Folders whose entries are listed by type only (each must be of this kind), not walked into.
LISTED = {layout.RUNS: "dir", layout.METRICS_CACHE: "file", layout.LOCKS: "file"}


def check(results: str | Path) -> None:
    """Raise UnsafeResults for the first entry of the folder that is not a regular file or directory, or that sits
    where the layout puts the other kind; a folder not yet made passes."""
    root = Path(results)
    if not root.exists():
        if root.is_symlink():
            raise _refuse(str(root), "a symbolic link to nothing")
        return
    if not root.is_dir():
        raise _refuse(str(root), "not a folder")
    pending = [root]
    while pending:
        folder = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                kind = _kind(entry)
                if kind not in ("dir", "file"):
                    raise _refuse(entry.path, kind)
                expected = LISTED.get(entry.name) if folder == root else None
                if expected and kind != "dir":
                    raise _refuse(entry.path, f"a file where the workflow keeps a folder ({entry.name}/)")
                if expected:
                    _check_listing(Path(entry.path), expected)
                elif kind == "dir":
                    pending.append(Path(entry.path))


def _check_listing(folder: Path, expected: str) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            kind = _kind(entry)
            if kind != expected:
                raise _refuse(
                    entry.path, kind if kind not in NAMES else f"a {NAMES[kind]} where only {NAMES[expected]}s belong"
                )
