"""Helpers shared by the tests of patches 0015-0017 (BLUE, LRED, Vq's alpha): running the two
scripts and reading the bottleneck's queue trace."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

SCRIPTS = Path(__file__).parent / "scripts"
HANDBUILT = SCRIPTS / "aqm_handbuilt.tcl"
DUMBBELL = SCRIPTS / "aqm_dumbbell.tcl"


def tcl_list(pairs: dict) -> str:
    return " ".join(f"{k} {v}" for k, v in pairs.items())


def run(binary: Path, script: Path, args: list, cwd: Path) -> subprocess.CompletedProcess:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [str(binary), str(script), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def handbuilt(binary: Path, cwd: Path, queue: str, knobs: dict, events: list[tuple], bw: str = "1Mb", seed: int = 1):
    """Runs aqm_handbuilt.tcl; returns ({(time, var): value}, the queue's trace rows)."""
    ev = " ".join("{" + " ".join(map(repr_time, e)) + "}" for e in events)
    proc = run(binary, HANDBUILT, [queue, tcl_list(knobs), ev, bw, seed], cwd)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr[-800:]
    samples = {}
    for line in proc.stdout.splitlines():
        _, t, var, value = line.split()
        samples[(float(t), var)] = float(value)
    return samples, trace(cwd / "out.tr")


def repr_time(x) -> str:
    return repr(x) if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Event:
    kind: str  # + - d
    time: float
    size: int
    uid: int


def trace(path: Path) -> list[Event]:
    rows = []
    for line in path.read_text().splitlines():
        f = line.split()
        if f[0] in "+-d":
            rows.append(Event(f[0], float(f[1]), int(f[5]), int(f[11])))
    return rows


def arrivals(rows: list[Event]) -> list[tuple[Event, int, bool]]:
    """(arrival, queue length it found, dropped?) for every arrival, from + - d."""
    out = []
    q = 0
    dropped = {r.uid for r in rows if r.kind == "d"}
    for r in rows:
        if r.kind == "+":
            out.append((r, q, r.uid in dropped))
            q += 1
        else:
            q -= 1
    return out


def samples_tsv(path: Path) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {}
    for line in path.read_text().splitlines():
        t, var, value = line.split()
        out.setdefault(var, []).append((float(t), float(value)))
    return out
