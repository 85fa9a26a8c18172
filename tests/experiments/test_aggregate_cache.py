"""The per-run metrics cache of experiments/aggregate.py: a hit gives what computing gives, and only an equal
computation hits."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from experiments import aggregate


def test_a_cache_hit_gives_the_computed_tables_with_their_dtypes(untraced_run, tmp_path, monkeypatch):
    cache, code = tmp_path / "cache", aggregate.metrics_code_digest()
    fresh = aggregate.cached_run_metrics(untraced_run, 1.0, {}, True, cache, code)
    assert len(list(cache.glob("*.parquet"))) == 2

    def no_computing(*args, **kwargs):
        raise AssertionError("computed although filed")

    monkeypatch.setattr(aggregate, "run_metrics", no_computing)
    again = aggregate.cached_run_metrics(untraced_run, 1.0, {}, True, cache, code)
    for got, want in zip(again, fresh, strict=True):
        pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize(
    "change",
    [{"warmup": 0.5}, {"analysis": {"queue_ranges": [[0, 1]]}}, {"keep_series": False}, {"code": "other"}],
    ids=["warmup", "analysis", "series", "code"],
)
def test_only_an_equal_computation_hits(untraced_run, tmp_path, change):
    base = {"warmup": 1.0, "analysis": {}, "keep_series": True, "code": "c"}
    first = aggregate.cache_key(untraced_run, **base)
    assert aggregate.cache_key(untraced_run, **{**base, **change}) != first
    assert aggregate.cache_key(untraced_run, **base) == first


def test_aggregate_writes_the_same_bytes_from_a_cold_and_a_warm_cache(untraced_run, tmp_path):
    run = tmp_path / "results" / "runs" / "k1"  # where the pipeline keeps runs: the cache goes beside runs/
    shutil.copytree(untraced_run, run)
    record = tmp_path / "batch.json"
    record.write_text(json.dumps({"runs": [{"seed": 1, "key": "k1", "directory": str(run)}]}))
    contexts = [{"paper": "p", "experiment": "e", "seed": 1}]
    out = {}
    for name in ("cold", "warm"):
        aggregate.aggregate([record], contexts, 1.0, tmp_path / name)
        out[name] = {kind: (tmp_path / name / f"{kind}.parquet").read_bytes() for kind in ("metrics", "series")}
    assert len(list((tmp_path / "results" / "metrics-cache").glob("*.parquet"))) == 2
    assert out["cold"] == out["warm"]
    aggregate.aggregate([record], contexts, 1.0, tmp_path / "uncached", use_cache=False)
    assert (tmp_path / "uncached" / "metrics.parquet").read_bytes() == out["cold"]["metrics"]
