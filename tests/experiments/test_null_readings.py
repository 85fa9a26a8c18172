"""Null readings: the paper's mechanism switched off while everything else stays (a choice with `null_reading: true`).

A reproduction claim that holds under a null reading as under the baseline does not tell the mechanism apart from
its absence: the sensitivity table lists it apart, and the reports set it out of the counts of agreement."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from experiments.common.markdown import contains_row
from experiments.config import load as load_mod
from experiments.config.errors import ConfigError
from experiments.config.readings import run_readings
from experiments.report.markdown import write_report
from experiments.report.sensitivity_markdown import paper_markdown
from experiments.store.tables import Measured, write_parquet
from experiments.verdicts.sensitivity import DISCRIMINATES, NON_DISCRIMINATING, UNTESTED, discriminates, table

MINIMAL = Path(__file__).resolve().parents[1] / "configs" / "minimal.yaml"
RED_OFF = {
    "id": "mechanism",
    "what": "RED's early drop",
    "choice": "RED as the paper describes it",
    "why": "the paper's mechanism",
    "null_reading": True,
    "alternatives": [
        {"label": "off", "why": "a buffer that drops at the tail only", "set": {"queues.RED.class": "Queue/DropTail"}}
    ],
}
# An ordinary open choice beside the null one.
BUFFER = {
    "id": "buffer",
    "what": "w",
    "choice": "c",
    "why": "y",
    "path": "queues.RED.knobs.limit_",
    "alternatives": [{"label": "5", "value": 5, "why": "small"}],
}


def claim(cid: str, metric: str, expected: float) -> dict:
    return {
        "id": cid,
        "kind": "value",
        "source": "T",
        "experiment": "tiny",
        "metric": metric,
        "expected": expected,
        "pass": {"rel": 0.1},
        "drift": {"rel": 0.3},
    }


def load(tmp_path, choices, **extra) -> dict:
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["queues"]["RED"]["knobs"] = {"limit_": 20}  # knobs a DropTail has too
    doc.update(choices=choices, **extra)
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    return load_mod.load(path)


def metrics(**values: float) -> Measured:
    return Measured(
        pd.DataFrame(
            [
                {
                    "paper": "minimal",
                    "experiment": "tiny",
                    "flows_n": 1,
                    "seed": s,
                    "run_key": f"k{s}",
                    "scope": "all",
                    "metric": m,
                    "value": v,
                }
                for m, v in values.items()
                for s in (1, 2)
            ]
        )
    )


def test_a_null_choice_makes_a_null_reading_run_like_any_other(tmp_path):
    doc = load(tmp_path, [RED_OFF], claims=[claim("c", "bottleneck_drop_pct", 5)])
    (reading,) = run_readings(doc)
    assert (reading.label, reading.null) == ("mechanism=off", True)
    assert reading.assignments == {"queues.RED.class": "Queue/DropTail"}


def test_a_null_choice_reads_runs_and_stands_alone(tmp_path):
    measure = {**RED_OFF, "alternatives": [{"label": "off", "why": "w", "metrics": {"bottleneck_drop_pct": "x"}}]}
    with pytest.raises(ConfigError, match=r"choices\[0\]\.null_reading: a null reading switches the mechanism off"):
        load(tmp_path, [measure])
    with pytest.raises(ConfigError, match=r"interactions\[0\]: 'mechanism' is a null choice"):
        load(tmp_path, [RED_OFF, BUFFER], interactions=[["mechanism", "buffer"]])


def test_what_holds_with_the_mechanism_off_too_is_no_evidence_for_it():
    assert discriminates("pass", {"m=off": "fail"}) == DISCRIMINATES
    assert discriminates("pass", {"m=off": "drift"}) == NON_DISCRIMINATING
    assert discriminates("fail", {"m=off": "pass"}) == UNTESTED, "a claim that does not hold has nothing to tell apart"
    assert discriminates("pass", {"m=off": "not run"}) == UNTESTED
    assert discriminates("pass", {}) == UNTESTED


def test_the_table_and_the_reports_set_a_non_discriminating_claim_apart(tmp_path):
    # the link as busy with RED as with the tail drop: `same` passes under both; `red_only` expects what the
    # mechanism changes (5 % of drops with RED, 10 % with the tail drop)
    doc = load(
        tmp_path,
        [RED_OFF],
        claims=[claim("same", "bottleneck_utilization_pct", 90), claim("red_only", "bottleneck_drop_pct", 5)],
    )
    base = metrics(bottleneck_utilization_pct=90.0, bottleneck_drop_pct=5.0)
    null = metrics(bottleneck_utilization_pct=90.0, bottleneck_drop_pct=10.0)
    rows = table(doc, {"tiny": base}, {"mechanism=off": {"tiny": null}})
    assert bool(rows.loc[rows["reading"] == "mechanism=off", "null"].all())
    text = "\n".join(paper_markdown(doc, rows))
    assert "`same`: holds under mechanism=off too" in text and "non-discriminating" in text
    assert "**Holds under every reading tried** (1): `red_only`." in text, "the claim held by the null reading is not"
    assert contains_row(text, ["claim", "baseline", "mechanism=off (null)", "flipped by"])

    results = tmp_path / "results"
    write_parquet(base.metrics, results / "minimal" / "tiny" / "metrics.parquet", "metrics")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"key": "k", "binary": {"sha256": "0" * 64}, "series": {"patches": []}}))
    sensitivity = tmp_path / "sensitivity.parquet"
    write_parquet(rows, sensitivity, "sensitivity")
    write_report([doc], results, manifest, tmp_path / "with.md", "smoke", sensitivity)
    write_report([doc], results, manifest, tmp_path / "without.md", "smoke")
    with_table, without = (tmp_path / "with.md").read_text(), (tmp_path / "without.md").read_text()
    assert "### Non-discriminating (1 claim: 1 pass)" in with_table
    assert "Reproduction claims, all papers: 1 pass." in with_table, "the claim the null reading holds: not agreement"
    assert "Reproduction claims, all papers: 2 pass." in without
    assert "null readings (`mechanism`: the mechanism switched off) run with `snakemake sensitivity-all`" in without


def test_the_null_readings_can_run_alone(tmp_path):
    """`readings: null`: sensitivity-all plans and judges the null readings and nothing else of the choices."""
    from experiments.planning.profiles import Settings
    from experiments.workflow.plan import plan

    doc = load(tmp_path, [RED_OFF, BUFFER], claims=[claim("c", "bottleneck_drop_pct", 5)])
    path = tmp_path / "exp.yaml"
    every = plan(Settings.from_config({"experiment_files": [str(path)]}))
    alone = plan(Settings.from_config({"experiment_files": [str(path)], "readings": "null"}))
    assert sorted(every.readings["minimal"]) == ["buffer=5", "mechanism=off"]
    assert sorted(alone.readings["minimal"]) == ["mechanism=off"]
    base = metrics(bottleneck_drop_pct=5.0)
    rows = table(doc, {"tiny": base}, {"mechanism=off": {"tiny": metrics(bottleneck_drop_pct=10.0)}}, only_null=True)
    assert sorted(set(rows["reading"])) == ["baseline", "mechanism=off"], "no `not run` column for buffer=5"
    assert sorted(set(table(doc, {"tiny": base}, {})["reading"])) == ["baseline", "buffer=5", "mechanism=off"]
