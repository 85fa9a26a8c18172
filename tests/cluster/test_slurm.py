"""Through Slurm (profiles/slurm, snakemake-executor-plugin-slurm): the smoke profile's results are the host's
byte for byte, and a run that fails in its Slurm job is reported and fails the command.

CI's slurm stage (.ci/run) starts a one-node Slurm with `.ci/slurm run`, runs the smoke profile through it
into NS2REPRO_SLURM_RESULTS and then this file with NS2REPRO_SLURM=1 while Slurm is up; `make test` later
runs the comparison again (Slurm stopped, the failing-job test skipped). Outside CI both are skipped with the
reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.container.test_parity import assert_matches_host, results_from_env

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def slurm_results() -> Path:
    return results_from_env("NS2REPRO_SLURM_RESULTS", "the smoke profile through Slurm (`.ci/slurm smoke OUT`)")


def test_slurm_smoke_run_matches_host_byte_for_byte(slurm_results):
    assert_matches_host(slurm_results, "through Slurm", baseline=True)


# Valid for `validate` (knob values are not typed there), refused by the Tcl driver at run time (exit 3): the
# run fails inside its Slurm job, as tests/workflow/test_failed_run.py's bad knob fails a run locally.
BROKEN = """
paper: broken_run
queues:
  RED: {class: Queue/RED, knobs: {thresh_: 5, maxthresh_: 15}}
experiments:
  tiny:
    scenario:
      topology:
        kind: dumbbell
        core_link: {bandwidth: 1Mb, delay: 10ms}
        edge_link: {bandwidth: 10Mb, delay: 1ms}
      core_queue: RED
      flows:
        tcp:
          kind: ftp
          agent: {class: Agent/TCP/Newreno, knobs: {window_: not-a-number}}
          sink: {class: Agent/TCPSink}
    duration: 2
    seeds: {count: 1}
    matrix:
      product:
        flows_n: {path: flows.tcp.count, levels: [1]}
"""


@pytest.fixture(scope="module")
def slurm_up():
    if os.environ.get("NS2REPRO_SLURM") != "1":
        pytest.skip("NS2REPRO_SLURM is not 1: needs a running Slurm (`.ci/slurm run ...`, CI's slurm stage)")
    if shutil.which("sinfo") is None or subprocess.run(["sinfo"], capture_output=True).returncode != 0:
        pytest.fail("NS2REPRO_SLURM=1 but no Slurm answers `sinfo`: start one with `.ci/slurm start`")


def test_a_failing_run_through_slurm_is_reported_and_fails_the_command(slurm_up, tmp_path):
    sweep = tmp_path / "broken_run.yaml"
    sweep.write_text(BROKEN)
    results = tmp_path / "results"
    record = results / "broken_run" / "tiny" / "batches" / "0.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--profile",
            "profiles/slurm",
            "--configfile",
            "profiles/smoke/settings.yaml",
            "--config",
            f"experiment_files={sweep}",
            f"results={results}",
            "--",
            "reproduce-all",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    # The batch job succeeded and its record lists the failed run, its error and the command that reruns it
    # (experiments.simulate); the report was written beside it and lists it too.
    (entry,) = json.loads(record.read_text())["runs"]
    assert entry["status"] == "failed" and "window_" in entry["message"] and "is not a number" in entry["message"]
    assert list(results.glob("**/runs/*.failed/rerun.sh")), "the failed run leaves its rerun.sh"
    assert entry["key"] in (results / "REPORT.md").read_text()
    # The stamp, made last, fails: Snakemake names it and its Slurm job's log, which lists the run to rerun.
    assert "Error in rule reproduce_all" in output, output
    slurm_logs = re.findall(r"(\S+/slurm_logs/\S+\.log) \(check log", output)
    assert slurm_logs, f"no Slurm log named:\n{output}"
    text = Path(slurm_logs[0]).read_text(errors="replace")
    assert "1 run(s) failed" in text and entry["rerun"] in text, text


def test_seeding_rounds_through_slurm_schedule_and_run_as_on_the_host(slurm_up, tmp_path):
    """The rounds' checkpoints run on the host, their batches as Slurm jobs: the same schedules, the same runs."""
    from tests.sweeps import SEED_DEMO

    sweep = tmp_path / "seed_demo.yaml"
    sweep.write_text(SEED_DEMO)
    config = ["--config", f"experiment_files={sweep}", "seed_cap=8"]
    outs = {}
    for where, profile in (("host", ["--cores", "2"]), ("slurm", ["--profile", "profiles/slurm"])):
        results = tmp_path / where
        done = subprocess.run(
            [sys.executable, "-m", "snakemake", *profile, *config, f"results={results}", "--", "reproduce-all"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        outs[where] = results
    schedules = {where: sorted((r / "seed-rounds").glob("round*.json")) for where, r in outs.items()}
    assert [p.name for p in schedules["host"]] == [p.name for p in schedules["slurm"]] == ["round1.json", "round2.json"]
    for host, slurm in zip(schedules["host"], schedules["slurm"], strict=True):
        assert host.read_bytes() == slurm.read_bytes()

    def keys(results: Path) -> list[str]:
        records = (results / "seed_demo" / "fill" / "seeds" / "round1" / "batches").glob("*.json")
        return sorted(run["key"] for record in records for run in json.loads(record.read_text())["runs"])

    assert keys(outs["host"]) == keys(outs["slurm"]) and len(keys(outs["host"])) == 4
