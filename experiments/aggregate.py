"""The aggregate stage: every run of an experiment -> its tidy metrics and series tables.

Reads the batch records the simulate stage wrote, joins each run's names (paper,
experiment, level labels, reading: from the file as it is now, by the run's position
in the experiment's order; a run directory names none of them), computes each run's
metrics from its parquet tables (experiments.metrics) and writes, per experiment:
  runs.parquet     one row per run: context columns, run_key, directory
  metrics.parquet  context columns + scope, metric, value
  series.parquet   context columns + scope, metric, t, value
Context columns: paper, experiment, one column per matrix axis, seed, run_key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from experiments.metrics import run_metrics


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
) -> None:
    """`contexts`: each run's names, in the experiment's order (matrix.Expansion.contexts); `analysis`: the
    experiment's analysis settings (config.ANALYSIS_KEYS: queue_thresholds, queue_ranges, settle, and series,
    false to write series.parquet without rows)."""
    analysis = analysis or {}
    keep_series = analysis.get("series", True)
    runs = read_records(records)
    seeds = [entry["seed"] for entry in runs]
    if seeds != [context["seed"] for context in contexts]:
        raise RecordsMismatch(f"{len(runs)} runs in the batch records, {len(contexts)} in the plan, or their seeds "
                              "differ: the records were made by another plan; rerun the simulate stage")  # fmt: skip
    metrics, series, index = [], [], []
    for entry, context in zip(runs, contexts, strict=True):
        directory = Path(entry["directory"])
        run_m, run_s = run_metrics(
            directory,
            warmup,
            queue_thresholds=analysis.get("queue_thresholds", ()),
            queue_ranges=analysis.get("queue_ranges", ()),
            settle=analysis.get("settle", ()),
        )
        metrics.append(_with_context(run_m, context, entry["key"]))
        series.append(_with_context(run_s if keep_series else run_s.iloc[:0], context, entry["key"]))
        index.append({**context, "run_key": entry["key"], "directory": str(directory)})
    out = Path(out_dir)
    write_parquet(pd.DataFrame(index), out / "runs.parquet", "runs")
    write_parquet(pd.concat(metrics, ignore_index=True), out / "metrics.parquet", "metrics")
    write_parquet(pd.concat(series, ignore_index=True), out / "series.parquet", "series")
