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
import math
from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from experiments.common.markdown import table as markdown_table  # noqa: E402
from experiments.config.axes import label_text  # noqa: E402
from experiments.store.experiment_data import ExperimentData, select  # noqa: E402
from experiments.verdicts.stats import ci95  # noqa: E402  (the same interval as the claims' verdicts)

__all__ = [
    "BOOT_SEED",
    "CI_BAND",
    "ExperimentData",
    "cell_stats",
    "cell_stats_markdown",
    "ci95",
    "levels",
    "markdown_table",
    "math_safe",
    "save_figure",
    "seed_note",
    "seeds_text",
    "select",
    "where_text",
    "write_table",
]


CI_BAND = ("ci", 95)  # seaborn errorbar: 95 % bootstrap interval of the mean over seeds
BOOT_SEED = 0  # seaborn's bootstrap seed, so that the bands (and the PNG bytes) repeat
DPI = 120

sns.set_theme(style="whitegrid", context="paper", palette="colorblind")
# Text is drawn as written: an experiment file's captions, level labels and quotes are not mathtext, and one that
# mathtext cannot parse (a caption's `$x^^2$`) failed the drawing, and the report with it. A text of the code's own
# that is math passes parse_math=True and escapes any file text it holds (math_safe).
matplotlib.rcParams["text.parse_math"] = False


def math_safe(text: str) -> str:
    """File text inside a text drawn with parse_math=True: its `$` shown as written."""
    return text.replace("$", r"\$")


def scope_label(scope: str) -> str:
    """The metrics table's scope of an artifact's `scope`: all, or group:<name> for a flow group's name."""
    return scope if scope == "all" else f"group:{scope}"


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
