"""The per-run metrics cache of experiments/aggregate.py: a hit gives what computing gives, and only an equal
computation hits."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from experiments.common.progress import Progress
from experiments.measure import aggregate as aggregate_module
from experiments.measure.aggregate import (
    PROGRESS_EVERY,
    aggregate,
    cache_key,
    cached_run_metrics,
    metrics_code_digest,
    progress_line,
)
from experiments.store import layout


def test_a_cache_hit_gives_the_computed_tables_with_their_dtypes(untraced_run, tmp_path, monkeypatch):
    cache, code = tmp_path / "cache", metrics_code_digest()
    *fresh, hit = cached_run_metrics(untraced_run, 1.0, {}, True, cache, code)
    assert len(list(cache.glob("*.parquet"))) == 2 and not hit

    def no_computing(*args, **kwargs):
        raise AssertionError("computed although filed")

    monkeypatch.setattr(aggregate_module, "run_metrics", no_computing)
    *again, hit = cached_run_metrics(untraced_run, 1.0, {}, True, cache, code)
    assert hit
    for got, want in zip(again, fresh, strict=True):
        pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize(
    "change",
    [{"warmup": 0.5}, {"analysis": {"queue_ranges": [[0, 1]]}}, {"keep_series": False}, {"code": "other"}],
    ids=["warmup", "analysis", "series", "code"],
)
def test_only_an_equal_computation_hits(untraced_run, tmp_path, change):
    base = {"warmup": 1.0, "analysis": {}, "keep_series": True, "code": "c"}
    first = cache_key(untraced_run.name, **base)
    assert cache_key(untraced_run.name, **{**base, **change}) != first
    assert cache_key(untraced_run.name, **base) == first


def test_aggregate_writes_the_same_bytes_from_a_cold_and_a_warm_cache(untraced_run, tmp_path):
    run = layout.run_dir(tmp_path / "results", "k1")
    shutil.copytree(untraced_run, run)
    record = tmp_path / "batch.json"
    record.write_text(json.dumps({"runs": [{"seed": 1, "key": "k1", "status": "ran", "directory": str(run)}]}))
    contexts = [{"paper": "p", "experiment": "e", "seed": 1}]
    out = {}
    for name in ("cold", "warm"):
        aggregate([record], contexts, 1.0, tmp_path / name, cache=layout.metrics_cache(tmp_path / "results"))
        out[name] = {kind: (tmp_path / name / f"{kind}.parquet").read_bytes() for kind in ("metrics", "series")}
    assert len(list(layout.metrics_cache(tmp_path / "results").glob("*.parquet"))) == 2
    assert out["cold"] == out["warm"]
    aggregate([record], contexts, 1.0, tmp_path / "uncached", cache=None)
    assert (tmp_path / "uncached" / "metrics.parquet").read_bytes() == out["cold"]["metrics"]


def test_progress_lines_come_every_few_seconds_with_an_eta_and_stay_silent_on_short_aggregations():
    clock = iter([0.0, 1.0, 4.0, 12.0, 13.0, 30.0]).__next__  # the start, then one reading per run
    tally = Progress(5, every=PROGRESS_EVERY, timed=False, clock=clock)
    cached = [1, 1, 2, 2, 2]  # runs from the cache so far
    lines = [
        progress_line("p/e", count, n) if count.due else None for count, n in ((tally.advance(), n) for n in cached)
    ]
    assert lines[:2] == [None, None] and lines[3] is None
    assert lines[2] == "[p/e] metrics of 3/5 runs (2 from the metrics cache), 0:00:12 elapsed, ETA 0:00:08"
    assert lines[4] == "[p/e] metrics of 5/5 runs (2 from the metrics cache), 0:00:30 elapsed"
    short = Progress(2, every=PROGRESS_EVERY, timed=False, clock=iter([0.0, 1.0, 2.0]).__next__)
    assert [short.advance().due, short.advance().due] == [False, False]
