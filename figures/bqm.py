"""Figures and tables of Li's Biased Queue Management thesis (configs/bqm.yaml).

Figs. 5.1-5.3 and the Appendix's are drawn by figures.generic.metric_vs_axis from the
file; this module adds what the thesis states in words: BQM's change against DropTail,
per bottleneck and number of connections, for the three measures of Ch. 5.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from figures.common import ExperimentData, cell_stats, fmt, markdown_table, mean_pm, select, write_table

SCHEME, BASELINE, CHALLENGER = "scheme", "DropTail", "BQM"
# (metric, header, digits, sign): BQM's change counts as better when sign x change > 0
GAIN_COLUMNS = [
    ("fairness_jain_since_start", "Fairness (Jain)", 3, +1),
    ("bottleneck_drop_pct", "Loss rate %", 3, -1),
    ("goodput_Bps_since_start", "Throughput B/s", 0, +1),
]


def gains_frame(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """Per cell of the other axes: each measure's mean and 95 % half-width under DropTail and BQM, and BQM's
    relative change (mean at BQM / mean at DropTail - 1, the claims' kind ratio) with `better` its signed form."""
    rows = select(data.metrics, artifact.get("where", {}))
    rows = rows[rows["scope"] == "all"]
    others = [a for a in data.axes if a != SCHEME]
    preferred = {axis: data.levels.get(axis, []) for axis in data.axes}
    stats = cell_stats(rows, [*others, SCHEME], [m for m, *_ in GAIN_COLUMNS], preferred)
    base = stats[stats[SCHEME].astype(str) == BASELINE].set_index(others)
    over = stats[stats[SCHEME].astype(str) == CHALLENGER].set_index(others)
    frame = base[["seeds"]].copy()
    for metric, _, _, sign in GAIN_COLUMNS:
        for label, part in ((BASELINE, base), (CHALLENGER, over)):
            frame[f"{metric}_{label}"] = part[metric]
            frame[f"{metric}_{label}_ci95"] = part[f"{metric}_ci95"]
        change = over[metric] / base[metric] - 1
        frame[f"{metric}_change"] = change
        frame[f"{metric}_better_pct"] = sign * change * 100
    return frame.reset_index()


def gains_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """<out>.csv and <out>.md: DropTail and BQM side by side with BQM's gain in % per measure."""
    frame = gains_frame(data, artifact)
    others = [a for a in data.axes if a != SCHEME]
    headers = [a.capitalize() for a in others] + ["Seeds"]
    for _, header, _, _ in GAIN_COLUMNS:
        headers += [f"{header}, {BASELINE}", f"{header}, {CHALLENGER}", "BQM better by %"]
    body = []
    for row in frame.to_dict("records"):
        cells = [str(row[a]) for a in others] + [str(row["seeds"])]
        for metric, _, digits, _ in GAIN_COLUMNS:
            cells += [mean_pm(row[f"{metric}_{label}"], row[f"{metric}_{label}_ci95"], digits)
                      for label in (BASELINE, CHALLENGER)]  # fmt: skip
            cells.append(fmt(row[f"{metric}_better_pct"], 1))
        body.append(cells)
    lines = [
        f"**{artifact.get('caption', artifact['id'])}**",
        "",
        f"Experiment `{artifact['experiment']}`. Each cell: mean over seeds of the per-run value ± half-width of its "
        "95 % confidence interval (Student t). 'BQM better by %' is (BQM / DropTail - 1) x 100 for fairness and "
        "throughput and its negative for the loss rate, as §5 counts '% better'.",
        "",
        *markdown_table(headers, body, right=[False] * len(others) + [True] * (len(headers) - len(others))),
    ]
    return write_table(frame, lines, out)
