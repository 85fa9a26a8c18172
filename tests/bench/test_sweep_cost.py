"""bench/sweep_cost.py reads a results folder's cost from its runs' own files: each run counted once, under the paper
whose batch records name it, its duration from params.json to files.json, and the busy time as the union."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from sweep_cost import busy_seconds, measure, run_hours_left  # noqa: E402


def test_busy_time_is_the_union_of_the_intervals():
    assert busy_seconds([]) == 0
    assert busy_seconds([(0, 10), (5, 15), (20, 25), (21, 22)]) == 20
    assert busy_seconds([(3, 4), (0, 10)]) == 10


def run(results: Path, key: str, start: float, end: float, complete: bool = True) -> None:
    directory = results / "runs" / key
    directory.mkdir(parents=True)
    (directory / "params.json").write_text("{}")
    os.utime(directory / "params.json", (start, start))
    if complete:
        (directory / "files.json").write_text("{}")
        os.utime(directory / "files.json", (end, end))


def record(path: Path, keys: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": [{"key": k, "status": "ran"} for k in keys]}))


def test_each_run_counts_once_under_its_paper(tmp_path):
    run(tmp_path, "a", 100, 110)
    run(tmp_path, "b", 105, 125)
    run(tmp_path, "c", 200, 203)
    run(tmp_path, "d", 300, 0, complete=False)
    record(tmp_path / "p" / "e" / "batches" / "0.json", ["a", "b"])
    record(tmp_path / "p" / "e" / "readings" / "x=1" / "batches" / "0.json", ["a"])  # a shared cell: once
    record(tmp_path / "q" / "f" / "seeds" / "round1" / "batches" / "0.json", ["c", "d"])
    got = measure(tmp_path)
    assert got["groups"]["p"]["runs"] == 2 and got["groups"]["p"]["run_s"] == 30
    assert got["groups"]["p"]["busy_s"] == 25
    assert got["groups"]["q"]["runs"] == 1 and got["groups"]["q"]["run_s"] == 3
    assert got["missing"] == 1
    assert got["all"]["runs"] == 3 and got["all"]["busy_s"] == 28
    by_experiment = measure(tmp_path, "experiment")["groups"]
    assert set(by_experiment) == {"p/e", "q/f"} and by_experiment["p/e"]["run_s"] == 30


def test_planned_runs_are_distinct_keys_counted_made_or_not(tmp_path, monkeypatch):
    """The minimal file plans two runs (two flow counts, one seed, no readings): none made in an empty folder, one
    once its directory holds files.json."""
    from sweep_cost import planned

    from experiments.planning.profiles import Settings
    from experiments.simulate.toolchain import Toolchain, key_of
    from experiments.workflow.plan_cache import cached_plan

    repo = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(repo)
    monkeypatch.setenv("NS2REPRO_CACHE", str(tmp_path / "cache"))
    config = {"experiment_files": ["tests/configs/minimal.yaml"]}
    (tmp_path / "runs").mkdir()
    assert planned(tmp_path, config) == {"minimal": (2, 0)}
    ns = Path("build/ns2/ns")
    tools = Toolchain(ns, ns.with_name("manifest.json"), Path("tcl/driver.tcl"))
    runs = cached_plan(Settings.from_config(config), ns).expansions[("minimal", "tiny", "baseline")]
    key = key_of(runs.runs(0, 1)[0], tools)
    (tmp_path / "runs" / key).mkdir()
    (tmp_path / "runs" / key / "files.json").write_text("{}")
    assert planned(tmp_path, config) == {"minimal": (2, 1)}


def test_hours_left_go_by_each_papers_seconds_per_run():
    papers = {"p": {"runs": 10, "run_s": 36000.0}, "q": {"runs": 0, "run_s": 0.0}}
    left = run_hours_left({"p": (30, 10), "q": (5, 0), "r": (4, 4)}, papers)
    assert left == {"p": (20.0, False)}, "p: 20 runs at an hour each; q has no mean yet; r is done"


def test_an_experiment_without_a_mean_goes_at_its_papers_pace():
    experiments = {"p/a": {"runs": 10, "run_s": 1000.0}, "p/b": {"runs": 30, "run_s": 7000.0}, "q/c": {"runs": 0}}
    left = run_hours_left({"p/a": (12, 10), "p/shared": (3610, 0), "q/c": (5, 0), "q/d": (4, 0)}, experiments)
    assert left["p/a"] == (2 * 100 / 3600, False), "its own mean: 100 s a run"
    assert left["p/shared"] == (3610 * 200 / 3600, True), "none made under its name: p's 8000 s over 40 runs"
    assert "q/c" not in left and "q/d" not in left, "q has no run made at all: nothing to go by"
