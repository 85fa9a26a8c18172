"""Figures any experiment file can ask for without new code (module: figures.generic).

    figures:
      - {id: delay_vs_flows, experiment: sweep, module: figures.generic,
         function: metric_vs_axis, metric: e2e_delay_ms_mean, x: flows_n, hue: queue}

Each point is the mean over seeds of a per-run metric (scope `all`, or the flow group
`scope` names), with its 95 %
bootstrap confidence interval over seeds, seeded like every figure module's
(figures.common.BOOT_SEED): the same tables give the same PNG bytes.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import seaborn as sns

from figures.common import (  # sets the Agg backend first
    BOOT_SEED,
    CI_BAND,
    ExperimentData,
    save_figure,
    scope_label,
    seed_note,
    select,
)


def metric_vs_axis(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """A metric (y) against one matrix axis (x), one line per level of another axis (hue)."""
    metric, x, hue = artifact["metric"], artifact["x"], artifact.get("hue")
    for axis in filter(None, (x, hue)):
        if axis not in data.axes:
            raise ValueError(f"{artifact['id']}: '{axis}' is not an axis of {artifact['experiment']}: {data.axes}")
    rows = select(data.metrics, artifact.get("where", {}))
    scope = artifact.get("scope", "all")
    rows = rows[(rows["metric"] == metric) & (rows["scope"] == scope_label(scope))]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no values of {metric} (scope {scope}) in {artifact['experiment']}")
    seeds = seed_note(rows, [x, hue] if hue else [x])
    fig, ax = plt.subplots(figsize=(6, 4))
    sns.lineplot(data=rows, x=x, y="value", hue=hue, marker="o", errorbar=CI_BAND, seed=BOOT_SEED, ax=ax)
    ax.set_xlabel(x)
    ax.set_ylabel(metric)
    caption = textwrap.fill(artifact.get("caption", f"{metric} vs {x}"), 80)
    ax.set_title(caption + f"\n(mean over {seeds}, 95 % CI)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, Path(out))


def metrics_vs_axis(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Several metrics (`metrics`: [metric, label, decimals] each) against one axis (x): colour by the hue axis,
    line style by metric, e.g. loss before and after correction for two queues."""
    x, hue = artifact["x"], artifact.get("hue")
    for axis in filter(None, (x, hue)):
        if axis not in data.axes:
            raise ValueError(f"{artifact['id']}: '{axis}' is not an axis of {artifact['experiment']}: {data.axes}")
    labels = {metric: label for metric, label, _ in artifact["metrics"]}
    rows = select(data.metrics, artifact.get("where", {}))
    scope = artifact.get("scope", "all")
    rows = rows[rows["metric"].isin(labels) & (rows["scope"] == scope_label(scope))]
    missing = sorted(set(labels) - set(rows["metric"]))
    if missing:
        raise ValueError(f"{artifact['id']}: no values of {missing} (scope {scope}) in {artifact['experiment']}")
    rows = rows.assign(measure=rows["metric"].map(labels))
    seeds = seed_note(rows, [x, hue] if hue else [x])
    fig, ax = plt.subplots(figsize=(6, 4))
    sns.lineplot(
        data=rows,
        x=x,
        y="value",
        hue=hue,
        style="measure",
        style_order=list(labels.values()),
        markers=True,
        errorbar=CI_BAND,
        seed=BOOT_SEED,
        ax=ax,
    )
    ax.set_xlabel(x)
    ax.set_ylabel(", ".join(labels.values()))
    caption = textwrap.fill(artifact.get("caption", f"{', '.join(labels)} vs {x}"), 80)
    ax.set_title(caption + f"\n(mean over {seeds}, 95 % CI)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, Path(out))
