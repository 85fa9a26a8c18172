"""A sweep written here, not shipped in configs/, runs end to end with no code change:
YAML -> Snakemake (smoke profile) -> ns-2 runs -> parquet -> a figure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from experiments.store import layout

REPO = Path(__file__).resolve().parents[2]

SWEEP = """
paper: red_pi_flows
title: RED vs PI on a dumbbell as the number of FTP flows grows
queues:
  RED:
    class: Queue/RED
    knobs: {thresh_: 5, maxthresh_: 15, q_weight_: 0.002, setbit_: true}
  PI:
    class: Queue/PI
    knobs: {qref_: 10, setbit_: true}
experiments:
  flows:
    scenario:
      topology:
        kind: dumbbell
        core_link: {bandwidth: 2Mb, delay: 10ms}
        edge_link: {bandwidth: 10Mb, delay: 1ms}
      core_queue: RED
      flows:
        tcp:
          kind: ftp
          agent: {class: Agent/TCP/Newreno, knobs: {ecn_: 1}}
          sink: {class: Agent/TCPSink}
    duration: 20
    warmup: 1
    seeds: {count: 3}
    matrix:
      product:
        queue: {path: core_queue, levels: [RED, PI]}
        flows_n: {path: flows.tcp.count, levels: [2, 4, 8]}
figures:
  - id: delay_vs_flows
    experiment: flows
    module: figures.generic
    function: metric_vs_axis
    metric: bottleneck_queue_delay_ms_mean
    x: flows_n
    hue: queue
claims:
  - {id: pi_holds_delay_lower, kind: extreme, source: this test, experiment: flows,
     metric: bottleneck_queue_delay_ms_mean, axis: queue, level: PI, extreme: min}
"""


def sweep_command(sweep: Path, results: Path, *config: str) -> list[str]:
    """snakemake on the smoke profile, targets: the figure, the metrics and the report."""
    targets = [
        results / "red_pi_flows" / "figures" / "delay_vs_flows.png",
        results / "red_pi_flows" / "flows" / "metrics.parquet",
        results / "REPORT.md",
    ]
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--profile",
        "profiles/smoke",
        "--cores",
        "2",
        "--config",
        f"experiment_files={sweep}",
        f"results={results}",
        *config,
        "--",
        *map(str, targets),
    ]


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory) -> Path:
    sweep = tmp_path_factory.mktemp("sweep") / "red_pi_flows.yaml"
    sweep.write_text(SWEEP)
    return sweep


@pytest.fixture(scope="module")
def one_batch(sweep_file) -> tuple[Path, list[str]]:
    """The sweep run once on the smoke profile (batch_size 12: its 6 runs in one batch job)."""
    results = sweep_file.parent / "results"
    cmd = sweep_command(sweep_file, results)
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return results, cmd


def test_sweep_runs_end_to_end(one_batch):
    results, cmd = one_batch
    figure = results / "red_pi_flows" / "figures" / "delay_vs_flows.png"
    metrics = results / "red_pi_flows" / "flows" / "metrics.parquet"
    report = results / "REPORT.md"
    assert sorted(p.name for p in (results / "red_pi_flows" / "flows" / "batches").iterdir()) == ["0.json"]

    table = pd.read_parquet(metrics)
    assert {"paper", "experiment", "queue", "flows_n", "seed", "run_key", "scope", "metric", "value"} <= set(table)
    # smoke profile: one seed per cell, 2 queues x 3 flow counts
    assert table.groupby(["queue", "flows_n"])["run_key"].nunique().to_dict() == {
        (q, n): 1 for q in ("PI", "RED") for n in (2, 4, 8)
    }
    util = table[(table["metric"] == "bottleneck_utilization_pct")].set_index(["queue", "flows_n"])["value"]
    assert (util > 50).all() and (util <= 100.5).all(), util
    assert pq.read_schema(metrics).metadata[b"ns2repro.kind"] == b"metrics"
    assert figure.stat().st_size > 10_000
    text = report.read_text()
    assert "## red_pi_flows" in text and "pi_holds_delay_lower" in text
    # runs are named by key and hold their params
    runs = pd.read_parquet(results / "red_pi_flows" / "flows" / "runs.parquet")
    for name in runs["directory"]:
        directory = layout.resolved(results / "red_pi_flows" / "flows", name)
        assert (directory / "params.json").is_file()
        assert directory.name in set(runs["run_key"])
    # a second invocation finds everything up to date
    again = subprocess.run([*cmd[:-4], "--dry-run", "--", *cmd[-3:]], cwd=REPO, capture_output=True, text=True)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr


def test_sweep_split_over_batches_aggregates_every_run_once(sweep_file, one_batch):
    """batch_size 2: the 6 runs in 3 batch jobs, run afresh into their own results folder; the aggregate
    tables hold each run exactly once, with the metrics of the one-batch run."""
    one, _ = one_batch
    split = sweep_file.parent / "results-split"
    proc = subprocess.run(
        sweep_command(sweep_file, split, "batch_size=2"), cwd=REPO, capture_output=True, text=True, timeout=1200
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    flows = Path("red_pi_flows") / "flows"
    records = sorted((split / flows / "batches").iterdir())
    assert [p.name for p in records] == ["0.json", "1.json", "2.json"]
    batched = [[r["key"] for r in json.loads(p.read_text())["runs"]] for p in records]
    assert [len(keys) for keys in batched] == [2, 2, 2]

    runs = pd.read_parquet(split / flows / "runs.parquet")
    reference_runs = pd.read_parquet(one / flows / "runs.parquet")
    assert len(runs) == 6 and runs["run_key"].is_unique, "every run exactly once"
    assert sorted(runs["run_key"]) == sorted(k for keys in batched for k in keys) == sorted(reference_runs["run_key"])
    assert all(layout.resolved(split / flows, d).is_relative_to(split) for d in runs["directory"]), "run afresh"

    order = ["run_key", "scope", "metric"]
    metrics = pd.read_parquet(split / flows / "metrics.parquet").sort_values(order, ignore_index=True)
    reference = pd.read_parquet(one / flows / "metrics.parquet").sort_values(order, ignore_index=True)
    assert not metrics.duplicated(order).any()
    assert metrics["run_key"].nunique() == 6 and len(metrics) == len(reference) > 6
    pd.testing.assert_frame_equal(metrics, reference)
    figure = Path("red_pi_flows") / "figures" / "delay_vs_flows.png"
    assert (split / figure).read_bytes() == (one / figure).read_bytes(), "the figure of two invocations differs"
