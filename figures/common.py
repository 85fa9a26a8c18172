"""What every figure and table module shares: the input tables, row selection, style and
deterministic output.

Importing this module selects matplotlib's Agg backend (no display, reproducible raster
output) and the seaborn theme, before any figure exists.

Determinism: the same input tables give byte-identical files. PNGs carry no `Software`
entry, PDFs no `CreationDate`; seaborn's bootstrap confidence bands use a fixed seed
(`BOOT_SEED`); CSV and markdown are written with fixed float formats and `\\n` line ends.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from experiments.claims import ci95  # noqa: E402  (the same interval as the claims' verdicts)
from experiments.config import label_column, label_text  # noqa: E402

__all__ = [
    "BOOT_SEED",
    "CI_BAND",
    "ExperimentData",
    "cell_stats",
    "cell_stats_markdown",
    "ci95",
    "levels",
    "markdown_table",
    "save_figure",
    "seed_note",
    "seeds_text",
    "select",
    "where_text",
    "write_table",
]

# Columns that are context but not a matrix axis, and the measurement columns.
NOT_AXES = ("paper", "experiment", "seed", "run_key")
MEASURES = ("scope", "metric", "t", "value")

CI_BAND = ("ci", 95)  # seaborn errorbar: 95 % bootstrap interval of the mean over seeds
BOOT_SEED = 0  # seaborn's bootstrap seed, so that the bands (and the PNG bytes) repeat
DPI = 120

sns.set_theme(style="whitegrid", context="paper", palette="colorblind")


def scope_label(scope: str) -> str:
    """The metrics table's scope of an artifact's `scope`: all, or group:<name> for a flow group's name."""
    return scope if scope == "all" else f"group:{scope}"


@dataclass
class ExperimentData:
    """The aggregate tables of one experiment (experiments.aggregate)."""

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
            params = json.loads((Path(first) / "params.json").read_text())
        return cls(metrics, series, axes or infer_axes(metrics), dict(levels or {}), params, directory)

    def run_table(self, kind: str, columns: Sequence[str], where: dict | None = None) -> pd.DataFrame:
        """One parquet table kind (parsers/tables.py) of every run, concatenated: the context columns
        (axes, seed), the requested columns and, for a table with a `fid` column, `group`, the flow group of the
        row's fid in that run's params.json. For distributions pooled over runs (CDFs), which the per-run metrics
        cannot give. A run's own tables name no axis (a run directory is shared by every name that asks for its
        key): the axes' labels come from runs.parquet. `where` (as `select`) picks the runs before their tables
        are read: a figure of one cell reads that cell's runs, not the experiment's."""
        runs = pd.read_parquet(self.directory / "runs.parquet", columns=[*self.axes, "seed", "directory"])
        runs = select(runs, where)
        parts = []
        for run in runs.itertuples(index=False):
            directory = Path(run.directory)
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


def where_text(artifact: dict) -> str:
    """An artifact's `where` as 'queue = RED, variant = stock' (empty without one)."""
    return ", ".join(f"{k} = {v}" for k, v in (artifact.get("where") or {}).items())


def cell_stats(rows: pd.DataFrame, axes: Sequence[str], metrics: Sequence[str], preferred: dict) -> pd.DataFrame:
    """One row per combination of the axes' levels present in `rows` (a metrics table,
    already selected), in level order (`preferred[axis]` first): the number of seeds and,
    per metric, the mean over seeds of the per-run value and the half-width of its 95 %
    confidence interval (column `<metric>_ci95`)."""
    out = []
    for key in itertools.product(*[levels(rows, a, preferred.get(a, ())) for a in axes]):
        cell = rows
        for axis, label in zip(axes, key, strict=True):
            cell = cell[cell[axis] == label]
        if cell.empty:
            continue
        record = {**dict(zip(axes, key, strict=True)), "seeds": int(cell["seed"].nunique())}
        for metric in metrics:
            values = cell.loc[cell["metric"] == metric, "value"].dropna()
            record[metric] = float(values.mean()) if len(values) else float("nan")
            record[f"{metric}_ci95"] = float(ci95(values))
        out.append(record)
    return pd.DataFrame(out)


def cell_stats_markdown(frame: pd.DataFrame, axes: Sequence[str], columns: Sequence[tuple[str, str, int]]) -> list[str]:
    """A cell_stats frame as markdown table lines: the axes, the seeds, then per (metric, header,
    digits) of `columns` 'mean ± half-width'."""
    headers = [a.capitalize() for a in axes] + ["Seeds"] + [h for _, h, _ in columns]
    body = [
        [str(row[a]) for a in axes]
        + [str(row["seeds"])]
        + [mean_pm(row[m], row[f"{m}_ci95"], digits) for m, _, digits in columns]
        for row in frame.to_dict("records")
    ]
    return markdown_table(headers, body, right=[False] * len(axes) + [True] * (1 + len(columns)))


def levels(table: pd.DataFrame, column: str, preferred: Sequence = ()) -> list:
    """The distinct values of a column: those in `preferred` first (labels matched by their
    label_text), in that order, then the others sorted (as text)."""
    present = list(dict.fromkeys(table[column].tolist()))
    by_text = {label_text(v): v for v in present}
    first = list(dict.fromkeys(by_text[label_text(p)] for p in preferred if label_text(p) in by_text))
    return first + sorted((v for v in present if v not in first), key=str)


def seed_note(table: pd.DataFrame, by: Iterable[str]) -> str:
    """'10 seeds' (per group of `by`), '3-10 seeds' when the groups differ."""
    by = [b for b in by if b in table.columns]
    counts = table.groupby(by)["seed"].nunique() if by else pd.Series([table["seed"].nunique()])
    if counts.empty:
        return "no seeds"
    return seeds_text(int(counts.min()), int(counts.max()))


def seeds_text(low: int, high: int) -> str:
    """'1 seed', '10 seeds', '3–10 seeds'."""
    text = f"{low}" if low == high else f"{low}–{high}"
    return f"{text} seed{'s' if high != 1 else ''}"


def save_figure(fig: matplotlib.figure.Figure, out: str | Path, pdf: bool = False) -> list[Path]:
    """<out>.png (and <out>.pdf), without timestamps or version strings; closes the figure."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    png = out.with_name(out.name + ".png")
    fig.savefig(png, dpi=DPI, metadata={"Software": None})
    written = [png]
    if pdf:
        path = out.with_name(out.name + ".pdf")
        fig.savefig(path, metadata={"CreationDate": None, "Producer": None})
        written.append(path)
    plt.close(fig)
    return written


def fmt(value: float, digits: int) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def mean_pm(mean: float, half: float, digits: int) -> str:
    """'12.34 ± 0.56'; '12.34 ± n/a' when there is no interval (one seed)."""
    return f"{fmt(mean, digits)} ± {fmt(half, digits)}"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[str]], right: Sequence[bool] = ()) -> list[str]:
    """A GitHub markdown table; `right[i]` right-aligns column i (numbers)."""
    align = [("---:" if (i < len(right) and right[i]) else ":---") for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def write_table(frame: pd.DataFrame, markdown: Sequence[str], out: str | Path) -> list[Path]:
    """<out>.csv (the frame, numbers at full useful precision) and <out>.md (the given lines)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    csv = out.with_name(out.name + ".csv")
    md = out.with_name(out.name + ".md")
    frame.to_csv(csv, index=False, float_format="%.10g", lineterminator="\n")
    with open(md, "w", newline="\n") as handle:
        handle.write("\n".join(markdown) + "\n")
    return [csv, md]
