"""The aggregate stage: every run of an experiment -> its tidy metrics and series tables.

Reads the batch records the simulate stage wrote, joins each run's names (paper,
experiment, level labels, reading: from the file as it is now, by the run's position
in the experiment's order; a run directory names none of them), computes each run's
metrics from its parquet tables (experiments.measure.run) and writes, per experiment:
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
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd
import pyarrow as pa

from experiments.common.code import code_digest
from experiments.common.files import replacing
from experiments.common.progress import Count, Progress, hms
from experiments.measure.run import run_metrics
from experiments.store import layout
from experiments.store.records import read_records
from experiments.store.tables import write_parquet

ANALYSIS_FOR_METRICS = ("queue_thresholds", "queue_ranges", "settle", "fec_blocks")


def metrics_code_digest() -> str:
    """What run_metrics computes with (the modules measure.run imports): a change invalidates the cache."""
    return code_digest(["experiments.measure.run"])


def cache_key(run_key: str, warmup: float, analysis: dict, keep_series: bool, code: str) -> str:
    """The digest a run's cached metrics are filed under."""
    settings = {
        "run": run_key,
        "warmup": warmup,
        "series": keep_series,
        "code": code,
        **{key: analysis.get(key, ()) for key in ANALYSIS_FOR_METRICS},
    }
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=list).encode()).hexdigest()[:24]


def _normalised(table: pd.DataFrame) -> pd.DataFrame:
    """scope and metric as plain Python strings, value and t as float: the same dtypes computed or read back."""
    table = table.reset_index(drop=True)
    types = {c: object for c in ("scope", "metric") if c in table} | {c: float for c in ("value", "t") if c in table}
    return table.astype(types)


def cached_run_metrics(
    directory: Path,
    warmup: float,
    analysis: dict,
    keep_series: bool,
    cache: Path | None,
    code: str,
    held: Mapping[str, pa.Table] | None = None,
    run_key: str | None = None,
    say: Callable[[str], None] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, bool]:
    """run_metrics of one run and whether they came from the cache, where an equal computation was filed (cache
    None: no cache). `held` and `run_key`: a run just parsed, its tables in memory and its key (its directory is
    still the batch's working one, named otherwise). A cache entry that cannot be read (truncated, garbled) is
    computed again and filed anew, `say` given one line saying so."""
    key = cache_key(run_key or directory.name, warmup, analysis, keep_series, code)
    paths = (cache / f"{key}.metrics.parquet", cache / f"{key}.series.parquet") if cache else ()
    if paths and all(path.exists() for path in paths):
        try:
            run_m, run_s = (_normalised(pd.read_parquet(path)) for path in paths)
            return run_m, run_s, True
        except Exception as err:  # noqa: BLE001 -- whatever damaged the file, the run's own tables give it again
            (say or print)(
                f"metrics-cache entry {key} of run {run_key or directory.name} cannot be read "
                f"({type(err).__name__}): computed again"
            )
    run_m, run_s = run_metrics(
        directory,
        warmup,
        queue_thresholds=analysis.get("queue_thresholds", ()),
        queue_ranges=analysis.get("queue_ranges", ()),
        settle=analysis.get("settle", ()),
        fec_blocks=analysis.get("fec_blocks", ()),
        held=held,
    )
    run_m, run_s = _normalised(run_m), _normalised(run_s if keep_series else run_s.iloc[:0])
    for table, path in zip((run_m, run_s), paths, strict=False):
        with replacing(path) as tmp:  # jobs sharing a run may file it at once: each renames a whole file
            table.to_parquet(tmp, index=False)
    return run_m, run_s, False


def file_metrics(
    directories: list[Path],
    warmup: float,
    analysis: dict,
    cache: Path,
    failed: Callable[[Path, Exception], None],
    say: Callable[[str], None] | None = None,
) -> int:
    """File in the metrics cache the metrics of runs a batch job just made or found, as their aggregation will ask
    for them: the batch jobs then compute them side by side, where an experiment's one aggregation job would compute
    them one after another. Returns how many were computed (not found filed). A run whose metrics fail is passed to
    `failed` and left to the aggregation, which computes it again and fails there, in its own place."""
    code = metrics_code_digest()
    computed = 0
    for directory in directories:
        try:
            *_, hit = cached_run_metrics(
                directory, warmup, analysis, analysis.get("series", True), cache, code, say=say
            )
        except Exception as err:  # noqa: BLE001 - any error: the aggregation meets it again and reports it
            failed(directory, err)
            continue
        computed += not hit
    return computed


def _with_context(table: pd.DataFrame, context: dict, key: str) -> pd.DataFrame:
    front = pd.DataFrame({**{k: [v] * len(table) for k, v in context.items()}, "run_key": [key] * len(table)})
    return pd.concat([front, table.reset_index(drop=True)], axis=1)


PROGRESS_EVERY = 10.0  # seconds between an aggregation's progress lines: a short one stays silent


def progress_line(label: str, count: Count, cached: int) -> str:
    """[p/e] metrics of 3/5 runs (2 from the metrics cache), 0:00:12 elapsed, ETA 0:00:08"""
    text = f"[{label}] metrics of {count.done}/{count.total} runs ({cached} from the metrics cache), "
    text += f"{hms(count.elapsed)} elapsed"
    return text if count.eta is None else f"{text}, ETA {hms(count.eta)}"


class RecordsMismatch(RuntimeError):
    """The batch records do not hold the runs the plan expects (records of another plan)."""


def aggregate(
    records: list[str | Path],
    contexts: list[dict],
    warmup: float,
    out_dir: str | Path,
    analysis: dict | None = None,
    cache: Path | None = None,
    progress: Callable[[str], None] | None = None,
    label: str = "",
    results: str | Path = "",
) -> None:
    """`contexts`: each run's names, in the experiment's order (planning.expansion.Expansion.contexts); `analysis`: the
    experiment's analysis settings (config.load.ANALYSIS_KEYS: queue_thresholds, queue_ranges, settle, and series,
    false to write series.parquet without rows); `cache`: the folder where each run's metrics are read and filed
    (store.layout.metrics_cache; None: computed afresh, filed nowhere); `progress`: called with a progress line,
    named `label`, at most every PROGRESS_EVERY seconds on long aggregations; `results`: the folder the records'
    run directories are relative to (store.layout says why)."""
    analysis = analysis or {}
    keep_series = analysis.get("series", True)
    runs = read_records(records)
    seeds = [entry["seed"] for entry in runs]
    if seeds != [context["seed"] for context in contexts]:
        raise RecordsMismatch(
            f"{len(runs)} runs in the batch records, {len(contexts)} in the plan, or their seeds "
            "differ: the records were made by another plan; rerun the simulate stage"
        )
    metrics, series, index, failed = [], [], [], []
    code = metrics_code_digest()
    tally = Progress(sum(entry["status"] != "failed" for entry in runs), every=PROGRESS_EVERY, timed=False)
    cached = 0
    out = Path(out_dir)
    for entry, context in zip(runs, contexts, strict=True):
        directory = Path(results) / entry["directory"]
        if entry["status"] == "failed":  # no run directory: nothing of it is aggregated
            failed.append(
                {
                    **context,
                    "run_key": entry["key"],
                    "directory": layout.stored(directory, out),
                    "message": entry["message"],
                    "rerun": entry["rerun"],
                }
            )
            continue
        if not directory.is_dir():  # its batch is made again first (Plan.batch_retry): met only by a stale record
            raise FileNotFoundError(
                f"run {entry['key']}: its directory {directory} is gone; run the same command again"
            )
        run_m, run_s, hit = cached_run_metrics(directory, warmup, analysis, keep_series, cache, code, say=progress)
        cached += hit
        count = tally.advance()
        if count.due and progress:
            progress(progress_line(label, count, cached))
        metrics.append(_with_context(run_m, context, entry["key"]))
        series.append(_with_context(run_s, context, entry["key"]))
        index.append({**context, "run_key": entry["key"], "directory": layout.stored(directory, out)})
    columns = [*contexts[0], "run_key"] if contexts else ["run_key"]
    write_parquet(pd.DataFrame(index, columns=[*columns, "directory"]), out / "runs.parquet", "runs")
    write_parquet(
        pd.DataFrame(failed, columns=[*columns, "directory", "message", "rerun"]), out / "failed.parquet", "failed"
    )
    # every run failed: tables with their columns and no row
    empty = pd.DataFrame(columns=[*columns, "scope", "metric", "value"])
    write_parquet(pd.concat(metrics, ignore_index=True) if metrics else empty, out / "metrics.parquet", "metrics")
    write_parquet(
        pd.concat(series, ignore_index=True) if series else empty.assign(t=[]), out / "series.parquet", "series"
    )
