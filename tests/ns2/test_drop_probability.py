"""ns-2's own drop probability against the thesis's drop functions (Alemu, Ch. 1;
experiments/paper_models/drop_functions.py).

scripts/drop_functions.tcl sets a queue's average by hand (`$q set ave_`), resets the probability to a sentinel
(-1), sends a burst of packets and reads back the average and the probability ns-2 computed at the last arrival.
q_weight_ 1e-12 keeps the average where it was set. Checked:

- Queue/RED strict (Eq. 1.2) and gentle (Eq. 1.3), Fig. 1.1's parameters (5, 15, 0.1): prob1_ at every average
  from Min_th up (ns-2.35's use_mark_p_ true makes it compute 1 above Max_th, or 2 Max_th, rather than force a
  drop); below Min_th nothing is computed and nothing dropped.
- Queue/RED/RIO, Fig. 1.5's parameters (ns-2.35's defaults): In packets (fid 1) by in_prob1_ of in_ave_, Out
  packets (fid 0) by out_prob1_ of ave_ (Avg_total), each Eq. 1.2 with its own thresholds, Out's maximum from
  linterm_; at or above Max a forced drop, no probability. And ns-2.35's RIO does not update Avg_total at an Out
  arrival (why experiment drop_functions, whose flows are all In, cannot sample the Out function).

Each check would fail on a wrong formula: test_a_wrong_formula_is_caught runs the same comparison with mutated
drop functions and expects mismatches.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from experiments.paper_models import drop_functions as df

SCRIPT = Path(__file__).parent / "scripts" / "drop_functions.tcl"
TOL = 1e-5  # ave_ and prob1_ are TracedDoubles, read back with 6 significant digits
BASE = {"limit_": 50, "q_weight_": 1e-12, "bytes_": "false", "queue_in_bytes_": "false", "mean_pktsize_": 1000}
RED_KNOBS = {"thresh_": 5, "maxthresh_": 15, "linterm_": 10}
RIO_KNOBS = {
    "thresh_": 5,
    "maxthresh_": 15,
    "linterm_": 10,
    "gentle_": "false",
    "priority_method_": 1,
    "in_thresh_": 15,
    "in_maxthresh_": 30,
    "in_linterm_": 50,
    "out_thresh_": 5,
    "out_maxthresh_": 15,
}
# a grid, and either side of each threshold: not on one, where the 1e-12 decay of the average while the queue was
# idle (and the 6-digit read-back) would leave the side undecided
AVERAGES = [round(a, 3) for a in np.arange(0.0, 40.0, 0.37)] + [4.9995, 5.0005, 14.9995, 15.0005, 29.9995, 30.0005]
BURST = 6  # the first leaves at once, then qlen 0, 1 (no computation), 2 (first crossing), 3 and 4: computed


def ns(binary: Path, queue: str, knobs: dict, events: list[tuple], cwd: Path) -> dict:
    """{(time, name): value} of every sample (and ('drops', time) -> count)."""
    knob_list = " ".join(f"{k} {v}" for k, v in knobs.items())
    event_list = " ".join("{" + " ".join(map(str, e)) + "}" for e in events)
    proc = subprocess.run(
        [str(binary), str(SCRIPT), queue, knob_list, event_list], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr[-800:]
    out = {}
    for line in proc.stdout.splitlines():
        words = line.split()
        if words[0] == "sample":
            out[(float(words[1]), words[2])] = float(words[3])
        else:
            out[("drops", float(words[1]))] = int(words[2])
    return out


def bursts(who: str, ave: str, prob: str) -> list[tuple]:
    """One burst per average, 0.5 s apart (the queue drains in 50 ms): set the average and the sentinel, send,
    read both back and the drop count."""
    events = []
    for i, a in enumerate(AVERAGES):
        t = 1.0 + 0.5 * i
        events += [
            (t, "set", ave, a),
            (t, "set", prob, -1),
            (t, "drops"),
            (t, "send", who, BURST),
            (t, "sample", ave, prob),
            (t, "drops"),
        ]
    return events


def observed(samples: dict, ave: str, prob: str) -> list[tuple[float, float, float, int]]:
    """(set average, read-back average, probability, drops in the burst) per burst."""
    rows = []
    for i, a in enumerate(AVERAGES):
        t = 1.0 + 0.5 * i
        dropped = samples[("drops", t)] - (samples[("drops", 1.0 + 0.5 * (i - 1))] if i else 0)
        rows.append((a, samples[(t, ave)], samples[(t, prob)], dropped))
    return rows


def mismatches(rows, params: df.Red, computes_above: bool) -> list:
    """Bursts where ns-2 disagrees with the formula: a computed probability off the curve, one computed where
    ns-2 should not compute, or a drop where the formula gives 0."""
    top = (2 if params.gentle else 1) * params.max_th
    bad = []
    for a, read, p, dropped in rows:
        assert read == pytest.approx(a, rel=1e-6, abs=1e-9), "the average moved"
        computed = read >= params.min_th and (computes_above or read < top)
        if computed and abs(p - float(df.red(read, params))) > TOL:
            bad.append((a, p, float(df.red(read, params))))
        if not computed and p != -1:
            bad.append((a, p, "not computed"))
        if float(df.red(read, params)) == 0 and dropped:
            bad.append((a, dropped, "dropped"))
    return bad


@pytest.fixture(scope="module")
def red_rows(ns_binary, tmp_path_factory):
    out = {}
    for gentle in (False, True):
        knobs = {**BASE, **RED_KNOBS, "gentle_": str(gentle).lower()}
        samples = ns(ns_binary, "RED", knobs, bursts("in", "ave_", "prob1_"), tmp_path_factory.mktemp("red"))
        out[gentle] = observed(samples, "ave_", "prob1_")
    return out


@pytest.fixture(scope="module")
def rio_rows(ns_binary, tmp_path_factory):
    knobs = {**BASE, **RIO_KNOBS}
    rows = {}
    for who, ave, prob in (("in", "in_ave_", "in_prob1_"), ("out", "ave_", "out_prob1_")):
        samples = ns(ns_binary, "RED/RIO", knobs, bursts(who, ave, prob), tmp_path_factory.mktemp("rio"))
        rows[who] = observed(samples, ave, prob)
    return rows


@pytest.mark.parametrize("gentle", [False, True])
def test_red_probability_is_eq_1_2_or_1_3(red_rows, gentle):
    params = df.RED_GENTLE if gentle else df.RED_STRICT
    rows = red_rows[gentle]
    assert mismatches(rows, params, computes_above=True) == []
    computed = [r for r in rows if r[2] != -1]
    # the whole function was exercised: the linear part, Max_p at Max_th (gentle) or 1 (strict), 1 at the top
    assert len(computed) > 80 and min(p for _, _, p, _ in computed) < 1e-4 and max(p for _, _, p, _ in computed) == 1
    at = {a: p for a, _, p, _ in rows}
    assert at[4.9995] == -1 and at[5.0005] == pytest.approx(0.1 * 0.0005 / 10, abs=TOL)
    assert at[14.9995] == pytest.approx(0.1 * 9.9995 / 10, abs=TOL)
    assert at[15.0005] == pytest.approx(0.1 + 0.9 * 0.0005 / 15 if gentle else 1.0, abs=TOL)
    assert at[29.9995] == pytest.approx(1 - 0.9 * 0.0005 / 15 if gentle else 1.0, abs=TOL)
    assert at[30.0005] == 1.0


def test_rio_in_and_out_probabilities(rio_rows):
    assert mismatches(rio_rows["in"], df.RIO_IN, computes_above=False) == []
    assert mismatches(rio_rows["out"], df.RIO_OUT, computes_above=False) == []
    for who, params in (("in", df.RIO_IN), ("out", df.RIO_OUT)):
        inside = [p for a, _, p, _ in rio_rows[who] if params.min_th <= a < params.max_th]
        assert len(inside) > 20 and max(inside) == pytest.approx(params.max_p, abs=2e-3)
        # at or above Max: forced drops, no probability computed
        above = [(p, d) for a, _, p, d in rio_rows[who] if a >= params.max_th]
        assert above and all(p == -1 and d > 0 for p, d in above)


def test_rio_out_arrivals_leave_avg_total_alone(ns_binary, tmp_path):
    """ns-2.35's RIO runs the estimator only for In packets (rio.cc): Out arrivals keep Avg_total; In ones move
    it. So runs whose packets are all Out never see the Out function leave 0."""
    knobs = {**BASE, **RIO_KNOBS, "q_weight_": 0.1}
    events = [
        (1.0, "set", "ave_", 12.0),
        (1.0, "send", "out", 5),
        (1.0, "sample", "ave_"),
        (2.0, "set", "ave_", 12.0),
        (2.0, "send", "in", 5),
        (2.0, "sample", "ave_"),
    ]
    samples = ns(ns_binary, "RED/RIO", knobs, events, tmp_path)
    assert samples[(1.0, "ave_")] == 12.0
    assert samples[(2.0, "ave_")] < 11.0


def wrong_gentle(k, params: df.Red):
    """A plausible misreading of Eq. 1.3: the gentle slope over Max_th - Min_th instead of Max_th."""
    k = np.asarray(k, dtype=float)
    upper = (1 - params.max_p) * (k - params.max_th) / (params.max_th - params.min_th) + params.max_p
    return np.where((k >= params.max_th) & (k < 2 * params.max_th), np.minimum(upper, 1.0), ORIGINAL(k, params))


def no_jump(k, params: df.Red):
    """Strict RED misread as staying at Max_p from Max_th on (no jump to 1)."""
    k = np.asarray(k, dtype=float)
    return np.where(k >= params.max_th, params.max_p, ORIGINAL(k, params))


ORIGINAL = df.red


@pytest.mark.parametrize("mutant", ["gentle_slope", "no_jump", "out_linterm", "thresholds_swapped"])
def test_a_wrong_formula_is_caught(red_rows, rio_rows, monkeypatch, mutant):
    """The same comparison with a wrong drop function finds mismatches."""
    if mutant == "gentle_slope":
        monkeypatch.setattr(df, "red", wrong_gentle)
        bad = mismatches(red_rows[True], df.RED_GENTLE, computes_above=True)
    elif mutant == "no_jump":
        monkeypatch.setattr(df, "red", no_jump)
        bad = mismatches(red_rows[False], df.RED_STRICT, computes_above=True)
    elif mutant == "out_linterm":  # RIO Out with ns-2.35's out_linterm_ default 5, which the C++ never reads
        bad = mismatches(rio_rows["out"], replace(df.RIO_OUT, max_p=1 / 5), computes_above=False)
    else:  # RIO In with the Out thresholds
        bad = mismatches(rio_rows["in"], replace(df.RIO_IN, min_th=5, max_th=15), computes_above=False)
    assert len(bad) > 5
