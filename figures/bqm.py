"""Figures and tables of Li's Biased Queue Management thesis (configs/bqm.yaml).

Figs. 5.1-5.3, the Appendix's, 4.2 and the ad hoc throughput and fairness figures are drawn by
figures.generic.metric_vs_axis from the file; this module adds what the thesis states in words: BQM's
change against DropTail, per bottleneck and number of connections, for the three measures of Ch. 5
(gains_table); the improvement ratio of Figs. 6.3 and 6.6 (gain_vs_axis); Fig. 6.2's expected
throughput, Eq. 4.1 from the chain's per-hop throughput and the runs' tracks (throughput_with_expected);
and Table 4.1 from the chain runs (hops_table). Not in the thesis: how the senders recovered from their losses
(recoveries_vs_axis) and why packets were lost in the ad hoc runs (drop_causes_vs_axis).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from experiments.config.axes import label_column
from experiments.measure.registry import WIRELESS_DROP_CAUSES
from experiments.planning import mobility
from figures.common import (
    BOOT_SEED,
    CI_BAND,
    ExperimentData,
    cell_stats,
    fmt,
    markdown_table,
    mean_pm,
    save_figure,
    seed_note,
    select,
    write_table,
)

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
    base = stats[label_column(stats[SCHEME]) == BASELINE].set_index(others)
    over = stats[label_column(stats[SCHEME]) == CHALLENGER].set_index(others)
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
            cells += [
                mean_pm(row[f"{metric}_{label}"], row[f"{metric}_{label}_ci95"], digits)
                for label in (BASELINE, CHALLENGER)
            ]
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


THROUGHPUT = "goodput_per_flow_Bps_since_start"  # the ad hoc figures' throughput (choice in configs/bqm.yaml)
HOP_STEP_S = 0.1  # the time step of Eq. 4.1's hop counts


def _scope_all(data: ExperimentData, artifact: dict, metric: str) -> pd.DataFrame:
    rows = select(data.metrics, artifact.get("where", {}))
    rows = rows[(rows["metric"] == metric) & (rows["scope"] == "all")]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no values of metric '{metric}' in {artifact['experiment']}")
    return rows


def gain_vs_axis(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Figs. 6.3 and 6.6: each scheme's improvement ratio over DropTail (mean over seeds at the scheme / at
    DropTail - 1, the claims' kind ratio) against the x axis, in %."""
    metric, x = artifact.get("metric", THROUGHPUT), artifact["x"]
    rows = _scope_all(data, artifact, metric)
    means = rows.groupby([x, SCHEME], sort=False)["value"].mean().unstack(SCHEME)
    order = [level for level in data.levels.get(x, []) if level in means.index]
    means = means.loc[order or list(means.index)]
    gains = means.drop(columns=[BASELINE]).div(means[BASELINE], axis=0).sub(1).mul(100)
    fig, ax = plt.subplots(figsize=(6, 4))
    for scheme in gains.columns:
        ax.plot([str(v) for v in gains.index], gains[scheme], marker="o", label=scheme)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel(x)
    ax.set_ylabel(f"improvement over {BASELINE}, %")
    ax.legend(title=SCHEME)
    caption = textwrap.fill(artifact.get("caption", f"{metric}: improvement ratio vs {x}"), 80)
    ax.set_title(caption + f"\n(ratio of the means over {seed_note(rows, [x, SCHEME])})", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, out)


def per_hop_throughput(chain: ExperimentData, metric: str = THROUGHPUT) -> dict[int, float]:
    """T_i of Eq. 4.1: the chain experiment's mean throughput over seeds at i hops."""
    rows = chain.metrics[(chain.metrics["metric"] == metric) & (chain.metrics["scope"] == "all")]
    return {int(hops): float(value) for hops, value in rows.groupby("hops")["value"].mean().items()}


def expected_throughput(params: dict, per_hop: dict[int, float], step: float = HOP_STEP_S) -> float:
    """Eq. 4.1 averaged over a run's TCP connections: per connection sum_i t_i T_i / sum_i t_i over its life, t_i
    its endpoints' seconds at i hops (partitioned: T = 0; beyond the chain's longest, T of the longest)."""
    topology, end = params["topology"], float(params["duration"])
    flows = [f for f in params["flows"] if f.get("kind") == "ftp"]
    times = np.arange(0, end, step) + step / 2
    pairs = [(f["source_node"], f["sink_node"]) for f in flows]
    hops = mobility.hop_counts(topology["tracks"], pairs, float(topology.get("radio_range", 250)), times)
    longest = max(per_hop)
    rate = np.vectorize(lambda h: 0.0 if h < 0 else per_hop[min(h, longest)])(hops) if hops.size else hops
    values = [rate[times >= float(flow["start"]), column].mean() for column, flow in enumerate(flows)]
    return float(np.mean(values)) if values else float("nan")


def throughput_with_expected(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 6.2: each scheme's throughput against the x axis, and on top the expected throughput of Eq. 4.1
    (the artifact's `reference` is the chain experiment giving T_i; the runs' tracks give t_i)."""
    if data.reference is None:
        raise ValueError(f"{artifact['id']}: needs `reference`, the chain experiment whose runs give T_i")
    metric, x = artifact.get("metric", THROUGHPUT), artifact["x"]
    rows = _scope_all(data, artifact, metric)
    per_hop = per_hop_throughput(data.reference, metric)
    runs = data.runs([*data.axes, "seed"])
    runs = runs[label_column(runs[SCHEME]) == BASELINE]  # every scheme of a seed moves alike
    expected = pd.DataFrame(
        {
            x: runs[x].to_numpy(),
            "seed": runs["seed"].to_numpy(),
            "value": [
                expected_throughput(json.loads((d / "params.json").read_text()), per_hop) for d in runs["directory"]
            ],
        }
    )
    fig, ax = plt.subplots(figsize=(6, 4))
    sns.lineplot(
        data=rows.astype({SCHEME: str}), x=x, y="value", hue=SCHEME, marker="o", errorbar=CI_BAND, seed=BOOT_SEED, ax=ax
    )
    sns.lineplot(
        data=expected,
        x=x,
        y="value",
        color="black",
        linestyle="--",
        marker="s",
        errorbar=CI_BAND,
        seed=BOOT_SEED,
        label="expected (Eq. 4.1)",
        ax=ax,
    )
    ax.set_xlabel(x)
    ax.set_ylabel(metric)
    caption = textwrap.fill(artifact.get("caption", f"{metric} vs {x}"), 80)
    ax.set_title(caption + f"\n(mean over {seed_note(rows, [x])}, 95 % CI)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, out)


def hops_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Table 4.1 from the chain runs: per number of hops, the mean throughput over seeds in kb/s (payload)."""
    metric = artifact.get("metric", THROUGHPUT)
    rows = _scope_all(data, artifact, metric)
    stats = cell_stats(rows, ["hops"], [metric], {"hops": data.levels.get("hops", [])})
    frame = pd.DataFrame(
        {
            "hops": stats["hops"],
            "seeds": stats["seeds"],
            "throughput_kbps": stats[metric] * 8 / 1000,
            "ci95_kbps": stats[f"{metric}_ci95"] * 8 / 1000,
        }
    )
    body = [[str(r.hops), str(r.seeds), mean_pm(r.throughput_kbps, r.ci95_kbps, 1)] for r in frame.itertuples()]
    lines = [
        f"**{artifact.get('caption', artifact['id'])}**",
        "",
        f"Experiment `{artifact['experiment']}`: `{metric}` x 8 / 1000 (payload kb/s), mean over seeds ± half-width "
        "of its 95 % confidence interval (Student t).",
        "",
        *markdown_table(["Hops", "Seeds", "Throughput (kb/s)"], body, right=[True, True, True]),
    ]
    return write_table(frame, lines, out)


# Not in the thesis: how the senders recovered from their losses (issue 52's evidence that BQM acts at all).
RECOVERY_PANELS = [
    ("tcp_fast_retransmits_per_flow", "fast retransmits per connection"),
    ("tcp_timeouts_per_flow", "timeouts per connection"),
    ("bqm_congestion_responses_per_flow", "BQM: congestion responses per connection"),
    ("bqm_wireless_responses_per_flow", "BQM: wireless responses per connection"),
]


def recoveries_vs_axis(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Four panels against the x axis, one line per scheme: fast retransmits and timeouts per connection (every
    sender), and the BQM senders' responses to a congestion and to a wireless diagnosis (BQM schemes only)."""
    x = artifact["x"]
    rows = select(data.metrics, artifact.get("where", {}))
    rows = rows[(rows["scope"] == "all") & rows["metric"].isin([m for m, _ in RECOVERY_PANELS])]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no loss-recovery counters in {artifact['experiment']} (tcp_counters.tsv)")
    rows = rows.astype({SCHEME: str})
    order = [str(level) for level in data.levels.get(SCHEME, [])] or sorted(set(rows[SCHEME]))
    colours = dict(zip(order, sns.color_palette(n_colors=len(order)), strict=True))  # a scheme's colour in every panel
    fig, axes = plt.subplots(2, 2, figsize=(9, 6.5), sharex=True)
    for ax, (metric, label) in zip(axes.flat, RECOVERY_PANELS, strict=True):
        panel = rows[rows["metric"] == metric]
        if panel.empty:
            ax.set_axis_off()
            continue
        sns.lineplot(
            data=panel, x=x, y="value", hue=SCHEME, hue_order=[s for s in order if s in set(panel[SCHEME])],
            palette=colours, marker="o", errorbar=CI_BAND, seed=BOOT_SEED, ax=ax,
        )  # fmt: skip
        ax.set_ylabel(label, fontsize=8)
        ax.set_xlabel(x)
    caption = textwrap.fill(artifact.get("caption", f"loss recoveries vs {x}"), 100)
    fig.suptitle(caption + f"\n(mean over {seed_note(rows, [x, SCHEME])}, 95 % CI)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, out)


def drop_causes_vs_axis(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """One panel per scheme: the TCP data packets dropped per run by cause (wireless_drops_<cause>, stacked, mean
    over seeds) against the x axis."""
    x = artifact["x"]
    causes = [f"wireless_drops_{cause}" for cause in WIRELESS_DROP_CAUSES]
    rows = select(data.metrics, artifact.get("where", {}))
    rows = rows[(rows["scope"] == "all") & rows["metric"].isin(causes)]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no drop causes in {artifact['experiment']} (drops.tr)")
    means = rows.astype({SCHEME: str}).groupby([SCHEME, x, "metric"], sort=False)["value"].mean().unstack("metric")
    schemes = [str(s) for s in data.levels.get(SCHEME, [])] or list(means.index.unique(SCHEME))
    levels = [level for level in data.levels.get(x, []) if level in set(rows[x])] or sorted(set(rows[x]))
    fig, axes = plt.subplots(1, len(schemes), figsize=(4 * len(schemes), 4), sharey=True, squeeze=False)
    for ax, scheme in zip(axes[0], schemes, strict=True):
        panel = means.xs(scheme, level=SCHEME).reindex(levels).reindex(columns=causes).fillna(0)
        bottom = np.zeros(len(panel))
        for metric in causes:
            ax.bar(
                [str(v) for v in panel.index],
                panel[metric],
                bottom=bottom,
                label=metric.removeprefix("wireless_drops_"),
            )
            bottom += panel[metric].to_numpy()
        ax.set_title(scheme, fontsize=9)
        ax.set_xlabel(x)
    axes[0][0].set_ylabel("TCP data packets dropped per run")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, title="cause", fontsize=7, loc="center right")
    caption = textwrap.fill(artifact.get("caption", f"drop causes vs {x}"), 110)
    fig.suptitle(caption + f"\n(mean over {seed_note(rows, [x, SCHEME])})", fontsize=9)
    fig.tight_layout(rect=(0, 0, 0.9, 1))  # room on the right for the legend
    return save_figure(fig, out)
