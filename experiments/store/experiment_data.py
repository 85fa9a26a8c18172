"""An experiment's tables as the figure and table modules read them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from experiments.config.axes import label_column, label_text
from experiments.store import layout

# Columns that are context but not a matrix axis, and the measurement columns.
NOT_AXES = ("paper", "experiment", "seed", "run_key")


MEASURES = ("scope", "metric", "t", "value")


@dataclass
class ExperimentData:
    """The aggregate tables of one experiment (experiments.measure.aggregate)."""

    metrics: pd.DataFrame
    series: pd.DataFrame
    axes: list[str] = field(default_factory=list)  # matrix axis names, in matrix order
    levels: dict[str, list] = field(default_factory=dict)  # axis -> level labels, in file order
    params: dict = field(default_factory=dict)  # one run's params.json: the experiment's scenario
    directory: Path | None = None  # the experiment's results directory (runs.parquet, metrics.parquet, ...)
    reference: ExperimentData | None = None  # the artifact's `reference` experiment, when it names one

    @classmethod
    def load(cls, directory: str | Path, axes: list[str] | None = None, levels: dict | None = None) -> ExperimentData:
        """Read metrics.parquet and series.parquet, and the params.json of the first run in
        runs.parquet. Without `axes`, they are the context columns other than paper,
        experiment, seed and run_key, in the order of the metrics table."""
        directory = Path(directory)
        metrics = pd.read_parquet(directory / "metrics.parquet")
        series = pd.read_parquet(directory / "series.parquet")
        params = {}
        runs = directory / "runs.parquet"
        if runs.exists():
            first = pd.read_parquet(runs, columns=["directory"])["directory"].iloc[0]
            params = json.loads((layout.resolved(directory, first) / "params.json").read_text())
        return cls(metrics, series, axes or infer_axes(metrics), dict(levels or {}), params, directory)

    def runs(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """runs.parquet's rows (the given columns, else all) with `directory` each run's directory as a path (the
        table names it relative to its own folder: store.layout.stored)."""
        table = pd.read_parquet(
            self.directory / "runs.parquet", columns=None if columns is None else [*columns, "directory"]
        )
        return table.assign(directory=[layout.resolved(self.directory, d) for d in table["directory"]])

    def run_table(self, kind: str, columns: Sequence[str], where: dict | None = None) -> pd.DataFrame:
        """One parquet table kind (parsers/tables.py) of every run, concatenated: the context columns
        (axes, seed), the requested columns and, for a table with a `fid` column, `group`, the flow group of the
        row's fid in that run's params.json. For distributions pooled over runs (CDFs), which the per-run metrics
        cannot give. A run's own tables name no axis (a run directory is shared by every name that asks for its
        key): the axes' labels come from runs.parquet. `where` (as `select`) picks the runs before their tables
        are read: a figure of one cell reads that cell's runs, not the experiment's."""
        runs = select(self.runs([*self.axes, "seed"]), where)
        parts = []
        for run in runs.itertuples(index=False):
            directory = run.directory
            table = pd.read_parquet(directory / "tables" / f"{kind}.parquet", columns=list(columns))
            flows = json.loads((directory / "params.json").read_text())["flows"]
            names = {axis: getattr(run, axis) for axis in [*self.axes, "seed"]}
            if "fid" in table.columns:  # a per-flow table: the flow group of each row's fid
                table = table.assign(group=table["fid"].map({f["fid"]: f["group"] for f in flows}))
            parts.append(table.assign(**names))
        if not parts:
            raise ValueError(f"{self.directory}: no runs")
        return pd.concat(parts, ignore_index=True)


def infer_axes(table: pd.DataFrame) -> list[str]:
    return [c for c in table.columns if c not in NOT_AXES and c not in MEASURES]


def select(table: pd.DataFrame, where: dict | None) -> pd.DataFrame:
    """The rows whose axis columns carry the given labels ({axis: label}, labels compared as their
    label_text, as the claims do: 20 finds a float column's 20.0). An unknown axis or a label no row
    carries is an error: a typo in an experiment file must not silently give an empty figure."""
    rows = table
    for axis, label in (where or {}).items():
        if axis not in rows.columns:
            raise ValueError(f"where: '{axis}' is not a column of the table; columns: {list(table.columns)}")
        matches = label_column(rows[axis]) == label_text(label)
        if not matches.any():
            known = sorted(set(label_column(table[axis]).dropna()))
            raise ValueError(f"where: no row has {axis} = {label!r}; levels: {known}")
        rows = rows[matches]
    return rows
