"""The aggregate stage: every run of an experiment -> its tidy metrics and series tables.

Reads the batch records the simulate stage wrote, joins each run's names (paper,
experiment, level labels, reading: from the file as it is now, by the run's position
in the experiment's order; a run directory names none of them), computes each run's
metrics from its parquet tables (experiments.metrics) and writes, per experiment:
  runs.parquet     one row per complete run: context columns, run_key, directory
  failed.parquet   one row per failed run (left out of every other table): context columns, run_key,
                   directory (its <key>.failed/), message, rerun
  metrics.parquet  context columns + scope, metric, value
  series.parquet   context columns + scope, metric, t, value
Context columns: paper, experiment, one column per matrix axis, seed, run_key.

A run's metrics depend only on its directory, the warm-up and the analysis settings: they are cached in
<results>/metrics-cache/ under a digest of those and of the metrics code, so that a reading or another
experiment that shares the run (most cells of a reading are baseline runs) reads them instead of computing
them again. Values and dtypes read back are those computed (tests/experiments/test_aggregate_cache.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from experiments.metrics import run_metrics
from experiments.runkey import files_digest
from experiments.simulate import hms

# What run_metrics computes with; a change invalidates the cache.
METRICS_CODE = ("metrics.py", "curves.py", "fec_blocks.py", "units.py")
ANALYSIS_FOR_METRICS = ("queue_thresholds", "queue_ranges", "settle", "fec_blocks")


def metrics_code_digest() -> str:
    here = Path(__file__).resolve().parent
    return files_digest([here / name for name in METRICS_CODE], here)


def cache_key(directory: Path, warmup: float, analysis: dict, keep_series: bool, code: str) -> str:
    """The digest a run's cached metrics are filed under."""
    settings = {"run": directory.name, "warmup": warmup, "series": keep_series, "code": code,
                **{key: analysis.get(key, ()) for key in ANALYSIS_FOR_METRICS}}  # fmt: skip
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=list).encode()).hexdigest()[:24]


def _normalised(table: pd.DataFrame) -> pd.DataFrame:
    """scope and metric as plain Python strings, value and t as float: the same dtypes computed or read back."""
    table = table.reset_index(drop=True)
    types = {c: object for c in ("scope", "metric") if c in table} | {c: float for c in ("value", "t") if c in table}
    return table.astype(types)


def cached_run_metrics(directory: Path, warmup: float, analysis: dict, keep_series: bool, cache: Path | None,
                       code: str) -> tuple[pd.DataFrame, pd.DataFrame, bool]:  # fmt: skip
    """run_metrics of one run and whether they came from the cache, where an equal computation was filed (cache
    None: no cache)."""
    key = cache_key(directory, warmup, analysis, keep_series, code)
    paths = (cache / f"{key}.metrics.parquet", cache / f"{key}.series.parquet") if cache else ()
    if paths and all(path.exists() for path in paths):
        run_m, run_s = (_normalised(pd.read_parquet(path)) for path in paths)
        return run_m, run_s, True
    run_m, run_s = run_metrics(
        directory,
        warmup,
        queue_thresholds=analysis.get("queue_thresholds", ()),
        queue_ranges=analysis.get("queue_ranges", ()),
        settle=analysis.get("settle", ()),
        fec_blocks=analysis.get("fec_blocks", ()),
    )
    run_m, run_s = _normalised(run_m), _normalised(run_s if keep_series else run_s.iloc[:0])
    for table, path in zip((run_m, run_s), paths, strict=False):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")  # racing writers: one each
        table.to_parquet(tmp, index=False)
        tmp.replace(path)
    return run_m, run_s, False


class Progress:
    """An aggregation's progress line, for the long ones: at most one every `every` seconds, and a last one once any
    was printed (an aggregation shorter than `every` stays silent). Called once per run with whether its metrics
    came from the cache; returns the line when one is due."""

    def __init__(self, label: str, total: int, every: float = 10.0, clock: Callable[[], float] = time.monotonic):
        self.label, self.total, self.every, self.clock = label, total, every, clock
        self.start = self.last = clock()
        self.done = self.cached = 0
        self.printed = False

    def __call__(self, cached: bool) -> str | None:
        self.done += 1
        self.cached += cached
        now = self.clock()
        final = self.done == self.total
        if now - self.last < self.every and not (final and self.printed):
            return None
        self.last, self.printed = now, True
        elapsed = now - self.start
        text = (f"[{self.label}] metrics of {self.done}/{self.total} runs ({self.cached} from the metrics cache), "
                f"{hms(elapsed)} elapsed")  # fmt: skip
        if not final:
            text += f", ETA {hms(elapsed / self.done * (self.total - self.done))}"
        return text


def read_records(records: list[str | Path]) -> list[dict]:
    runs = []
    for record in records:
        runs += json.loads(Path(record).read_text())["runs"]
    return runs


def _with_context(table: pd.DataFrame, context: dict, key: str) -> pd.DataFrame:
    front = pd.DataFrame({**{k: [v] * len(table) for k, v in context.items()}, "run_key": [key] * len(table)})
    return pd.concat([front, table.reset_index(drop=True)], axis=1)


def write_parquet(table: pd.DataFrame, path: str | Path, kind: str) -> None:
    """Self-describing (kind and schema version in the metadata); written beside and renamed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = pa.Table.from_pandas(table, preserve_index=False)
    meta = {**(data.schema.metadata or {}), b"ns2repro.kind": kind.encode(), b"ns2repro.schema_version": b"1"}
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(data.replace_schema_metadata(meta), tmp)
    tmp.replace(path)


class RecordsMismatch(RuntimeError):
    """The batch records do not hold the runs the plan expects (records of another plan)."""


def aggregate(
    records: list[str | Path],
    contexts: list[dict],
    warmup: float,
    out_dir: str | Path,
    analysis: dict | None = None,
    use_cache: bool = True,
    progress: Callable[[str], None] | None = None,
    label: str = "",
) -> None:
    """`contexts`: each run's names, in the experiment's order (matrix.Expansion.contexts); `analysis`: the
    experiment's analysis settings (config.ANALYSIS_KEYS: queue_thresholds, queue_ranges, settle, and series,
    false to write series.parquet without rows); `use_cache`: read and file each run's metrics in
    <results>/metrics-cache/ (the directory beside the runs' directory); `progress`: called with a progress line
    (aggregate.Progress, named `label`) now and then on long aggregations."""
    analysis = analysis or {}
    keep_series = analysis.get("series", True)
    runs = read_records(records)
    seeds = [entry["seed"] for entry in runs]
    if seeds != [context["seed"] for context in contexts]:
        raise RecordsMismatch(f"{len(runs)} runs in the batch records, {len(contexts)} in the plan, or their seeds "
                              "differ: the records were made by another plan; rerun the simulate stage")  # fmt: skip
    metrics, series, index, failed = [], [], [], []
    code = metrics_code_digest()
    tally = Progress(label, sum(entry["status"] != "failed" for entry in runs))
    for entry, context in zip(runs, contexts, strict=True):
        directory = Path(entry["directory"])
        if entry["status"] == "failed":  # no run directory: nothing of it is aggregated
            failed.append({**context, "run_key": entry["key"], "directory": str(directory),
                           "message": entry["message"], "rerun": entry["rerun"]})  # fmt: skip
            continue
        cache = directory.parent.parent / "metrics-cache" if use_cache else None
        run_m, run_s, hit = cached_run_metrics(directory, warmup, analysis, keep_series, cache, code)
        line = tally(hit)
        if line and progress:
            progress(line)
        metrics.append(_with_context(run_m, context, entry["key"]))
        series.append(_with_context(run_s, context, entry["key"]))
        index.append({**context, "run_key": entry["key"], "directory": str(directory)})
    columns = [*contexts[0], "run_key"] if contexts else ["run_key"]
    out = Path(out_dir)
    write_parquet(pd.DataFrame(index, columns=[*columns, "directory"]), out / "runs.parquet", "runs")
    write_parquet(pd.DataFrame(failed, columns=[*columns, "directory", "message", "rerun"]), out / "failed.parquet",
                  "failed")  # fmt: skip
    # every run failed: tables with their columns and no row
    empty = pd.DataFrame(columns=[*columns, "scope", "metric", "value"])
    write_parquet(pd.concat(metrics, ignore_index=True) if metrics else empty, out / "metrics.parquet", "metrics")
    write_parquet(pd.concat(series, ignore_index=True) if series else empty.assign(t=[]), out / "series.parquet",
                  "series")  # fmt: skip
