"""Figures and tables of Alemu's thesis (configs/psand.yaml): queue evolution (Figs. 2.3-2.8), queue-length
distributions (Fig. 2.11) and the comparison tables (Tables 2.2-2.3). Figs. 2.9-2.10 are figures.generic's
metric_vs_axis.

queue_evolution draws, for the first seed, the bottleneck's instantaneous queue (the 0.01-s samples of
core0) and RED's weighted average (`ave_`, sampled by monitors.queue_vars) against time: one panel per
level of `panels` (the scheme), one row of panels per level of `rows` (the added flows).

metric_panels draws a per-run metric (scope all) against the `x` axis, one line per level of `hue`, one panel
per level of `panels` (Figs. 2.12-2.16: one panel per number of flows or per (coef, gamma)), each point the mean
over seeds with its 95 % interval.

queue_pmf draws the probability of each instantaneous queue length (packets) at the bottleneck, pooled over
every 0.01-s sample of every seed: one panel per level of `panels` (the number of flows, restricted to `levels`),
one line per level of `hue` (the scheme).

comparison_table prints, per level of `rows` and per level of `columns` (restricted to `levels`), the mean
over seeds of each per-run metric of `metrics` with the half-width of its 95 % interval.
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from experiments import aqm_design
from experiments.metrics import bandwidth_bps, seconds
from figures.common import (
    BOOT_SEED,
    CI_BAND,
    ExperimentData,
    cell_stats,
    levels,
    markdown_table,
    mean_pm,
    save_figure,
    select,
    write_table,
)

IQS, WAQS = "queue_pkts", "qvar_ave"  # the series of the instantaneous and the weighted average queue
BOTTLENECK = "core0"


def evolution_frame(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """The IQS and WAQS series of the bottleneck for the first seed, after `where`."""
    series = select(data.series, artifact.get("where"))
    series = series[(series["scope"] == BOTTLENECK) & series["metric"].isin([IQS, WAQS])]
    if series.empty:
        raise ValueError(
            f"{artifact['id']}: no {IQS}/{WAQS} series of {BOTTLENECK} in {artifact['experiment']} "
            "(does the scenario sample ave_ with monitors.queue_vars?)"
        )
    return series[series["seed"] == series["seed"].min()]


def queue_evolution(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """A grid of panels (rows x panels axes), each IQS and WAQS against time."""
    frame = evolution_frame(data, artifact)
    panel_axis, row_axis = artifact["panels"], artifact.get("rows")
    panel_levels = levels(frame, panel_axis, data.levels.get(panel_axis, ()))
    row_levels = levels(frame, row_axis, data.levels.get(row_axis, ())) if row_axis else [None]
    fig, grid = plt.subplots(
        len(row_levels), len(panel_levels), figsize=(3.2 * len(panel_levels), 2.2 * len(row_levels)),
        sharex=True, sharey=True, squeeze=False,
    )  # fmt: skip
    for i, row in enumerate(row_levels):
        for j, panel in enumerate(panel_levels):
            ax = grid[i][j]
            cell = frame[frame[panel_axis] == panel]
            if row_axis:
                cell = cell[cell[row_axis] == row]
            for metric, label, style in ((IQS, "IQS", {"lw": 0.4, "alpha": 0.7}), (WAQS, "WAQS", {"lw": 1.2})):
                line = cell[cell["metric"] == metric].sort_values("t")
                ax.plot(line["t"], line["value"], label=label, **style)
            title = f"{panel}" + (f", {row_axis} = {row}" if row_axis else "")
            ax.set_title(title, fontsize=8)
            if i == len(row_levels) - 1:
                ax.set_xlabel("time (s)")
            if j == 0:
                ax.set_ylabel("queue (packets)")
    grid[0][0].legend(fontsize=7, loc="upper left")
    seed = int(frame["seed"].min())
    caption = textwrap.fill(artifact.get("caption", artifact["id"]), 110)
    fig.suptitle(f"{caption}\n(seed {seed}; bottleneck queue sampled every 0.01 s)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, Path(out))


def metric_panels(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """A metric against x, lines by hue, one panel per level of `panels`."""
    metric, x, hue, panel_axis = artifact["metric"], artifact["x"], artifact["hue"], artifact["panels"]
    rows = select(data.metrics, artifact.get("where"))
    rows = rows[(rows["metric"] == metric) & (rows["scope"] == "all")]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no values of metric '{metric}' in {artifact['experiment']}")
    rows = rows.assign(**{hue: rows[hue].astype(str)})
    panels = levels(rows, panel_axis, data.levels.get(panel_axis, ()))
    hues = [str(level) for level in levels(rows, hue, data.levels.get(hue, ()))]
    fig, grid = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 3.2), sharey=True, squeeze=False)
    for ax, panel in zip(grid[0], panels, strict=True):
        part = rows[rows[panel_axis] == panel]
        sns.lineplot(data=part, x=x, y="value", hue=hue, hue_order=hues, marker="o", errorbar=CI_BAND,
                     seed=BOOT_SEED, ax=ax, legend=ax is grid[0][0])  # fmt: skip
        ax.set_title(f"{panel_axis} = {panel}", fontsize=8)
        ax.set_xlabel(x)
    grid[0][0].set_ylabel(metric)
    seeds = rows.groupby([panel_axis, x, hue], observed=True)["seed"].nunique()
    count = f"{seeds.min()}" + (f"-{seeds.max()}" if seeds.max() != seeds.min() else "")
    fig.suptitle(textwrap.fill(artifact.get("caption", artifact["id"]), 120) + f"\n(mean over {count} seeds, "
                 "95 % CI)", fontsize=9)  # fmt: skip
    fig.tight_layout()
    return save_figure(fig, Path(out))


def queue_pmf_frame(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """P(X = x) per panel level x hue level: the share of the bottleneck's pooled queue samples of length x."""
    panel_axis, hue = artifact["panels"], artifact["hue"]
    samples = select(data.run_table("queue", ["link", "size_packets"]), artifact.get("where"))
    samples = samples[samples["link"] == BOTTLENECK]
    if "levels" in artifact:
        samples = samples[samples[panel_axis].astype(str).isin([str(level) for level in artifact["levels"]])]
    if samples.empty:
        raise ValueError(f"{artifact['id']}: no queue samples of {BOTTLENECK} in {artifact['experiment']}")
    counts = samples.groupby([panel_axis, hue, "size_packets"], observed=True).size().rename("count").reset_index()
    totals = counts.groupby([panel_axis, hue], observed=True)["count"].transform("sum")
    seeds = samples.groupby([panel_axis, hue], observed=True)["seed"].nunique().rename("seeds").reset_index()
    return counts.assign(probability=counts["count"] / totals).merge(seeds, on=[panel_axis, hue])


def queue_pmf(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """One panel per level of `panels`, P(X = x) against x with one line per level of `hue`."""
    frame = queue_pmf_frame(data, artifact)
    panel_axis, hue = artifact["panels"], artifact["hue"]
    panels = [level for level in artifact.get("levels", levels(frame, panel_axis)) if (frame[panel_axis].astype(str)
              == str(level)).any()]  # fmt: skip
    hues = levels(frame, hue, data.levels.get(hue, ()))
    fig, grid = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 3), sharey=True, squeeze=False)
    for ax, panel in zip(grid[0], panels, strict=True):
        part = frame[frame[panel_axis].astype(str) == str(panel)]
        for level in hues:
            line = part[part[hue] == level].sort_values("size_packets")
            ax.plot(line["size_packets"], line["probability"], marker=".", markersize=3, lw=0.8, label=str(level))
        seeds = ", ".join(sorted({str(s) for s in part["seeds"]}))
        ax.set_title(f"{panel_axis} = {panel} ({seeds} seeds)", fontsize=8)
        ax.set_xlabel("queue length (packets)")
    grid[0][0].set_ylabel("P(X = x)")
    grid[0][0].legend(fontsize=7)
    fig.suptitle(textwrap.fill(artifact.get("caption", artifact["id"]), 120) + "\n(every 0.01-s sample of every "
                 "seed pooled)", fontsize=9)  # fmt: skip
    fig.tight_layout()
    return save_figure(fig, Path(out))


TABLE_4_1_PACKET_BYTES = 1000  # C of Table 4.1: "1.5 x 10^6/(8 x 10^3) ... where 10^3 is a packet size in bytes"
DESIGN_FLOWS = 3  # N-: "we set N- to 3 flows since it is the smallest number of flows we consider" (§4.3)
DESIGN_SAMPLING_HZ = 170  # PI's f_s (configs/psand.yaml, queue PI)


def largest_run_params(data: ExperimentData) -> dict:
    """params.json of the experiment's run with the most flows (the one whose longest path sets T_p)."""
    directories = pd.read_parquet(Path(data.directory) / "runs.parquet")["directory"].unique()
    params = [json.loads((Path(d) / "params.json").read_text()) for d in directories]
    return max(params, key=lambda p: len(p["flows"]))


def max_rtt(params: dict) -> dict:
    """Eq. 4.1's terms for a run's network: T_p = 2 x the longest one-way propagation of a flow's path (its two
    access links and the core link), B = the bottleneck buffer, C = its bandwidth in 1000-B packets/s,
    R+ = B/C + T_p."""
    topology = params["topology"]
    default_delay = topology["edge_link"]["delay"]
    access = max(seconds(flow.get("edge_link", {}).get("delay", default_delay)) for flow in params["flows"])
    t_p = 2 * (2 * access + seconds(topology["core_link"]["delay"]))
    buffer = float(params["core_queue"]["knobs"]["limit_"])
    capacity = bandwidth_bps(topology["core_link"]["bandwidth"]) / (8 * TABLE_4_1_PACKET_BYTES)
    return {"T_p (ms)": t_p * 1e3, "B (packets)": buffer, "C (packets/s)": capacity,
            "R+ (ms)": (buffer / capacity + t_p) * 1e3}  # fmt: skip


def design_row(name: str, params: dict) -> dict:
    """One topology's Eq. 4.1 terms and the design values of Eqs. 1.18-1.26 at its R+ for N- = DESIGN_FLOWS."""
    row = {"topology": name, **max_rtt(params)}
    rtt, capacity = row["R+ (ms)"] / 1e3, row["C (packets/s)"]
    row["PI a"], row["PI b"] = aqm_design.pi_gains(capacity, DESIGN_FLOWS, rtt, DESIGN_SAMPLING_HZ)
    row["LRED beta_bar"], row["LRED second term"] = aqm_design.lred_beta(capacity, DESIGN_FLOWS, rtt)
    row["AVQ alpha*"] = aqm_design.avq_alpha(capacity, DESIGN_FLOWS, rtt)
    return row


def design_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Table 4.1 from the runs' own parameters (the experiment's and its `reference`'s), with the design values
    Eqs. 1.18-1.26 give at each R+."""
    experiments = [(artifact["experiment"], data)]
    if data.reference is not None:
        experiments.append((artifact["reference"], data.reference))
    frame = pd.DataFrame([design_row(name, largest_run_params(d)) for name, d in experiments])
    headers = list(frame.columns)
    body = [
        [row["topology"]] + ["unbounded" if math.isinf(row[h]) else f"{row[h]:.6g}" for h in headers[1:]]
        for row in frame.to_dict("records")
    ]
    lines = [
        f"**{artifact.get('caption', artifact['id'])}**",
        "",
        f"T_p, B and C from the params.json of each experiment's run with the most flows; C in "
        f"{TABLE_4_1_PACKET_BYTES}-B packets/s; design values at N- = {DESIGN_FLOWS}, PI's f_s = {DESIGN_SAMPLING_HZ} "
        "Hz (experiments/aqm_design.py). 'unbounded': Theorem 1's condition holds for no alpha, every alpha is stable. "
        "The values the runs use are in configs/psand.yaml (choice design_rtt).",
        "",
        *markdown_table(headers, body, right=[False] + [True] * (len(headers) - 1)),
    ]
    return write_table(frame, lines, out)


def comparison_frame(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """cell_stats of the artifact's metrics per rows x columns level (scope all)."""
    wanted = [metric for metric, _, _ in artifact["metrics"]]
    rows = select(data.metrics, artifact.get("where"))
    rows = rows[(rows["scope"] == "all") & rows["metric"].isin(wanted)]
    column_axis = artifact["columns"]
    if "levels" in artifact:
        rows = rows[rows[column_axis].astype(str).isin([str(level) for level in artifact["levels"]])]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no values of {wanted} in {artifact['experiment']}")
    preferred = {**data.levels, column_axis: list(artifact.get("levels", data.levels.get(column_axis, ())))}
    return cell_stats(rows, [artifact["rows"], column_axis], wanted, preferred)


def comparison_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """<out>.csv (mean and CI half-width per cell) and <out>.md laid out as the thesis's table: one line per row
    level, per metric one column per columns level."""
    frame = comparison_frame(data, artifact)
    row_axis, column_axis = artifact["rows"], artifact["columns"]
    columns = list(dict.fromkeys(frame[column_axis].tolist()))
    headers = [row_axis] + [f"{header}, {column_axis} = {c}" for _, header, _ in artifact["metrics"] for c in columns]
    body = []
    for row in dict.fromkeys(frame[row_axis].tolist()):
        cells = frame[frame[row_axis] == row].set_index(column_axis)
        line = [str(row)]
        for metric, _, digits in artifact["metrics"]:
            for c in columns:
                line.append(
                    mean_pm(cells.at[c, metric], cells.at[c, f"{metric}_ci95"], digits) if c in cells.index else "-"
                )
        body.append(line)
    seeds = f"{frame['seeds'].min()}" + (f"-{frame['seeds'].max()}" if frame["seeds"].nunique() > 1 else "")
    lines = [
        f"**{artifact.get('caption', artifact['id'])}**",
        "",
        f"Experiment `{artifact['experiment']}`. Each cell: mean over {seeds} seeds of the per-run value ± half-width "
        "of its 95 % confidence interval (Student t over seeds). Per run: the bottleneck queue sampled every 0.01 s "
        "over the whole run; loss = drops / arrivals at that queue (experiments/metrics.py).",
        "",
        *markdown_table(headers, body, right=[False] + [True] * (len(headers) - 1)),
    ]
    return write_table(frame, lines, out)
