"""A sweep written here, not shipped in configs/, runs end to end with no code change:
YAML -> Snakemake (smoke profile) -> ns-2 runs -> parquet -> a figure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

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


def test_sweep_runs_end_to_end(tmp_path):
    sweep = tmp_path / "red_pi_flows.yaml"
    sweep.write_text(SWEEP)
    results = tmp_path / "results"
    figure = results / "red_pi_flows" / "figures" / "delay_vs_flows.png"
    metrics = results / "red_pi_flows" / "flows" / "metrics.parquet"
    report = results / "REPORT.md"
    cmd = [
        sys.executable, "-m", "snakemake", "--profile", "profiles/smoke", "--cores", "2",
        "--config", f"experiment_files={sweep}", f"results={results}",
        "--", str(figure), str(metrics), str(report),
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]

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
    for directory in runs["directory"]:
        assert (Path(directory) / "params.json").is_file()
        assert Path(directory).name in set(runs["run_key"])
    # a second invocation finds everything up to date
    again = subprocess.run([*cmd[:-4], "--dry-run", "--", *cmd[-3:]], cwd=REPO, capture_output=True, text=True)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr
