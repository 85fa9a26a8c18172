"""Batch jobs' work in worker processes (experiments/workflow/worker.py): events come back in order, stray output
does not corrupt them, an idle worker takes the next job, a failure names its cause, a worker dies with its
parent, a job that comes after a Ctrl-C ended its idle worker stops instead of starting a new one, a simulate
job's lines still carry the whole sweep's count, and its runs' metrics are filed for the aggregation."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from experiments.common.progress import Progress
from experiments.config.load import analysis_settings, load
from experiments.measure import aggregate as aggregate_module
from experiments.planning.expansion import Run, expand
from experiments.simulate.toolchain import Toolchain
from experiments.store import layout
from experiments.store.records import read_records
from experiments.workflow import jobs, worker

REPO = Path(__file__).resolve().parents[2]

HELPERS = """
import os, sys, time

def count(n, emit):
    print("noise on stdout")  # a library's print: must not reach the event stream
    os.write(1, b"noise on fd 1\\n")
    for i in range(n):
        emit({"i": i, "pid": os.getpid()})

def fail(emit):
    emit({"i": 0})
    raise ValueError("the child's own error")

def die(emit):
    os._exit(3)

def linger(pid_file, emit):
    open(pid_file, "w").write(str(os.getpid()))
    time.sleep(120)
"""


@pytest.fixture
def helpers(tmp_path, monkeypatch):
    """A module of functions for the worker to run, importable in the child."""
    (tmp_path / "worker_helpers.py").write_text(HELPERS)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    worker._POOL.close()  # workers started before took another PYTHONPATH
    yield tmp_path
    worker._POOL.close()


def test_events_come_back_in_order_from_another_process_and_stray_output_goes_to_stderr(helpers, capfd):
    events = []
    worker.call("worker_helpers:count", (5,), events.append)
    assert [e["i"] for e in events] == list(range(5))
    assert {e["pid"] for e in events} != {os.getpid()}, "the function ran in this process"
    err = capfd.readouterr().err
    assert "noise on stdout" in err and "noise on fd 1" in err


def test_a_failing_job_raises_with_its_traceback_and_its_worker_is_not_reused(helpers):
    first, events, after = [], [], []
    worker.call("worker_helpers:count", (1,), first.append)
    worker.call("worker_helpers:count", (1,), after.append)
    assert first[0]["pid"] == after[0]["pid"], "the idle worker was not reused"
    with pytest.raises(worker.WorkerFailed, match="the child's own error") as failure:
        worker.call("worker_helpers:fail", (), events.append)
    assert "ValueError" in str(failure.value) and events == [{"i": 0}]
    worker.call("worker_helpers:count", (1,), after.append)
    assert after[-1]["pid"] != first[0]["pid"], "the worker whose job failed took another job"


def test_a_worker_that_dies_fails_its_job(helpers):
    with pytest.raises(worker.WorkerFailed, match="died"):
        worker.call("worker_helpers:die", (), print)


def test_a_worker_dies_with_its_parent(helpers, tmp_path):
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            from experiments.workflow import worker
            worker.call("worker_helpers:linger", ({str(pid_file)!r},), print)
        """),
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{helpers}"},
    )
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    child = int(pid_file.read_text())
    parent.kill()  # the parent alone, as when Snakemake's process is killed and not its process group
    parent.wait()
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(child, 9)
    pytest.fail("the worker outlived its parent")


def test_a_job_after_a_ctrl_c_that_ended_its_idle_worker_stops_as_interrupted(helpers, monkeypatch):
    """The race CI met: Ctrl-C reached the process group, the idle worker exited, and a job's thread took the pool
    before the main thread had run its handler (STOP not yet set). It started a new worker, outside the signal,
    which ran the job to its end, and no job said the sweep was interrupted."""
    first = []
    worker.call("worker_helpers:count", (1,), first.append)
    idle = worker._POOL._idle[-1]
    idle.send_signal(signal.SIGINT)  # as the terminal's Ctrl-C, to this worker alone: STOP stays unset here
    idle.wait(timeout=30)
    assert not worker.STOP.is_set()
    resent = []
    monkeypatch.setattr(worker.os, "kill", lambda pid, sig: resent.append((pid, sig)))
    monkeypatch.setattr(worker, "STOP", worker.threading.Event())
    after = []
    with pytest.raises(worker.Interrupted, match="interrupted"):
        worker.call("worker_helpers:count", (1,), after.append)
    assert after == [], "a new worker ran the job after the Ctrl-C"
    assert worker.STOP.is_set() and resent == [(os.getpid(), signal.SIGINT)], "the interrupt was not passed on"


FAKE_NS = """#!/bin/sh
echo '{"links": []}' > "$2/meta.json"
"""


def test_a_simulate_job_s_lines_carry_the_sweep_count_and_its_record_lists_every_run(tmp_path):
    ns = tmp_path / "fake-ns"
    ns.write_text(FAKE_NS)
    ns.chmod(0o755)
    manifest = tmp_path / "manifest.json"
    manifest.write_text('{"binary": {"sha256": "fake"}}\n')
    tools = Toolchain(ns=ns, manifest=manifest, driver=REPO / "tcl" / "driver.tcl", parsed=False)
    runs = [Run("p", "e", {"case": str(s)}, s, {"seed": s, "duration": 1.0}) for s in (1, 2)]
    plan = SimpleNamespace(batch_runs=lambda *_: runs)
    settings = SimpleNamespace(results=tmp_path / "results", parse=False, keep_raw=True)
    wildcards = SimpleNamespace(paper="p", experiment="e", batch="0")
    sweep = Progress(total=5)
    record, log = tmp_path / "record.json", tmp_path / "job.log"
    jobs.simulate_batch(plan, wildcards, settings, tools, record, log, sweep)
    lines = log.read_text().splitlines()
    assert [line.split(" | ")[1].split(",")[0] for line in lines] == ["sweep 1/5 runs", "sweep 2/5 runs"]
    assert lines[0].startswith("[p/e batch 0 1/2] e case=1 seed=1 key=") and ": ran " in lines[0]
    assert sweep.done == 2
    assert [r["status"] for r in read_records([record])] == ["ran", "ran"]


def test_a_simulate_job_files_its_runs_metrics_for_the_aggregation(ns_binary, tmp_path, monkeypatch):
    doc = load(REPO / "tests" / "configs" / "minimal.yaml")
    runs = expand(doc)
    tools = Toolchain(ns=ns_binary, manifest=ns_binary.parent / "manifest.json", driver=REPO / "tcl" / "driver.tcl")
    plan = SimpleNamespace(batch_runs=lambda *_: runs, docs={doc["paper"]: doc})
    settings = SimpleNamespace(results=tmp_path / "results", parse=True, keep_raw=False)
    wildcards = SimpleNamespace(paper=doc["paper"], experiment="tiny", batch="0")
    record, log = tmp_path / "record.json", tmp_path / "job.log"
    jobs.simulate_batch(plan, wildcards, settings, tools, record, log)
    assert f"metrics of {len(runs)} runs filed (0 were already)" in log.read_text()
    # filed from the tables held in memory, under the run's key: what its parquet tables give
    exp = doc["experiments"]["tiny"]
    analysis, cache = analysis_settings(exp), layout.metrics_cache(settings.results)
    code = aggregate_module.metrics_code_digest()
    for entry in read_records([record]):
        directory = Path(settings.results) / entry["directory"]
        *filed, hit = aggregate_module.cached_run_metrics(directory, exp["warmup"], analysis, True, cache, code)
        *fresh, _ = aggregate_module.cached_run_metrics(directory, exp["warmup"], analysis, True, None, code)
        assert hit and all(a.equals(b) for a, b in zip(filed, fresh, strict=True))
    jobs.simulate_batch(plan, wildcards, settings, tools, record, log)  # every run made: filed after the batch
    assert f"metrics of {len(runs)} runs filed ({len(runs)} were already)" in log.read_text()

    def no_computing(*args, **kwargs):
        raise AssertionError("the aggregation computed a run's metrics the batch job had filed")

    monkeypatch.setattr(aggregate_module, "run_metrics", no_computing)
    contexts = [{"paper": doc["paper"], "experiment": "tiny", "seed": run.seed} for run in runs]
    out = tmp_path / "aggregated"
    cache = layout.metrics_cache(settings.results)
    aggregate_module.aggregate(
        [record], contexts, exp["warmup"], out, analysis_settings(exp), cache, results=settings.results
    )
    assert len(pd.read_parquet(out / "runs.parquet")) == len(runs)
    assert len(pd.read_parquet(out / "metrics.parquet"))
