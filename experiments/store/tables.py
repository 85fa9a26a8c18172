"""The parquet tables of the results folder: written self-describing and whole, read back by the report and the
sensitivity table."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from experiments.common.files import replacing
from experiments.config.readings import BASELINE
from experiments.store import layout


def write_parquet(table: pd.DataFrame, path: str | Path, kind: str) -> None:
    """Self-describing (kind and schema version in the metadata); written whole or not at all."""
    data = pa.Table.from_pandas(table, preserve_index=False)
    meta = {**(data.schema.metadata or {}), b"ns2repro.kind": kind.encode(), b"ns2repro.schema_version": b"1"}
    with replacing(path) as tmp:
        pq.write_table(data.replace_schema_metadata(meta), tmp)


CAUSE = (
    "cause"  # a column of Measured.failed: why a run that finished is void (verdicts.preconditions); empty if it failed
)


def no_failed_runs() -> pd.DataFrame:
    return pd.DataFrame(columns=["run_key"])


@dataclass(frozen=True)
class Measured:
    """An experiment's metrics table, and the runs of it that failed (left out of the metrics: the cells they
    belong to are judged `incomplete`); once verdicts.preconditions has looked, also the runs a precondition voids
    (kept in the metrics, a CAUSE beside them)."""

    metrics: pd.DataFrame
    failed: pd.DataFrame = field(default_factory=no_failed_runs)
    voided: bool = False  # verdicts.preconditions has looked: its void runs are among `failed`


def read_failed(
    results: str | Path, paper: str, experiment: str, reading: str = BASELINE, seed_round: int = 0
) -> pd.DataFrame:
    """An experiment's failed runs (the aggregate stage's failed.parquet); none when the table is absent."""
    path = layout.experiment_table(results, paper, experiment, "failed", reading, seed_round)
    return pd.read_parquet(path) if path.exists() else no_failed_runs()


def load_measured(
    doc: dict, results: str | Path, reading: str = BASELINE, seed_rounds: dict[str, list[int]] | None = None
) -> dict[str, Measured]:
    """experiment -> its metrics and failed runs (of the baseline, or of a reading), for the experiments whose
    metrics table exists; `seed_rounds`: experiment -> the seeding rounds whose added seeds join its baseline's
    (verdicts.seeding says which of them each claim reads)."""
    measured = {}
    for exp in doc["experiments"]:
        path = layout.experiment_table(results, doc["paper"], exp, "metrics", reading)
        if not path.exists():
            continue
        rounds = (seed_rounds or {}).get(exp, []) if reading == BASELINE else []
        metrics = [pd.read_parquet(path)]
        metrics += [
            pd.read_parquet(layout.experiment_table(results, doc["paper"], exp, "metrics", BASELINE, r)) for r in rounds
        ]
        failed = [read_failed(results, doc["paper"], exp, reading, r) for r in [0, *rounds]]
        measured[exp] = Measured(_joined(metrics), _joined(failed))
    return measured


def _joined(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Tables of one experiment's runs, one after the other (one table as it is)."""
    frames = [f for f in frames if not f.empty] or frames[:1]
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
