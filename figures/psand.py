"""Figures and tables of Alemu's thesis (configs/psand.yaml): drop functions (Figs. 1.1-1.5), queue evolution
(Figs. 2.3-2.8 and 4.2-4.4), queue-length distributions (Fig. 2.11), the comparison tables (Tables 2.2-2.3 and
4.2-4.3) and Table 4.1 (design_table). Figs. 2.9-2.10 and 4.5-4.10 are figures.generic's metric_vs_axis.

queue_evolution draws, for the first seed, the bottleneck's instantaneous queue (the 0.01-s samples of
core0) and RED's weighted average (`ave_`, sampled by monitors.queue_vars) against time: one panel per
level of `panels` (the scheme; only `levels`, in their order, if given), one row of panels per level of `rows`
(the added flows). `overlay` names more sampled queue variables drawn dashed over the queue (Figs. 3.8-3.14:
PSAND's moving thresh_ and maxthresh_).

adaptation_ratios draws Fig. 2.1 (§2.3) from one run (first seed): IQS and WAQS with the target K_T and the
adaptation instants t_k = k x interval, and below Algorithm 16's change_rate = K_cur/K_prev and prox_rate =
K_cur/K_T at each instant (adaptation_ratios_frame: K_cur the sampled `ave_` at the last 0.01-s sample at or
before t_k), with Max_p (`cur_max_p_`) where sampled. Interval and K_T are the run queue's interval_ and ktarget_
(else 0.5 s and 10 packets).

metric_panels draws a per-run metric (scope all) against the `x` axis, one line per level of `hue`, one panel
per level of `panels` (Figs. 2.12-2.16: one panel per number of flows or per (coef, gamma)), each point the mean
over seeds with its 95 % interval.

queue_pmf draws the probability of each instantaneous queue length (packets) at the bottleneck, pooled over
every 0.01-s sample of every seed: one panel per level of `panels` (the number of flows, restricted to `levels`),
one line per level of `hue` (the scheme).

comparison_table prints, per level of `rows` and per level of `columns` (restricted to `levels`), the mean
over seeds of each per-run metric of `metrics` with the half-width of its 95 % interval.

Figs. 1.1-1.3 and 1.5 draw the drop functions of experiments/paper_models/drop_functions.py and, for RED and RIO,
ns-2's own (average queue, drop probability) pairs of experiment drop_functions on them.

red_figure and rio_figure: one panel per level of `panels` (restricted to `levels`). The curve is the thesis's
formula (Eq. 1.2 or 1.3) with the parameters the run's queue was configured with (params.json: thresh_,
maxthresh_, 1/linterm_, gentle_; for RIO the In or Out set, see queue_function); the points are the queue's
average and the probability ns-2 computed from it (monitors.queue_vars), sampled every 0.01 s. ns-2 computes the
probability at an arrival only while the average is at least Min_th and the queue holds more than one packet, and
not at the first such arrival after the average crossed Min_th; Queue/RED computes it at any average above
(use_mark_p_ true, ns-2.35's default: 1 from Max_th, or 2 Max_th in gentle mode), Queue/RED/RIO only below Max
(above, it drops without computing). Samples outside that range carry an older value and are drawn grey. The
panel counts the samples in the range and how many lie on the curve (within ON_CURVE, READ_BACK). rio_figure's
second panel is RIO's Out function from the same queue's Out parameters, a curve only (see configs/psand.yaml).

sred_figure and dsred_figure: the formulas only (ns-2.35 implements neither); they read no runs.

Chapter 5: fec_table is comparison_table over the UDP flow's FEC metrics (Tables 5.1-5.2); fec_block_size draws
PLRBC and PLR against k for every code of each redundancy ratio (Fig. 5.7), read from the metric names
fec_plr_<k>_<h>_pct, and fec_fixed_h against k for each h, every code at its own ratio (Figs. 5.8-5.9);
fec_model_figure draws §5.5's Delta_h (Fig. 5.12) from experiments/paper_models/fec_model.py; loss_process_sketch draws
Fig. 5.11 (the discrete loss process and its batch approximation) from one run's losses; and fec_crossover_table sets
the simulated RED/DT crossover of each code beside the model's (§5.5 against §5.4.1.2). Figs. 5.3-5.6 and 5.10
are figures.generic's metric_vs_axis and metrics_vs_axis.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np
import pandas as pd
import seaborn as sns

from experiments.config.axes import label_column, label_text
from experiments.config.units import bandwidth_bps, seconds
from experiments.measure.links import queue_var_name
from experiments.paper_models import aqm_design, fec_model
from experiments.paper_models import drop_functions as df
from figures.common import (
    BOOT_SEED,
    CI_BAND,
    ExperimentData,
    cell_stats,
    levels,
    markdown_table,
    mean_pm,
    save_figure,
    seed_note,
    seeds_text,
    select,
    where_text,
    write_table,
)

IQS, WAQS = "queue_pkts", "qvar_ave"  # the series of the instantaneous and the weighted average queue
BOTTLENECK = "core0"
PANELS_PER_ROW = 4  # queue_evolution without `rows`


OVERLAY_NAMES = {"thresh_": "Min_th", "maxthresh_": "Max_th"}  # RED's names for the thresholds
# One colour per line in every panel, the thresholds apart from the average they bound.
EVOLUTION_COLOURS = {"IQS": "tab:blue", "WAQS": "tab:orange", "Min_th": "tab:green", "Max_th": "tab:red"}


def evolution_frame(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """The IQS, WAQS and `overlay` series of the bottleneck for the first seed, after `where`."""
    series = select(data.series, artifact.get("where"))
    wanted = [IQS, WAQS, *(queue_var_name(var) for var in artifact.get("overlay", []))]
    series = series[(series["scope"] == BOTTLENECK) & series["metric"].isin(wanted)]
    if series.empty:
        raise ValueError(
            f"{artifact['id']}: no {IQS}/{WAQS} series of {BOTTLENECK} in {artifact['experiment']} "
            "(does the scenario sample ave_ with monitors.queue_vars?)"
        )
    return series[series["seed"] == series["seed"].min()]


def evolution_layout(panel_levels: list, row_levels: list) -> list[list[tuple]]:
    """The grid of (panel, row) cells: one row per level of `rows`, or without `rows` the panels wrapped
    PANELS_PER_ROW to a row (Figs. 4.2-4.3 have eight schemes)."""
    if row_levels != [None]:
        return [[(panel, row) for panel in panel_levels] for row in row_levels]
    return [
        [(panel, None) for panel in panel_levels[i : i + PANELS_PER_ROW]]
        for i in range(0, len(panel_levels), PANELS_PER_ROW)
    ]


def queue_evolution(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """A grid of panels (rows x panels axes), each IQS and, where sampled, WAQS against time (over `time_window`
    if given), with the `overlay` variables dashed."""
    frame = evolution_frame(data, artifact)
    if "time_window" in artifact:
        start, end = artifact["time_window"]
        frame = frame[frame["t"].between(start, end)]
        if frame.empty:
            raise ValueError(f"{artifact['id']}: no queue sample in time_window [{start}, {end}] s")
    panel_axis, row_axis = artifact["panels"], artifact.get("rows")
    panel_levels = levels(frame, panel_axis, artifact.get("levels") or data.levels.get(panel_axis, ()))
    if artifact.get("levels"):
        wanted = {label_text(level) for level in artifact["levels"]}
        panel_levels = [level for level in panel_levels if label_text(level) in wanted]
    row_levels = levels(frame, row_axis, data.levels.get(row_axis, ())) if row_axis else [None]
    layout = evolution_layout(panel_levels, row_levels)
    overlays = [(queue_var_name(var), OVERLAY_NAMES.get(var, var)) for var in artifact.get("overlay", [])]
    width = max(len(line) for line in layout)
    fig, grid = plt.subplots(
        len(layout), width, figsize=(3.2 * width, 2.6 * len(layout) + 0.4), sharex=True, sharey=True, squeeze=False
    )
    for i, line in enumerate(layout):
        for j in range(len(line), width):
            grid[i][j].set_visible(False)
        for j, (panel, row) in enumerate(line):
            ax = grid[i][j]
            cell = frame[frame[panel_axis] == panel]
            if row_axis:
                cell = cell[cell[row_axis] == row]
            lines = [(IQS, "IQS", {"lw": 0.4, "alpha": 0.7}), (WAQS, "WAQS", {"lw": 1.2})]
            lines += [(metric, name, {"lw": 1.0, "ls": "--"}) for metric, name in overlays]
            for metric, label, style in lines:
                points = cell[cell["metric"] == metric].sort_values("t")
                if not points.empty:
                    ax.plot(points["t"], points["value"], label=label, color=EVOLUTION_COLOURS.get(label), **style)
            name = panel if isinstance(panel, str) else f"{panel_axis} = {label_text(panel)}"  # a bare 103 says nothing
            ax.set_title(name + (f", {row_axis} = {label_text(row)}" if row_axis else ""), fontsize=8)
            if i == len(layout) - 1 or (i == len(layout) - 2 and j >= len(layout[-1])):
                ax.set_xlabel("time (s)")
            if j == 0:
                ax.set_ylabel("queue (packets)")
    # one legend below the panels: inside the first one it hid the start of its run
    handles, names = grid[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=len(names), fontsize=7, frameon=False)
    seed = int(frame["seed"].min())
    # about 13 characters of 9-point text per inch: two panels must not cut a caption set for four
    caption = textwrap.fill(artifact.get("caption", artifact["id"]), int(13 * fig.get_figwidth()))
    shown = "" if "time_window" not in artifact else "; {:g}-{:g} s of the run".format(*artifact["time_window"])
    fig.suptitle(f"{caption}\n(seed {seed}; bottleneck queue sampled every 0.01 s{shown})", fontsize=9)
    fig.tight_layout(rect=(0, 0.35 / fig.get_figheight(), 1, 1))
    return save_figure(fig, Path(out))


# Algorithm 16's INTERVAL (s) and K_T (packets) when the run's queue does not give them (interval_, ktarget_):
# Table 2.1 and §2.3's example (0.5 s, 10 packets)
ADAPTATION_DEFAULTS = {"interval": ("interval_", 0.5), "target": ("ktarget_", 10.0)}
SAMPLE_SLACK = 1e-6  # s: a sample stamped 0.5000000001 is the one at the instant 0.5 (samples are 0.01 s apart)
CUR_MAX_P = "cur_max_p_"
RATIO_SPREAD_LOG = 20  # largest / smallest positive ratio above which the ratios are drawn on a log scale
RATIO_COLOURS = {"change_rate": "tab:purple", "prox_rate": "tab:brown", "Max_p": "tab:green"}


def averages_at(times: Sequence[float], ave: Sequence[float], interval: float) -> tuple[np.ndarray, np.ndarray]:
    """The adaptation instants t_k = k interval (k >= 1, up to the last sample) and K_cur at each: the sampled
    average at the last sample at or before t_k (0 before the first sample: RED's average after reset())."""
    if not interval > 0:
        raise ValueError(f"adaptation interval {interval!r}: must be > 0 s")
    t, a = np.asarray(times, dtype=float), np.asarray(ave, dtype=float)
    order = np.argsort(t, kind="stable")
    t, a = t[order], a[order]
    if not len(t):
        return np.empty(0), np.empty(0)
    instants = interval * np.arange(1, math.floor((t[-1] + SAMPLE_SLACK) / interval) + 1)
    at = np.searchsorted(t, instants + SAMPLE_SLACK, side="right") - 1
    return instants, np.where(at >= 0, a[np.maximum(at, 0)], 0.0)


def adaptation_ratios_frame(
    times: Sequence[float], ave: Sequence[float], interval: float, target: float
) -> pd.DataFrame:
    """Algorithm 16's two ratios at each adaptation instant t_k = k interval (averages_at): prox_rate = K_cur / K_T
    and change_rate = K_cur / K_prev, K_prev the previous instant's K_cur (0 at the first instant, as PSAND's kprev_
    after reset()). Instants with K_prev = 0 are left out (change_rate undefined; ns2-patches/0014's zero_rule_ 0
    skips the step there). Columns t, k_cur, k_prev, change_rate, prox_rate."""
    if not target > 0:
        raise ValueError(f"target average queue K_T {target!r}: must be > 0 packets")
    instants, k_cur = averages_at(times, ave, interval)
    k_prev = np.concatenate([[0.0], k_cur[:-1]])
    defined = k_prev > 0
    k_cur, k_prev = k_cur[defined], k_prev[defined]
    return pd.DataFrame(
        {
            "t": instants[defined],
            "k_cur": k_cur,
            "k_prev": k_prev,
            "change_rate": k_cur / k_prev,
            "prox_rate": k_cur / target,
        }
    )


def drawn_run_queue(data: ExperimentData, artifact: dict, seed: int) -> dict:
    """The core queue ({class, knobs}) of the params.json of the run drawn (seed `seed` of the cell `where` names);
    data.params's (the experiment's first run) when there is no runs table to find it in."""
    if data.directory is not None and (Path(data.directory) / "runs.parquet").exists():
        runs = select(data.runs([*data.axes, "seed"]), artifact.get("where"))
        runs = runs[runs["seed"] == seed]
        if not runs.empty:
            return json.loads((Path(runs["directory"].iloc[0]) / "params.json").read_text()).get("core_queue", {})
    return data.params.get("core_queue", {})


def adaptation_settings(queue: dict) -> dict[str, tuple[float, str]]:
    """{interval, target: (value, where it comes from)}: the run queue's interval_ and ktarget_ where it has them,
    else ADAPTATION_DEFAULTS (interval_ 0 switches PSAND's adaptation off, as the null reading does: the ratios are
    then read at the default instants, and the caption says the queue adapts nothing)."""
    knobs = queue.get("knobs", {})
    out = {}
    for key, (knob, default) in ADAPTATION_DEFAULTS.items():
        held = knobs.get(knob)
        if held is not None and float(held) > 0:
            out[key] = (float(held), f"the queue's {knob}")
        else:
            idle = f"; the queue's {knob} {float(held):g} adapts nothing" if held is not None else ""
            out[key] = (default, f"default{idle}")
    return out


def adaptation_ratios(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """§2.3's Fig. 2.1 from one run (the first seed of the cell `where` names): above, IQS and WAQS against time
    with the target K_T and a dotted line at each adaptation instant t_k = k x interval, K_cur (the average at
    t_k) marked and held as the next instant's K_prev; below, change_rate = K_cur/K_prev and prox_rate = K_cur/K_T
    at each instant (adaptation_ratios_frame), held until the next, against 1, and Max_p (cur_max_p_) on a second
    axis where the monitors sample it. Interval and K_T: adaptation_settings."""
    frame = evolution_frame(data, {**artifact, "overlay": [CUR_MAX_P]})
    free = [axis for axis in data.axes if axis in frame and frame[axis].nunique() > 1]
    if free:
        raise ValueError(f"{artifact['id']}: `where` must name one run's cell; {', '.join(free)} left free")
    waqs = frame[frame["metric"] == WAQS].sort_values("t")
    if waqs.empty:
        raise ValueError(
            f"{artifact['id']}: {artifact['experiment']} does not sample the average queue at {BOTTLENECK}: "
            "add ave_ to its monitors.queue_vars"
        )
    seed = int(frame["seed"].min())
    settings = adaptation_settings(drawn_run_queue(data, artifact, seed))
    (interval, interval_from), (target, target_from) = settings["interval"], settings["target"]
    instants, held = averages_at(waqs["t"], waqs["value"], interval)
    ratios = adaptation_ratios_frame(waqs["t"], waqs["value"], interval, target)
    if ratios.empty:
        raise ValueError(
            f"{artifact['id']}: no adaptation instant (every {interval:g} s) with a non-zero average at the one "
            "before: change_rate is nowhere defined"
        )
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 5.6), sharex=True, height_ratios=(3, 2))
    for metric, label, style in ((IQS, "IQS", {"lw": 0.4, "alpha": 0.7}), (WAQS, "WAQS", {"lw": 1.2})):
        points = frame[frame["metric"] == metric].sort_values("t")
        if not points.empty:
            top.plot(points["t"], points["value"], label=label, color=EVOLUTION_COLOURS[label], **style)
    top.axhline(target, color="black", lw=0.9, ls="--", label=f"K_T = {target:g}")
    top.vlines(instants, 0, 1, transform=top.get_xaxis_transform(), colors="0.55", lw=0.5, ls=":", label="t_k")
    top.plot(instants, held, ls="none", marker="o", ms=3, color="tab:red", label="K_cur at t_k")
    top.step(instants, held, where="post", color="tab:red", lw=0.7, alpha=0.6, label="K_prev (held to t_k+1)")
    top.set_ylabel("queue (packets)")
    style = {"marker": "o", "ms": 3, "lw": 1.0, "drawstyle": "steps-post"}
    for column in ("change_rate", "prox_rate"):
        bottom.plot(ratios["t"], ratios[column], label=column, color=RATIO_COLOURS[column], **style)
    bottom.axhline(1, color="black", lw=0.8, ls=":")
    values = ratios[["change_rate", "prox_rate"]].to_numpy()
    positive = values[values > 0]
    logarithmic = positive.size > 0 and positive.max() / positive.min() > RATIO_SPREAD_LOG
    if logarithmic:  # a K_prev near 0 (an empty start) makes one change_rate dwarf the others
        bottom.set_yscale("log")
        # text.parse_math is off (figures.common): plain numbers, not mathtext powers of ten
        bottom.yaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
        bottom.yaxis.set_minor_formatter(mticker.NullFormatter())
    bottom.set_ylabel("ratio (log scale)" if logarithmic else "ratio")
    bottom.set_xlabel("time (s)")
    handles, names = bottom.get_legend_handles_labels()
    max_p = frame[frame["metric"] == queue_var_name(CUR_MAX_P)].sort_values("t")
    if not max_p.empty:
        twin = bottom.twinx()
        twin.plot(max_p["t"], max_p["value"], lw=0.9, color=RATIO_COLOURS["Max_p"], label="Max_p")
        twin.set_ylabel("Max_p")
        twin.grid(False)
        more, labels = twin.get_legend_handles_labels()
        handles, names = handles + more, names + labels
    for ax, (hs, ns) in ((top, top.get_legend_handles_labels()), (bottom, (handles, names))):
        ax.legend(hs, ns, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=min(len(ns), 4), fontsize=7, frameon=False)
    skipped = len(instants) - len(ratios)
    first = (
        f"change_rate from the first instant with a non-zero average at the one before, t = {ratios['t'].iloc[0]:g} s"
    )
    if skipped:
        first += f" ({skipped} instant{'s' if skipped != 1 else ''} with K_prev = 0 left out)"
    zeros = int((values <= 0).sum()) if logarithmic else 0
    if zeros:
        first += f"; {zeros} ratio{'s' if zeros != 1 else ''} of 0 (K_cur = 0) off the log scale"
    where = where_text(artifact)
    caption = textwrap.fill(artifact.get("caption", artifact["id"]), int(13 * fig.get_figwidth()))
    note = (
        f"{where + '; ' if where else ''}seed {seed}; bottleneck queue sampled every 0.01 s; K_T {target:g} packets "
        f"({target_from}), instants every {interval:g} s ({interval_from}); {first}"
    )
    fig.suptitle(f"{caption}\n{textwrap.fill('(' + note + ')', int(15 * fig.get_figwidth()))}", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, Path(out))


def metric_panels(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """A metric against x, lines by hue, one panel per level of `panels` (only those of `levels`, if given)."""
    metric, x, hue, panel_axis = artifact["metric"], artifact["x"], artifact["hue"], artifact["panels"]
    rows = select(data.metrics, artifact.get("where"))
    rows = rows[(rows["metric"] == metric) & (rows["scope"] == "all")]
    if "levels" in artifact:
        rows = rows[label_column(rows[panel_axis]).isin([label_text(level) for level in artifact["levels"]])]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no values of metric '{metric}' in {artifact['experiment']}")
    rows = rows.assign(**{hue: label_column(rows[hue])})
    panels = levels(rows, panel_axis, data.levels.get(panel_axis, ()))
    hues = levels(rows, hue, data.levels.get(hue, ()))
    fig, grid = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 3.2), sharey=True, squeeze=False)
    for ax, panel in zip(grid[0], panels, strict=True):
        part = rows[rows[panel_axis] == panel]
        sns.lineplot(
            data=part,
            x=x,
            y="value",
            hue=hue,
            hue_order=hues,
            marker="o",
            errorbar=CI_BAND,
            seed=BOOT_SEED,
            ax=ax,
            legend=ax is grid[0][0],
        )
        ax.set_title(f"{panel_axis} = {panel}", fontsize=8)
        ax.set_xlabel(x)
    grid[0][0].set_ylabel(metric)
    count = seed_note(rows, [panel_axis, x, hue])
    fig.suptitle(
        textwrap.fill(artifact.get("caption", artifact["id"]), 120) + f"\n(mean over {count}, 95 % CI)", fontsize=9
    )
    fig.tight_layout()
    return save_figure(fig, Path(out))


def queue_pmf_frame(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """P(X = x) per panel level x hue level: the share of the bottleneck's pooled queue samples of length x."""
    panel_axis, hue = artifact["panels"], artifact["hue"]
    samples = data.run_table("queue", ["link", "size_packets"], artifact.get("where"))
    samples = samples[samples["link"] == BOTTLENECK]
    if "levels" in artifact:
        samples = samples[label_column(samples[panel_axis]).isin([label_text(level) for level in artifact["levels"]])]
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
    panel_labels = label_column(frame[panel_axis])
    panels = [
        level
        for level in artifact.get("levels", levels(frame, panel_axis))
        if (panel_labels == label_text(level)).any()
    ]
    hues = levels(frame, hue, data.levels.get(hue, ()))
    fig, grid = plt.subplots(1, len(panels), figsize=(3.4 * len(panels), 3), sharey=True, squeeze=False)
    for ax, panel in zip(grid[0], panels, strict=True):
        part = frame[panel_labels == label_text(panel)]
        for level in hues:
            line = part[part[hue] == level].sort_values("size_packets")
            ax.plot(line["size_packets"], line["probability"], marker=".", markersize=3, lw=0.8, label=str(level))
        seeds = ", ".join(sorted({str(s) for s in part["seeds"]}))
        ax.set_title(f"{panel_axis} = {panel} ({seeds} seeds)", fontsize=8)
        ax.set_xlabel("queue length (packets)")
    grid[0][0].set_ylabel("P(X = x)")
    grid[0][0].legend(fontsize=7)
    fig.suptitle(
        textwrap.fill(artifact.get("caption", artifact["id"]), 120) + "\n(every 0.01-s sample of every seed pooled)",
        fontsize=9,
    )
    fig.tight_layout()
    return save_figure(fig, Path(out))


TABLE_4_1_PACKET_BYTES = 1000  # C of Table 4.1: "1.5 x 10^6/(8 x 10^3) ... where 10^3 is a packet size in bytes"
DESIGN_FLOWS = 3  # N-: "we set N- to 3 flows since it is the smallest number of flows we consider" (§4.3)
DESIGN_SAMPLING_HZ = 170  # PI's f_s (configs/psand.yaml, queue PI)


def largest_run_params(data: ExperimentData) -> dict:
    """params.json of the experiment's run with the most flows (the one whose longest path sets T_p)."""
    directories = data.runs([])["directory"].unique()
    params = [json.loads((d / "params.json").read_text()) for d in directories]
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
    return {
        "T_p (ms)": t_p * 1e3,
        "B (packets)": buffer,
        "C (packets/s)": capacity,
        "R+ (ms)": (buffer / capacity + t_p) * 1e3,
    }


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
        "Hz (experiments/paper_models/aqm_design.py). 'unbounded': Theorem 1's condition holds for no alpha, every "
        "alpha is stable. "
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
        rows = rows[label_column(rows[column_axis]).isin([label_text(level) for level in artifact["levels"]])]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no values of {wanted} in {artifact['experiment']}")
    preferred = {**data.levels, column_axis: list(artifact.get("levels", data.levels.get(column_axis, ())))}
    return cell_stats(rows, [artifact["rows"], column_axis], wanted, preferred)


QUEUE_METHOD = (
    "Per run: the bottleneck queue sampled every 0.01 s over the whole run; loss = drops / arrivals at that queue "
    "(experiments/measure/)."
)
FEC_METHOD = (
    "Per run: the UDP flow's sequence numbers received by its Agent/LossMonitor sink, cut into blocks of k + h "
    "(k data, then h redundancy); PLRBC = lost / sent, PLR = the losses of blocks with more than h of them / sent "
    "(experiments/measure/fec_blocks.py), in %."
)


def comparison_table(data: ExperimentData, out: Path, artifact: dict, method: str = QUEUE_METHOD) -> list[Path]:
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
    seeds = seeds_text(int(frame["seeds"].min()), int(frame["seeds"].max()))
    lines = [
        f"**{artifact.get('caption', artifact['id'])}**",
        "",
        f"Experiment `{artifact['experiment']}`. Each cell: mean over {seeds} of the per-run value ± half-width "
        f"of its 95 % confidence interval (Student t over seeds). {method}",
        "",
        *markdown_table(headers, body, right=[False] + [True] * (len(headers) - 1)),
    ]
    return write_table(frame, lines, out)


# --- Chapter 1: drop functions ---------------------------------------------------------------------

ON_CURVE = 1e-5  # |sampled probability - formula(sampled average)|: queue_vars.tsv's printed digits allow for this
# ns-2 prints a TracedDouble (ave_, prob1_) with 6 significant digits: the true average lies within this relative
# distance of the sampled one, which matters at a jump (an average of 14.999996 reads 15 with a probability of 0.1)
READ_BACK = 5e-6
GRID = np.linspace(0, df.BUFFER, 1401)


@dataclass(frozen=True)
class Sampled:
    """A run's core queue as a drop function of the thesis: its parameters, the series of the sampled average
    and probability, a label, and [low, high): where ns-2 recomputes the probability at an arrival."""

    params: df.Red
    x: str
    y: str
    label: str
    low: float
    high: float


def queue_function(queue: dict, out: bool = False) -> Sampled:
    """A run's core queue ({class, knobs} of params.json) as a drop function. Queue/RED: thresh_, maxthresh_,
    1/linterm_, gentle_, with ave_ and prob1_. Queue/RED/RIO, In (priority_method_ 1, every packet In here):
    in_thresh_, in_maxthresh_, 1/in_linterm_, with in_ave_ and in_prob1_; its Out function (`out`): out_thresh_,
    out_maxthresh_ and 1/linterm_ (ns-2's Out probability takes the queue's linterm_), with ave_ and out_prob1_."""
    cls, knobs = queue["class"], queue["knobs"]
    gentle = bool(knobs.get("gentle_", False))
    if cls == "Queue/RED":
        params = df.Red(knobs["thresh_"], knobs["maxthresh_"], 1 / knobs["linterm_"], gentle)
        label = "gentle (Eq. 1.3)" if gentle else "strict (Eq. 1.2)"
        top = (2 if gentle else 1) * params.max_th
        high = math.inf if knobs.get("use_mark_p_", True) else top
        return Sampled(params, "qvar_ave", "qvar_prob1", label, params.min_th, high)
    if cls == "Queue/RED/RIO" and not out:
        if int(knobs.get("priority_method_", 0)) != 1:
            raise ValueError("RIO In: priority_method_ 1 (In by fid) is the only way runs here get In packets")
        params = df.Red(
            knobs["in_thresh_"],
            knobs["in_maxthresh_"],
            1 / knobs["in_linterm_"],
            gentle or bool(knobs.get("in_gentle_", False)),
        )
        return Sampled(
            params,
            "qvar_in_ave",
            "qvar_in_prob1",
            "In packets, of Avg_In",
            params.min_th,
            (2 if params.gentle else 1) * params.max_th,
        )
    if cls == "Queue/RED/RIO":
        params = df.Red(
            knobs["out_thresh_"],
            knobs["out_maxthresh_"],
            1 / knobs["linterm_"],
            gentle or bool(knobs.get("out_gentle_", False)),
        )
        return Sampled(
            params,
            "qvar_ave",
            "qvar_out_prob1",
            "Out packets, of Avg_total",
            params.min_th,
            (2 if params.gentle else 1) * params.max_th,
        )
    raise ValueError(f"{cls}: no drop function of the thesis for this queue class")


def run_queues(data: ExperimentData, axis: str) -> dict:
    """Level of `axis` -> the core queue of its (first) run's params.json."""
    runs = data.runs([axis])
    out = {}
    for level, directory in zip(runs[axis], runs["directory"], strict=True):
        if level not in out:
            out[level] = json.loads((directory / "params.json").read_text())["core_queue"]
    return out


def sampled_pairs(data: ExperimentData, axis: str, level, x: str, y: str) -> pd.DataFrame:
    """Columns t, x (the average), y (the probability) of the bottleneck's samples at one level (first seed)."""
    series = data.series[(data.series[axis] == level) & (data.series["scope"] == BOTTLENECK)]
    series = series[series["seed"] == series["seed"].min()]
    wide = series[series["metric"].isin([x, y])].pivot_table(index="t", columns="metric", values="value")
    if x not in wide.columns or y not in wide.columns:
        raise ValueError(f"{axis} = {level}: no {x}/{y} series of {BOTTLENECK} (monitors.queue_vars?)")
    return wide.rename(columns={x: "x", y: "y"}).reset_index()[["t", "x", "y"]]


def agreement(pairs: pd.DataFrame, fn: Sampled) -> pd.DataFrame:
    """The pairs with `inside` (the average where ns-2 recomputes the probability) and `error`: |y - formula|
    at the sampled average or either end of its read-back rounding (READ_BACK), whichever is least."""
    x, y = pairs["x"].to_numpy(), pairs["y"].to_numpy()
    errors = [abs(y - df.red(x * (1 + s * READ_BACK), fn.params)) for s in (0, -1, 1)]
    return pairs.assign(inside=(pairs["x"] >= fn.low) & (pairs["x"] < fn.high), error=np.minimum.reduce(errors))


def overlay_panel(ax, data: ExperimentData, axis: str, level, fn: Sampled, title: str) -> None:
    """The formula with fn's parameters and ns-2's sampled pairs of one level."""
    pairs = agreement(sampled_pairs(data, axis, level, fn.x, fn.y), fn)
    inside = pairs[pairs["inside"]]
    ax.plot(GRID, df.red(GRID, fn.params), color="black", lw=1.2, label="formula", zorder=1)
    ax.scatter(
        pairs.loc[~pairs["inside"], "x"],
        pairs.loc[~pairs["inside"], "y"],
        s=4,
        color="0.75",
        label="ns-2, not recomputed (older value)",
        zorder=2,
    )
    ax.scatter(inside["x"], inside["y"], s=5, color="tab:red", label="ns-2 (average, probability)", zorder=3)
    on = int((inside["error"] <= ON_CURVE).sum())
    worst = inside["error"].max() if len(inside) else float("nan")
    ax.set_title(title, fontsize=8)
    ax.text(
        0.02,
        0.97,
        f"{on} of {len(inside)} samples with average >= {fn.low:g}"
        + (f" and < {fn.high:g}" if math.isfinite(fn.high) else "")
        + f" on the curve\n(largest gap {worst:.1e})",
        transform=ax.transAxes,
        va="top",
        fontsize=7,
    )


def describe(fn: Sampled, head: str) -> str:
    p = fn.params
    return f"{head}: {fn.label}\nMin {p.min_th:g}, Max {p.max_th:g}, P_max {p.max_p:g}"


def panels_of(data: ExperimentData, artifact: dict) -> tuple[str, dict, list]:
    axis = artifact["panels"]
    queues = run_queues(data, axis)
    panels = [level for level in artifact.get("levels", levels(data.series, axis)) if level in queues]
    if not panels:
        raise ValueError(f"{artifact['id']}: no runs of {artifact.get('levels')} in {artifact['experiment']}")
    return axis, queues, panels


def finish(fig, grid, out: Path, artifact: dict) -> list[Path]:
    for ax in grid[0]:
        ax.set_xlabel("average queue size (packets)")
        ax.set_xlim(0, df.BUFFER)
    grid[0][0].set_ylabel("drop probability")
    grid[0][-1].legend(fontsize=6, loc="lower right")
    fig.suptitle(
        textwrap.fill(artifact.get("caption", artifact["id"]), 110) + "\n(curve: the formula; points: "
        "ns-2's average and probability sampled every 0.01 s, first seed)",
        fontsize=9,
    )
    fig.tight_layout()
    return save_figure(fig, Path(out))


def red_figure(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 1.1: one panel per level (RED strict, RED gentle), each the formula and ns-2's pairs."""
    axis, queues, panels = panels_of(data, artifact)
    fig, grid = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), sharey=True, squeeze=False)
    for ax, level, letter in zip(grid[0], panels, "abcdefgh", strict=False):
        fn = queue_function(queues[level])
        overlay_panel(ax, data, axis, level, fn, describe(fn, f"({letter}) {level}"))
    return finish(fig, grid, out, artifact)


def rio_figure(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 1.5: RIO's In function with ns-2's pairs (the first level of `levels`), and its Out function from
    the same queue's Out parameters, a curve only."""
    axis, queues, panels = panels_of(data, artifact)
    level = panels[0]
    fig, grid = plt.subplots(1, 2, figsize=(8.4, 3.6), sharey=True, squeeze=False)
    fn_in, fn_out = queue_function(queues[level]), queue_function(queues[level], out=True)
    overlay_panel(grid[0][0], data, axis, level, fn_in, describe(fn_in, f"(a) {level}"))
    ax = grid[0][1]
    ax.plot(GRID, df.red(GRID, fn_out.params), color="black", lw=1.2, label="formula")
    ax.plot(GRID, df.red(GRID, fn_in.params), color="black", lw=0.8, ls=":", label="In (for comparison)")
    ax.set_title(describe(fn_out, "(b) Out"), fontsize=8)
    note = (
        "formula only: ns-2.35 updates Avg_total only at In\narrivals, and every flow here is In (checked in\n"
        "tests/ns2/test_drop_probability.py)"
    )
    ax.text(0.02, 0.97, note, transform=ax.transAxes, va="top", fontsize=7)
    return finish(fig, grid, out, artifact)


def formula_figure(out: Path, artifact: dict, curves: list[tuple[str, np.ndarray]], xlabel: str, note: str):
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for label, values in curves:
        ax.plot(GRID, values, lw=1.3, label=label, drawstyle="steps-post" if "Eq. 1.6" in label else "default")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("drop probability")
    ax.set_xlim(0, df.BUFFER)
    ax.legend(fontsize=7)
    fig.suptitle(textwrap.fill(artifact.get("caption", artifact["id"]), 90) + f"\n({note})", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, Path(out))


def sred_figure(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 1.2: Eq. 1.6's levels and Eq. 1.7 for a few numbers of flows (parameters: drop_functions.SRED)."""
    p = df.SRED
    curves = [(f"p_SRED (Eq. 1.6), B {p.buffer:g}, p_max {p.p_max:g}", df.sred_levels(GRID, p))]
    curves += [(f"simple SRED (Eq. 1.7), N = {n}", df.sred(GRID, p, n)) for n in df.SRED_FLOWS]
    return formula_figure(
        out,
        artifact,
        curves,
        "instantaneous queue size K_cur (packets)",
        "formula only: ns-2.35 has no SRED; parameters are our choices",
    )


def dsred_figure(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 1.3: Eq. 1.12 for each gamma of drop_functions.DSRED."""
    curves = [
        (f"gamma {d.gamma:g} (K_l {d.k_l:g}, K_m {d.knee:g}, K_h {d.k_h:g})", df.dsred(GRID, d)) for d in df.DSRED
    ]
    return formula_figure(
        out,
        artifact,
        curves,
        "average queue size (packets)",
        "formula only: ns-2.35 has no DSRED; parameters are our choices",
    )


# --- Chapter 5: FEC over RED and Drop Tail ----------------------------------------------------------

FEC_CODE = re.compile(r"fec_plr_(\d+)_(\d+)_pct")
MODEL_H = range(1, 9)  # Fig. 5.12's curves
MODEL_X = np.linspace(0, 16, 801)


def fec_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Tables 5.1-5.2: comparison_table over the FEC metrics of the UDP flow."""
    return comparison_table(data, out, artifact, method=FEC_METHOD)


def codes_at(rows: pd.DataFrame, ratio: float) -> list[tuple[int, int]]:
    """The (k, h) of the fec_plr metrics present whose h/k is `ratio`, by k."""
    found = {tuple(map(int, m.groups())) for m in map(FEC_CODE.fullmatch, rows["metric"].unique()) if m}
    return sorted((k, h) for k, h in found if math.isclose(h / k, ratio))


def code_frame(rows: pd.DataFrame, ratio_axis: str, codes: Sequence[tuple[int, int]]) -> pd.DataFrame:
    """PLRBC and PLR of each code (k, h), read from the rows at its ratio h/k (the level of `ratio_axis`), with
    columns k, h and measure (PLRBC or PLR) added; empty when no code has values."""
    at_ratio = rows[ratio_axis].astype(float).to_numpy()
    parts = []
    for k, h in codes:
        cell = rows[np.isclose(at_ratio, h / k, rtol=1e-9, atol=0)]
        for name, label in ((f"fec_plrbc_{k}_{h}_pct", "PLRBC"), (f"fec_plr_{k}_{h}_pct", "PLR")):
            parts.append(cell[cell["metric"] == name].assign(k=k, h=h, measure=label))
    return pd.concat(parts, ignore_index=True) if parts else rows.iloc[0:0]


def _code_panel(ax, frame: pd.DataFrame, hue: str, title: str, legend: bool) -> None:
    sns.lineplot(
        data=frame,
        x="k",
        y="value",
        hue=hue,
        style="measure",
        style_order=["PLRBC", "PLR"],
        markers=True,
        errorbar=CI_BAND,
        seed=BOOT_SEED,
        ax=ax,
        legend=legend,
    )
    ax.set_title(title, fontsize=8)
    ax.set_ylabel("loss (%)")


def _code_figure(fig, artifact: dict, rows: pd.DataFrame, keys: list[str], out: Path) -> list[Path]:
    count = seed_note(rows[rows["metric"].str.startswith("fec_plr_")], keys)
    fig.suptitle(
        textwrap.fill(artifact.get("caption", artifact["id"]), 110) + f"\n(mean over {count}, 95 % CI)", fontsize=9
    )
    fig.tight_layout()
    return save_figure(fig, Path(out))


def fec_block_size(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 5.7: PLRBC and PLR against the block size at a fixed redundancy ratio h/k: one panel per level of
    `panels` (h/k) and of `rows` (the number of TCP flows), one colour per level of `hue` (the queue); every
    code the experiment's fec_blocks lists with that ratio is read from the same runs."""
    panel_axis, row_axis, hue = artifact["panels"], artifact["rows"], artifact["hue"]
    rows = select(data.metrics, artifact.get("where"))
    rows = rows[rows["scope"] == "all"]
    ratios = levels(rows, panel_axis, data.levels.get(panel_axis, ()))
    loads = levels(rows, row_axis, data.levels.get(row_axis, ()))
    fig, grid = plt.subplots(len(loads), len(ratios), figsize=(4 * len(ratios), 3.2 * len(loads)), squeeze=False)
    for (i, load), (j, ratio) in itertools.product(enumerate(loads), enumerate(ratios)):
        cell = rows[(rows[row_axis] == load) & (rows[panel_axis] == ratio)]
        frame = code_frame(cell, panel_axis, codes_at(cell, float(ratio)))
        if frame.empty:
            raise ValueError(f"{artifact['id']}: no fec_blocks code with h/k = {ratio} in {artifact['experiment']}")
        _code_panel(grid[i][j], frame, hue, f"h/k = {ratio}, {load} TCP flows", legend=(i, j) == (0, 0))
        grid[i][j].set_xlabel("k (data packets per block; h = k x h/k)")
    return _code_figure(fig, artifact, rows, [panel_axis, row_axis, hue], out)


def fec_fixed_h(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Figs. 5.8-5.9: PLRBC and PLR against k with h fixed, one panel per h of `fec_h`, one colour per level of `hue`
    (the queue); each code (k, h) is read from the runs at its own ratio h/k (axis h_over_k), so the UDP rate
    falls along each curve as Eq. 5.1 says."""
    hue, ratio_axis = artifact["hue"], "h_over_k"
    rows = select(data.metrics, artifact.get("where"))
    rows = rows[rows["scope"] == "all"]
    found = {tuple(map(int, m.groups())) for m in map(FEC_CODE.fullmatch, rows["metric"].unique()) if m}
    fig, grid = plt.subplots(1, len(artifact["fec_h"]), figsize=(4 * len(artifact["fec_h"]), 3.4), squeeze=False)
    for j, h in enumerate(artifact["fec_h"]):
        frame = code_frame(rows, ratio_axis, sorted(code for code in found if code[1] == h))
        if frame.empty:
            raise ValueError(f"{artifact['id']}: no fec_blocks code with h = {h} measured in {artifact['experiment']}")
        _code_panel(grid[0][j], frame, hue, f"h = {h}", legend=j == 0)
        grid[0][j].set_xlabel("k (data packets per block)")
    return _code_figure(fig, artifact, rows, [ratio_axis, hue], out)


SKETCH_BLOCKS = 12  # loss blocks Fig. 5.11's sketch shows


def loss_blocks(data: ExperimentData, artifact: dict) -> tuple[pd.DataFrame, int]:
    """The FEC flow's first SKETCH_BLOCKS blocks of consecutive losses (sink_gaps: first lost sequence number,
    count) in the first seed's run of the cell `where` names, and that seed; raises if `where` leaves more than
    one cell."""
    gaps = data.run_table("sink_gaps", ["first", "count"], artifact.get("where"))
    gaps = gaps[gaps["seed"] == gaps["seed"].min()] if not gaps.empty else gaps
    free = [axis for axis in data.axes if axis in gaps and gaps[axis].nunique() > 1]
    if free:
        raise ValueError(f"{artifact['id']}: `where` must name one cell; {', '.join(free)} left free")
    if gaps.empty:
        raise ValueError(f"{artifact['id']}: no loss in the run `where` names (sink_gaps is empty)")
    blocks = gaps.sort_values("first").head(SKETCH_BLOCKS)[["first", "count"]].reset_index(drop=True)
    return blocks, int(gaps["seed"].iloc[0])


def loss_process_sketch(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 5.11 from one run: above, each lost packet of the FEC flow at its sequence number (the discrete loss
    process); below, each block of consecutive losses as one batch arrival of its size at the block's first
    sequence number (the continuous approximation of §5.5: the gaps within a block are ignored)."""
    blocks, seed = loss_blocks(data, artifact)
    lost = np.concatenate([np.arange(f, f + c) for f, c in zip(blocks["first"], blocks["count"], strict=True)])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 3.6), sharex=True)
    top.vlines(lost, 0, 1, lw=0.8)
    top.set_yticks([])
    top.set_title("discrete: each lost packet m_i", fontsize=8)
    bottom.vlines(blocks["first"], 0, blocks["count"], lw=1.6)
    bottom.plot(blocks["first"], blocks["count"], "o", ms=3)
    bottom.set_ylim(0, blocks["count"].max() + 1)
    bottom.set_ylabel("batch size A_m")
    bottom.set_xlabel("sequence number of the FEC flow")
    bottom.set_title("continuous: each block of losses one arrival of its size", fontsize=8)
    caption = textwrap.fill(artifact.get("caption", artifact["id"]), 110)
    fig.suptitle(
        f"{caption}\n({where_text(artifact)}, seed {seed}; the first {len(blocks)} blocks of losses)", fontsize=9
    )
    fig.tight_layout()
    return save_figure(fig, Path(out))


def fec_model_figure(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Fig. 5.12: Delta_h(x) of §5.5 for h = 1..8, beta 0.9 (RED) and 0.6 (DT), each threshold x_h marked; drawn
    from experiments/paper_models/fec_model.py, no runs."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for h in MODEL_H:
        line = ax.plot(MODEL_X, fec_model.delta(h, MODEL_X), lw=1.2, label=f"h = {h}")[0]
        x_h = fec_model.threshold(h).x_h
        ax.plot([x_h], [0], marker="o", ms=3.5, color=line.get_color())
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlabel("x = pT (mean losses per block of T = k + h packets)")
    ax.set_ylabel("Delta_h(x) = P(N(1) <= h) - P(N(2) <= h)")
    ax.legend(fontsize=7, ncol=2)
    offsets = ", ".join(f"{fec_model.threshold(h).offset:.3f}" for h in (4, 8, 16))
    note = (
        f"model only, beta(1) = {fec_model.RED_BETA}, beta(2) = {fec_model.DT_BETA}; dots: x_h; "
        f"x_h - h at h = 4, 8, 16: {offsets}"
    )
    fig.suptitle(textwrap.fill(artifact.get("caption", artifact["id"]), 90) + f"\n({note})", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, Path(out))


def first_crossing(x: Sequence[float], y: Sequence[float]) -> float:
    """The x where y first turns from below 0 to at or above 0, linearly interpolated; nan if it never does,
    -inf if y is already at or above 0 at the first x."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if not len(y) or np.isnan(y).all():
        return math.nan
    if y[0] >= 0:
        return -math.inf
    above = np.flatnonzero(y >= 0)
    if not len(above):
        return math.nan
    i = above[0]
    return float(x[i - 1] + (x[i] - x[i - 1]) * (0 - y[i - 1]) / (y[i] - y[i - 1]))


def crossing_text(value: float, first: float, last: float) -> str:
    if math.isnan(value):
        return f"none up to {last:g}"
    if value == -math.inf:
        return f"at or below {first:g}"
    return f"{value:.0f}"


def fec_crossover_frame(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """Per code of `metrics` ([fec_plr_<k>_<h>_pct, label, decimals]), at the level of `panels` (h/k) with its
    ratio, along `x` (the number of TCP flows): where RED/FEC stops beating DT/FEC (`hue` levels RED and
    DropTail), simulated and as §5.5's model puts it."""
    x_axis, ratio_axis, hue = artifact["x"], artifact["panels"], artifact["hue"]
    rows = select(data.metrics, artifact.get("where"))
    rows = rows[rows["scope"] == "all"]
    means = rows.groupby([ratio_axis, x_axis, hue, "metric"], observed=True)["value"].mean()
    out = []
    for metric, _, _ in artifact["metrics"]:
        k, h = map(int, FEC_CODE.fullmatch(metric).groups())
        ratio = next((r for r in levels(rows, ratio_axis) if math.isclose(float(r), h / k)), None)
        if ratio is None:
            raise ValueError(f"{artifact['id']}: {metric}: no level of {ratio_axis} is h/k = {h / k:g}")
        at = means.xs(ratio, level=ratio_axis)
        loads = sorted(at.index.get_level_values(x_axis).unique(), key=float)

        def series(queue: str, name: str, at=at, loads=loads) -> np.ndarray:
            return np.array([at.get((n, queue, name), math.nan) for n in loads])

        plr = {q: series(q, metric) for q in ("RED", "DropTail")}
        plrbc = {q: series(q, f"fec_plrbc_{k}_{h}_pct") / 100 for q in ("RED", "DropTail")}
        x_h = fec_model.threshold(h).x_h
        # the thesis's rule, RED/FEC better iff p (k + h) <= x_h, at p the mean of both queues' PLRBC
        rule = (plrbc["RED"] + plrbc["DropTail"]) / 2 * (k + h) - x_h
        # the model with each queue's own measured loss rate and loss-run law
        repaired = {}
        for q in ("RED", "DropTail"):
            laws = [
                fec_model.BatchLaw.from_run_lengths(
                    {length: at.get((n, q, f"sink_loss_run_{length}_pct"), 0.0) for length in range(1, 11)}
                )
                for n in loads
            ]
            repaired[q] = np.array(
                [fec_model.repair_probability(h, p * (k + h), law) for p, law in zip(plrbc[q], laws, strict=True)]
            )
        n = [float(v) for v in loads]
        out.append(
            {
                "k": k,
                "h": h,
                "h_over_k": ratio,
                "simulated": first_crossing(n, plr["RED"] - plr["DropTail"]),
                "model_rule": first_crossing(n, rule),
                "model_measured": first_crossing(n, repaired["DropTail"] - repaired["RED"]),
                "x_h": x_h,
                "first": n[0],
                "last": n[-1],
            }
        )
    return pd.DataFrame(out)


def fec_crossover_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """The number of TCP flows at which RED/FEC stops beating DT/FEC, per code: from the runs (the mean PLR of
    RED crosses DT's), from §5.5's rule p (k + h) <= x_h with the runs' mean PLRBC and the model's x_h (beta 0.9
    and 0.6), and from the model fed each queue's own measured PLRBC and loss-run distribution."""
    frame = fec_crossover_frame(data, artifact)
    body = [
        [f"{r.k}", f"{r.h}", f"{r.x_h:.3f}"]
        + [crossing_text(getattr(r, c), r.first, r.last) for c in ("simulated", "model_rule", "model_measured")]
        for r in frame.itertuples()
    ]
    headers = ["k", "h", "x_h (model)", "simulated", "model: p (k + h) = x_h", "model: measured p and runs"]
    lines = [
        f"**{artifact.get('caption', artifact['id'])}**",
        "",
        f"Experiment `{artifact['experiment']}`: the number of TCP flows where the mean over seeds of RED's PLR "
        "first reaches Drop Tail's (linear between the swept counts); the model's columns put the same runs' mean "
        "PLRBC into §5.5 (experiments/paper_models/fec_model.py): x_h is where Delta_h changes sign for beta 0.9 (RED) "
        "and 0.6 "
        "(DT); the last column compares each queue's repair probability P(N_T <= h) at its own x = PLRBC (k + h) "
        "and its own measured loss-run distribution as the batch law.",
        "",
        *markdown_table(headers, body, right=[True] * len(headers)),
    ]
    return write_table(frame, lines, out)
