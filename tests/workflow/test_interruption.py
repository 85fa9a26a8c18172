"""The whole workflow killed with SIGKILL mid-sweep, then the same command again: no finished run runs again,
the unfinished ones do, no temporary directory is left, and the outputs are byte-identical to those of an
uninterrupted invocation. A second invocation on a results folder in use stops with one line and leaves the
first unharmed. A disk that fills up fails each run cleanly, and once space is freed the same command gives
the uninterrupted outputs. Both through Snakemake on the smoke profile, with a sweep written here (6 runs of 2-3 s)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_unshipped_sweep import SWEEP as UNSHIPPED_SWEEP

REPO = Path(__file__).resolve().parents[2]


def sweep_text(first_seed: int = 1) -> str:
    """test_unshipped_sweep's dumbbell (RED against PI, 2, 4 and 8 flows) with one seed, no figure and runs
    of 300 simulated s (under a second each here; 2-3 s before issue 49's work)."""
    doc = yaml.safe_load(UNSHIPPED_SWEEP)
    doc["paper"] = "interrupted"
    doc.pop("figures")
    doc["experiments"]["flows"].update(duration=300, seeds={"count": 1, "first": first_seed})
    return yaml.safe_dump(doc, sort_keys=False)


RUNS = 6
OUTCOME = re.compile(r"key=([0-9a-f]+): (ran|cached|failed)")


def command(sweep: Path, results: Path) -> list[str]:
    """One run per batch job, one job at a time: a kill finds some runs done and some not."""
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--profile",
        "profiles/smoke",
        "--cores",
        "1",
        "--config",
        f"experiment_files={sweep}",
        f"results={results}",
        "batch_size=1",
        "smoke_duration=300",
        "--",
        str(results / "REPORT.md"),
        str(results / "interrupted" / "flows" / "metrics.parquet"),
    ]


def complete_runs(results: Path) -> set[str]:
    """Run directories named by their key alone: not `.<key>.tmp-*`, not `<key>.failed`."""
    runs = results / "runs"
    return {p.name for p in runs.iterdir() if "." not in p.name} if runs.is_dir() else set()


def unfinished_runs(results: Path) -> list[str]:
    """Runs under way: their temporary directories `.<key>.tmp-*`."""
    return [p.name for p in (results / "runs").glob(".*.tmp-*")] if (results / "runs").is_dir() else []


def start(cmd: list[str], log: Path) -> subprocess.Popen:
    with open(log, "w") as out:  # the child keeps its own descriptor
        return subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def wait_for(condition, proc: subprocess.Popen, what: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, f"the workflow ended (status {proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.05)


def outputs(results: Path) -> dict[str, bytes]:
    """What a user reads: the report, the experiment's metrics, and every run's parquet tables and params."""
    files = [results / "REPORT.md", results / "interrupted" / "flows" / "metrics.parquet"]
    for run in sorted(complete_runs(results)):
        files += [results / "runs" / run / "params.json", *sorted((results / "runs" / run / "tables").glob("*"))]
    return {str(f.relative_to(results)): f.read_bytes() for f in files}


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("interrupt") / "interrupted.yaml"
    path.write_text(sweep_text())
    return path


@pytest.fixture(scope="module")
def uninterrupted(sweep, ns_binary) -> dict[str, bytes]:
    results = sweep.parent / "uninterrupted"
    proc = subprocess.run(command(sweep, results), cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(complete_runs(results)) == RUNS
    return outputs(results)


def test_kill_9_mid_sweep_then_the_same_command(sweep, uninterrupted, tmp_path):
    results = sweep.parent / "killed"
    cmd = command(sweep, results)
    proc = start(cmd, tmp_path / "first.log")
    try:
        wait_for(lambda: len(complete_runs(results)) >= 2, proc, "two finished runs")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # Snakemake, its job threads and the ns running under them
        proc.wait()
    finished = complete_runs(results)
    assert 2 <= len(finished) < RUNS, "the kill came after the sweep had finished: nothing was interrupted"

    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert again.returncode == 0, again.stderr[-3000:]
    said = dict(OUTCOME.findall(again.stdout + again.stderr))
    ran = {key for key, status in said.items() if status == "ran"}
    assert not ran & finished, "a run finished before the kill ran again"
    assert ran | finished == complete_runs(results) and len(complete_runs(results)) == RUNS
    assert "failed" not in said.values()
    leftovers = [p.name for p in (results / "runs").iterdir() if "." in p.name]
    assert leftovers == [], "temporary or failed directories left behind"
    assert outputs(results) == uninterrupted, "the resumed sweep's outputs differ from an uninterrupted one's"


def test_ctrl_c_stops_the_sweep_within_seconds_and_the_same_command_resumes(sweep, uninterrupted, tmp_path):
    """Ctrl-C as a terminal sends it: SIGINT to the whole process group (Snakemake, its workers, the ns running).
    Before: each worker printed a KeyboardInterrupt traceback and left the run's temporary directory; before the
    workers, only the running ns died, was recorded as a failed run, and the batch went on."""
    results = sweep.parent / "ctrl-c"
    cmd = command(sweep, results)
    log = tmp_path / "first.log"
    proc = start(cmd, log)
    try:
        wait_for(lambda: len(complete_runs(results)) >= 2, proc, "two finished runs")
        # into the next run (its temporary directory): runs now take under a second, and a fixed pause fell
        # between two jobs as often as inside one
        wait_for(lambda: len(complete_runs(results)) < RUNS and unfinished_runs(results), proc, "a run under way")
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    finished = complete_runs(results)
    assert 2 <= len(finished) < RUNS, "the interrupt came after the sweep had finished"
    output = log.read_text()
    assert proc.returncode != 0 and "interrupted (Ctrl-C)" in output, output[-3000:]
    assert "KeyboardInterrupt" not in output and "failed" not in dict(OUTCOME.findall(output)).values()
    assert [p.name for p in (results / "runs").iterdir() if "." in p.name] == [], "nothing unfinished kept"

    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert again.returncode == 0, again.stderr[-3000:]
    ran = {key for key, status in OUTCOME.findall(again.stdout + again.stderr) if status == "ran"}
    assert not ran & finished and len(complete_runs(results)) == RUNS
    assert outputs(results) == uninterrupted


def test_a_second_invocation_on_a_results_folder_in_use_stops_and_the_first_is_unharmed(sweep, uninterrupted, tmp_path):
    results = sweep.parent / "contended"
    cmd = command(sweep, results)
    first = start(cmd, tmp_path / "first.log")
    lock = results / ".workflow.lock"
    wait_for(lambda: lock.is_file() and "pid" in lock.read_text(), first, "the first invocation's lock")
    # The first is held still while the second starts: on a fast machine its short runs ended before the second had
    # planned, and the second found nothing to do instead of a folder in use.
    os.killpg(first.pid, signal.SIGSTOP)
    try:
        second = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    assert first.wait(timeout=1200) == 0, (tmp_path / "first.log").read_text()[-3000:]

    assert second.returncode == 2, second.stderr[-3000:]
    errors = [line for line in second.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {results}: another snakemake is running on this results folder ({lock.read_text().strip()}); "
        "wait for it to finish or stop it, then run the same command again"
    ]
    assert "Traceback" not in second.stderr
    assert not re.search(OUTCOME, second.stdout + second.stderr), "the second invocation ran nothing"
    assert outputs(results) == uninterrupted


def test_a_stamp_left_from_before_does_not_hide_a_missing_results_folder(sweep, uninterrupted, tmp_path):
    """Snakemake counts a job whose output exists as done even when its inputs are gone: the stamp
    `reproduce-all` of an earlier invocation made `snakemake reproduce-all` a no-op ("Nothing to be done") once
    its results folder was deleted. The stamp is made here by a real invocation (so that Snakemake holds its
    metadata, as after any sweep) over a copy of the uninterrupted folder; the copy is then deleted, and a dry
    run into it must list every run's batch. The stamp is the checkout's own (ignored by git): this test
    rewrites it."""

    def reproduce_all(results: Path, *options: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "snakemake",
                *options,
                "--profile",
                "profiles/smoke",
                "--cores",
                "1",
                "--config",
                f"experiment_files={sweep}",
                f"results={results}",
                "batch_size=1",
                "smoke_duration=300",
                "--",
                "reproduce-all",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=600,
        )

    results = tmp_path / "results"
    shutil.copytree(sweep.parent / "uninterrupted", results)
    made = reproduce_all(results)
    assert made.returncode == 0 and (REPO / "reproduce-all").is_file(), made.stderr[-3000:]
    shutil.rmtree(results)
    proc = reproduce_all(results, "--dry-run")
    assert proc.returncode == 0, proc.stderr[-3000:]
    stats = dict(re.findall(r"^(\w+)\s+(\d+)$", proc.stdout, flags=re.M))
    assert stats.get("simulate_batch") == str(RUNS) and stats.get("reproduce_all") == "1", proc.stdout[-2000:]
    assert not results.exists()


@pytest.fixture
def small_disk(tmpfs):
    """A 4 MiB tmpfs: a run's packet log fills it."""
    return tmpfs("4m")


def test_a_full_disk_fails_each_run_cleanly_and_nothing_corrupt_is_kept(sweep, uninterrupted, small_disk):
    results = small_disk / "results"
    cmd = command(sweep, results)
    full = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1200)
    said = dict(OUTCOME.findall(full.stdout + full.stderr))
    assert len(said) == RUNS and set(said.values()) == {"failed"}, said
    assert "the results folder's file system is full" in full.stdout + full.stderr
    assert complete_runs(results) == set(), "a run written to a full disk was kept"
    # The batch records may fit on the disk (the failed runs' big outputs are deleted) or not (the job fails):
    # either way no failed run is aggregated.
    metrics = results / "interrupted" / "flows" / "metrics.parquet"
    assert not metrics.exists() or pd.read_parquet(metrics).empty, "nothing of a failed run aggregated"

    subprocess.run(["mount", "-o", "remount,size=1g", str(small_disk)], check=True)  # space freed
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert again.returncode == 0, again.stderr[-3000:]
    assert set(dict(OUTCOME.findall(again.stdout + again.stderr)).values()) == {"ran"}
    assert [p.name for p in (results / "runs").iterdir() if "." in p.name] == [], "failed dirs outlive their fix"
    assert outputs(results) == uninterrupted


def test_another_seed_gives_other_runs(sweep, uninterrupted, tmp_path):
    """The same sweep from seed 2: each cell's run differs from seed 1's in its seed only, and in every table."""
    other = tmp_path / "seed2.yaml"
    other.write_text(sweep_text(first_seed=2))
    results = tmp_path / "results"
    proc = subprocess.run(command(other, results), cwd=REPO, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seed2 = outputs(results)

    def runs_by_cell(files: dict[str, bytes]) -> dict[str, tuple[int, str]]:
        """cell (params without the seed) -> (seed, run folder relative to the results folder)"""
        cells = {}
        for name, content in files.items():
            if name.endswith("/params.json"):
                params = json.loads(content)
                cells[json.dumps({k: v for k, v in params.items() if k != "seed"}, sort_keys=True)] = (
                    params["seed"],
                    name.removesuffix("/params.json"),
                )
        return cells

    first, second = runs_by_cell(uninterrupted), runs_by_cell(seed2)
    assert first.keys() == second.keys() and len(first) == RUNS, "the same cells, apart from the seed"
    for cell, (seed, run) in first.items():
        other_seed, other_run = second[cell]
        assert (seed, other_seed) == (1, 2)
        tables = [name for name in uninterrupted if name.startswith(f"{run}/tables/")]
        assert tables
        for name in tables:
            theirs = seed2.get(name.replace(run, other_run, 1))
            assert theirs is not None and theirs != uninterrupted[name], f"{name}: seeds 1 and 2 give the same bytes"
