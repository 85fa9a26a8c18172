"""A job's work in a worker process instead of Snakemake's own (issue 49, target 3).

Snakemake runs a rule's `run:` body in a thread of its main process: two batch jobs parsing runs, or two
aggregations computing metrics, would share that process's GIL and its scheduler's core. So the simulate and
aggregate jobs hand their work to a worker: `call` sends a function's dotted name and its arguments (pickled: what
the plan already resolved, not the plan) to an idle worker of this process, `python -m
experiments.workflow.worker`, and reads its events as they come, one JSON object per line of the worker's stdout.
The job's own side (progress lines, the whole sweep's count) stays in Snakemake's process, so a sweep still counts
its runs in one place.

Workers are kept for the invocation, one per job running at once, and take one job after another: a worker
imports pandas and pyarrow once, not once per job. A worker whose job failed is not reused; its traceback is the
error raised here. In the worker, whatever else writes to stdout (a library's print, a child's output through the
fd) goes to stderr, which is Snakemake's, so the event stream stays clean. A worker exits when its stdin ends (this
process exited) and when this process dies (it watches its parent), as the job's thread would have.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STATUS = "worker"  # the key of a worker's own event closing each job: "done" or "failed" (with "error")
PARENT_POLL_S = 0.5  # how often a worker checks that its parent still lives
EXIT_ORPHANED = 70  # a worker's status when its parent went away


class WorkerFailed(RuntimeError):
    """The job failed in its worker (its traceback), or the worker died (its exit status)."""


class Interrupted(WorkerFailed):
    """The job's worker was interrupted (Ctrl-C, SIGINT to the process group): nothing it had not finished is kept
    (simulate.execute), so the same command resumes it."""


INTERRUPTED = "interrupted"  # a worker's status closing a job stopped by Ctrl-C
INTERRUPTED_TEXT = "interrupted (Ctrl-C): no unfinished run was kept; the same command resumes"
STOP = threading.Event()  # a Ctrl-C reached this process (watch_interrupts)


def watch_interrupts() -> None:
    """In Snakemake's main process, when the workflow starts: note each Ctrl-C before Python turns it into a
    KeyboardInterrupt. Snakemake's logging swallows one that lands while it writes a line, and the sweep then went
    on; a job that starts after a Ctrl-C sends it again (`call`), until it reaches Snakemake's scheduler, which
    stops the sweep."""

    def noted(signum, frame) -> None:
        STOP.set()
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, noted)


# How an idle worker ends on a Ctrl-C: its __main__ exits 130 (128 + SIGINT), or the signal's default action.
INTERRUPTED_STATUSES = {128 + signal.SIGINT, -signal.SIGINT}


def _stop() -> None:
    """No new work once a Ctrl-C was seen: the interrupt again for Snakemake's scheduler (its logging may have
    swallowed the first), and this job stops as interrupted."""
    STOP.set()
    os.kill(os.getpid(), signal.SIGINT)
    raise Interrupted(INTERRUPTED_TEXT)


class _Pool:
    """The idle workers of this process."""

    def __init__(self) -> None:
        self._idle: list[subprocess.Popen] = []
        self._lock = threading.Lock()
        atexit.register(self.close)

    def take(self) -> subprocess.Popen:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.poll() is None:
                    return worker
                if worker.returncode in INTERRUPTED_STATUSES:
                    # A Ctrl-C ended it while idle, and this job's thread got here before the main thread ran its
                    # handler: a new worker, outside that signal, would run the job to its end.
                    _stop()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "experiments.workflow.worker", str(os.getpid())]
        return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def give_back(self, worker: subprocess.Popen) -> None:
        with self._lock:
            self._idle.append(worker)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stdin.close()  # its loop ends there
            worker.wait()


_POOL = _Pool()


def call(function: str, args: tuple, on_event: Callable[[dict], None]) -> None:
    """Run `function` ("package.module:name") in a worker as function(*args, emit=<callable>); each dict the function
    emits reaches `on_event` here, as it comes. Raises WorkerFailed when the function raises or the worker dies."""
    if STOP.is_set():  # the sweep is stopping: no new work
        _stop()
    payload = pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL)
    worker = _POOL.take()
    try:
        worker.stdin.write(struct.pack("!Q", len(payload)) + payload)
        worker.stdin.flush()
        for line in worker.stdout:
            event = json.loads(line)
            if STATUS not in event:
                on_event(event)
            elif event[STATUS] == "done":
                _POOL.give_back(worker)
                return
            elif event[STATUS] == INTERRUPTED:
                worker.wait()
                raise Interrupted(INTERRUPTED_TEXT)
            else:
                worker.stdin.close()
                worker.wait()
                raise WorkerFailed(f"{function} failed in its worker process:\n{event['error']}")
    except BrokenPipeError:
        pass  # the worker died before it read the job: its status below
    worker.kill()
    raise WorkerFailed(f"{function}: its worker process died (exit status {worker.wait()})")


def _read_exactly(fd: int, size: int) -> bytes | None:
    """`size` bytes of a file descriptor, unbuffered; None at its end before the first byte."""
    parts, left = [], size
    while left:
        part = os.read(fd, left)
        if not part:
            if left == size:
                return None
            raise SystemExit(f"worker: its input ended after {size - left} of {size} bytes")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _exit_when_orphaned(parent: int) -> None:
    """End this process when its parent is gone (it is then another process's child)."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(EXIT_ORPHANED)


def main() -> None:
    # A Ctrl-C ends the job even where SIGINT came ignored (a sweep started in the background by a non-interactive
    # shell, which ignores it for its children): Snakemake's process handles it whatever it inherited
    # (watch_interrupts), and its workers must stop with it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    parent = int(sys.argv[1])
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    events = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything else printed goes to stderr, not into the event stream
    sys.stdout = sys.stderr

    def emit(event: dict) -> None:
        events.write(json.dumps(event) + "\n")

    while (header := _read_exactly(0, 8)) is not None:
        (size,) = struct.unpack("!Q", header)
        function, args = pickle.loads(_read_exactly(0, size))
        module, name = function.split(":")
        try:
            getattr(importlib.import_module(module), name)(*args, emit=emit)
        except KeyboardInterrupt:  # Ctrl-C reached the whole process group: the job stops, it did not fail
            emit({STATUS: INTERRUPTED})
            raise
        except BaseException:  # noqa: BLE001 - reported to the job, which fails with it; this worker then ends
            emit({STATUS: "failed", "error": traceback.format_exc()})
            break
        emit({STATUS: "done"})


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # said once, by the job (Interrupted), not as a traceback from each worker
        sys.exit(128 + signal.SIGINT)
