"""PISA's weighted cwnd average (patch 0005, thesis Fig. 3.3), rebuilt here from every arrival.

scripts/pisa_average.tcl: four NewReno flows (fids 0-3) and a CBR flow (fid 9, no hint)
through a Queue/PI/PISA bottleneck r1 -> r2 with a 30-packet buffer. A HintMonitor after
the bottleneck's head (patch 0007) logs every arrival with its time and cwnd hint, in the
order the queue sees them (arrivals.log); the queue's drop log (drops.log) gives, per
dropped arrival, the average after that arrival. The patch's rule: the first hint > 0
starts the average, every later one updates it, cwnd_avg = (1 - w) cwnd_avg + w hint;
arrivals without a hint (0: UDP; -1: ACKs) leave it alone. The rebuild below is the same
double arithmetic, so it must match to the last bit.
"""

from __future__ import annotations

import csv
import math
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "pisa_average.tcl"
R1, R2 = 0, 1  # node ids of the bottleneck routers
CBR = 9


def run(binary: Path, workdir: Path, *args) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(binary), str(SCRIPT), *map(str, args)], cwd=workdir, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    return workdir


def arrivals(d: Path) -> list[tuple[str, int, int, float]]:
    """(time as printed, fid, seqno, hint) of every arrival at the bottleneck queue, in order."""
    out = []
    for line in (d / "arrivals.log").read_text().splitlines():
        time, fid, seqno, _size, hint, _qlen = line.split("\t")
        out.append((time, int(fid), int(seqno), float(hint)))
    return out


def drops(d: Path) -> list[dict]:
    with (d / "drops.log").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for r in rows:
        r["fid"], r["seqno"] = int(r["fid"]), int(r["seqno"])
        for k in ("hint", "prob", "p_pi", "cwnd_avg"):
            r[k] = float(r[k])
    return rows


def rebuild(log: list[tuple], weight: float, hintless_updates: bool = False) -> list[float]:
    """The average after each arrival (nan before the first hint), as the patch documents it.
    hintless_updates: the wrong rule (hint-less arrivals pull the average towards 0), for contrast."""
    avg, out = 0.0, []
    for _, _, _, hint in log:
        if hint > 0 or (hintless_updates and avg > 0):
            value = max(hint, 0.0)
            avg = value if avg <= 0 else (1.0 - weight) * avg + weight * value
        out.append(avg if avg > 0 else math.nan)
    return out


def match(log: list[tuple], dropped: list[dict]) -> list[int]:
    """The index in `log` of each drop's arrival: the next arrival with its time, fid and seqno."""
    index, found = 0, []
    for r in dropped:
        key = (r["time"], r["fid"], r["seqno"])
        while log[index][:3] != key:
            index += 1  # IndexError: a drop whose arrival was never logged
        found.append(index)
        index += 1
    return found


def trace_counts(d: Path) -> tuple[int, int]:
    """'+' and 'd' events on r1 -> r2 in the packet trace."""
    plus = drop = 0
    for line in (d / "packets.tr").read_text().splitlines():
        f = line.split(" ", 4)
        if (int(f[2]), int(f[3])) == (R1, R2):
            plus += f[0] == "+"
            drop += f[0] == "d"
    return plus, drop


@pytest.fixture(scope="module")
def default_run(ns_binary, tmp_path_factory) -> Path:
    return run(ns_binary, tmp_path_factory.mktemp("pisa_average"), "PISA")


def check_average(d: Path, weight: float) -> tuple[list[tuple], list[dict], list[float]]:
    """Every drop's logged cwnd_avg equals the rebuilt average after its arrival; the final too."""
    log, dropped = arrivals(d), drops(d)
    plus, traced_drops = trace_counts(d)
    assert len(log) == plus > 1000, "the monitor saw every arrival the trace shows"
    assert len(dropped) == traced_drops > 20
    rebuilt = rebuild(log, weight)
    where = match(log, dropped)
    for r, i in zip(dropped, where, strict=True):
        assert r["hint"] == log[i][3]
        assert r["cwnd_avg"] == rebuilt[i], (r, rebuilt[i])
    final = dict(line.split() for line in (d / "final.txt").read_text().splitlines())
    assert float(final["cwnd_avg_"]) == pytest.approx(rebuilt[-1], rel=1e-15)  # Tcl prints 17 digits
    return log, dropped, rebuilt


def test_average_matches_rebuild_at_every_drop(default_run):
    log, dropped, rebuilt = check_average(default_run, 0.02)
    final = dict(line.split() for line in (default_run / "final.txt").read_text().splitlines())
    assert (float(final["alpha_"]), float(final["cwnd_weight_"])) == (3, 0.02), "the class defaults"
    # the first drop comes early enough that where the average starts still shows (0.98^n of the first hint)
    first = match(log, dropped)[0]
    hinted_before = sum(hint > 0 for *_, hint in log[: first + 1])
    assert hinted_before < 500, hinted_before
    from_zero = 0.0
    for *_, hint in log[: first + 1]:
        if hint > 0:
            from_zero = 0.98 * from_zero + 0.02 * hint
    assert abs(from_zero - dropped[0]["cwnd_avg"]) > 1e-6, "an average started at 0 would match too"
    # the probability of a hinted arrival is Psa = min(1, alpha P hint / avg) with that average
    for r in dropped:
        if r["hint"] > 0:
            assert r["prob"] == pytest.approx(min(1.0, 3 * r["p_pi"] * r["hint"] / r["cwnd_avg"]), rel=1e-12)


def test_hintless_arrivals_leave_the_average_alone(default_run):
    log, dropped, rebuilt = check_average(default_run, 0.02)
    hintless = [i for i, (*_, hint) in enumerate(log) if hint <= 0]
    assert sum(log[i][1] == CBR for i in hintless) > 100, "CBR arrivals carry no hint"
    assert all(log[i][3] == 0 for i in hintless if log[i][1] == CBR)
    # the logged average at each drop of a CBR packet is the one before its arrival
    cbr = [(r, i) for r, i in zip(dropped, match(log, dropped), strict=True) if r["fid"] == CBR]
    assert len(cbr) >= 3
    assert all(r["hint"] == 0 and r["cwnd_avg"] == rebuilt[i - 1] and r["prob"] == r["p_pi"] for r, i in cbr)
    # the check has teeth: the rule that lets hint-less arrivals in disagrees with the log
    wrong = rebuild(log, 0.02, hintless_updates=True)
    assert any(r["cwnd_avg"] != wrong[i] for r, i in zip(dropped, match(log, dropped), strict=True))


def test_other_alpha_and_weight(ns_binary, default_run, tmp_path):
    d = run(ns_binary, tmp_path, "PISA", 1.5, 0.1)
    final = dict(line.split() for line in (d / "final.txt").read_text().splitlines())
    assert (float(final["alpha_"]), float(final["cwnd_weight_"])) == (1.5, 0.1)
    log, dropped, rebuilt = check_average(d, 0.1)
    assert rebuild(log, 0.02) != rebuilt, "the weight is used"
    hinted = [r for r in dropped if r["hint"] > 0]
    assert len(hinted) > 10
    for r in hinted:
        assert r["prob"] == pytest.approx(min(1.0, 1.5 * r["p_pi"] * r["hint"] / r["cwnd_avg"]), rel=1e-12)
    assert drops(default_run) != dropped, "another alpha and weight give another run"
