"""One Snakemake invocation per results folder at a time.

Snakemake's own lock (files under .snakemake/locks) outlives a `kill -9` of the workflow, and then refuses
the very command that would resume it until someone runs `--unlock`. So the profiles turn it off (`nolock`)
and the workflow holds this lock instead: an flock on `<results>/.workflow.lock`, taken when the workflow
starts executing (never by a dry run) and dropped by the kernel when the process ends, however it ends.
A second invocation on the same folder stops with one line naming the first; another folder is not held.

"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import IO

from experiments.store import layout


class ResultsBusy(RuntimeError):
    """Another live process holds the results folder; str() is the one line shown to the user."""


def hold(results: str | Path) -> IO[str]:
    """Lock `results` for this process's life (keep the returned handle referenced), or raise ResultsBusy."""
    path = layout.workflow_lock(results)
    path.parent.mkdir(parents=True, exist_ok=True)
    # O_NOFOLLOW: a link planted as the lock is refused, not written through (store.folder says why)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise ResultsBusy(f"{path}: cannot be opened as the results folder's lock ({err.strerror})") from None
    handle = os.fdopen(fd, "r+")  # held open for the life of the process
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "a process that has not yet said which"
        handle.close()
        raise ResultsBusy(
            f"{results}: another snakemake is running on this results folder ({holder}); "
            "wait for it to finish or stop it, then run the same command again"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}, since {time.strftime('%Y-%m-%d %H:%M:%S')}\n")
    handle.flush()
    return handle
