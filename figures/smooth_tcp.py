"""Figures and the queue table of Zhang, Mamas, Tsaoussidis, configs/smooth_tcp.yaml.

Figs. 4-7 (`queue_panels`): the bottleneck queue over time, one panel per TCP(alpha, beta).
A queue trace is one run: averaging traces over seeds would smooth away the oscillation
the figures are about, so each panel draws the lowest seed's 100-ms samples and prints the
mean over all seeds of the run's queue statistics (95 % interval) beside it.

Figs. 8-11 (`fairness_homogeneous`, `fairness_panels`): Jain's fairness index, worst-case
fairness and system goodput against the number of flows, one line per deployment; each
point is the mean over seeds with seaborn's 95 % bootstrap band (fixed bootstrap seed).

Nothing here contains a published value: the comparison with the paper is the report's.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from figures.common import (
    BOOT_SEED,
    CI_BAND,
    ExperimentData,
    cell_stats,
    cell_stats_markdown,
    ci95,
    levels,
    mean_pm,
    save_figure,
    seed_note,
    select,
    where_text,
    write_table,
)

BOTTLENECK = "core0"  # the dumbbell's bottleneck; R1 -> R2 in the multi-bottleneck chain
PANEL_LETTERS = "abcdefgh"
HOMOGENEOUS = ("all_smooth", "all_responsive")
DEPLOYMENT_NAMES = {
    "all_smooth": "(i) all smooth",
    "all_responsive": "(ii) all responsive",
    "main_smooth_cross_responsive": "(iii) main smooth, cross responsive",
    "main_responsive_cross_smooth": "(iv) main responsive, cross smooth",
}
# Figs. 8-11's panels: (per-run metric, y label, factor).
FAIRNESS_PANELS = (
    ("fairness_jain", "Fairness index", 1.0),
    ("fairness_worst", "Worst-case fairness", 1.0),
    ("goodput_Bps", "System goodput (MB/s)", 1e-6),
)
# The queue table's columns: (per-run metric, header, digits).
QUEUE_COLUMNS = (
    ("bottleneck_queue_pkts_mean", "Mean (pkts)", 1),
    ("bottleneck_queue_pkts_std", "Std (pkts)", 1),
    ("bottleneck_queue_pkts_p5", "P5 (pkts)", 0),
    ("bottleneck_queue_pkts_p95", "P95 (pkts)", 0),
    ("bottleneck_queue_pkts_max", "Max (pkts)", 0),
    ("bottleneck_queue_empty_pct", "Empty (% of samples)", 1),
    ("cwnd_epochs_per_s", "Congestion epochs per flow (1/s)", 2),
    ("bottleneck_queue_osc_hz", "Mean crossings (1/s)", 2),
    ("bottleneck_utilization_pct", "Utilization (%)", 1),
)


def _stat(metrics: pd.DataFrame, protocol: str, metric: str) -> tuple[float, float]:
    values = metrics.loc[(metrics["protocol"] == protocol) & (metrics["metric"] == metric), "value"].dropna()
    return (float(values.mean()), float(ci95(values))) if len(values) else (float("nan"), float("nan"))


def queue_panels(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Bottleneck queue length (packets) over the whole run, one panel per protocol."""
    series = select(data.series, artifact.get("where"))
    series = series[(series["metric"] == "queue_pkts") & (series["scope"] == BOTTLENECK)]
    if series.empty:
        raise ValueError(f"{artifact['id']}: no queue_pkts samples of {BOTTLENECK} in {artifact['experiment']}")
    metrics = select(data.metrics, artifact.get("where"))
    metrics = metrics[metrics["scope"] == "all"]
    protocols = levels(series, "protocol", data.levels.get("protocol", ()))
    fig, axes = plt.subplots(2, 2, figsize=(10, 6.4), sharex=True, sharey=True, layout="constrained")
    for index, (ax, protocol) in enumerate(zip(axes.flat, protocols, strict=False)):
        rows = series[series["protocol"] == protocol]
        seed = int(rows["seed"].min())
        trace = rows[rows["seed"] == seed].sort_values("t")
        ax.plot(trace["t"], trace["value"], lw=0.8, color=sns.color_palette("colorblind")[0])
        mean, mean_ci = _stat(metrics, protocol, "bottleneck_queue_pkts_mean")
        std, std_ci = _stat(metrics, protocol, "bottleneck_queue_pkts_std")
        seeds = rows["seed"].nunique()
        ax.set_title(f"({PANEL_LETTERS[index]}) {protocol}, seed {seed}", fontsize=10)
        ax.annotate(
            f"{seeds} seed{'s' if seeds != 1 else ''}, after warm-up: mean {mean_pm(mean, mean_ci, 1)}, "
            f"std {mean_pm(std, std_ci, 1)} pkts",
            xy=(0.02, 0.97),
            xycoords="axes fraction",
            ha="left",
            va="top",
            fontsize=8,
            bbox={"boxstyle": "round", "fc": "white", "ec": "0.8", "alpha": 0.9},
        )
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queue length (packets)")
    top = max(100.0, float(series["value"].max()))
    axes.flat[0].set_ylim(0, top * 1.12)
    fig.suptitle(
        f"{artifact.get('caption', artifact['id'])}\n({where_text(artifact)}; samples every 100 ms)", fontsize=10
    )
    return save_figure(fig, out)


def _fairness(data: ExperimentData, out: Path, artifact: dict, deployments: tuple[str, ...] = ()) -> list[Path]:
    metrics = select(data.metrics, artifact.get("where"))
    wanted = [m for m, _, _ in FAIRNESS_PANELS]
    rows = metrics[(metrics["scope"] == "all") & metrics["metric"].isin(wanted)].copy()
    if deployments:
        rows = rows[rows["deployment"].isin(deployments)]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no fairness or goodput metrics in {artifact['experiment']}")
    order = levels(rows, "deployment", data.levels.get("deployment", ()))
    names = [DEPLOYMENT_NAMES.get(d, d) for d in order]
    rows["deployment"] = rows["deployment"].map(lambda d: DEPLOYMENT_NAMES.get(d, d))
    rows["flows"] = rows["flows"].astype(float)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained")
    for index, (ax, (metric, label, factor)) in enumerate(zip(axes, FAIRNESS_PANELS, strict=True)):
        panel = rows[rows["metric"] == metric].assign(value=lambda f, k=factor: f["value"] * k)
        sns.lineplot(
            data=panel,
            x="flows",
            y="value",
            hue="deployment",
            hue_order=names,
            style="deployment",
            style_order=names,
            markers=True,
            dashes=False,
            errorbar=CI_BAND,
            seed=BOOT_SEED,
            ax=ax,
            legend=index == 0,
        )
        ax.set_title(f"({PANEL_LETTERS[index]}) {label} vs number of flows", fontsize=10)
        ax.set_xlabel("number of flows (half main, half cross)")
        ax.set_ylabel(label)
        if metric != "goodput_Bps":
            ax.set_ylim(0, 1.05)
    fig.suptitle(
        f"{artifact.get('caption', artifact['id'])}\n({where_text(artifact)}; mean over "
        f"{seed_note(rows, ['deployment', 'flows'])}, 95 % bootstrap band)",
        fontsize=10,
    )
    return save_figure(fig, out)


def fairness_homogeneous(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Figs. 8 and 9: every flow smooth, or every flow responsive."""
    return _fairness(data, out, artifact, HOMOGENEOUS)


def fairness_panels(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Figs. 10 and 11: the four deployments."""
    return _fairness(data, out, artifact)


def queue_frame(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """One row per setting x protocol x variant: seeds, and per QUEUE_COLUMNS metric the mean over
    seeds and the half-width of its 95 % interval (`<metric>_ci95`)."""
    metrics = select(data.metrics, artifact.get("where"))
    wanted = [m for m, _, _ in QUEUE_COLUMNS]
    rows = metrics[(metrics["scope"] == "all") & metrics["metric"].isin(wanted)]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no bottleneck queue metrics in {artifact['experiment']}")
    return cell_stats(rows, [a for a in data.axes if a in rows.columns], wanted, data.levels)


def queue_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """<out>.csv and <out>.md: the bottleneck queue statistics behind Figs. 4-7 and their claims."""
    frame = queue_frame(data, artifact)
    axes = [a for a in data.axes if a in frame.columns]
    lines = [
        f"**{artifact.get('caption', artifact['id'])}**",
        "",
        f"Experiment `{artifact['experiment']}`. Each cell: mean over seeds of the per-run value ± half-width of its "
        "95 % confidence interval (Student t). Per run, over [warmup, end] of the 100-ms samples of the bottleneck "
        "queue (experiments/measure/); congestion epochs: decreases of each flow's sampled cwnd per second, the "
        "mean over the flows; mean crossings: upward crossings of the run's mean queue per second.",
        "",
        *cell_stats_markdown(frame, axes, QUEUE_COLUMNS),
    ]
    return write_table(frame, lines, out)
