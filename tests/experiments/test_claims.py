"""Claim verdicts on hand-made metric tables."""

import pandas as pd
import pytest

from experiments.claims import ci95, evaluate


def table(rows):
    return pd.DataFrame(rows, columns=["queue", "variant", "seed", "scope", "metric", "value"])


VALUE_CLAIM = {"id": "c", "kind": "value", "source": "T2", "experiment": "e", "metric": "m",
               "where": {"queue": "PI"}, "expected": 10.0, "pass": {"rel": 0.1}, "drift": {"rel": 0.3}}  # fmt: skip
EXTREME_CLAIM = {"id": "x", "kind": "extreme", "source": "§5", "experiment": "e", "metric": "m",
                 "axis": "queue", "level": "PI", "extreme": "min"}  # fmt: skip


def test_value_claim_gives_one_verdict_per_free_label():
    metrics = table(
        [("PI", "a", 1, "all", "m", 10.5), ("PI", "a", 2, "all", "m", 9.5),
         ("PI", "b", 1, "all", "m", 12.0), ("PI", "b", 2, "all", "m", 12.0),
         ("PI", "c", 1, "all", "m", 20.0),
         ("RED", "a", 1, "all", "m", 10.0), ("PI", "a", 1, "flow1", "m", 99.0)]
    )  # fmt: skip
    verdicts = evaluate(VALUE_CLAIM, metrics, ["queue", "variant"])
    assert [(v.group, v.verdict) for v in verdicts] == [
        ("variant=a", "pass"),
        ("variant=b", "drift"),
        ("variant=c", "fail"),
    ]
    assert verdicts[0].measured.startswith("10 ± ")
    assert verdicts[2].seeds == 1 and verdicts[2].measured == "20"


def test_extreme_claim():
    rows = [("PI", "a", s, "all", "m", v) for s, v in enumerate([1.0, 1.1, 0.9])]
    rows += [("DT", "a", s, "all", "m", v) for s, v in enumerate([5.0, 5.2, 4.8])]
    rows += [("PI", "b", s, "all", "m", v) for s, v in enumerate([4.0, 6.0, 5.0])]  # overlaps DT
    rows += [("DT", "b", s, "all", "m", v) for s, v in enumerate([5.0, 5.2, 5.4])]
    rows += [("PI", "c", s, "all", "m", v) for s, v in enumerate([9.0, 9.0, 9.0])]  # DT is lower
    rows += [("DT", "c", s, "all", "m", v) for s, v in enumerate([5.0, 5.0, 5.0])]
    verdicts = evaluate(EXTREME_CLAIM, table(rows), ["queue", "variant"])
    assert [(v.group, v.verdict) for v in verdicts] == [
        ("variant=a", "pass"),
        ("variant=b", "drift"),
        ("variant=c", "fail"),
    ]
    assert "DT is the min" in verdicts[2].note


def test_no_runs_is_missing_not_pass():
    verdicts = evaluate(VALUE_CLAIM, table([("RED", "a", 1, "all", "m", 10.0)]), ["queue", "variant"])
    assert [v.verdict for v in verdicts] == ["missing"]


def test_ci95():
    assert ci95(pd.Series([1.0])) != ci95(pd.Series([1.0]))  # nan for one value
    assert ci95(pd.Series([1.0, 3.0])) == pytest.approx(12.706)  # t(0.975, 1) x sd 1.414 / sqrt(2)
