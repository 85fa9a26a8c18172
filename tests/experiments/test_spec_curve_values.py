"""What a specification curve draws for a cell (Verdict.shown, shown_half; verdicts/kinds.py): the judged number of
value, bound and ratio claims with its interval, and for the orderings the margin by which the claimed order holds,
oriented so that it is above 0 where the order holds and below where it is reversed. Hand-built cells."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiments.verdicts.sensitivity import table
from experiments.verdicts.stats import ci95
from tests.experiments.test_claims_paired import BASE, EFFECT, HIGHER, claim, one
from tests.experiments.test_claims_paired import cell as cells
from tests.experiments.test_null_readings import RED_OFF, load, metrics
from tests.experiments.test_null_readings import claim as value_claim

LOWER = [b - e for b, e in zip(BASE, EFFECT, strict=True)]


def test_a_value_claim_shows_its_mean_and_interval():
    values = [1.0, 2.0, 3.0, 4.0]
    verdict = one(claim("value", expected=2.5, **{"pass": {"rel": 0.1}, "drift": {"rel": 0.3}}), cells({"A": values}))
    assert verdict.shown == pytest.approx(2.5)
    assert verdict.shown_half == pytest.approx(ci95(pd.Series(values)))


@pytest.mark.parametrize("relation,sign", [("greater", 1), ("less", -1)])
def test_a_compare_claim_shows_the_least_oriented_gap(relation, sign):
    table = cells({"A": HIGHER, "B": BASE, "C": LOWER})
    verdict = one(claim("compare", level="A", than=["B", "C"], relation=relation), table)
    # A - B (mean 3) is the smaller gap of the two; oriented by the relation claimed
    expected = 3.0 if sign > 0 else -6.0  # less: the least of -(A - B) = -3 and -(A - C) = -6
    assert verdict.shown == pytest.approx(expected)
    assert verdict.shown_half > 0 and not math.isnan(verdict.shown_half)
    assert (verdict.shown > 0) == (verdict.verdict != "fail")


@pytest.mark.parametrize("extreme,level,expected", [("max", "A", 3.0), ("min", "C", 3.0), ("max", "C", -6.0)])
def test_an_extreme_claim_shows_its_margin_over_the_nearest_rival(extreme, level, expected):
    table = cells({"A": HIGHER, "B": BASE, "C": LOWER})
    verdict = one(claim("extreme", level=level, extreme=extreme), table)
    assert verdict.shown == pytest.approx(expected)
    assert (verdict.shown > 0) == (verdict.verdict != "fail")


def test_a_nearest_claim_shows_how_much_nearer_the_target_is_than_the_closest_rival():
    table = cells({"mixed": [10.0, 11.0, 12.0], "smooth": [10.5, 11.5, 12.5], "responsive": [20.0, 21.0, 22.0]})
    verdict = one(claim("nearest", level="mixed", nearest="smooth", among=["smooth", "responsive"]), table)
    assert verdict.shown == pytest.approx(10.0 - 0.5)  # |mixed - responsive| - |mixed - smooth|, per seed
    far = one(claim("nearest", level="mixed", nearest="responsive", among=["smooth", "responsive"]), table)
    assert far.shown == pytest.approx(-9.5) and far.verdict == "fail"


def test_a_ratio_claim_shows_its_change_and_interval():
    table = cells({"A": [11.0, 22.0, 33.0], "B": [10.0, 20.0, 30.0]})
    verdict = one(
        claim("ratio", level="A", baseline="B", expected=0.1, **{"pass": {"abs": 0.02}, "drift": {"abs": 0.05}}), table
    )
    assert verdict.shown == pytest.approx(0.1) and verdict.shown_half < 1e-6  # exactly proportional per seed: no spread


def test_the_sensitivity_table_keeps_what_the_curve_draws_under_each_reading(tmp_path):
    doc = load(tmp_path, [RED_OFF], claims=[value_claim("drops", "bottleneck_drop_pct", 5)])
    rows = table(
        doc, {"tiny": metrics(bottleneck_drop_pct=5.0)}, {"mechanism=off": {"tiny": metrics(bottleneck_drop_pct=9.0)}}
    )
    assert dict(zip(rows["reading"], rows["shown"], strict=True)) == {"baseline": 5.0, "mechanism=off": 9.0}
    assert rows["shown_half"].notna().all()
