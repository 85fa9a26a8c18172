"""Claim verdicts on hand-made metric tables."""

import pandas as pd
import pytest

from experiments.verdicts.claims import evaluate
from experiments.verdicts.stats import ci95


def table(rows):
    return pd.DataFrame(rows, columns=["queue", "variant", "seed", "scope", "metric", "value"])


VALUE_CLAIM = {
    "id": "c",
    "kind": "value",
    "source": "T2",
    "experiment": "e",
    "metric": "m",
    "where": {"queue": "PI"},
    "expected": 10.0,
    "pass": {"rel": 0.1},
    "drift": {"rel": 0.3},
}
EXTREME_CLAIM = {
    "id": "x",
    "kind": "extreme",
    "source": "§5",
    "experiment": "e",
    "metric": "m",
    "axis": "queue",
    "level": "PI",
    "extreme": "min",
}


def test_value_claim_gives_one_verdict_per_free_label():
    metrics = table(
        [
            ("PI", "a", 1, "all", "m", 10.5),
            ("PI", "a", 2, "all", "m", 9.5),
            ("PI", "b", 1, "all", "m", 12.0),
            ("PI", "b", 2, "all", "m", 12.0),
            ("PI", "c", 1, "all", "m", 20.0),
            ("RED", "a", 1, "all", "m", 10.0),
            ("PI", "a", 1, "flow1", "m", 99.0),
        ]
    )
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
    assert ci95(pd.Series([1.0, 3.0])) == pytest.approx(12.7062047)  # t(0.975, 1) x sd 1.414 / sqrt(2)


def seeds(queue, variant, values):
    return [(queue, variant, s, "all", "m", v) for s, v in enumerate(values)]


COMPARE_CLAIM = {
    "id": "k",
    "kind": "compare",
    "source": "§4",
    "experiment": "e",
    "metric": "m",
    "axis": "queue",
    "level": "DT",
    "relation": "greater",
    "factor": 1.5,
}


def test_compare_claim_with_a_factor():
    rows = seeds("DT", "a", [30, 31, 29]) + seeds("PI", "a", [10, 11, 9]) + seeds("RED", "a", [12, 12, 12])
    rows += seeds("DT", "b", [16, 17, 15]) + seeds("PI", "b", [10, 11, 9]) + seeds("RED", "b", [12, 12, 12])
    rows += seeds("DT", "c", [11, 11, 11]) + seeds("PI", "c", [10, 11, 9]) + seeds("RED", "c", [12, 12, 12])
    verdicts = evaluate(COMPARE_CLAIM, table(rows), ["queue", "variant"])
    assert [(v.group, v.verdict) for v in verdicts] == [
        ("variant=a", "pass"),  # 30 > 1.5 x 12, intervals apart
        ("variant=b", "drift"),  # above both, but not 1.5 x RED's 12
        ("variant=c", "fail"),  # RED is higher
    ]
    assert verdicts[0].expected == "DT > 1.5 x PI, RED"
    assert "RED on the other side" in verdicts[2].note


def test_compare_claim_against_named_levels_and_less():
    claim = {**COMPARE_CLAIM, "relation": "less", "factor": 1, "than": ["PI"]}
    rows = seeds("DT", "a", [5, 6, 4]) + seeds("PI", "a", [10, 11, 9]) + seeds("RED", "a", [1, 1, 1])
    (verdict,) = evaluate(claim, table(rows), ["queue", "variant"])
    assert verdict.verdict == "pass", "RED is lower still, but the claim is only about PI"
    claim["than"] = ["PI", "RED"]
    assert evaluate(claim, table(rows), ["queue", "variant"])[0].verdict == "fail"


def test_bound_claim():
    claim = {
        "id": "b",
        "kind": "bound",
        "source": "§4",
        "experiment": "e",
        "metric": "m",
        "bound": "below",
        "threshold": 0.1,
        "drift_threshold": 0.2,
    }
    rows = seeds("DT", "a", [0.05, 0.07]) + seeds("DT", "b", [0.15, 0.15]) + seeds("DT", "c", [0.3, 0.5])
    verdicts = evaluate(claim, table(rows), ["queue", "variant"])
    assert [v.verdict for v in verdicts] == ["pass", "drift", "fail"]
    claim |= {"bound": "above", "threshold": 0.4, "drift_threshold": 0.1}
    assert [v.verdict for v in evaluate(claim, table(rows), ["queue", "variant"])] == ["fail", "drift", "drift"]


def test_nearest_claim():
    claim = {
        "id": "n",
        "kind": "nearest",
        "source": "§4",
        "experiment": "e",
        "metric": "m",
        "axis": "queue",
        "level": "MIX",
        "nearest": "DT",
        "among": ["DT", "RED"],
    }
    rows = seeds("DT", "a", [10, 10.5, 9.5]) + seeds("RED", "a", [20, 20.5, 19.5]) + seeds("MIX", "a", [11, 11, 11])
    rows += seeds("DT", "b", [10, 10.5, 9.5]) + seeds("RED", "b", [20, 20.5, 19.5]) + seeds("MIX", "b", [13, 14, 15])
    rows += seeds("DT", "c", [10, 10.5, 9.5]) + seeds("RED", "c", [20, 20.5, 19.5]) + seeds("MIX", "c", [18, 18, 18])
    verdicts = evaluate(claim, table(rows), ["queue", "variant"])
    assert [v.verdict for v in verdicts] == ["pass", "drift", "fail"]
    assert verdicts[2].note == "nearer to RED"


def test_a_where_list_keeps_the_claim_to_those_levels_each_a_cell():
    """where {variant: [a, b]}: variant c is left out, a and b stay free axes with a cell each."""
    claim = {**COMPARE_CLAIM, "factor": 1, "where": {"variant": ["a", "b"]}}
    rows = seeds("DT", "a", [30, 31, 29]) + seeds("PI", "a", [10, 11, 9]) + seeds("RED", "a", [12, 12, 12])
    rows += seeds("DT", "b", [16, 17, 15]) + seeds("PI", "b", [10, 11, 9]) + seeds("RED", "b", [12, 12, 12])
    rows += seeds("DT", "c", [1, 1, 1]) + seeds("PI", "c", [10, 11, 9]) + seeds("RED", "c", [12, 12, 12])
    verdicts = evaluate(claim, table(rows), ["queue", "variant"])
    assert [(v.group, v.verdict) for v in verdicts] == [("variant=a", "pass"), ("variant=b", "pass")]
    assert [v.verdict for v in evaluate(COMPARE_CLAIM | {"factor": 1}, table(rows), ["queue", "variant"])][-1] == "fail"
