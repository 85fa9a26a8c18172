"""A results folder as a trust boundary and a cache that notices damage (issue 51, §§1 and 3), on hand-made
folders: what store.folder refuses, what the locks do with a link in their place, what a run directory's file
list catches, when a batch is due for repair, and a damaged metrics-cache entry computed again. The same
through Snakemake: tests/workflow/test_results_folder_sweep.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from experiments.measure import aggregate as agg
from experiments.store import folder, layout, lock, run_files
from experiments.store.records import damaged_runs


def made_folder(root: Path) -> Path:
    """A results folder as a sweep leaves it: a run directory with its file list, a lock, a cache entry, a paper's
    tables and a report."""
    results = root / "results"
    run = layout.run_dir(results, "k1")
    (run / "tables").mkdir(parents=True)
    (run / "params.json").write_text('{"seed": 1}\n')
    (run / "tables" / "flows.parquet").write_bytes(b"x" * 100)
    run_files.write(run)
    (results / layout.LOCKS).mkdir()
    (results / layout.LOCKS / "k1").touch()
    layout.metrics_cache(results).mkdir()
    (layout.metrics_cache(results) / "abc.metrics.parquet").write_bytes(b"m")
    layout.experiment_dir(results, "p", "e").mkdir(parents=True)
    (layout.experiment_dir(results, "p", "e") / "metrics.parquet").write_bytes(b"t")
    layout.report_md(results).write_text("report\n")
    return results


def test_a_folder_of_regular_files_and_folders_passes(tmp_path):
    folder.check(made_folder(tmp_path))
    folder.check(tmp_path / "not-yet-made")
    linked = tmp_path / "on-another-disk"
    linked.symlink_to(made_folder(tmp_path / "disk"))
    folder.check(linked)  # the folder's own path may be a link: nothing in it is


@pytest.mark.parametrize(
    "plant",
    [
        "runs",  # every run would go elsewhere
        "runs/k2",  # another folder's run read as this one's
        ".locks/k1",  # the key's lock would truncate the file it points at
        ".workflow.lock",
        "metrics-cache/abc.metrics.parquet",
        "p",  # a paper's tables and figures written elsewhere
        "p/e/metrics.parquet",
        "report",
        "logs",
    ],
)
def test_a_link_anywhere_in_a_results_folder_is_refused_by_name(tmp_path, plant):
    results = made_folder(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    target = results / plant
    if target.is_dir():
        target.rename(tmp_path / "moved")
    else:
        target.unlink(missing_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(outside)
    with pytest.raises(folder.UnsafeResults, match="symbolic link") as err:
        folder.check(results)
    assert str(err.value).startswith(str(target)) and "\n" not in str(err.value)


def test_a_pipe_or_a_file_in_a_folder_s_place_is_refused(tmp_path):
    results = made_folder(tmp_path)
    os.mkfifo(results / "p" / "fifo")
    with pytest.raises(folder.UnsafeResults, match="named pipe"):
        folder.check(results)
    (results / "p" / "fifo").unlink()
    (results / "metrics-cache" / "entry-dir").mkdir()  # the cache holds files only
    with pytest.raises(folder.UnsafeResults, match="a folder where only files belong"):
        folder.check(results)
    (results / "metrics-cache" / "entry-dir").rmdir()
    (results / ".locks").rename(tmp_path / "locks-moved")
    (results / ".locks").write_text("")
    with pytest.raises(folder.UnsafeResults, match="where the workflow keeps a folder"):
        folder.check(results)


def test_the_workflow_lock_is_not_written_through_a_link(tmp_path):
    results = made_folder(tmp_path)
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    layout.workflow_lock(results).symlink_to(precious)
    with pytest.raises(lock.ResultsBusy, match="cannot be opened"):
        lock.hold(results)
    assert precious.read_text() == "keep me\n"


def test_a_run_key_s_lock_is_not_written_through_a_link(tmp_path):
    from experiments.simulate import execute

    results = made_folder(tmp_path)
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    (results / layout.LOCKS / "k1").unlink()
    (results / layout.LOCKS / "k1").symlink_to(precious)
    with pytest.raises(OSError), execute._key_lock(layout.run_dir(results, "k1")):
        pass
    assert precious.read_text() == "keep me\n", "before: open(lock, 'w') truncated it to 0 bytes"


def test_a_run_directory_that_lost_or_changed_a_file_is_named_with_what_is_wrong(tmp_path):
    run = layout.run_dir(made_folder(tmp_path), "k1")
    assert run_files.problem(run, digests=True) == ""
    table = run / "tables" / "flows.parquet"
    table.write_bytes(b"y" * 100)  # same size, other bytes: only the digests see it
    assert run_files.problem(run) == ""
    assert "other bytes" in run_files.problem(run, digests=True)
    table.write_bytes(b"y" * 10)
    assert run_files.problem(run) == "tables/flows.parquet has 10 bytes, 100 when made"
    table.unlink()
    assert run_files.problem(run) == "tables/flows.parquet is missing"
    table.symlink_to(tmp_path / "elsewhere.parquet")
    assert run_files.problem(run) == "tables/flows.parquet is not a regular file"
    (run / run_files.FILE_LIST).unlink()
    assert "no files.json" in run_files.problem(run)
    assert run_files.problem(run.with_name("gone")) == "its directory is missing"


def test_a_record_s_damaged_runs_are_exactly_those_gone_or_cut(tmp_path):
    """store.records.damaged_runs (the workflow forces such a batch to run again): none while every run a record
    lists matches its file list, nor for a failed run (no directory: the retry param reruns it) or a record not
    yet written; each run cut or gone, with what is wrong, until it is made again."""
    results = made_folder(tmp_path)
    record = layout.batch_record(results, "p", "e", 0)
    assert damaged_runs(record, results) == []
    entry = {"key": "k1", "seed": 1, "status": "ran", "directory": "runs/k1"}
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"runs": [entry, {**entry, "key": "k9", "status": "failed"}]}))
    assert damaged_runs(record, results) == []
    table = layout.run_dir(results, "k1") / "tables" / "flows.parquet"
    table.write_bytes(b"short")
    assert damaged_runs(record, results) == ["k1: tables/flows.parquet has 5 bytes, 100 when made"]
    table.write_bytes(b"x" * 100)  # made again
    assert damaged_runs(record, results) == []
    layout.run_dir(results, "k1").rename(tmp_path / "gone")
    assert damaged_runs(record, results) == ["k1: its directory is missing"]


def test_a_damaged_metrics_cache_entry_is_computed_again_with_a_line(tmp_path, monkeypatch):
    computed = []

    def run_metrics(directory, warmup, **settings):
        computed.append(directory)
        return pd.DataFrame({"scope": ["all"], "metric": ["m"], "value": [1.0]}), pd.DataFrame(
            {"scope": [], "metric": [], "t": [], "value": []}
        )

    monkeypatch.setattr(agg, "run_metrics", run_metrics)
    cache, run = tmp_path / "cache", tmp_path / "k1"
    first = agg.cached_run_metrics(run, 0.0, {}, True, cache, "code")
    assert first[2] is False and len(computed) == 1
    entry = next(cache.glob("*.metrics.parquet"))
    entry.write_bytes(entry.read_bytes()[:20])  # truncated: not a parquet file any more
    said = []
    again = agg.cached_run_metrics(run, 0.0, {}, True, cache, "code", say=said.append)
    assert again[2] is False and len(computed) == 2, "before: ArrowInvalid at every later aggregation"
    assert len(said) == 1 and "cannot be read" in said[0] and "computed again" in said[0]
    pd.testing.assert_frame_equal(again[0], first[0])
    assert agg.cached_run_metrics(run, 0.0, {}, True, cache, "code")[2] is True, "filed anew"
