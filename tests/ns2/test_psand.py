"""PSAND (patch 0014) and RED's gentle segment following max_p (patch 0013).

Alemu's thesis, Ch. 2 §2.3 Algorithm 16: every 0.5 s
    beta = coef * ((K_cur / K_T) * (K_cur / K_prev)) ** gamma
    Max_p = max(bottom, min(Max_p * beta, top));  K_prev = K_cur
with RED in gentle mode (Eq. 1.3, the current Max_p on [Max_th, 2 Max_th)).
Each check recomputes in Python what the C++ should have done: from hand-set averages
(`$q adapt`), and in a run from the averages RED itself traced (red.tr) and the
adaptation log, and the drop probability RED traced from the average and Max_p in force.

Scenario: scripts/psand_dumbbell.tcl (the thesis's Fig. 2.2 dumbbell: TCP/Sack1 flows
into a 1.5 Mb/s bottleneck with a 35-packet buffer), or (kind STEPS) no simulation.
"""

from __future__ import annotations

import bisect
import csv
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "psand_dumbbell.tcl"
COEF, GAMMA, KT, TOP, BOTTOM, INTERVAL, P0 = 1.75, 1.5, 10.0, 0.75, 0.01, 0.5, 0.1
R1, R2 = 2, 3  # the bottleneck's node ids in psand_dumbbell.tcl
TRACE_ABS = 2e-5  # red.tr's %g rounding, carried through Eq. 1.3


def ns(binary: Path, *args, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(binary), str(SCRIPT), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def knob_list(knobs: dict) -> str:
    return " ".join(f"{k} {v}" for k, v in knobs.items())


def steps(binary: Path, averages: list[float], knobs: dict | None = None) -> list[tuple[float, float, float]]:
    """(ave_, cur_max_p_, kprev_) after reset, then after each hand-set average and `adapt`."""
    proc = ns(binary, "STEPS", knob_list(knobs or {}), " ".join(repr(a) for a in averages))
    assert proc.returncode == 0, proc.stderr[-800:]
    return [tuple(float(w) for w in line.split()[1:]) for line in proc.stdout.splitlines()]


def psand_rule(averages, p0=P0, coef=COEF, gamma=GAMMA, kt=KT, top=TOP, bottom=BOTTOM, zero_rule=0, scale=1.0):
    """Max_p after each step, by Algorithm 16; K_prev = 0: skip (rule 0) or change_rate 1."""
    p, kprev, out = p0, 0.0, []
    for a in averages:
        k = a / scale
        if kprev > 0:
            p = max(bottom, min(p * coef * ((k / kt) * (k / kprev)) ** gamma, top))
        elif zero_rule == 1:
            p = max(bottom, min(p * coef * (k / kt) ** gamma, top))
        kprev = k
        out.append(p)
    return out


def run(binary: Path, out: Path, kind="PSAND", flows=4, stop=30.0, window=20, knobs=None) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    proc = ns(binary, kind, flows, stop, window, out, knob_list(knobs or {}))
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stderr == "", proc.stderr[-800:]
    return out


def red_trace(out: Path) -> list[tuple[str, float, float]]:
    """RED's own trace: (a: ave_ | p: prob1_ | c: cur_max_p_, time, value), in order."""
    return [
        (w[0], float(w[1]), float(w[2])) for w in (line.split() for line in (out / "red.tr").read_text().splitlines())
    ]


def psand_log(out: Path) -> list[dict]:
    with (out / "psand.log").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for r in rows:
        for k in ("time", "k_cur", "k_prev", "beta", "max_p_old", "max_p_new"):
            r[k] = float(r[k])
    return rows


# --- the rule on hand-set averages ---------------------------------------------------------


def test_knob_defaults(ns_binary):
    script = (
        "set q [new Queue/RED/PSAND]; set r [new Queue/RED]; foreach v {interval_ coef_ gamma_ ktarget_ top_ "
        "bottom_ thresh_ maxthresh_ linterm_ thresh_auto_ gentle_ gentle_follows_max_p_ zero_rule_ kprev_ "
        'adaptive_} {puts "$v [$q set $v]"}; puts "red [$r set gentle_follows_max_p_]"; exit 0'
    )
    proc = subprocess.run([str(ns_binary)], input=script, capture_output=True, text=True, timeout=60)
    values = dict(line.split() for line in proc.stdout.splitlines())
    assert values == {
        "interval_": "0.5",
        "coef_": "1.75",
        "gamma_": "1.5",
        "ktarget_": "10",
        "top_": "0.75",
        "bottom_": "0.01",
        "thresh_": "0",
        "maxthresh_": "20",
        "linterm_": "10",
        "thresh_auto_": "0",
        "gentle_": "1",
        "gentle_follows_max_p_": "1",
        "zero_rule_": "0",
        "kprev_": "0",
        "adaptive_": "0",
        "red": "0",
    }


# Averages that walk Max_p through the formula, the top clamp (12 after 5: beta > 7), the
# bottom clamp (K_cur = 0: beta = 0), K_prev = 0 after a zero average, and back up.
AVERAGES = [6.5, 8.25, 12.0, 12.5, 11.0, 9.0, 7.123456789, 3.0, 0.0, 4.0, 5.5, 10.0, 20.0, 2.0, 2.0]


@pytest.mark.parametrize("zero_rule", [0, 1])
def test_hand_set_averages_follow_algorithm_16(ns_binary, zero_rule):
    got = steps(ns_binary, AVERAGES, {"zero_rule_": zero_rule})
    assert got[0] == (0.0, P0, 0.0)
    expected = psand_rule(AVERAGES, zero_rule=zero_rule)
    assert [p for _, p, _ in got[1:]] == pytest.approx(expected, rel=1e-12, abs=0)
    assert [kprev for _, _, kprev in got[1:]] == AVERAGES  # K_prev <- K_cur after every step
    maxps = [p for _, p, _ in got[1:]]
    assert TOP in maxps and BOTTOM in maxps  # both clamps were exercised
    # the first step (K_prev = 0): skipped, or change_rate 1
    assert maxps[0] == (P0 if zero_rule == 0 else pytest.approx(P0 * COEF * (6.5 / KT) ** GAMMA))
    # after K_cur = 0 (index 8), K_prev = 0 again at index 9
    assert maxps[9] == (maxps[8] if zero_rule == 0 else pytest.approx(max(BOTTOM, maxps[8] * COEF * 0.4**GAMMA)))


def test_other_parameters_and_byte_mode(ns_binary):
    knobs = {"coef_": 1.0, "gamma_": 1.0, "ktarget_": 7, "top_": 0.9, "bottom_": 0.05, "linterm_": 4}
    got = steps(ns_binary, AVERAGES, knobs)
    expected = psand_rule(AVERAGES, p0=0.25, coef=1.0, gamma=1.0, kt=7, top=0.9, bottom=0.05)
    assert [p for _, p, _ in got[1:]] == pytest.approx(expected, rel=1e-12, abs=0)
    # queue_in_bytes_: ave_ is in bytes, K_T and K_prev stay in packets
    in_bytes = [a * 1000 for a in AVERAGES]
    got = steps(ns_binary, in_bytes, {"queue_in_bytes_": 1, "mean_pktsize_": 1000})
    assert [p for _, p, _ in got[1:]] == pytest.approx(psand_rule(AVERAGES), rel=1e-12, abs=0)
    assert [kprev for _, _, kprev in got[1:]] == pytest.approx(AVERAGES, rel=1e-15)


def test_refuses_adaptive_and_bad_thresholds(ns_binary):
    for knobs, word in (({"adaptive_": 1}, "adaptive_"), ({"thresh_": 20}, "maxthresh_")):
        proc = ns(ns_binary, "STEPS", knob_list(knobs), "1")
        assert proc.returncode != 0 and word in proc.stderr


def test_debian_ns_has_no_psand(debian_ns, tmp_path):
    proc = ns(debian_ns, "PSAND", 4, 5.0, 20, tmp_path, "")
    assert proc.returncode != 0
    assert "PSAND" in proc.stderr or "PSAND" in proc.stdout


# --- a real run ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def psand_run(ns_binary, tmp_path_factory) -> Path:
    return run(ns_binary, tmp_path_factory.mktemp("psand"), flows=8, stop=40.0)


def test_run_adapts_every_interval_by_the_rule(psand_run):
    rows = psand_log(psand_run)
    assert [r["time"] for r in rows] == pytest.approx([INTERVAL * (i + 1) for i in range(len(rows))])
    assert len(rows) == 79  # 0.5 .. 39.5 s
    # the chain: each step starts from the previous one's Max_p and K_cur
    assert rows[0]["k_prev"] == 0 and rows[0]["rule"] == "skip" and rows[0]["max_p_old"] == P0
    for prev, row in zip(rows, rows[1:], strict=False):
        assert row["k_prev"] == prev["k_cur"] and row["max_p_old"] == prev["max_p_new"]
    # Max_p rebuilt from the averages alone, by Algorithm 16
    expected = psand_rule([r["k_cur"] for r in rows])
    assert [r["max_p_new"] for r in rows] == pytest.approx(expected, rel=1e-12, abs=0)
    # the run moved Max_p over a range, clamps included
    values = {round(r["max_p_new"], 6) for r in rows}
    assert len(values) > 30 and TOP in values


def test_run_reads_reds_average_and_sets_reds_max_p(psand_run):
    """K_cur is the average RED traced last before the tick; cur_max_p_ changes only at ticks."""
    trace = red_trace(psand_run)
    rows = psand_log(psand_run)
    ticks = {r["time"]: r for r in rows}
    changes = [(t, v) for kind, t, v in trace if kind == "c" and t > 0]
    assert len(changes) > 30
    for t, v in changes:
        assert t in ticks, f"Max_p changed at {t}, between ticks"
        assert v == pytest.approx(ticks[t]["max_p_new"], rel=1e-5)
    averages = [(t, v) for kind, t, v in trace if kind == "a"]
    times = [t for t, _ in averages]
    for row in rows:
        last = averages[bisect.bisect_right(times, row["time"]) - 1][1]
        assert row["k_cur"] == pytest.approx(last, rel=1e-5)


def gentle_check(out: Path, th_min: float, th_max: float, p0: float) -> tuple[int, int, int]:
    """Replay red.tr: every prob1_ RED computed, against Eq. 1.2/1.3.

    red.tr prints with %g (six digits): an average of 15.1821 reads 15.182, which moves a
    gentle-region probability by up to 3e-6; TRACE_ABS allows for it, and the two
    formulas are told apart only where they differ by 1e-3 or more.

    Linear-region values must use the Max_p in force. Returns, over the gentle-region
    values for which the current Max_p and the initial one (p0) give different
    probabilities: how many there are, how many match the current Max_p, how many p0.
    """
    ave, maxp = 0.0, None
    differ = current = initial = 0
    for kind, _, v in red_trace(out):
        if kind == "a":
            ave = v
        elif kind == "c":
            maxp = v
        elif kind == "p":
            if ave < th_max:
                assert v == pytest.approx((ave - th_min) / (th_max - th_min) * maxp, rel=1e-4, abs=TRACE_ABS)
                continue
            with_current = min(1.0, (1 - maxp) * (ave - th_max) / th_max + maxp)
            with_initial = min(1.0, (1 - p0) * (ave - th_max) / th_max + p0)
            if abs(with_current - with_initial) > 1e-3:
                differ += 1
                current += v == pytest.approx(with_current, rel=1e-4, abs=TRACE_ABS)
                initial += v == pytest.approx(with_initial, rel=1e-4, abs=TRACE_ABS)
    return differ, current, initial


def test_psand_gentle_segment_uses_current_max_p(ns_binary, tmp_path):
    # Max_th 6: the average spends time in the gentle region [6, 12)
    out = run(ns_binary, tmp_path, flows=8, stop=40.0, knobs={"maxthresh_": 6})
    differ, current, initial = gentle_check(out, 0, 6, P0)
    assert differ > 100 and current == differ and initial == 0


@pytest.mark.parametrize("kind", ["FLOYD", "FENG"])
def test_ared_gentle_segment_with_and_without_the_knob(ns_binary, tmp_path, kind):
    """Stock ns-2 keeps the initial Max_p in the gentle segment; gentle_follows_max_p_ 1 follows it."""
    p0 = 0.1 if kind == "FLOYD" else 0.02
    stale = run(ns_binary, tmp_path / "stock", kind=kind, flows=30, stop=40.0)
    differ, current, initial = gentle_check(stale, 5, 15, p0)
    assert differ > 20 and initial == differ and current == 0
    follows = run(ns_binary, tmp_path / "knob", kind=kind, flows=30, stop=40.0, knobs={"gentle_follows_max_p_": 1})
    differ, current, initial = gentle_check(follows, 5, 15, p0)
    assert differ > 20 and current == differ and initial == 0


# --- Min_th = 0 ----------------------------------------------------------------------------


def bottleneck_drops(out: Path) -> int:
    rows = (line.split() for line in (out / "packets.tr").read_text().splitlines())
    return sum(1 for w in rows if w[0] == "d" and (int(w[2]), int(w[3])) == (R1, R2))


def test_min_th_zero_drops_at_small_averages(ns_binary, tmp_path):
    """One flow with a window of 14 (the path holds about 11): the average stays below 5 and
    the buffer never fills.

    PSAND's literal Min_th 0 drops there; thresh_auto_ 1 (RED's reading of thresh_ 0,
    max(5, targetdelay * C / 2)) and stock RED with thresh_ 0 do not.
    """
    fixed = {"top_": 0.5, "bottom_": 0.5, "linterm_": 2}  # Max_p held at 0.5
    literal = run(ns_binary, tmp_path / "literal", flows=1, stop=30.0, window=14, knobs=fixed)
    assert max_average(literal) < 2
    assert bottleneck_drops(literal) > 20
    auto = run(ns_binary, tmp_path / "auto", flows=1, stop=30.0, window=14, knobs={**fixed, "thresh_auto_": 1})
    assert max_average(auto) < 5 and bottleneck_drops(auto) == 0
    red = run(
        ns_binary,
        tmp_path / "red",
        kind="RED",
        flows=1,
        stop=30.0,
        window=14,
        knobs={"thresh_": 0, "maxthresh_": 20, "linterm_": 2},
    )
    assert max_average(red) < 5 and bottleneck_drops(red) == 0


def max_average(out: Path) -> float:
    return max(v for kind, _, v in red_trace(out) if kind == "a")
