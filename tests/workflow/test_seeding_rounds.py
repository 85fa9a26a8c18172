"""Seeding rounds end to end (workflows/seeding.smk): `reproduce-all` on a small sweep doubles the seeds of the
one claim that drifts on an open interval, on exactly the cells it compares, until it is decided; the report shows
the rounds; a second invocation adds nothing; a budget too small for the round leaves the drift undecided and says
so; killed mid-round, the same command finishes it as if uninterrupted."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from experiments.common.markdown import row_cells
from tests.sweeps import SEED_DEMO, dry_run_jobs

REPO = Path(__file__).resolve().parents[2]


def snakemake(sweep: Path, results: Path, *extra: str, dry: bool = False) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", *(["--dry-run"] if dry else []), "--cores", "2", "--config"]
    cmd += [f"experiment_files={sweep}", f"results={results}", "seed_cap=8", *extra, "--", "reproduce-all"]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("seeding")
    sweep = base / "seed_demo.yaml"
    sweep.write_text(SEED_DEMO)
    results = base / "results"
    done = snakemake(sweep, results)
    assert done.returncode == 0, done.stdout + done.stderr
    return sweep, results


def claim_row(report: str, claim: str) -> list[str]:
    """The claim's row of its class's table (the first of its rows: the cell detail's follow)."""
    return next(row_cells(line) for line in report.splitlines() if line.startswith(f"| {claim} "))


def test_a_round_doubles_the_cells_the_undecided_claim_compares(seeded):
    _, results = seeded
    first = json.loads((results / "seed-rounds" / "round1.json").read_text())
    (entry,) = first["cells"]
    assert (entry["claim"], entry["status"]) == ("more_flows_longer_queue", "added")
    assert (entry["seeds"], entry["stop"]) == (2, 5), "2 seeds from seed 1, doubled: seeds 3 and 4 added"
    (runs,) = first["runs"]
    assert runs["seeds"] == [3, 5] and runs["cells"] == [{"flows_n": "2"}, {"flows_n": "3"}], "flows_n=8 not compared"
    records = sorted((results / "seed_demo" / "fill" / "seeds" / "round1" / "batches").glob("*.json"))
    ran = [run for record in records for run in json.loads(record.read_text())["runs"]]
    assert sorted(r["seed"] for r in ran) == [3, 3, 4, 4] and all(r["status"] == "ran" for r in ran)
    assert all((results / "runs" / r["key"]).is_dir() for r in ran)
    # decided after the round: the next schedule sends nothing and the rounds end
    second = json.loads((results / "seed-rounds" / "round2.json").read_text())
    assert (second["cells"], second["runs"], second["spent_before"]) == ([], [], 4)
    assert not (results / "seed-rounds" / "round3.json").exists()


def test_the_report_shows_each_claims_rounds_and_what_they_decided(seeded):
    _, results = seeded
    report = (results / "REPORT.md").read_text()
    header = row_cells(next(line for line in report.splitlines() if line.startswith("| claim ")))
    row = dict(zip(header, claim_row(report, "more_flows_longer_queue"), strict=True))
    assert row["seeds"] == "4 (1 round added)" and row["verdict"] in ("**pass**", "**fail**")
    assert "98.3 % interval" in row["tolerance"], "2 seeds capped at 8: three looks, Bonferroni"
    assert dict(zip(header, claim_row(report, "queue_below_100"), strict=True))["seeds"] == "2"
    assert "Seeding rounds: 1 reproduction claim(s) undecided after the starting seeds" in report
    assert "4 runs added" in report
    # the HTML run list links the added runs beside the starting ones
    records = (results / "seed_demo" / "fill" / "seeds" / "round1" / "batches").glob("*.json")
    added = [run["key"] for record in records for run in json.loads(record.read_text())["runs"]]
    page = (results / "report" / "runs" / "seed_demo" / "fill.html").read_text()
    assert len(added) == 4 and all(f"../../../runs/{key}/params.json" in page for key in added)


def test_a_second_invocation_adds_nothing(seeded):
    sweep, results = seeded
    done = snakemake(sweep, results, dry=True)
    assert done.returncode == 0, done.stdout + done.stderr
    jobs = dry_run_jobs(done.stdout)
    assert not {"seed_round", "simulate_seed_batch", "aggregate_seed_round", "simulate_batch"} & set(jobs), jobs


def test_a_budget_too_small_leaves_the_drift_undecided_and_says_so(seeded, tmp_path):
    sweep, _ = seeded
    results = tmp_path / "results"
    done = snakemake(sweep, results, "seed_budget=3")
    assert done.returncode == 0, done.stdout + done.stderr
    (entry,) = json.loads((results / "seed-rounds" / "round1.json").read_text())["cells"]
    assert (entry["status"], entry["runs"]) == ("budget", 4)
    assert not (results / "seed_demo" / "fill" / "seeds").exists()
    report = (results / "REPORT.md").read_text()
    row = claim_row(report, "more_flows_longer_queue")
    assert "**drift**" in row and any(c.startswith("undecided at 2 seeds, the seeding budget spent") for c in row)


def test_kill_9_mid_round_then_the_same_command_gives_the_same_rounds(seeded, tmp_path):
    """Killed with SIGKILL while round 1's runs are simulated (one run per job, one job at a time), the same
    command finishes the round from where it stopped: what ran is not run again, and the schedules and the round's
    metrics are those of the uninterrupted invocation."""
    sweep, whole = seeded
    results = tmp_path / "results"
    cmd = [sys.executable, "-m", "snakemake", "--cores", "1", "--config", f"experiment_files={sweep}"]
    cmd += [f"results={results}", "seed_cap=8", "batch_size=1", "--", "reproduce-all"]
    batches = results / "seed_demo" / "fill" / "seeds" / "round1" / "batches"
    with open(tmp_path / "first.log", "w") as log:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 600
        while not (batches.is_dir() and any(batches.glob("*.json"))):  # round 1's first batch done, whichever it is
            assert proc.poll() is None, (tmp_path / "first.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "round 1 never started"
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    done_before = {p.name for p in (results / "runs").iterdir() if "." not in p.name}
    assert not (results / "seed-rounds" / "round2.json").exists(), "the kill came after round 1"

    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-3000:]
    lines = re.findall(r"key=([0-9a-f]+): (ran|cached|failed)", again.stdout + again.stderr)
    ran = {key for key, status in lines if status == "ran"}  # a batch killed before its record finds its run made
    assert not ran & done_before, "a run finished before the kill ran again"
    for name in ("round1.json", "round2.json"):
        assert (results / "seed-rounds" / name).read_bytes() == (whole / "seed-rounds" / name).read_bytes()
    table = Path("seed_demo") / "fill" / "seeds" / "round1" / "metrics.parquet"
    pd.testing.assert_frame_equal(pd.read_parquet(results / table), pd.read_parquet(whole / table))
