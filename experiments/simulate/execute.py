"""Running one simulation: one run directory per run key, complete or absent.

A run executes in a temporary sibling directory and is renamed to `<runs>/<key>/` only when ns and the
post-processing both succeeded, its file list written last (store.run_files), so a run directory that exists and
matches its list is complete and is reused as it is (same key, same bytes); one that does not (a file deleted,
truncated or changed since, or no list) is made again, and its line says why.

A failure leaves `<runs>/<key>.failed/` with params.json, ns's stderr and `rerun.sh`, the exact command that
reproduces it (the error as its comment), without the big raw outputs (packets.tr, queue_monitor.tsv). A
later success of the same key (a run found complete too) removes `<key>.failed/`: it describes a failure that no
longer holds, so the two never stand side by side.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import resource
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from experiments.planning.expansion import Run
from experiments.simulate.toolchain import Toolchain, ns_command
from experiments.store import layout, run_files

STDERR_TAIL_LINES = 5


@dataclass(frozen=True)
class Outcome:
    run: Run
    key: str
    directory: Path
    status: str  # "ran", "cached" or "failed"
    seconds: float = 0.0
    message: str = ""
    rerun: str = ""  # a failed run: the ns command that reruns it (its rerun.sh)
    remade: str = ""  # a run found damaged and made again: what was wrong with it


# Below this much free space after a failed run, the failure is reported as a full disk: ns's trace filled it
# (ns then exits with status 1 and often an empty stderr, which could not be written either).
FULL_DISK_BYTES = 1 << 20


def _write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n")


def execute(
    run: Run,
    key: str,
    results: Path,
    tools: Toolchain,
    after: Callable[[Run, str, Path], None] | None = None,
) -> Outcome:
    """Run one simulation unless its directory exists and matches its file list (by sha256: a damaged one is made
    again, the outcome's `remade` saying why); `after` post-processes it in place.

    One key runs once at a time: two batch jobs may hold the same key (a reading's cell that the baseline runs
    too), in threads of one Snakemake process or in two processes, so the run takes the key's lock and the
    second finds the first's directory complete."""
    final = layout.run_dir(results, key)
    final.parent.mkdir(parents=True, exist_ok=True)
    with _key_lock(final):
        for stale in final.parent.glob(f".{key}.tmp-*"):  # left by a run killed mid-way (kill -9): the lock
            shutil.rmtree(stale, ignore_errors=True)  # is ours, so no live run of this key owns it
        damage = ""
        if final.is_dir() or final.is_symlink():
            damage = run_files.problem(final, digests=True)
            if not damage:
                _clear_failed(final)
                return Outcome(run, key, final, "cached")
            _remove(final)
        outcome = _run(run, key, final, tools, after)
        return replace(outcome, remade=damage) if damage else outcome


def _remove(path: Path) -> None:
    """A damaged run directory, or a link in its place (removed, not followed)."""
    if path.is_symlink():
        path.unlink()
    else:
        shutil.rmtree(path)


@contextmanager
def _key_lock(final: Path):
    """An exclusive lock on the run key, held while the run executes (store.layout.key_lock)."""
    lock = layout.key_lock(final)
    lock.parent.mkdir(exist_ok=True)
    # O_NOFOLLOW, no O_TRUNC: a link planted as the lock fails the run instead of truncating what it points at
    with os.fdopen(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run(run: Run, key: str, final: Path, tools: Toolchain, after: Callable[[Run, str, Path], None] | None) -> Outcome:
    work = Path(tempfile.mkdtemp(prefix=f".{key}.tmp-", dir=final.parent))  # unique: never shared by two runs
    work.chmod(0o755)  # mkdtemp's 0700 would become the run directory's mode
    _write_json(work / "params.json", run.params)
    shutil.copyfile(tools.manifest, work / "manifest.json")
    started = time.monotonic()
    try:
        with open(work / "stderr.txt", "w") as err:
            proc = subprocess.run(
                ns_command(tools, work),
                stdout=subprocess.DEVNULL,
                stderr=err,
                check=False,
                preexec_fn=_cpu_limiter(tools.cpu_limit),
            )
        if -proc.returncode in STOP_SIGNALS:  # stopped from outside, before this process saw the signal
            raise KeyboardInterrupt
        return _finish(run, key, work, final, tools, after, proc.returncode, started)
    except KeyboardInterrupt:  # Ctrl-C: nothing of the unfinished run is kept, nor recorded as failed
        shutil.rmtree(work, ignore_errors=True)
        raise


def _cpu_limiter(seconds: float) -> Callable[[], None] | None:
    """What the ns child runs before exec: RLIMIT_CPU at `seconds` (the kernel sends SIGXCPU there, which ends ns,
    and SIGKILL a few seconds on had it caught it), or None without a limit."""
    if seconds <= 0:
        return None
    soft = max(1, math.ceil(seconds))

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + CPU_LIMIT_GRACE))

    return limit


CPU_LIMIT_GRACE = 5  # s of CPU between the soft limit's SIGXCPU and the hard limit's SIGKILL


# Signals that stop a run from outside (Ctrl-C's SIGINT to the process group, SIGTERM from a scheduler's cancel):
# an interruption, not a fault of the run, so it is not recorded as failed and the same command runs it again.
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _finish(
    run: Run,
    key: str,
    work: Path,
    final: Path,
    tools: Toolchain,
    after: Callable[[Run, str, Path], None] | None,
    returncode: int,
    started: float,
) -> Outcome:
    """A run whose ns ended by itself: post-processed and renamed into place, or kept as failed."""
    problem = ""
    if returncode == -signal.SIGXCPU and tools.cpu_limit > 0:  # the kernel's signal at RLIMIT_CPU's soft limit
        problem = (
            f"ns used its CPU limit of {tools.cpu_limit:g} s (setting run_cpu_limit) and was stopped: a run that never "
            "ends (a livelock in ns-2) or a limit too low for this run; rerun.sh runs it without the limit"
        )
    elif returncode < 0:  # a crash (SIGSEGV) or a kill: the status alone would read as "-11"
        problem = f"ns was killed by signal {-returncode} ({signal.Signals(-returncode).name})"
    elif returncode != 0:
        problem = f"ns exited with status {returncode}"
    elif after is not None:
        try:
            after(run, key, work)
        except Exception as exc:  # noqa: BLE001 -- any post-processing failure fails this run only
            problem = f"post-processing failed: {type(exc).__name__}: {exc}"
    if problem and (free := shutil.disk_usage(work).free) < FULL_DISK_BYTES:  # ns's own error may be lost with it
        problem += f"; the results folder's file system is full ({free} bytes free): free space and rerun"
    seconds = time.monotonic() - started
    if not problem:
        (work / "stderr.txt").unlink()
        run_files.write(work)
        work.rename(final)
        _clear_failed(final)
        return Outcome(run, key, final, "ran", seconds)
    return _fail(run, key, work, final, tools, problem, seconds)


def _clear_failed(final: Path) -> None:
    """Remove `<key>.failed/` beside a complete `<key>/`: the failure it records no longer holds."""
    shutil.rmtree(layout.failed_dir(final), ignore_errors=True)


def _fail(run: Run, key: str, work: Path, final: Path, tools: Toolchain, problem: str, seconds: float) -> Outcome:
    failed = layout.failed_dir(final)
    shutil.rmtree(failed, ignore_errors=True)
    work.rename(failed)
    for name in ("packets.log", "packets.tr", "queue_monitor.tsv"):  # big, and not what a diagnosis needs
        (failed / name).unlink(missing_ok=True)
    problem = problem.replace(str(work), str(failed))  # a parser's error names the temporary directory
    rerun = shlex.join(ns_command(tools, failed))
    comment = "".join(f"# {line}\n" for line in problem.splitlines() or [""])  # a multi-line error stays a comment
    (failed / "rerun.sh").write_text(f"#!/bin/sh\n{comment}{rerun}\n")
    tail = (failed / "stderr.txt").read_text(errors="replace").strip().splitlines()[-STDERR_TAIL_LINES:]
    labels = " ".join(f"{k}={v}" for k, v in run.labels.items())
    message = (
        f"run {key} ({run.experiment} {labels} seed={run.seed}) failed: {problem}"
        + (f"\n  stderr: {' | '.join(tail)}" if tail else "")
        + f"\n  rerun: {rerun}"
    )
    return Outcome(run, key, failed, "failed", seconds, message, rerun)
