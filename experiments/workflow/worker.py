"""A job's work in a child Python process instead of Snakemake's own (issue 49, target 3).

Snakemake runs a rule's `run:` body in a thread of its main process: two batch jobs parsing runs, or two
aggregations computing metrics, would share that process's GIL and its scheduler's core. So the simulate and
aggregate jobs hand their work to a child: `call` starts `python -m experiments.workflow.worker`, sends it the
function's dotted name and its arguments (pickled: what the plan already resolved, not the plan), and reads its
events as they come, one JSON object per line on the child's stdout. The job's own side (progress lines, the
whole sweep's count) stays in Snakemake's process, so a sweep still counts its runs in one place.

In the child, whatever else writes to stdout (a library's print, ns-2's noise through a fd) goes to stderr, so
the event stream stays clean; stderr is kept in a file and shown afterwards, its tail in the error when the
child fails. The child reads its stdin to the end after the arguments: when Snakemake's process dies (killed
alone, not with its process group) the pipe closes and the child exits too, as the job's thread would have.
"""

from __future__ import annotations

import importlib
import json
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STDERR_TAIL = 4000  # characters of the child's stderr in the error of a failed child
EXIT_ORPHANED = 70  # the child's status when its parent went away


class WorkerFailed(RuntimeError):
    """The child process failed: its exit status and the tail of its stderr."""


def call(function: str, args: tuple, on_event: Callable[[dict], None]) -> None:
    """Run `function` ("package.module:name") in a child process as function(*args, emit=<callable>); each dict
    the function emits reaches `on_event` here, as it comes. Raises WorkerFailed when the child fails."""
    payload = pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(
            [sys.executable, "-m", "experiments.workflow.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=env,
        )
        try:
            child.stdin.write(struct.pack("!Q", len(payload)) + payload)
            child.stdin.flush()
            for line in child.stdout:
                on_event(json.loads(line))
        finally:
            child.stdout.close()
            child.stdin.close()  # the child is done with it: it exits on its own
            status = child.wait()
        errors.seek(0)
        said = errors.read().decode(errors="replace")
    if status:
        raise WorkerFailed(f"{function} failed in its worker process (exit status {status}):\n{said[-STDERR_TAIL:]}")
    if said:
        sys.stderr.write(said)


def _read_exactly(fd: int, size: int) -> bytes:
    """`size` bytes of a file descriptor, unbuffered (a buffered reader's lock would trouble the shutdown)."""
    parts, left = [], size
    while left:
        part = os.read(fd, left)
        if not part:
            raise SystemExit(f"worker: its input ended after {size - left} of {size} bytes")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _exit_when_orphaned(fd: int, finished: threading.Event) -> None:
    """Read the rest of stdin: its end before the work is finished means the parent is gone: this process ends."""
    while os.read(fd, 65536):
        pass
    if not finished.is_set():
        os._exit(EXIT_ORPHANED)


def main() -> None:
    (size,) = struct.unpack("!Q", _read_exactly(0, 8))
    function, args = pickle.loads(_read_exactly(0, size))
    events = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything else printed goes to stderr, not into the event stream
    sys.stdout = sys.stderr
    finished = threading.Event()  # set before the event stream closes, which lets the parent close stdin
    threading.Thread(target=_exit_when_orphaned, args=(0, finished), daemon=True).start()
    module, name = function.split(":")

    def emit(event: dict) -> None:
        events.write(json.dumps(event) + "\n")

    getattr(importlib.import_module(module), name)(*args, emit=emit)
    finished.set()
    events.close()


if __name__ == "__main__":
    main()
