"""docs/PERFORMANCE.md is shared by the benchmarks: each rewrites only its own marked section; a child's CPU time,
which they measure; the CPU of every Python process a command starts, where a child's total is not enough; and the
order paired sides are measured in, with their medians."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

HEADER = "# Performance\n\nEvery figure here is a ratio measured side by side in one run of the command shown.\n\n"


def write_section(path: Path, section: str, begin: str, end: str) -> None:
    """Replace the text between the markers `begin` and `end` (appended if absent); keep the rest."""
    if not section.startswith(begin) or not section.rstrip().endswith(end):
        raise ValueError("a section must start with its begin marker and end with its end marker")
    text = path.read_text() if path.exists() else HEADER
    if begin in text:
        before, rest = text.split(begin, 1)
        text = before + section.rstrip("\n") + "\n" + rest.split(end, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"
    path.write_text(text)


def publish(section: str, markdown: Path | None, begin: str, end: str) -> None:
    """A benchmark's ending: print its section, and write it into `markdown` (its --markdown file) when given."""
    print(section)
    if markdown:
        write_section(markdown, section, begin, end)


def alternating(sides: Iterable[str], rounds: int) -> Iterator[tuple[int, str]]:
    """(round, side) in the order a paired benchmark measures them: each side once a round, the order reversed
    every other round, so a drift over the run (a neighbour's load, a cache warming) falls on every side alike."""
    sides = list(sides)
    for r in range(rounds):
        for side in sides if r % 2 == 0 else sides[::-1]:
            yield r, side


def medians(samples: dict[str, list[dict[str, float]]]) -> dict[str, dict[str, float]]:
    """side -> each measure's median over the rounds; `samples`: side -> one dict of measures per round."""
    return {side: {k: statistics.median(s[k] for s in runs) for k in runs[0]} for side, runs in samples.items()}


@dataclass(frozen=True)
class Child:
    cpu: float  # user + sys seconds of the child (os.wait4)
    wall: float
    returncode: int
    stderr: str


def run_child(argv: list[str], **popen) -> Child:
    """Run a command to its end; its own CPU time from wait4, which subprocess.run does not give."""
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: a chatty child cannot fill it and block
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, **popen)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    return Child(usage.ru_utime + usage.ru_stime, wall, os.waitstatus_to_exitcode(status), stderr)


# A sitecustomize module: each Python process appends, at its exit, its argv, its Slurm job (if any), its own CPU
# seconds and its waited-for children's (getrusage), and whether multiprocessing spawned it (a job's pieces in
# processes of their own, experiments/common/processes.py: spawn hands them their parent's argv, Snakemake's),
# one JSON line per process.
_SITECUSTOMIZE = """
import atexit, json, os, resource, sys

def _spawned():
    mp = sys.modules.get("multiprocessing")
    return bool(mp and mp.parent_process() is not None)

def _record():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    line = {"argv": sys.argv[:2], "job": os.environ.get("SLURM_JOB_ID"), "own": own.ru_utime + own.ru_stime,
            "children": children.ru_utime + children.ru_stime, "spawned": _spawned()}
    with open(os.environ["BENCH_PROCESS_LOG"], "a") as out:
        out.write(json.dumps(line) + "\\n")

if os.environ.get("BENCH_PROCESS_LOG"):
    atexit.register(_record)
"""


def process_recorder(directory: Path, pythonpath: str = "") -> tuple[dict[str, str], Path]:
    """Environment entries under which every Python process records its CPU at exit (in `directory`'s
    processes.jsonl, returned; read it with recorded_processes), `pythonpath` kept after the recorder's folder."""
    site = directory / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    log = directory / "processes.jsonl"
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), pythonpath])), "BENCH_PROCESS_LOG": str(log)}, log


def recorded_processes(log: Path) -> list[dict]:
    """The records process_recorder's processes wrote: argv (first two), job, own and children CPU seconds, spawned
    (by multiprocessing, with its parent's argv: Snakemake's own process is the one with its argv not spawned)."""
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
