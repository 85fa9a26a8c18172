"""PSAND's threshold modes (patch 0018): Min_th and Max_th adapted by Table 3.2's rows.

Alemu's thesis, Ch. 3 §3.3: at every PSAND step (0.5 s), delta = K_cur - K_prev and
    1: Max -= delta           2: Max += delta           (Min fixed)
    3: Min += delta, Max -= delta     4: Min -= delta, Max += delta   (symmetric)
    5: Min += delta, Max += delta     6: Min -= delta, Max -= delta
    7: Pseudo Drop Tail, Min = Max = K_T: every arrival dropped once the average reaches K_T
    8: Sandwich: as 3, and Max_p *= (Max' - Min') / (Max - Min) instead of Algorithm 16
Min stays in [0, K_T], Max in [K_T, B] (B the buffer, limit_); thresh_clamp_ 1 moves the
symmetric rows' thresholds by one common step shrunk to fit. Nothing moves at the first
step after reset().

Every expectation is computed here from those rules (and Algorithm 16 for Max_p, from
test_psand.py): from hand-set averages (`$q adapt`, no simulation), and in runs of the
thesis's dumbbell from the averages PSAND logged and the packets and averages RED traced.
Scenario: scripts/psand_thresholds.tcl (and scripts/psand_dumbbell.tcl for byte identity).
"""

from __future__ import annotations

import csv
import math
import subprocess
from pathlib import Path

import pytest
from test_psand import SCRIPT as DUMBBELL
from test_psand import TRACE_ABS, psand_rule

SCRIPT = Path(__file__).parent / "scripts" / "psand_thresholds.tcl"
KT, B, TOP, BOTTOM, P0, INTERVAL = 10.0, 35.0, 0.75, 0.01, 0.1, 0.5
START = (0.0, 20.0)  # PSAND's thresh_ and maxthresh_ (Table 2.1)
MOVING = [1, 2, 3, 4, 5, 6, 8]  # the rows that move thresholds
SYMMETRIC = [3, 4, 8]


def knob_list(knobs: dict) -> str:
    return " ".join(f"{k} {v}" for k, v in knobs.items())


def ns(binary: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=300)


STEP_FIELDS = ("th_min", "th_max", "ave", "max_p", "kprev", "thresh", "maxthresh", "thresh_queue", "maxthresh_queue")


def steps(binary: Path, knobs: dict, sequence: list) -> list[dict]:
    """The queue's state after reset, then after each step (a number: ave_ set, `adapt`)."""
    proc = ns(binary, "STEPS", knob_list(knobs), " ".join(str(s) for s in sequence))
    assert proc.returncode == 0, proc.stderr[-800:]
    rows = []
    for line in proc.stdout.splitlines():
        w = line.split()
        rows.append({"step": w[0], **{k: float(v) for k, v in zip(STEP_FIELDS, w[1:], strict=True)}})
    return rows


# --- the rules, in Python --------------------------------------------------------------


def clamp(x: float, lo: float, hi: float) -> float:
    return max(lo, min(x, hi))


def move(mode: int, lo: float, hi: float, delta: float, rule: int, kt=KT, b=B) -> tuple[float, float]:
    """One step of Table 3.2's row `mode` from (Min, Max); rule = thresh_clamp_."""
    if mode == 1:
        return lo, clamp(hi - delta, kt, b)
    if mode == 2:
        return lo, clamp(hi + delta, kt, b)
    if mode in SYMMETRIC:
        s = -delta if mode == 4 else delta  # Min += s, Max -= s
        if rule == 1:  # one step for both, shrunk so that both stay in range
            s = clamp(s, max(-lo, hi - b), min(kt - lo, hi - kt))
        return clamp(lo + s, 0.0, kt), clamp(hi - s, kt, b)
    if mode == 5:
        return clamp(lo + delta, 0.0, kt), clamp(hi + delta, kt, b)
    if mode == 6:
        return clamp(lo - delta, 0.0, kt), clamp(hi - delta, kt, b)
    return lo, hi  # 0 and 7: fixed


def sandwich(p: float, old: tuple[float, float], new: tuple[float, float], top=TOP, bottom=BOTTOM) -> float:
    """Row 8's Max_p: times (Max' - Min') / (Max - Min), clamped; an old interval of 0 skips."""
    width = old[1] - old[0]
    return p if width == 0 else max(bottom, min(p * (new[1] - new[0]) / width, top))


def model(averages, mode, rule=0, start=START, kt=KT, b=B, p0=P0, top=TOP, bottom=BOTTOM):
    """(Min, Max, Max_p) after each step on hand-set averages (packets)."""
    lo, hi = (kt, kt) if mode == 7 else start
    out, p = [], p0
    algorithm16 = psand_rule(averages, p0=p0, kt=kt, top=top, bottom=bottom)
    for i, k in enumerate(averages):
        old = (lo, hi)
        if i > 0:  # the first step after reset() has no K_prev: nothing moves
            lo, hi = move(mode, lo, hi, k - averages[i - 1], rule, kt, b)
            if mode == 8:
                p = sandwich(p, old, (lo, hi), top, bottom)
        out.append((lo, hi, p if mode == 8 else algorithm16[i]))
    return out


# Averages with swings of up to 33 packets: every clamp is reached, K_prev = 0 is a real
# average (indices 6, 7), and the thresholds meet at K_T in rows 3, 4, 8 (rule 0).
AVERAGES = [6.0, 9.5, 14.0, 30.0, 31.5, 2.0, 0.0, 0.0, 3.25, 27.0, 26.0, 10.0, 7.123456789, 0.5, 35.0, 12.0]


def flat(pairs) -> list[float]:
    """(Min, Max) pairs as one list, for pytest.approx."""
    return [x for pair in pairs for x in pair[:2]]


def hits(rows) -> set:
    """Which clamps the thresholds reached: ("min" | "max", value)."""
    return {("min", r[0]) for r in rows if r[0] in (0.0, KT)} | {("max", r[1]) for r in rows if r[1] in (KT, B)}


# --- knobs -------------------------------------------------------------------------------


def test_knob_defaults(ns_binary):
    script = (
        'set q [new Queue/RED/PSAND]; puts "[$q set thresh_mode_] [$q set thresh_clamp_]"; '
        "set r [new Queue/RED]; puts [catch {$r set thresh_mode_}]; exit 0"
    )
    proc = subprocess.run([str(ns_binary)], input=script, capture_output=True, text=True, timeout=60)
    assert proc.stdout.split("\n")[:2] == ["0 0", "1"]  # RED itself has no such knob


def test_debian_ns_has_no_threshold_modes(debian_ns, ns_binary):
    script = "puts [Queue/RED/PSAND set thresh_mode_]; puts [[new Queue/RED/PSAND] thresh-state]; exit 0"
    ours = subprocess.run([str(ns_binary)], input=script, capture_output=True, text=True, timeout=60)
    assert ours.returncode == 0 and ours.stdout.split("\n")[:2] == ["0", "0 20"]
    theirs = subprocess.run([str(debian_ns)], input=script, capture_output=True, text=True, timeout=60)
    assert "0 20" not in theirs.stdout
    assert "PSAND" in theirs.stderr + theirs.stdout
    proc = ns(debian_ns, "STEPS", "thresh_mode_ 3", "5 6")
    assert proc.returncode != 0


@pytest.mark.parametrize(
    "knobs, words",
    [
        ({"thresh_mode_": 9}, "thresh_mode_ (9) must be 0..8"),
        ({"thresh_mode_": -1}, "thresh_mode_ (-1) must be 0..8"),
        ({"thresh_clamp_": 2}, "thresh_clamp_ (2) must be 0 or 1"),
        ({"thresh_clamp_": -1}, "thresh_clamp_ (-1) must be 0 or 1"),
        ({"thresh_mode_": 7}, "needs gentle_ false"),  # PSAND's default gentle_ true
        ({"thresh_mode_": 3, "thresh_": 12}, "thresh_ (12) must be in [0, ktarget_ 10]"),
        ({"thresh_mode_": 5, "maxthresh_": 40}, "maxthresh_ (40) must be in [ktarget_ 10, limit_ 35]"),
        ({"thresh_mode_": 1, "maxthresh_": 8}, "maxthresh_ (8) must be in [ktarget_ 10, limit_ 35]"),
        ({"thresh_mode_": 3, "thresh_": 20}, "maxthresh_ (20) must be above thresh_ (20)"),  # PSAND's own
        ({"thresh_mode_": 2, "ktarget_": 0}, "needs ktarget_ above 0"),
    ],
)
def test_refusals(ns_binary, knobs, words):
    proc = ns(ns_binary, "STEPS", knob_list(knobs), "1")
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Queue/RED/PSAND: ") and words in lines[0]


def test_what_is_not_refused(ns_binary):
    # mode 0 keeps PSAND's only check; mode 7 overrides both thresholds
    pdt = {"thresh_mode_": 7, "gentle_": 0, "thresh_": 20, "maxthresh_": 20}
    for knobs in ({"thresh_": 12, "maxthresh_": 40}, pdt):
        assert ns(ns_binary, "STEPS", knob_list(knobs), "1").returncode == 0


# --- hand-set averages -------------------------------------------------------------------


def test_mode_0_keeps_the_thresholds(ns_binary):
    got = steps(ns_binary, {"thresh_clamp_": 1}, AVERAGES)
    assert {(r["th_min"], r["th_max"], r["thresh"], r["maxthresh"]) for r in got} == {(*START, *START)}
    assert [r["max_p"] for r in got[1:]] == pytest.approx(psand_rule(AVERAGES), rel=1e-12, abs=0)


@pytest.mark.parametrize("start", [START, (8.0, 30.0)], ids=["0-20", "8-30"])
@pytest.mark.parametrize("rule", [0, 1])
@pytest.mark.parametrize("mode", MOVING)
def test_hand_set_averages_move_the_thresholds(ns_binary, mode, rule, start):
    knobs = {"thresh_mode_": mode, "thresh_clamp_": rule, "thresh_": start[0], "maxthresh_": start[1]}
    if mode == 8:
        knobs["linterm_"] = 1  # "we initialize Max_p to 1"
    got = steps(ns_binary, knobs, AVERAGES)
    assert (got[0]["th_min"], got[0]["th_max"]) == start
    expected = model(AVERAGES, mode, rule, start, p0=1.0 if mode == 8 else P0)
    assert flat((r["th_min"], r["th_max"]) for r in got[1:]) == pytest.approx(flat(expected), rel=1e-13)
    assert [r["max_p"] for r in got[1:]] == pytest.approx([e[2] for e in expected], rel=1e-12, abs=0)
    # `$q set thresh_` / `maxthresh_` read the current values (what a monitor samples)
    for r in got:
        assert (r["thresh"], r["maxthresh"]) == (r["th_min"], r["th_max"])
        assert (r["thresh_queue"], r["maxthresh_queue"]) == (r["th_min"], r["th_max"])  # in packets here
    assert [r["kprev"] for r in got[1:]] == AVERAGES
    # the thresholds stay in range, and the clamps were reached (exactly)
    assert all(0 <= r["th_min"] <= KT <= r["th_max"] <= B for r in got)
    reached = hits([(r["th_min"], r["th_max"]) for r in got])
    assert reached == hits(expected)
    if rule == 0 or mode not in SYMMETRIC:
        bounds = {("max", KT), ("max", B)} | ({("min", 0.0), ("min", KT)} if mode not in (1, 2) else set())
        assert bounds <= reached
    else:  # one common step: the midpoint stays, and the range still binds
        mid = (start[0] + start[1]) / 2
        assert all(r["th_min"] + r["th_max"] == pytest.approx(2 * mid, rel=1e-13) for r in got)
        assert ({("min", 0.0), ("min", KT), ("max", KT)} if start == START else {("min", KT), ("max", B)}) <= reached


@pytest.mark.parametrize("mode", SYMMETRIC)
def test_the_two_clamp_rules_differ(ns_binary, mode):
    got = {rule: steps(ns_binary, {"thresh_mode_": mode, "thresh_clamp_": rule}, AVERAGES) for rule in (0, 1)}
    pairs = {rule: [(r["th_min"], r["th_max"]) for r in rows] for rule, rows in got.items()}
    assert pairs[0] != pairs[1]
    assert any(lo + hi != 20.0 for lo, hi in pairs[0])  # rule 0 loses the symmetry at a clamp


def test_first_step_moves_nothing_and_k_prev_zero_is_real(ns_binary):
    # After reset: 5 (first: no move), 8 (delta 3), 0 (delta -8), 4 (K_prev = 0, delta 4)
    got = steps(ns_binary, {"thresh_mode_": 2}, [5.0, 8.0, 0.0, 4.0, "R", 7.0, 9.0])
    assert [r["th_max"] for r in got] == [20.0, 20.0, 23.0, 15.0, 19.0, 20.0, 20.0, 22.0]
    # a first step with an average of 0 does not move either
    got = steps(ns_binary, {"thresh_mode_": 5}, [0.0, 0.0, 2.5])
    assert [(r["th_min"], r["th_max"]) for r in got] == [START, START, START, (2.5, 22.5)]


def test_reset_restores_the_configured_thresholds(ns_binary):
    seq = [5.0, 9.0, 12.5, "R", "-", 6.0, 4.0, "K:thresh_:2", "K:maxthresh_:30", "R", 3.0, 8.0, "R"]
    got = steps(ns_binary, {"thresh_mode_": 3}, seq)
    assert [(r["th_min"], r["th_max"]) for r in got] == [
        START,
        START,
        (4.0, 16.0),
        (7.5, 12.5),  # reset, 5 (first), 9, 12.5
        START,
        START,
        START,
        (0.0, 22.0),  # R: the configured ones again; -, 6 (first), 4
        (2.0, 22.0),
        (2.0, 30.0),  # Tcl writes thresh_, maxthresh_: a new configuration
        (2.0, 30.0),
        (2.0, 30.0),
        (7.0, 25.0),
        (2.0, 30.0),  # R keeps it; 3 (first), 8; R
    ]
    assert got[13]["max_p"] == P0  # and Max_p from 1/linterm_ again


def test_limit_is_the_buffer_capacity(ns_binary):
    got = steps(ns_binary, {"thresh_mode_": 2, "limit_": 25}, AVERAGES)
    expected = model(AVERAGES, 2, b=25.0)
    assert [r["th_max"] for r in got[1:]] == pytest.approx([e[1] for e in expected], rel=1e-13)
    assert max(r["th_max"] for r in got) == 25.0


def test_byte_mode(ns_binary):
    """queue_in_bytes_: ave_ in bytes; thresholds, K_T and the clamps stay in packets."""
    knobs = {"thresh_mode_": 4, "queue_in_bytes_": 1, "mean_pktsize_": 1000}
    got = steps(ns_binary, knobs, [a * 1000 for a in AVERAGES])
    expected = model(AVERAGES, 4)
    assert flat((r["th_min"], r["th_max"]) for r in got[1:]) == pytest.approx(flat(expected), rel=1e-12)
    for r in got:  # RED's thresholds in bytes follow
        assert (r["thresh_queue"], r["maxthresh_queue"]) == (r["th_min"] * 1000, r["th_max"] * 1000)


def test_pseudo_drop_tail_thresholds(ns_binary):
    knobs = {"thresh_mode_": 7, "gentle_": 0}
    got = steps(ns_binary, knobs, [*AVERAGES, "K:thresh_mode_:0", "R"])
    assert {(r["th_min"], r["th_max"], r["thresh"], r["maxthresh"]) for r in got[:-1]} == {(KT, KT, KT, KT)}
    # Max_p still follows Algorithm 16 (no effect: no average is in a linear segment)
    assert [r["max_p"] for r in got[1 : len(AVERAGES) + 1]] == pytest.approx(psand_rule(AVERAGES), rel=1e-12)
    assert (got[-1]["th_min"], got[-1]["th_max"]) == START  # mode 0 again: the configured ones
    got = steps(ns_binary, {**knobs, "ktarget_": 7}, [3.0, 9.0])
    assert {(r["th_min"], r["th_max"]) for r in got} == {(7.0, 7.0)}


def test_sandwich_keeps_the_angle(ns_binary):
    """Row 8 without clamps on Max_p: Max_p / (Max - Min) stays 1/20, the drop function's slope."""
    averages = [6.0, 7.5, 9.0, 8.0, 11.0, 6.5, 4.0, 9.75]  # the interval never closes
    got = steps(ns_binary, {"thresh_mode_": 8, "thresh_clamp_": 1, "linterm_": 1, "top_": 1, "bottom_": 1e-4}, averages)
    assert got[0]["max_p"] == 1.0 and got[1]["max_p"] == 1.0  # the first step: no change
    assert len({r["th_max"] for r in got}) > 5
    for r in got:
        assert r["max_p"] == pytest.approx((r["th_max"] - r["th_min"]) / 20.0, rel=1e-13)
    # and Max_p goes down as the average goes up, unlike adaptive RED (§3.3)
    assert got[3]["max_p"] < got[2]["max_p"] < got[1]["max_p"]


def test_sandwich_skips_an_empty_interval(ns_binary):
    # 5 (first) -> 10 (delta 5: Min 5, Max 15, beta 10/20) -> 20 (delta 10: both clamped to
    # K_T, beta 0: bottom_) -> 18 (Min 8, Max 12; old interval 0: Max_p kept) -> 16 (beta 8/4)
    # -> 17 (beta 6/8)
    got = steps(ns_binary, {"thresh_mode_": 8, "linterm_": 1, "top_": 1}, [5.0, 10.0, 20.0, 18.0, 16.0, 17.0])
    assert [(r["th_min"], r["th_max"]) for r in got] == [
        START,
        START,
        (5.0, 15.0),
        (10.0, 10.0),
        (8.0, 12.0),
        (6.0, 14.0),
        (7.0, 13.0),
    ]
    assert [r["max_p"] for r in got] == pytest.approx([1.0, 1.0, 0.5, BOTTOM, BOTTOM, BOTTOM * 2, BOTTOM * 1.5])


# --- runs --------------------------------------------------------------------------------


def run(binary: Path, out: Path, knobs: dict, flows=100, stop=30.0, window=20) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    proc = ns(binary, "RUN", flows, stop, window, out, knob_list(knobs))
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stderr == "", proc.stderr[-800:]
    return out


def thresh_log(out: Path) -> list[dict]:
    with (out / "thresh.log").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for r in rows:
        for k, v in r.items():
            if k != "rule":
                r[k] = float(v)
    return rows


def arrivals(out: Path) -> list[dict]:
    """Every arrival at the bottleneck, with RED's state after it: the "+" record, then the
    RED records written for it (ave_ "a", curq_ "Q", prob1_ "p"; each only when its value
    changes, so the last one seen is current), then "d" if it was dropped."""
    ave, curq, found, cur = 0.0, 0, [], None
    for line in (out / "trace.tr").read_text().splitlines():
        w = line.split()
        if w[0] in "apcQ":
            if w[0] == "a":
                ave = float(w[2])
            elif w[0] == "Q":
                curq = int(w[2])
            elif w[0] == "p" and cur is not None:
                cur["p"] = float(w[2])
            continue
        if cur is not None:
            found.append({**cur, "ave": ave, "curq": curq, "dropped": w[0] == "d" and w[11] == cur["uid"]})
            cur = None
        if w[0] == "+":
            cur = {"t": float(w[1]), "uid": w[11], "p": None}
    return found


def in_force(rows: list[dict], start, p0=P0):
    """(Min, Max, Max_p) in force at time t, from the threshold log (steps at the ticks)."""
    times = [r["time"] for r in rows]

    def at(t: float):
        i = sum(1 for x in times if x < t)
        if i < len(times) and abs(times[i] - t) < 1e-6:
            return None  # an arrival at a tick (the trace rounds to 1 us): order unknown
        return (*start, p0) if i == 0 else (rows[i - 1]["min_new"], rows[i - 1]["max_new"], rows[i - 1]["max_p"])

    return at


def red_prob(ave: float, lo: float, hi: float, p: float, pg: float) -> float:
    """RED's prob1_ in gentle mode: Eq. 1.2 on [Min, Max), Eq. 1.3 (from pg to 1) on [Max, 2 Max)."""
    if ave >= hi:
        return min(1.0, (1 - pg) * (ave - hi) / hi + pg)
    return (ave - lo) / (hi - lo) * p


RUN_CASES = {  # name: (mode, knobs)
    "1": (1, {}),
    "2": (2, {}),
    "3": (3, {}),
    "4": (4, {}),
    "5": (5, {}),
    "6": (6, {}),
    "8": (8, {"linterm_": 1}),
    "3-clamp1": (3, {"thresh_clamp_": 1}),
    "4-clamp1": (4, {"thresh_clamp_": 1}),
    "3-bytes": (3, {"queue_in_bytes_": 1}),
    "1-gentle-from-reset": (1, {"gentle_follows_max_p_": 0}),
}


@pytest.fixture(scope="module")
def runs(ns_binary, tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("thresholds")
    return {
        name: run(ns_binary, base / name, {"thresh_mode_": mode, "thresh_clamp_": 0, **knobs})
        for name, (mode, knobs) in RUN_CASES.items()
    }


@pytest.mark.parametrize("name", RUN_CASES)
def test_run_steps_follow_the_row(runs, name):
    mode, knobs = RUN_CASES[name]
    rule = knobs.get("thresh_clamp_", 0)
    rows = thresh_log(runs[name])
    assert [r["time"] for r in rows] == pytest.approx([INTERVAL * (i + 1) for i in range(len(rows))])
    assert len(rows) == 59
    first = rows[0]
    assert first["rule"] == "first" and first["delta"] == 0 and (first["min_new"], first["max_new"]) == START
    assert (first["min_old"], first["max_old"]) == START
    for prev, r in zip(rows, rows[1:], strict=False):
        assert r["rule"] == "move" and r["k_prev"] == prev["k_cur"]
        assert (r["min_old"], r["max_old"]) == (prev["min_new"], prev["max_new"])
        assert r["delta"] == r["k_cur"] - r["k_prev"]
        assert (r["min_new"], r["max_new"]) == pytest.approx(
            move(mode, r["min_old"], r["max_old"], r["delta"], rule), rel=1e-14
        )
    # Max_p: Algorithm 16 on the logged averages, or Sandwich's beta
    if mode == 8:
        p, expected = 1.0, []
        for r in rows:
            p = p if r["rule"] == "first" else sandwich(p, (r["min_old"], r["max_old"]), (r["min_new"], r["max_new"]))
            expected.append(p)
        # psand-log keeps its columns: beta is Sandwich's, the rule "sandwich" ("skip" at the first step)
        with (runs[name] / "psand.log").open() as f:
            plog = list(csv.DictReader(f, delimiter="\t"))
        assert [r["rule"] for r in plog] == ["skip"] + ["sandwich"] * (len(rows) - 1)
        widths = [r["max_new"] - r["min_new"] for r in rows]
        assert [float(r["beta"]) for r in plog[1:]] == pytest.approx(
            [new / old for old, new in zip(widths, widths[1:], strict=False)], rel=1e-14
        )
    else:
        expected = psand_rule([r["k_cur"] for r in rows])
    assert [r["max_p"] for r in rows] == pytest.approx(expected, rel=1e-12, abs=0)
    # the thresholds moved, over a range
    pairs = {(r["min_new"], r["max_new"]) for r in rows}
    assert len(pairs) > 40
    assert max(r["max_new"] for r in rows) - min(r["max_new"] for r in rows) > 8
    if mode not in (1, 2):
        assert max(r["min_new"] for r in rows) - min(r["min_new"] for r in rows) > 5
    # a monitor reading `$q set thresh_` / `maxthresh_` between the ticks sees the values in force
    at = in_force(rows, START)
    samples = [tuple(map(float, line.split())) for line in (runs[name] / "samples.tr").read_text().splitlines()]
    assert len(samples) == 300
    for t, lo, hi in samples:
        assert (lo, hi) == at(t)[:2]


@pytest.mark.parametrize("name", RUN_CASES)
def test_run_drops_follow_the_moved_thresholds(runs, name):
    """RED's drop probability (prob1_) at every arrival it traced, from the thresholds and
    Max_p in force (Eq. 1.2, and Eq. 1.3 above Max_th); no early drop below Min_th."""
    mode, knobs = RUN_CASES[name]
    scale = 1000.0 if knobs.get("queue_in_bytes_") else 1.0  # RED's ave_ in bytes
    follows = knobs.get("gentle_follows_max_p_", 1)
    p_gentle0 = 1.0 if mode == 8 else P0  # Max_p at reset()
    at = in_force(thresh_log(runs[name]), START, p_gentle0)
    checked = moved = gentle = early = 0
    for a in arrivals(runs[name]):
        state = at(a["t"])
        if state is None:
            continue
        lo, hi, p = state
        ave = a["ave"] / scale
        if a["dropped"] and a["curq"] < B * scale:  # not a full buffer: RED's early drop
            assert ave >= lo - 1e-4 and a["curq"] > 1
            early += 1
        if a["p"] is None or min(abs(ave - hi), abs(ave - lo)) < 1e-3:
            continue
        pg = p if follows else p_gentle0
        expected = red_prob(ave, lo, hi, p, pg)
        assert ave >= lo
        # red.tr prints the average with %g: up to half a unit of its sixth digit, times the slope
        slope = (1 - pg) / hi if ave >= hi else p / (hi - lo)
        tolerance = TRACE_ABS + slope * 0.5 * 10 ** (math.floor(math.log10(ave)) - 5)
        assert a["p"] == pytest.approx(expected, rel=1e-4, abs=tolerance), (a, state)
        checked += 1
        gentle += ave >= hi
        # with the starting thresholds RED would have computed another value
        stale = red_prob(ave, *START, p, pg)
        moved += abs(stale - expected) > 1e-3
    assert checked > 5000 and moved > checked / 2 and gentle > 200 and early > 1000


def test_run_gentle_segment_after_a_move_without_follow(runs):
    """gentle_follows_max_p_ false: RED's gentle segment keeps the Max_p of reset() but is drawn
    over the current [Max_th, 2 Max_th) (v_c recomputed with Max_th)."""
    at = in_force(thresh_log(runs["1-gentle-from-reset"]), START)
    n = 0
    for a in arrivals(runs["1-gentle-from-reset"]):
        state = at(a["t"])
        if state is None or a["p"] is None or a["ave"] < state[1] + 1e-3 or state[1] == 20.0:
            continue
        hi = state[1]
        current = min(1.0, (1 - P0) * (a["ave"] - hi) / hi + P0)
        old_slope = min(1.0, (1 - P0) * a["ave"] / 20.0 + 2 * P0 - 1)  # v_c of Max_th 20
        assert a["p"] == pytest.approx(current, rel=1e-4, abs=TRACE_ABS)
        n += abs(current - old_slope) > 1e-3
    assert n > 500


def test_run_mode_0_keeps_the_thresholds(ns_binary, tmp_path):
    out = run(ns_binary, tmp_path, {"thresh_clamp_": 1})
    rows = thresh_log(out)
    assert len(rows) == 59 and rows[0]["rule"] == "first" and {r["rule"] for r in rows[1:]} == {"fixed"}
    assert {(r["min_old"], r["max_old"], r["min_new"], r["max_new"]) for r in rows} == {(*START, *START)}
    assert {line for line in (out / "samples.tr").read_text().splitlines() if not line.endswith(" 0 20")} == set()
    assert [r["max_p"] for r in rows] == pytest.approx(psand_rule([r["k_cur"] for r in rows]), rel=1e-12)


def test_run_mode_0_is_byte_identical_to_psand_without_the_knob(ns_binary, tmp_path):
    outputs = {}
    for name, knobs in (("unset", ""), ("zero", "thresh_mode_ 0 thresh_clamp_ 1")):
        out = tmp_path / name
        out.mkdir()
        proc = subprocess.run(
            [str(ns_binary), str(DUMBBELL), "PSAND", "8", "20.0", "20", str(out), knobs],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-800:]
        outputs[name] = {f: (out / f).read_bytes() for f in ("packets.tr", "red.tr", "psand.log")}
    assert outputs["unset"] == outputs["zero"]
    assert len(outputs["zero"]["packets.tr"]) > 100_000


def test_run_pseudo_drop_tail(ns_binary, tmp_path):
    """Row 7: every arrival that finds the average at K_T or above (and more than one packet
    queued, ns-2 RED's condition for any drop) is dropped; below K_T none is, unless the
    buffer is full."""
    out = run(ns_binary, tmp_path, {"thresh_mode_": 7, "gentle_": 0})
    rows = thresh_log(out)
    assert {(r["min_new"], r["max_new"]) for r in rows} == {(KT, KT)}
    assert {r["rule"] for r in rows[1:]} == {"fixed"}
    counts = {"above": 0, "above_short": 0, "below": 0}
    for a in arrivals(out):
        if abs(a["ave"] - KT) < 1e-4:
            continue  # red.tr's %g cannot tell
        if a["ave"] > KT:
            short = a["curq"] <= 1
            assert a["dropped"] != short, a
            counts["above_short" if short else "above"] += 1
        else:
            assert a["dropped"] == (a["curq"] >= B), a
            counts["below"] += 1
    assert counts["above"] > 1000 and counts["below"] > 2000 and counts["above_short"] > 0
