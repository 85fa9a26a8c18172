"""A failed run leaves no partial output, keeps its stderr, names the command that reruns
it, and does not stop the other runs of its batch."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from experiments import config, matrix, simulate

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def tools(ns_binary):
    return simulate.Toolchain(
        ns=ns_binary, manifest=ns_binary.parent / "manifest.json", driver=REPO / "tcl" / "driver.tcl"
    )


def two_runs():
    doc = config.load(REPO / "tests" / "configs" / "minimal.yaml")
    exp = doc["experiments"]["tiny"]
    exp["matrix"]["product"] = {}
    good = matrix.expand(doc)[0]
    bad_params = {**good.params, "core_queue": {"class": "Queue/RED", "knobs": {"thresh": 5}}}  # not a RED knob
    bad = matrix.Run(good.paper, good.experiment, {"case": "bad"}, good.seed, bad_params)
    return good, bad


def test_failed_run(tools, tmp_path):
    good, bad = two_runs()
    lines = []
    outcomes = simulate.run_batch([bad, good], tmp_path, tools, progress=lines.append)
    assert [o.status for o in outcomes] == ["failed", "ran"]
    failed = outcomes[0]
    runs_dir = simulate.runs_dir(tmp_path, bad)
    assert not (runs_dir / failed.key).exists(), "no partial run directory"
    assert failed.directory == runs_dir / f"{failed.key}.failed"
    assert "thresh" in (failed.directory / "stderr.txt").read_text()
    rerun = (failed.directory / "rerun.sh").read_text().splitlines()[-1]
    assert rerun in failed.message and rerun.startswith(str(tools.ns))
    again = subprocess.run(rerun, shell=True, capture_output=True, text=True)  # the command reproduces the error
    assert again.returncode == 3 and "thresh" in again.stderr
    assert (outcomes[1].directory / "params.json").is_file()
    with pytest.raises(simulate.BatchFailed, match="rerun: "):
        simulate.raise_for_failures(outcomes)
    # a rerun of the batch reuses the good run and retries the failed one
    second = simulate.run_batch([bad, good], tmp_path, tools, progress=lines.append)
    assert [o.status for o in second] == ["failed", "cached"]
    assert not list(runs_dir.glob(".*.tmp-*")), "no temporary directory left behind"
