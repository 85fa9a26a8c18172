"""Each stage's rerun trigger is the code it imports, found from the imports (experiments/workflow/digests.py): in a
scratch copy of the checkout, editing a module reruns exactly the stages whose jobs import it, through however many
other modules, and editing a module no stage imports reruns nothing (`snakemake --dry-run`).

mobility.py is the case a hand-kept list missed: its tracks go into every wireless run's params.json, yet editing
it re-ran no batch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sweeps import copy_checkout, dry_run_jobs

REPO = Path(__file__).resolve().parents[2]

SWEEP = """
paper: code_sweep
queues:
  RED: {class: Queue/RED, knobs: {thresh_: 5, maxthresh_: 15}}
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
        flows_n: {path: flows.tcp.count, levels: [1, 2]}
figures:
  - {id: util, experiment: flows, module: figures.generic, function: metric_vs_axis,
     metric: bottleneck_utilization_pct, x: flows_n, caption: "Utilization"}
claims:
  - {id: busy, kind: value, source: this test, experiment: flows, metric: bottleneck_utilization_pct,
     expected: 90, pass: {abs: 20}, drift: {abs: 40}}
"""


def command(checkout: Path, *extra: str) -> list[str]:
    results = checkout / "results-code"
    targets = [results / "code_sweep" / "figures" / "util.png", results / "REPORT.md"]
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
        f"experiment_files={checkout / 'sweep.yaml'}",
        f"results={results}",
        "batch_size=1",
        "--",
        *map(str, targets),
    ]


def run(checkout: Path, *extra: str) -> str:
    # The copy's packages first: the editable install points at the real checkout.
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    proc = subprocess.run(command(checkout, *extra), cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    return out


def scheduled(checkout: Path) -> dict[str, int]:
    return dry_run_jobs(run(checkout, "--dry-run"))


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the checkout (sweeps.copy_checkout) with the sweep run once."""
    root = copy_checkout(tmp_path_factory.mktemp("code") / "checkout")
    (root / "sweep.yaml").write_text(SWEEP)
    run(root)
    assert scheduled(root) == {}
    return root


def edit(checkout: Path, module: str):
    """Append a comment to a module; returns what puts it back."""
    path = checkout / module
    original = path.read_text()
    path.write_text(original + "# an edit\n")
    return lambda: path.write_text(original)


DOWNSTREAM = {"aggregate_experiment", "draw_figure", "write_report"}


@pytest.mark.parametrize(
    "module,expected",
    [
        # imported by expansion (planning.params): every batch job reruns, each run found again under its key
        ("experiments/planning/mobility.py", {"simulate_batch"}),
        # measure.run's families: the aggregation, and what reads its tables
        ("experiments/measure/links.py", {"aggregate_experiment"}),
        # the figure module: its drawing only
        ("figures/generic.py", {"draw_figure"}),
        # a claim kind: the report only
        ("experiments/verdicts/kinds.py", {"write_report"}),
    ],
    ids=["mobility", "measure", "figure", "verdicts"],
)
def test_editing_a_module_reruns_the_stages_that_import_it(checkout, module, expected):
    restore = edit(checkout, module)
    try:
        jobs = scheduled(checkout)
    finally:
        restore()
    assert expected <= set(jobs), jobs
    earlier = {"simulate_batch", "aggregate_experiment", "draw_figure", "write_report"}
    order = ["simulate_batch", "aggregate_experiment", "draw_figure", "write_report"]
    first = min(order.index(rule) for rule in expected)
    assert not (set(jobs) & (earlier - set(order[first:]))), f"an earlier stage reruns: {jobs}"
    assert set(jobs) <= set(order[first:]) | DOWNSTREAM


def test_editing_a_module_no_stage_imports_reruns_nothing(checkout):
    restore = edit(checkout, "experiments/report/browser_check.py")  # the command line's check, no job's
    try:
        assert scheduled(checkout) == {}
    finally:
        restore()
