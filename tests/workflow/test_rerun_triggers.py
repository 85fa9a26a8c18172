"""Precise rerun triggers: after each kind of edit to an experiment file, `snakemake --dry-run` schedules only the
stages that read what changed; renaming what names a run re-simulates nothing (DESIGN.md sections 1, 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sweeps import dry_run_jobs

REPO = Path(__file__).resolve().parents[2]

SWEEP = """
paper: trigger_sweep
queues:
  RED: {class: Queue/RED, knobs: {thresh_: 5, maxthresh_: 15}}
  PI: {class: Queue/PI, knobs: {qref_: 10}}
experiments:
  flows:
    scenario:
      topology:
        kind: dumbbell
        core_link: {bandwidth: 2Mb, delay: 10ms}
        edge_link: {bandwidth: 10Mb, delay: 1ms}
      core_queue: RED
      flows:
        tcp: {kind: ftp, agent: {class: Agent/TCP/Newreno}, sink: {class: Agent/TCPSink}}
      monitors: {packet_trace: false}
    duration: 3
    seeds: {count: 1}
    matrix:
      product:
        queue: {path: core_queue, levels: [RED, PI]}
        flows_n: {path: flows.tcp.count, levels: {two: 2, four: 4}}
figures:
  - {id: util, experiment: flows, module: figures.generic, function: metric_vs_axis,
     metric: bottleneck_utilization_pct, x: flows_n, hue: queue, caption: "Utilization"}
  - {id: drops, experiment: flows, module: figures.generic, function: metric_vs_axis,
     metric: bottleneck_drop_pct, x: flows_n, hue: queue, caption: "Drops"}
claims:
  - {id: busy, kind: value, source: this test, experiment: flows, metric: bottleneck_utilization_pct,
     expected: 90, pass: {abs: 20}, drift: {abs: 40}, note: "a note"}
"""


def command(sweep: Path, results: Path, *extra: str) -> list[str]:
    targets = [results / "trigger_sweep" / "figures" / f"{f}.png" for f in ("util", "drops")] + [results / "REPORT.md"]
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--profile",
        "profiles/smoke",
        "--cores",
        "2",
        *extra,
        "--config",
        f"experiment_files={sweep}",
        f"results={results}",
        "batch_size=2",
        "--",
        *map(str, targets),
    ]


def scheduled(sweep: Path, results: Path) -> dict[str, int]:
    """Jobs per rule that `snakemake --dry-run` would run now ({} when nothing is to be done)."""
    proc = subprocess.run(command(sweep, results, "--dry-run"), cwd=REPO, capture_output=True, text=True)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    return dry_run_jobs(out)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> tuple[Path, Path]:
    """The sweep run once (4 runs in 2 batches); each test edits a copy of its file against those results."""
    root = tmp_path_factory.mktemp("triggers")
    sweep, results = root / "trigger_sweep.yaml", root / "results"
    sweep.write_text(SWEEP)
    proc = subprocess.run(command(sweep, results), cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert scheduled(sweep, results) == {}
    return sweep, results


def edited(workspace, old: str, new: str, name: str = "edited.yaml") -> Path:
    sweep, _ = workspace
    text = sweep.read_text()
    assert text.count(old) == 1, old
    path = sweep.with_name(name)
    path.write_text(text.replace(old, new))
    return path


SIMULATE_AND_AGGREGATE = ("simulate_batch", "aggregate_experiment")


@pytest.mark.parametrize(
    "old,new,expected",
    [
        ('note: "a note"', 'note: "another note"', {"write_report": 1}),
        ("pass: {abs: 20}, drift: {abs: 40}", "pass: {abs: 10}, drift: {abs: 30}", {"write_report": 1}),
        ('caption: "Drops"', 'caption: "Drop percentage"', {"draw_figure": 1, "write_report": 1}),
        (
            "metric: bottleneck_drop_pct",
            "metric: bottleneck_queue_pkts_mean",
            {"draw_figure": 1, "write_report": 1},
        ),
        # a level's label: the names joined at aggregation change, not a run
        ("{two: 2, four: 4}", "{a_pair: 2, four: 4}", {"aggregate_experiment": 1, "draw_figure": 2, "write_report": 1}),
        # what a run simulates: every batch whose runs it reaches
        (
            "delay: 10ms}",
            "delay: 20ms}",
            {"simulate_batch": 2, "aggregate_experiment": 1, "draw_figure": 2, "write_report": 1},
        ),
    ],
    ids=["claim_note", "claim_tolerance", "figure_caption", "figure_entry", "level_label", "scenario_value"],
)
def test_an_edit_schedules_only_what_reads_it(workspace, old, new, expected):
    _, results = workspace
    assert scheduled(edited(workspace, old, new), results) == expected


def batch_statuses(results: Path, paper: str, experiment: str) -> list[str]:
    records = sorted((results / paper / experiment / "batches").glob("*.json"))
    return [run["status"] for record in records for run in json.loads(record.read_text())["runs"]]


def test_renaming_the_paper_and_experiment_re_simulates_nothing(workspace):
    """The same experiment under another paper name (another file) and another experiment name: new batch
    records, every run found under its key."""
    _, results = workspace
    moved = edited(workspace, "paper: trigger_sweep", "paper: moved_sweep", "moved.yaml")
    moved.write_text(
        moved.read_text()
        .replace("  flows:\n    scenario", "  renamed:\n    scenario")
        .replace("experiment: flows", "experiment: renamed")
    )
    targets = [str(results / "moved_sweep" / "renamed" / "metrics.parquet")]
    cmd = [*command(moved, results)[:-3], *targets]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert batch_statuses(results, "moved_sweep", "renamed") == ["cached"] * 4
    import pandas as pd

    metrics = pd.read_parquet(results / "moved_sweep" / "renamed" / "metrics.parquet")
    assert set(metrics["paper"]) == {"moved_sweep"} and set(metrics["experiment"]) == {"renamed"}
    original = pd.read_parquet(results / "trigger_sweep" / "flows" / "metrics.parquet")
    assert sorted(set(metrics["run_key"])) == sorted(set(original["run_key"]))


def test_run_directories_keep_the_tables_not_the_raw_outputs(workspace):
    """Raw outputs are deleted once parsed (the workflow's keep_raw is off by default); what names the run is not
    in it."""
    import parsers

    _, results = workspace
    runs = [d for d in (results / "runs").iterdir() if d.is_dir()]
    assert len(runs) >= 4
    for run in runs:
        assert not [name for name in parsers.RAW_OUTPUTS if (run / name).exists()], run
        assert (run / "tables" / "queue.parquet").is_file() and (run / "meta.json").is_file()
        params = json.loads((run / "params.json").read_text())
        assert params["schema"] == "ns2-repro/run-params/2" and not {"paper", "experiment", "labels"} & set(params)
