"""A headline's specification curve: each claim that tests it, under every reading tried, sorted.

In the manner of specification-curve analysis (Simonsohn, Simmons and Nelson; R's specr): one panel per claim of the
headline (per cell, for a claim judged cell by cell), one point per reading that measured it (the baseline, each
alternative and interaction, the null readings hollow), sorted by what the point shows, with its interval and the
claim's verdict there as its colour. What a point shows is the verdict's `shown` (experiments/verdicts/verdict.py):
the judged number of a value, bound, ratio or slope claim against its expected value and its pass and drift bands (or
its thresholds), or for an ordering the margin by which the claimed order holds, against 0. The readings are named
beneath. The title quotes the headline; the caption says whether it holds under every reading, depends on which, or
fails under every one, and whether it tells the paper's mechanism apart from its null readings.

Drawn from the sensitivity table (results/sensitivity.parquet, `snakemake sensitivity-all`); without it, from the
report's own verdicts at the baseline alone, which the caption says.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from experiments.config.readings import BASELINE  # noqa: E402
from experiments.config.tolerances import allowed  # noqa: E402
from experiments.report.model import mechanism_text, readings_text, row_key  # noqa: E402
from experiments.verdicts.headlines import HeadlineVerdict  # noqa: E402
from experiments.verdicts.sensitivity import by_experiment  # noqa: E402
from figures.common import save_figure  # noqa: E402

COLOURS = {"pass": "#2e7d32", "drift": "#ef8f00", "fail": "#c62828"}  # other verdicts: grey (nothing measured)
UNMEASURED_COLOUR = "#9e9e9e"
VALUE_KINDS = ("value", "ratio", "slope")


def points(hv: HeadlineVerdict, rows: pd.DataFrame | None) -> dict[str, pd.DataFrame]:
    """Claim key -> one row per reading that measured it (reading, verdict, shown, shown_half, null), the table's;
    without the table (or a claim it lacks), the report's verdict at the baseline."""
    keys = {cv.claim for cv in hv.claims}
    found: dict[str, pd.DataFrame] = {}
    if rows is not None and not rows.empty:
        for exp in by_experiment(rows[rows["claim"].isin(list(keys))]):
            for claim in exp.claims:
                found[claim.key] = claim.rows[["reading", "verdict", "shown", "shown_half", "null"]]
    out = {}
    for cv in hv.claims:
        key = row_key(cv)
        baseline = pd.DataFrame(
            [[BASELINE, cv.verdict, cv.deciding.shown, cv.deciding.shown_half, False]],
            columns=["reading", "verdict", "shown", "shown_half", "null"],
        )
        out[key] = found.get(key, baseline)
    return out


def _reference(ax, claim: dict) -> None:
    """The claim's expected value with its pass and drift bands, its thresholds, or the 0 of an ordering."""
    kind = claim["kind"]
    if kind in VALUE_KINDS:
        expected = claim["expected"]
        for tolerance, colour in ((claim["drift"], "#fff3e0"), (claim["pass"], "#e8f5e9")):
            width = allowed(tolerance, expected)
            ax.axhspan(expected - width, expected + width, color=colour, zorder=0)
        ax.axhline(expected, color="#455a64", lw=1, ls="--", zorder=1, label="expected")
    elif kind == "bound":
        ax.axhline(claim["threshold"], color="#2e7d32", lw=1, ls="--", zorder=1, label="pass threshold")
        ax.axhline(claim["drift_threshold"], color="#ef8f00", lw=1, ls=":", zorder=1, label="drift threshold")
    else:
        ax.axhline(0, color="#455a64", lw=1, ls="--", zorder=1, label="order holds above 0")


def _axis_label(claim: dict) -> str:
    kind = claim["kind"]
    if kind == "ratio":
        return f"{claim['metric']}: {claim['level']} / {claim['baseline']} - 1"
    if kind in ("extreme", "compare", "nearest"):
        return f"{claim['metric']}: margin of the order ({kind})"
    return claim["metric"]


def draw(hv: HeadlineVerdict, rows: pd.DataFrame | None, doc: dict, out: str | Path) -> Path:
    """The headline's curve as <out>.png; `rows`: the paper's rows of the sensitivity table, or None."""
    claims = {c["id"]: c for c in doc["claims"]}
    panels = points(hv, rows)
    n = max(len(panels), 1)
    width = max(6.0, min(16.0, 2.0 + 0.45 * max((len(p) for p in panels.values()), default=1) * min(n, 2)))
    columns = 1 if n == 1 else 2
    rows_n = math.ceil(n / columns)
    only = "" if rows is not None else " (baseline only: run `snakemake sensitivity-all` for the readings)"
    quote = f"{hv.id}: \u201c{hv.headline['quote']}\u201d ({hv.headline['source']})"
    title = textwrap.fill(quote, int(width * 13))  # drawn as written (figures.common)
    caption = textwrap.fill(
        f"Verdict {hv.verdict}; {readings_text(hv)}; tells the mechanism apart: {mechanism_text(hv)}{only}. "
        "Points: pass green, drift orange, fail red, hollow = null reading; bars: intervals.",
        int(width * 15),  # about 15 characters per inch at this size
    )
    # room for the title's and the caption's lines (about 0.17 and 0.13 inch each), the panels in between
    above = 0.25 + 0.17 * (title.count("\n") + 1)
    below = 0.15 + 0.13 * (caption.count("\n") + 1)
    height = 3.2 * rows_n + above + below
    fig, axes = plt.subplots(rows_n, columns, figsize=(width, height), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for ax, (key, data) in zip(axes.flat, panels.items(), strict=False):
        claim = claims[key.split(" [")[0]]
        data = data.assign(order=data["shown"].fillna(math.inf)).sort_values(["order", "reading"], kind="stable")
        _reference(ax, claim)
        for x, (_, p) in enumerate(data.iterrows()):
            colour = COLOURS.get(p["verdict"], UNMEASURED_COLOUR)
            half = p["shown_half"] if not pd.isna(p["shown_half"]) else 0.0
            if not pd.isna(p["shown"]):
                ax.errorbar(
                    x,
                    p["shown"],
                    yerr=half,
                    fmt="o",
                    color=colour,
                    ecolor=colour,
                    capsize=3,
                    mfc="white" if p["null"] else colour,
                    zorder=3,
                )
        labels = [
            f"{r}{' (null)' if null else ''}" + ("" if not pd.isna(s) else " (not measured)")
            for r, null, s in zip(data["reading"], data["null"], data["shown"], strict=True)
        ]
        ax.set_xticks(range(len(data)), labels, rotation=40, ha="right", fontsize=7)
        for tick, reading in zip(ax.get_xticklabels(), data["reading"], strict=True):
            if reading == BASELINE:
                tick.set_fontweight("bold")
        ax.set_xlim(-0.6, max(len(data) - 0.4, 0.6))
        ax.set_title(textwrap.shorten(key, 70), fontsize=8)
        ax.set_ylabel(textwrap.fill(_axis_label(claim), 40), fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
    fig.suptitle(title, fontsize=9, y=1 - 0.08 / height, va="top")
    fig.text(0.01, 0.05 / height, caption, fontsize=7, va="bottom")
    fig.tight_layout(rect=(0, below / height, 1, 1 - above / height))
    (png,) = save_figure(fig, Path(out).with_suffix(""))
    return png
