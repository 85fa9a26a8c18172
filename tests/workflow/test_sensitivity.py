"""The sensitivity stage end to end on a small sweep written here: an alternative reading of
an open choice flips a verdict, and SENSITIVITY.md and sensitivity.parquet say so."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from experiments.common.markdown import row_cells
from experiments.store import layout

REPO = Path(__file__).resolve().parents[2]

# Four FTP flows fill a 1 Mb/s bottleneck: with the chosen 40-packet DropTail buffer the
# queue grows past 10 packets; under the alternative 6-packet buffer it cannot, so the
# bound claim passes at the baseline and fails under `buffer=6`. The delay claim's
# alternative (the edge delay) cannot change the queue's maximum... but the claims
# read different metrics; `buffer_small_is_robust` holds under every reading.
SWEEP = """
paper: sens_demo
queues:
  DT:
    class: Queue/DropTail
    knobs: {limit_: 40}
choices:
  - id: buffer
    what: "Bottleneck buffer (not stated)"
    choice: "40 packets"
    why: "a test's choice"
    path: queues.DT.knobs.limit_
    alternatives:
      - {label: "6", value: 6, why: "a buffer too small for the claimed queue"}
  - id: edge_delay
    what: "Access link delay"
    choice: "1 ms"
    why: "a test's choice"
    path: topology.edge_link.delay
    alternatives:
      - {label: 2ms, value: 2ms, why: "a slightly longer access link"}
interactions: [[buffer, edge_delay]]
experiments:
  fill:
    scenario:
      topology:
        kind: dumbbell
        core_link: {bandwidth: 1Mb, delay: 10ms}
        edge_link: {bandwidth: 10Mb, delay: 1ms}
      core_queue: DT
      flows:
        tcp:
          kind: ftp
          count: 4
          agent: {class: Agent/TCP/Newreno}
          sink: {class: Agent/TCPSink}
      monitors: {packet_trace: false}
    duration: 5
    seeds: {count: 1}
claims:
  - {id: queue_grows_past_10, kind: bound, source: this test, experiment: fill, metric: bottleneck_queue_pkts_max,
     bound: above, threshold: 10, drift_threshold: 9, suspects: [buffer],
     note: "the largest queue seen is {{bottleneck_queue_pkts_max}} packets"}
  - {id: queue_never_above_100, kind: bound, source: this test, experiment: fill, metric: bottleneck_queue_pkts_max,
     bound: below, threshold: 100, drift_threshold: 120}
  - {id: link_busy, kind: bound, class: sanity, source: this test, experiment: fill,
     metric: bottleneck_utilization_pct, bound: above, threshold: 50, drift_threshold: 40}
"""


@pytest.fixture(scope="module")
def sensitivity_run(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("sensitivity")
    sweep = base / "sens_demo.yaml"
    sweep.write_text(SWEEP)
    results = base / "results"
    cmd = [
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
        # the files sensitivity-all stamps, not the stamp itself: it lives in the repository's folder
        "--",
        str(results / "SENSITIVITY.md"),
        str(results / "sensitivity.parquet"),
        str(results / "REPORT.md"),
    ]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return results


def test_an_alternative_flips_a_verdict_and_the_summary_lists_it(sensitivity_run):
    table = pd.read_parquet(sensitivity_run / "sensitivity.parquet")
    verdicts = table.set_index(["claim", "reading"])["verdict"].to_dict()
    readings = {"baseline", "buffer=6", "edge_delay=2ms", "buffer=6+edge_delay=2ms"}
    assert set(table["reading"]) == readings
    assert verdicts[("queue_grows_past_10", "baseline")] == "pass"
    assert verdicts[("queue_grows_past_10", "buffer=6")] == "fail"
    assert verdicts[("queue_grows_past_10", "buffer=6+edge_delay=2ms")] == "fail"
    assert verdicts[("queue_grows_past_10", "edge_delay=2ms")] == "pass"
    assert all(verdicts[("queue_never_above_100", r)] == "pass" for r in readings)
    assert "link_busy" not in set(table["claim"]), "only reproduction claims are in the sensitivity table"

    text = (sensitivity_run / "SENSITIVITY.md").read_text()
    row = next(row_cells(line) for line in text.splitlines() if line.startswith("| queue_grows_past_10 "))
    assert row[-1] == "buffer=6, buffer=6+edge_delay=2ms", row
    assert "**Depends on the reading** (1): `queue_grows_past_10`: holds under baseline, edge_delay=2ms" in text
    assert "**Holds under every reading tried** (1): `queue_never_above_100`" in text
    assert "`queue_grows_past_10` blames buffer: confirmed, the verdict changes under buffer=6" in text


def test_alternative_runs_are_ordinary_runs_beside_the_baseline(sensitivity_run):
    base = sensitivity_run / "sens_demo" / "fill"
    baseline_runs = pd.read_parquet(base / "runs.parquet")
    reading_runs = pd.read_parquet(base / "readings" / "buffer=6" / "runs.parquet")
    assert len(baseline_runs) == len(reading_runs) == 1
    assert set(baseline_runs["run_key"]).isdisjoint(reading_runs["run_key"])
    # every run lives in the results' one runs/ folder, named by its key; its params name no reading
    runs = {"baseline": (base, baseline_runs), "reading": (base / "readings" / "buffer=6", reading_runs)}
    directories = {k: [layout.resolved(folder, d) for d in t["directory"]] for k, (folder, t) in runs.items()}
    for directory in [*directories["baseline"], *directories["reading"]]:
        assert directory.parent == sensitivity_run / "runs"
    assert reading_runs["reading"].tolist() == ["buffer=6"]
    params = pd.read_json(directories["reading"][0] / "params.json", typ="series")
    assert "reading" not in params and params["core_queue"]["knobs"]["limit_"] == 6
    baseline = pd.read_json(directories["baseline"][0] / "params.json", typ="series")
    assert baseline["core_queue"]["knobs"]["limit_"] != 6


def test_the_report_judges_one_verdict_per_claim_by_class(sensitivity_run):
    text = (sensitivity_run / "REPORT.md").read_text()
    assert "### Reproduction claims (2 claims: 2 pass)" in text
    assert "### Sanity checks (1 claim: 1 pass)" in text
    assert "Reproduction claims, all papers: 2 pass. Sanity checks: 1 pass." in text
    # the note's placeholder is filled from the runs, not typed in
    assert "{{" not in text
    assert re.search(r"the largest queue seen is \d+(\.\d+)? \(mean of 1 run\) packets", text)


def test_a_reading_with_nothing_to_measure_confirms_no_suspect():
    """A suspect's reading under which the claim is missing (e.g. no loss at all) is not a changed verdict."""
    from experiments.report.sensitivity_markdown import _hypothesis

    rows = pd.DataFrame(
        {
            "reading": ["baseline", "buffer=big", "tp=rtt"],
            "verdict": ["fail", "missing", "fail"],
            "choices": ["", "buffer=big", "tp=rtt"],
        }
    )
    line = _hypothesis("c", ["buffer", "tp"], rows, ["buffer=big"])
    assert "not confirmed by buffer, tp" in line and "missing) under buffer=big" in line
    rows.loc[2, "verdict"] = "pass"
    line = _hypothesis("c", ["buffer", "tp"], rows, ["buffer=big", "tp=rtt"])
    assert "confirmed, the verdict changes under tp=rtt; nothing to measure (missing) under buffer=big" in line
    rows.loc[1, "verdict"] = "incomplete"  # a run of that reading failed: no evidence either way
    line = _hypothesis("c", ["buffer", "tp"], rows, ["buffer=big", "tp=rtt"])
    assert "confirmed, the verdict changes under tp=rtt; a run failed (incomplete) under buffer=big" in line


def test_papers_judged_in_processes_of_their_own_give_the_same_bytes(sensitivity_run, tmp_path):
    """write_sensitivity judges two papers at a time (spawned processes): the same SENSITIVITY.md and table as one
    at a time. The demo paper twice stands for two papers."""
    from experiments.config.load import load
    from experiments.report import sensitivity_markdown

    doc = load(sensitivity_run.parent / "sens_demo.yaml")
    readings = {"sens_demo": {r: ["fill"] for r in ("buffer=6", "edge_delay=2ms", "buffer=6+edge_delay=2ms")}}
    written = {}
    for workers in (1, 2):
        md, table = tmp_path / f"{workers}.md", tmp_path / f"{workers}.parquet"
        sensitivity_markdown.write(
            [doc, doc], sensitivity_run, REPO / "build/ns2/manifest.json", md, table, "smoke", readings, workers=workers
        )
        written[workers] = (md.read_bytes(), pd.read_parquet(table))
    assert written[1][0] == written[2][0]
    pd.testing.assert_frame_equal(written[1][1], written[2][1])
    once = pd.read_parquet(sensitivity_run / "sensitivity.parquet")
    assert len(written[2][1]) == 2 * len(once) and set(written[2][1]["verdict"]) == set(once["verdict"])
