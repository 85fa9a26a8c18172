"""Claims of kind slope: the change of one metric per unit change of another between two levels (the
experiment file's checks of them are in test_claims_ratio_scope.py)."""

import pandas as pd
import pytest

from experiments.verdicts.claims import evaluate
from experiments.verdicts.sensitivity import reading_claim, relative_distance

AXES = ["queue", "setting"]
# seconds of flow time per object, per drop per object: what one avoided drop saves
SLOPE = {
    "id": "s",
    "kind": "slope",
    "source": "T5.6, T5.7",
    "experiment": "e",
    "metric": "cycle",
    "per": "drops",
    "axis": "queue",
    "level": "PISA",
    "baseline": "PI",
    "expected": 3.0,
    "pass": {"rel": 0.25},
    "drift": {"rel": 0.5},
}


def rows(queue, setting, cycle, drops, scope="all"):
    """One row per seed of each metric: `cycle` and `drops` are lists of per-seed values."""
    out = [(queue, setting, s, scope, "cycle", v) for s, v in enumerate(cycle)]
    return out + [(queue, setting, s, scope, "drops", v) for s, v in enumerate(drops)]


def table(data):
    return pd.DataFrame(data, columns=["queue", "setting", "seed", "scope", "metric", "value"])


def test_slope_is_the_change_of_metric_over_the_change_of_per():
    data = rows("PI", "a", [2.4, 2.4], [0.40, 0.42]) + rows("PISA", "a", [1.8, 1.8], [0.21, 0.21])  # -0.6 / -0.2
    data += rows("PI", "b", [2.4, 2.4], [0.4, 0.4]) + rows("PISA", "b", [2.2, 2.2], [0.2, 0.2])  # 1 s per drop
    data += rows("PI", "c", [2.4, 2.4], [0.4, 0.4]) + rows("PISA", "c", [1.9, 1.9], [0.2, 0.2])  # 2.5: within 25 %
    data += rows("PI", "d", [2.4, 2.4], [0.4, 0.4]) + rows("PISA", "d", [2.0, 2.0], [0.2, 0.2])  # 2.0: within 50 %
    data += rows("DT", "a", [9.0], [9.0])  # a third level plays no part
    verdicts = evaluate(SLOPE, table(data), AXES)
    assert [(v.group, v.verdict) for v in verdicts] == [
        ("setting=a", "pass"),
        ("setting=b", "fail"),
        ("setting=c", "pass"),
        ("setting=d", "drift"),
    ]
    assert verdicts[0].value == pytest.approx(3.0)
    assert verdicts[0].measured == "3 (cycle -0.6 / drops -0.2, PISA - PI)"
    assert verdicts[0].metric == "cycle per drops" and verdicts[0].expected == "Δcycle / Δdrops = 3"
    assert verdicts[0].seeds == 2


def test_slope_is_missing_without_both_metrics_at_both_levels_or_when_per_does_not_change_clearly():
    data = rows("PI", "a", [2.4, 2.4], [0.4, 0.4]) + [("PISA", "a", 0, "all", "cycle", 1.8)]  # PISA has no drops
    data += rows("PI", "b", [2.4, 2.4], [0.4, 0.4]) + rows("PISA", "b", [1.8, 1.8], [0.4, 0.4])  # drops unchanged
    # drops change by -0.02, but the seeds spread by far more: the ratio would be noise over noise
    data += rows("PI", "c", [2.4, 2.4], [0.2, 0.6]) + rows("PISA", "c", [1.8, 1.8], [0.3, 0.46])
    data += rows("PI", "d", [2.4], [0.4]) + rows("PISA", "d", [1.8], [0.2])  # one seed: no interval
    verdicts = evaluate(SLOPE, table(data), AXES)
    assert [v.verdict for v in verdicts] == ["missing"] * 4
    assert "drops changes by +0 from PI to PISA, not told apart from 0" in verdicts[1].note
    assert "drops changes by -0.02 from PI to PISA, not told apart from 0" in verdicts[2].note


def test_slope_reads_its_scope_for_both_metrics():
    data = rows("PI", "a", [2.4, 2.4], [0.4, 0.4]) + rows("PISA", "a", [1.8, 1.8], [0.2, 0.2])  # all: 3
    data += rows("PI", "a", [2.4, 2.4], [0.4, 0.4], "group:http") + rows(
        "PISA", "a", [2.3, 2.3], [0.3, 0.3], "group:http"
    )  # 1
    (verdict,) = evaluate({**SLOPE, "scope": "group:http"}, table(data), AXES)
    assert verdict.value == pytest.approx(1.0) and verdict.verdict == "fail"


def test_only_a_slope_claim_reads_per():
    data = rows("PI", "a", [2.0, 2.0], [7.0, 7.0])
    claim = {
        "id": "v",
        "kind": "value",
        "source": "T",
        "experiment": "e",
        "metric": "cycle",
        "per": "drops",
        "where": {"queue": "PI"},
        "expected": 2.0,
        "pass": {"rel": 0.1},
        "drift": {"rel": 0.2},
    }
    (verdict,) = evaluate(claim, table(data), AXES)
    assert verdict.measured == "2 ± 0" and verdict.seeds == 2, "the drops rows are not averaged in"


def test_a_measure_reading_replaces_either_metric_and_distance_is_relative():
    from experiments.config.readings import Reading

    reading = Reading("m=alt", (("m", "alt"),), metrics={"drops": "drops_alt"})
    judged = reading_claim(SLOPE, reading)
    assert (judged["metric"], judged["per"]) == ("cycle", "drops_alt")
    assert relative_distance(SLOPE, 2.4) == pytest.approx(0.2)


def test_a_slope_claim_s_note_placeholder_reads_only_the_metric_it_names():
    from experiments.verdicts.notes import fill_note

    data = rows("PI", "a", [2.4, 2.6], [0.4, 0.4]) + rows("PISA", "a", [1.8, 1.8], [0.2, 0.2])
    note = "PI: {{cycle queue=PI}} s and {{drops queue=PI}} drops"
    assert fill_note(note, SLOPE, table(data)) == "PI: 2.5 (mean of 2 runs) s and 0.4 (mean of 2 runs) drops"


def test_a_note_placeholder_s_label_overrides_the_claim_s_where_on_its_axis():
    """A claim on PISA only may quote PI's value in its note: {{drops queue=PI}} reads PI's runs, not none."""
    from experiments.verdicts.notes import fill_note

    data = rows("PI", "a", [2.4, 2.6], [0.4, 0.4]) + rows("PISA", "a", [1.8, 1.8], [0.2, 0.2])
    claim = {**SLOPE, "where": {"queue": "PISA"}}
    note = "PI {{drops queue=PI}}, PISA {{drops}}"
    assert fill_note(note, claim, table(data)) == "PI 0.4 (mean of 2 runs), PISA 0.2 (mean of 2 runs)"
