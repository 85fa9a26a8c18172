"""Through Slurm (profiles/slurm, snakemake-executor-plugin-slurm): the smoke profile's results are the host's
byte for byte, and a job whose run fails is reported failed.

CI's slurm stage (.ci/run) starts a one-node Slurm with `.ci/slurm run`, runs the smoke profile through it
into NS2REPRO_SLURM_RESULTS and then this file with NS2REPRO_SLURM=1 while Slurm is up; `make test` later
runs the comparison again (Slurm stopped, the failing-job test skipped). Outside CI both are skipped with the
reason.
"""

from __future__ import annotations

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


def test_a_failing_job_through_slurm_is_reported_failed(slurm_up, tmp_path):
    sweep = tmp_path / "broken_run.yaml"
    sweep.write_text(BROKEN)
    results = tmp_path / "results"
    record = results / "broken_run" / "tiny" / "batches" / "0.json"
    done = subprocess.run(
        [
            sys.executable, "-m", "snakemake", "--profile", "profiles/slurm",
            "--configfile", "profiles/smoke/settings.yaml",
            "--config", f"experiment_files={sweep}", f"results={results}",
            "--", str(record),
        ],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert not record.exists()
    # Snakemake names the failed job and its output, and the Slurm job's log ...
    assert "Error in rule simulate_batch" in output and f"output: {record}" in output, output
    slurm_logs = re.findall(r"log: (\S+/slurm_logs/\S+\.log) \(check log", output)
    assert slurm_logs, f"no Slurm log named:\n{output}"
    # ... which holds the run's own error and the command that reruns it (experiments.simulate)
    text = Path(slurm_logs[0]).read_text(errors="replace")
    assert "window_" in text and "is not a number" in text and "rerun: " in text, text
    assert list(results.glob("**/runs/*.failed/rerun.sh")), "the failed run leaves its rerun.sh"
