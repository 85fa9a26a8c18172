"""The verdict engine at its edges: missing values, uneven seeds, levels with too few values,
exact tolerances, the missing path of every kind, and how cells combine into one verdict."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiments.config.tolerances import within
from experiments.verdicts.claims import combine, evaluate, judge
from experiments.verdicts.stats import ci95

NAN = math.nan


def table(rows):
    return pd.DataFrame(rows, columns=["queue", "n", "seed", "scope", "metric", "value"])


def level_rows(queue, values, n=1, metric="m"):
    return [(queue, n, seed, "all", metric, v) for seed, v in enumerate(values, 1)]


BASE = {"id": "c", "source": "T", "experiment": "e", "metric": "m"}
VALUE = {**BASE, "kind": "value", "expected": 10.0, "pass": {"rel": 0.1}, "drift": {"rel": 0.3}}
EXTREME = {**BASE, "kind": "extreme", "axis": "queue", "level": "PI", "extreme": "min"}
COMPARE = {**BASE, "kind": "compare", "axis": "queue", "level": "PI", "relation": "less"}
BOUND = {**BASE, "kind": "bound", "bound": "below", "threshold": 5.0, "drift_threshold": 6.0}
NEAREST = {**BASE, "kind": "nearest", "axis": "queue", "level": "MIX", "nearest": "PI", "among": ["PI", "DT"]}
RATIO = {
    **BASE,
    "kind": "ratio",
    "axis": "queue",
    "level": "PI",
    "baseline": "DT",
    "expected": 0.5,
    "pass": {"abs": 0.1},
    "drift": {"abs": 0.2},
}
AXES = ["queue", "n"]


# --- missing values and uneven seeds --------------------------------------------------------------------


def test_ci95_ignores_missing_values_in_n():
    """A NaN counted in n (but skipped by the standard deviation) made the interval too narrow."""
    assert ci95(pd.Series([1.0, 3.0, NAN])) == pytest.approx(ci95(pd.Series([1.0, 3.0])))
    assert math.isnan(ci95(pd.Series([1.0, NAN])))


@pytest.mark.parametrize("claim", [VALUE, BOUND], ids=["value", "bound"])
def test_tolerance_kinds_count_only_measured_values(claim):
    rows = level_rows("PI", [4.0, NAN, 4.2, NAN])
    (verdict,) = evaluate({**claim, "where": {"queue": "PI"}}, table(rows), AXES)
    assert verdict.seeds == 2


def test_ordering_kinds_use_the_measured_values_of_each_level():
    """PI's NaN runs must not widen or narrow its interval; the seeds column is the smallest level's count."""
    rows = level_rows("PI", [1.0, 1.1, NAN, 0.9]) + level_rows("DT", [5.0, 5.1, 4.9, 5.0, 5.2])
    for claim in (EXTREME, COMPARE):
        (verdict,) = evaluate(claim, table(rows), AXES)
        assert (verdict.verdict, verdict.seeds) == ("pass", 3), claim["kind"]


def test_uneven_seed_counts_per_level_judge_each_level_on_its_own_values():
    rows = level_rows("PI", [1.0, 1.2]) + level_rows("DT", [5.0, 5.1, 4.9, 5.0, 5.2, 5.1, 4.8])
    (verdict,) = evaluate(COMPARE, table(rows), AXES)
    assert (verdict.verdict, verdict.seeds) == ("pass", 2)
    (verdict,) = evaluate(RATIO, table(rows), AXES)
    assert verdict.measured.startswith(f"{1.1 / 5.014285714285714 - 1:+.4f}")


# --- one rule for a level with too few values --------------------------------------------------------


def test_extreme_with_a_single_value_runner_up_is_drift_not_pass():
    """The runner-up's interval is NaN; 'intervals apart' cannot be shown, so the verdict is capped at drift."""
    rows = level_rows("PI", [1.0, 1.1, 0.9]) + level_rows("DT", [5.0])
    (verdict,) = evaluate(EXTREME, table(rows), AXES)
    assert verdict.verdict == "drift"


def test_compare_with_a_single_value_level_is_drift_not_pass():
    rows = level_rows("PI", [1.0, 1.1, 0.9]) + level_rows("DT", [5.0])
    (verdict,) = evaluate(COMPARE, table(rows), AXES)
    assert verdict.verdict == "drift"


@pytest.mark.parametrize("single", ["PI", "DT", "MIX"])
def test_nearest_with_a_single_value_level_is_drift_whichever_level_it_is(single):
    """max() kept or dropped a NaN interval depending on argument order; the rule must not."""
    values = {"MIX": [1.0, 1.1, 0.9], "PI": [1.2, 1.3, 1.1], "DT": [9.0, 9.1, 8.9]}
    values[single] = values[single][:1]
    rows = [r for level, vs in values.items() for r in level_rows(level, vs)]
    (verdict,) = evaluate(NEAREST, table(rows), AXES)
    assert verdict.verdict == "drift"


def test_nearest_with_enough_values_everywhere_can_pass():
    values = {"MIX": [1.0, 1.1, 0.9], "PI": [1.2, 1.3, 1.1], "DT": [9.0, 9.1, 8.9]}
    rows = [r for level, vs in values.items() for r in level_rows(level, vs)]
    (verdict,) = evaluate(NEAREST, table(rows), AXES)
    assert verdict.verdict == "pass"


# --- exact tolerances ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "measured,expected,tolerance",
    [(0.4, 0.3, {"abs": 0.1}), (0.2, 0.3, {"abs": 0.1}), (11.0, 10.0, {"rel": 0.1}), (0.33, 0.3, {"rel": 0.1})],
)
def test_exactly_at_the_tolerance_is_within(measured, expected, tolerance):
    """0.4 - 0.3 is 0.10000000000000003 in binary floating point: still exactly at the tolerance."""
    assert within(measured, expected, tolerance)


def test_just_beyond_the_tolerance_is_not_within():
    assert not within(0.4001, 0.3, {"abs": 0.1})
    assert not within(11.001, 10.0, {"rel": 0.1})


def test_value_exactly_at_pass_and_drift_edges():
    claim = {**VALUE, "where": {"queue": "PI"}}
    (at_pass,) = evaluate(claim, table(level_rows("PI", [11.0, 11.0])), AXES)
    (at_drift,) = evaluate(claim, table(level_rows("PI", [13.0, 13.0])), AXES)
    (beyond,) = evaluate(claim, table(level_rows("PI", [13.01, 13.01])), AXES)
    assert (at_pass.verdict, at_drift.verdict, beyond.verdict) == ("pass", "drift", "fail")


def test_bound_exactly_at_the_threshold_is_not_beyond_it():
    """'below 5' is strict: a mean of exactly 5 is not below it (drift, since it is below the drift threshold 6)."""
    (verdict,) = evaluate(BOUND, table(level_rows("PI", [5.0, 5.0])), AXES)
    assert verdict.verdict == "drift"


# --- the missing path of every kind -----------------------------------------------------------------------


@pytest.mark.parametrize("claim", [VALUE, EXTREME, COMPARE, BOUND, NEAREST, RATIO], ids=lambda c: c["kind"])
def test_every_kind_is_missing_without_values(claim):
    rows = level_rows("PI", [NAN, NAN]) + level_rows("DT", [NAN]) + level_rows("MIX", [NAN])
    for metrics in (table(rows), table([])):
        assert all(v.verdict == "missing" for v in evaluate(claim, metrics, AXES)), claim["kind"]
        assert [cv.verdict for cv in judge(claim, metrics, AXES)] == ["missing"], claim["kind"]


@pytest.mark.parametrize("claim", [EXTREME, COMPARE, NEAREST, RATIO], ids=lambda c: c["kind"])
def test_ordering_kinds_are_missing_when_a_named_level_has_no_value(claim):
    values = {"MIX": [1.0, 1.1], "PI": [NAN, NAN], "DT": [5.0, 5.1]}
    rows = [r for level, vs in values.items() for r in level_rows(level, vs)]
    assert [v.verdict for v in evaluate(claim, table(rows), AXES)] == ["missing"]


def test_ratio_against_a_zero_baseline_is_missing_with_a_reason():
    rows = level_rows("PI", [1.0, 1.0]) + level_rows("DT", [0.0, 0.0])
    (verdict,) = evaluate(RATIO, table(rows), AXES)
    assert verdict.verdict == "missing" and "is 0" in verdict.note


# --- one verdict per claim ----------------------------------------------------------------------------------


def cells_rows():
    """Value claim at PI per n: n=1 pass (10), n=2 drift (12.5), n=3 fail (20)."""
    return table(level_rows("PI", [10.0, 10.0], 1) + level_rows("PI", [12.5, 12.5], 2) + level_rows("PI", [20.0], 3))


@pytest.mark.parametrize("rule,verdicts", [("all", ["fail"]), ("any", ["pass"]), ("each", ["pass", "drift", "fail"])])
def test_combine_rules(rule, verdicts):
    claim = {**VALUE, "where": {"queue": "PI"}, "combine": rule}
    judged = judge(claim, cells_rows(), AXES)
    assert [cv.verdict for cv in judged] == verdicts
    if rule != "each":
        (cv,) = judged
        assert len(cv.cells) == 3 and cv.cell_counts == "1 pass, 1 drift, 1 fail"


def test_all_is_missing_when_a_cell_is_missing_and_none_fails():
    claim = {**VALUE, "where": {"queue": "PI"}}
    rows = table(level_rows("PI", [10.0, 10.0], 1) + level_rows("PI", [NAN], 2))
    (cv,) = judge(claim, rows, AXES)
    assert cv.verdict == "missing"
    (cv,) = judge({**claim, "combine": "any"}, rows, AXES)
    assert cv.verdict == "pass"


@pytest.mark.parametrize("rule,level,verdict", [("min", "1", "pass"), ("max", "3", "fail")])
def test_min_and_max_over_an_axis_judge_that_level(rule, level, verdict):
    claim = {**VALUE, "where": {"queue": "PI"}, "combine": f"{rule}:n"}
    (cv,) = judge(claim, cells_rows(), AXES)
    assert cv.verdict == verdict and f"n={level} ({rule} over n)" in cv.deciding.group


def test_mean_over_an_axis_judges_each_seeds_average():
    """mean:n averages each seed over the levels of n: 10, 12.5 and 20 per seed give 14.17, a fail against 10 +- 30 %,
    where each level alone would pass, drift and fail."""
    rows = table(
        level_rows("PI", [10.0, 10.0], 1) + level_rows("PI", [12.5, 12.5], 2) + level_rows("PI", [20.0, 20.0], 3)
    )
    (cv,) = judge({**VALUE, "where": {"queue": "PI"}, "combine": "mean:n"}, rows, AXES)
    assert len(cv.cells) == 1 and "mean over n (3 levels)" in cv.deciding.group
    assert cv.deciding.value == pytest.approx((10 + 12.5 + 20) / 3) and cv.verdict == "fail"


def test_mean_over_an_axis_ranks_curves_not_points():
    """A compare judged on the curves' averages: PI below DT on average over n although above it at n = 1."""
    rows = table(
        level_rows("PI", [6.0, 6.2, 5.8], 1)
        + level_rows("PI", [1.0, 1.1, 0.9], 2)
        + level_rows("DT", [5.0, 5.1, 4.9], 1)
        + level_rows("DT", [5.0, 5.2, 4.8], 2)
    )
    claim = {**COMPARE, "than": ["DT"]}
    assert judge(claim, rows, AXES)[0].verdict == "fail"
    (cv,) = judge({**claim, "combine": "mean:n"}, rows, AXES)
    assert cv.verdict == "pass" and len(cv.cells) == 1


def test_mean_over_an_axis_drops_a_seed_missing_a_level():
    """Seed 2 has no value at n = 2: it has no average, so the cell reads seeds 1 and 3 only."""
    rows = table(level_rows("PI", [10.0, 10.0, 10.0], 1) + level_rows("PI", [12.0, NAN, 12.0], 2))
    (verdict,) = evaluate({**VALUE, "where": {"queue": "PI"}, "combine": "mean:n"}, rows, AXES)
    assert verdict.seeds == 2 and verdict.value == pytest.approx(11.0)


def test_fixed_reading_levels_are_not_free_axes():
    """An axis that is a reading of an open choice: the claim is judged at its baseline level only."""
    rows = table(level_rows("PI", [10.0, 10.0], 1) + level_rows("PI", [20.0, 20.0], 2))
    (cv,) = judge({**VALUE, "where": {"queue": "PI"}}, rows, AXES, fixed={"n": 1})
    assert (cv.verdict, len(cv.cells)) == ("pass", 1)


def test_combine_keeps_the_class():
    (cv,) = combine(
        {"id": "c", "class": "sanity"}, evaluate({**VALUE, "where": {"queue": "PI"}}, cells_rows(), AXES)[:1]
    )
    assert (cv.cls, cv.verdict) == ("sanity", "pass")
