"""A bad workflow setting given to Snakemake (issue 51): one line naming the setting and what it allows, exit
status 2, no stack, nothing under the results folder. Before, `batch_size=2.0` passed Snakemake's check (JSON
Schema counts 2.0 as an integer) and failed in the plan with a stack of frames."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CASES = {
    "batch_size=2.0": "batch_size=2.0 is not allowed; allowed: an integer of at least 1",
    "seed_cap=0": "seed_cap=0 is not allowed; allowed: an integer of at least 1, or paper",
}


@pytest.mark.parametrize("setting", sorted(CASES))
def test_bad_setting_through_snakemake_gives_one_line(setting, tmp_path, ns_binary):
    results = tmp_path / "results"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--dry-run",
            "reproduce-all",
            "--config",
            "experiment_files=configs/koo_aqm.yaml",
            f"results={results}",
            setting,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    ours = [line for line in done.stderr.splitlines() if not line.startswith("Using workflow specific profile")]
    assert ours == [f"error: workflow config: {CASES[setting]}"], done.stderr
    assert "Traceback" not in done.stderr
    assert not results.exists()


@pytest.mark.parametrize("source", ["/dev/zero", "fifo"])
def test_an_experiment_file_that_is_no_regular_file_is_refused_through_snakemake(source, tmp_path):
    """The plan cache digests each experiment file for its key: before, it read /dev/zero or a pipe whole (a dry
    run hung); now such a file is not digested, and planning reads what it may and refuses it in one line."""
    path = Path(source)
    feeder = None
    if source == "fifo":
        path = tmp_path / "sweep.yaml"
        os.mkfifo(path)
        feeder = subprocess.Popen(["sh", "-c", f"yes 'a: b' > {path}"], stderr=subprocess.DEVNULL)
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "snakemake",
                "--dry-run",
                "--config",
                f"experiment_files={path}",
                f"results={tmp_path / 'results'}",
                "--",
                "reproduce-all",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        if feeder:
            feeder.kill()
            feeder.wait()
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"error: {path}: more than 4 MiB to read" in done.stderr and "Traceback" not in done.stderr
