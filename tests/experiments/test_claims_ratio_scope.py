"""Claims of kind ratio and claims reading a scope other than `all`: verdicts, report cell, config checks
(and the config checks of kind slope)."""

from pathlib import Path

import pandas as pd
import pytest
import yaml

from experiments.common.markdown import contains_row
from experiments.config.errors import ConfigError
from experiments.config.load import load
from experiments.report.markdown import claim_table
from experiments.report.model import metric_cell
from experiments.verdicts.claims import combine, evaluate, judge_all
from experiments.verdicts.verdict import Verdict

MINIMAL = Path(__file__).resolve().parents[1] / "configs" / "minimal.yaml"


def table(rows):
    return pd.DataFrame(rows, columns=["queue", "variant", "seed", "scope", "metric", "value"])


def seeds(queue, variant, values, scope="all"):
    return [(queue, variant, s, scope, "m", v) for s, v in enumerate(values)]


RATIO_CLAIM = {
    "id": "r",
    "kind": "ratio",
    "source": "T5.4",
    "experiment": "e",
    "metric": "m",
    "axis": "queue",
    "level": "PISA",
    "baseline": "PI",
    "expected": 0.22,
    "pass": {"abs": 0.05},
    "drift": {"abs": 0.1},
}


def test_ratio_claim_pass_drift_fail_per_free_label():
    rows = seeds("PI", "a", [100, 102, 98]) + seeds("PISA", "a", [120, 124, 122])  # 122 / 100 - 1 = +0.22
    rows += seeds("PI", "b", [100, 100]) + seeds("PISA", "b", [130, 130])  # +0.30: 0.08 away
    rows += seeds("PI", "c", [100, 100]) + seeds("PISA", "c", [100, 100])  # +0.00: 0.22 away
    rows += seeds("PI", "d", [100, 100]) + seeds("PISA", "d", [116, 116])  # +0.16: 0.06 away
    verdicts = evaluate(RATIO_CLAIM, table(rows), ["queue", "variant"])
    assert [(v.group, v.verdict) for v in verdicts] == [
        ("variant=a", "pass"),
        ("variant=b", "drift"),
        ("variant=c", "fail"),
        ("variant=d", "drift"),
    ]
    # the delta method's interval, with the two means' covariance over their shared seeds (paired): t(2) x 0.0130
    assert verdicts[0].measured == "+0.2200 ± 0.056 (PISA 122 / PI 100)" and verdicts[0].test == "paired"
    assert verdicts[2].measured == "+0.0000 ± 0 (PISA 100 / PI 100)"  # constant values: an interval of width 0
    assert verdicts[0].expected == "PISA / PI - 1 = +0.22"
    assert verdicts[0].tolerance == "pass ±0.05, drift ±0.1"
    assert (verdicts[0].seeds, verdicts[1].seeds) == (3, 2)


def test_ratio_claim_with_a_relative_tolerance_and_a_decrease():
    claim = {**RATIO_CLAIM, "expected": -0.5, "pass": {"rel": 0.1}, "drift": {"rel": 0.3}}
    rows = seeds("PI", "a", [40.0]) + seeds("PISA", "a", [21.0])  # -0.475: within 0.05 of -0.5
    rows += seeds("PI", "b", [40.0]) + seeds("PISA", "b", [25.0])  # -0.375: 0.125 away, within 0.15
    verdicts = evaluate(claim, table(rows), ["queue", "variant"])
    assert [v.verdict for v in verdicts] == ["pass", "drift"]
    assert verdicts[0].measured == "-0.4750 (PISA 21 / PI 40)"


def test_ratio_claim_is_missing_without_both_levels_or_with_a_zero_baseline():
    rows = seeds("PISA", "a", [120.0]) + seeds("DT", "a", [100.0])  # no PI
    rows += seeds("PI", "b", [0.0, 0.0]) + seeds("PISA", "b", [5.0, 5.0])  # baseline mean 0
    rows += seeds("PI", "c", [100.0]) + [("PISA", "c", 1, "all", "m", float("nan"))]  # PISA has no value
    verdicts = evaluate(RATIO_CLAIM, table(rows), ["queue", "variant"])
    assert [v.verdict for v in verdicts] == ["missing"] * 3
    assert "PI is 0" in verdicts[1].note and verdicts[1].group == "variant=b"
    assert evaluate(RATIO_CLAIM, table(seeds("DT", "a", [1.0])), ["queue", "variant"])[0].verdict == "missing"


def test_a_claim_reads_its_scope():
    rows = seeds("PI", "a", [10.0, 10.0]) + seeds("PI", "a", [2.0, 2.0], "group:http")
    rows += seeds("PI", "a", [99.0], "group:ftp")
    claim = {
        "id": "c",
        "kind": "value",
        "source": "T2",
        "experiment": "e",
        "metric": "m",
        "where": {"queue": "PI"},
        "expected": 2.0,
        "pass": {"rel": 0.1},
        "drift": {"rel": 0.3},
    }
    (everything,) = evaluate(claim, table(rows), ["queue", "variant"])
    assert (everything.verdict, everything.measured, everything.scope) == ("fail", "10 ± 0", "all")
    (http,) = evaluate({**claim, "scope": "group:http"}, table(rows), ["queue", "variant"])
    assert (http.verdict, http.measured, http.scope) == ("pass", "2 ± 0", "group:http")
    (missing,) = evaluate({**claim, "scope": "group:udp"}, table(rows), ["queue", "variant"])
    assert (missing.verdict, missing.scope) == ("missing", "group:udp")


def test_a_ratio_claim_reads_its_scope():
    rows = seeds("PI", "a", [10.0]) + seeds("PISA", "a", [10.0])
    rows += seeds("PI", "a", [10.0], "flow1") + seeds("PISA", "a", [12.2], "flow1")
    (verdict,) = evaluate({**RATIO_CLAIM, "scope": "flow1"}, table(rows), ["queue", "variant"])
    assert verdict.verdict == "pass" and verdict.measured.startswith("+0.2200")


def test_the_report_shows_a_scope_other_than_all_beside_the_metric():
    scoped = Verdict("c", "T2", "e", "all runs", "core_drops_per_s", "2", "2", "", 1, "pass", scope="group:http")
    assert metric_cell(scoped) == "core_drops_per_s [group:http]"
    assert metric_cell(Verdict("c", "T2", "e", "all runs", "m", "2", "2", "", 1, "pass")) == "m"
    (claim_verdict,) = combine({"id": "c"}, [scoped])
    assert contains_row(claim_table([claim_verdict], {})[2], "| e: core_drops_per_s [group:http] |")


def test_judge_all_marks_an_experiment_without_metrics_missing_with_its_scope():
    doc = {"experiments": {"e": {}}, "claims": [{**RATIO_CLAIM, "scope": "group:ftp"}]}
    (verdict,) = judge_all(doc, {})
    assert (verdict.verdict, verdict.deciding.scope) == ("missing", "group:ftp")


# --- the experiment file: schema and cross-checks ------------------------------------------------


def write_config(tmp_path, claim: dict) -> Path:
    """minimal.yaml with a `queue` axis (levels RED, DT) and `claim` as its only claim."""
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["queues"]["DT"] = {"class": "Queue/DropTail"}
    doc["experiments"]["tiny"]["matrix"]["product"]["queue"] = {"path": "core_queue", "levels": ["RED", "DT"]}
    doc["claims"] = [{"id": "c", "source": "T1", "experiment": "tiny", "metric": "objects_completed", **claim}]
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


RATIO = {
    "kind": "ratio",
    "axis": "queue",
    "level": "RED",
    "baseline": "DT",
    "expected": 0.2,
    "pass": {"abs": 0.05},
    "drift": {"abs": 0.1},
}


@pytest.mark.parametrize("scope", [None, "all", "group:tcp", "flow12"])
def test_valid_ratio_claims_and_scopes(tmp_path, scope):
    claim = RATIO if scope is None else {**RATIO, "scope": scope}
    (loaded,) = load(write_config(tmp_path, claim))["claims"]
    assert loaded["baseline"] == "DT" and loaded.get("scope", "all") == (scope or "all")


@pytest.mark.parametrize(
    "claim,fragment",
    [
        ({**RATIO, "baseline": "PI"}, "claims[0].baseline: 'PI' is not a level of queue; levels: RED, DT"),
        ({**RATIO, "level": "PIE"}, "claims[0].level: 'PIE' is not a level of queue"),
        ({**RATIO, "baseline": "RED"}, "claims[0].baseline: 'RED' is also the level"),
        ({k: v for k, v in RATIO.items() if k != "baseline"}, "'baseline' is a required property"),
        ({k: v for k, v in RATIO.items() if k != "drift"}, "'drift' is a required property"),
        ({**RATIO, "scope": "ftp"}, "claims[0].scope: 'ftp' does not match the required form"),
        ({**RATIO, "scope": "flow"}, "does not match the required form"),
        ({**RATIO, "scope": "group:udp"}, "claims[0].scope: 'udp' is not a flow group of tiny; groups: tcp"),
    ],
    ids=[
        "baseline_not_a_level",
        "level_not_a_level",
        "baseline_is_level",
        "no_baseline",
        "no_drift",
        "scope_without_prefix",
        "flow_without_fid",
        "unknown_group",
    ],
)
def test_bad_ratio_claims_and_scopes(tmp_path, claim, fragment):
    with pytest.raises(ConfigError, match="exp.yaml: ") as error:
        load(write_config(tmp_path, claim))
    assert fragment in str(error.value)


SLOPE = {
    "kind": "slope",
    "metric": "goodput_Bps",
    "per": "fairness_jain",
    "axis": "queue",
    "level": "RED",
    "baseline": "DT",
    "expected": 3.0,
    "pass": {"rel": 0.25},
    "drift": {"rel": 0.5},
    "class": "diagnostic",
}


def test_a_valid_slope_claim_loads(tmp_path):
    (loaded,) = load(write_config(tmp_path, SLOPE))["claims"]
    assert (loaded["per"], loaded["class"]) == ("fairness_jain", "diagnostic")


@pytest.mark.parametrize(
    "claim,fragment",
    [
        ({k: v for k, v in SLOPE.items() if k != "per"}, "'per' is a required property"),
        ({**SLOPE, "baseline": "RED"}, "claims[0].baseline: 'RED' is also the level"),
        ({**SLOPE, "kind": "value", "expected": 1.0}, "claims[0].per: only a claim of kind slope reads a second"),
    ],
    ids=["no_per", "baseline_is_level", "per_on_value"],
)
def test_bad_slope_claims(tmp_path, claim, fragment):
    with pytest.raises(ConfigError, match="exp.yaml: ") as error:
        load(write_config(tmp_path, claim))
    assert fragment in str(error.value)
