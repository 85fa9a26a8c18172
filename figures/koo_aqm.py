"""Figures and tables of Koo, Ahn, Chung (2004), configs/koo_aqm.yaml.

The paper shows one run per scheme; we have several seeds per cell, so every line is the
mean over seeds and its band the 95 % bootstrap confidence interval of that mean
(seaborn's errorbar=("ci", 95), fixed bootstrap seed), and table cells are the mean over
seeds of a per-run metric with the half-width of its 95 % Student-t interval (the interval
the claims use). Both readings of the traffic (axis `variant`) are always shown.

Nothing here contains a published value: the comparison with the paper is the report's.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from figures.common import (
    BOOT_SEED,
    CI_BAND,
    ExperimentData,
    cell_stats,
    cell_stats_markdown,
    levels,
    math_safe,
    save_figure,
    seed_note,
    select,
    where_text,
    write_table,
)

QUEUE_ORDER = ("DropTail", "RED", "PI")  # the experiment file's level order
VARIANT_ORDER = ("as_text", "as_script")
_COLORS = sns.color_palette("colorblind")
QUEUE_COLORS = {"DropTail": _COLORS[0], "RED": _COLORS[3], "PI": _COLORS[2]}
FLOW_COLORS = [_COLORS[i] for i in (0, 2, 4, 3, 1, 5, 6, 7, 8, 9)]  # flow 4 (UDP) vermillion

BOTTLENECK = "core0"  # the first core link, where every flow enters the core

# Fig. 7's four panels: (series metric, axis label, factor applied to the values). Loss,
# delay and queue are the paper's own per-node measures (§2.3, Eqs. 4-7; experiments/measure/curves.py).
FIG7_PANELS = (
    ("utilization_pct", "Link utilization (%)", 1.0),
    ("node_loss_pct_avg", "Loss rate P(t), Eq. 7 (%)", 1.0),
    ("node_delay_ms_avg", "Avg. delay $D^{avg}$, Eq. 6 (ms)", 1.0),
    ("node_queue_bytes_avg", "Avg. queue Q(t), Eq. 4 (kB)", 1e-3),  # 1 kB = 1000 B
)


def flow_kinds(params: dict) -> dict[str, str]:
    """scope -> what the flow is, e.g. flow4 -> 'pareto over UDP', from params.json."""
    return {
        f"flow{f['fid']}": f"{f['kind']} over {f['agent']['class'].removeprefix('Agent/')}" for f in params["flows"]
    }


# Table 2's columns: (per-run metric, scope `all`; header; decimals in the markdown).
TABLE2_COLUMNS = (
    ("e2e_loss_pct_mean", "Mean loss rate (%)", 3),
    ("e2e_delay_ms_mean", "Mean delay (ms)", 2),
    ("e2e_loss_pct_std", "Std. dev. of loss rate (%)", 3),
    ("e2e_delay_ms_std", "Std. dev. of delay (ms)", 2),
)


def _band_note(rows: pd.DataFrame, by: list[str]) -> str:
    seeds = seed_note(rows, by)
    if rows.groupby(by)["seed"].nunique().max() < 2:
        return f"line: {seeds}, so no confidence band"
    return f"line: mean over {seeds}; band: 95 % bootstrap CI of that mean"


# --------------------------------------------------------------------------- Fig. 7


def fig7_rows(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """The bottleneck's per-second series that Fig. 7 draws, in display units."""
    rows = select(data.series, artifact.get("where"))
    rows = rows[(rows["scope"] == BOTTLENECK) & rows["metric"].isin([p[0] for p in FIG7_PANELS])]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no series of link {BOTTLENECK} in {artifact['experiment']}")
    factor = rows["metric"].map({metric: f for metric, _, f in FIG7_PANELS})
    return rows.assign(value=rows["value"] * factor)


def fig7(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Utilization, drop rate, queueing delay and queue length of the bottleneck over time:
    one row of panels per metric, one column per variant, one colour per queue discipline."""
    rows = fig7_rows(data, artifact)
    queues = levels(rows, "queue", data.levels.get("queue", QUEUE_ORDER))
    variants = levels(rows, "variant", data.levels.get("variant", VARIANT_ORDER))
    palette = _palette(queues)
    fig, axes = plt.subplots(
        len(FIG7_PANELS),
        len(variants),
        figsize=(4.4 * len(variants) + 1.0, 10.5),
        sharex=True,
        sharey="row",
        squeeze=False,
        layout="constrained",
    )
    for (r, (metric, label, _)), (c, variant) in itertools.product(enumerate(FIG7_PANELS), enumerate(variants)):
        ax = axes[r][c]
        panel = rows[(rows["metric"] == metric) & (rows["variant"] == variant)]
        if panel.empty:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
        else:
            sns.lineplot(
                data=panel,
                x="t",
                y="value",
                hue="queue",
                hue_order=queues,
                palette=palette,
                errorbar=CI_BAND,
                seed=BOOT_SEED,
                linewidth=1.1,
                legend=False,
                ax=ax,
            )
        ax.set_ylabel(label if c == 0 else "", parse_math=True)  # FIG7_PANELS: the paper's symbols
        ax.set_xlabel("time (s)" if r == len(FIG7_PANELS) - 1 else "")
        if r == 0:
            ax.set_title(f"variant: {variant}", fontsize=10)
    # After every panel of a shared row is drawn, so that the top fits them all. Utilization
    # keeps matplotlib's range: from 0, differences of a few percent near 100 % would vanish.
    for (metric, _, _), row in zip(FIG7_PANELS, axes, strict=True):
        if metric != "utilization_pct":
            row[0].set_ylim(bottom=0)
    handles = [Line2D([], [], color=palette[q], lw=2, label=q) for q in queues]
    handles.append(Patch(facecolor="0.6", alpha=0.35, label="95 % CI over seeds"))
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), frameon=False)
    where = where_text(artifact)
    fig.suptitle(
        f"{artifact.get('caption', artifact['id'])}\n"
        f"link {BOTTLENECK} ({artifact['experiment']}{', ' + where if where else ''}), per 1-s interval; "
        f"{_band_note(rows, ['queue', 'variant'])}",
        fontsize=9,
    )
    return save_figure(fig, out)


# --------------------------------------------------------------------------- Fig. 8


def _flow_number(scope: str) -> int:
    return int(re.sub(r"\D", "", scope) or 0)


def _flow_label(scope: str, kinds: dict[str, str]) -> str:
    kind = kinds.get(scope)
    return f"flow {_flow_number(scope)}" + (f" ({kind})" if kind else "")


def fig8_rows(data: ExperimentData, artifact: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-flow delay series, §5.2's bound per 1-s interval) of the runs `where` selects. The bound is the
    series e2e_delay_bound_ms (experiments/measure/: n x D_avg + propagation of each flow's path), the
    same numbers the claim on it reads."""
    series = select(data.series, artifact.get("where"))
    flows = series[series["scope"].str.match(r"flow\d+$")]
    rows = flows[flows["metric"] == "e2e_delay_ms_mean"]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no per-flow e2e_delay_ms_mean series in {artifact['experiment']}")
    bounds = flows[flows["metric"] == "e2e_delay_bound_ms"]
    return rows, bounds


def fig8(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Per-flow end-to-end delay over time, one column per variant (one row per queue
    discipline left after `where`), with §5.2's bound as a dashed line."""
    rows, bounds = fig8_rows(data, artifact)
    kinds = flow_kinds(data.params)
    queues = levels(rows, "queue", data.levels.get("queue", QUEUE_ORDER))
    variants = levels(rows, "variant", data.levels.get("variant", VARIANT_ORDER))
    flows = sorted(rows["scope"].unique(), key=_flow_number)
    palette = dict(zip(flows, itertools.cycle(FLOW_COLORS), strict=False))
    fig, axes = plt.subplots(
        len(queues),
        len(variants),
        figsize=(4.6 * len(variants) + 1.0, 3.4 * len(queues) + 1.5),
        sharex=True,
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    for (r, queue), (c, variant) in itertools.product(enumerate(queues), enumerate(variants)):
        ax = axes[r][c]
        panel = rows[(rows["queue"] == queue) & (rows["variant"] == variant)]
        if not panel.empty:
            sns.lineplot(
                data=panel,
                x="t",
                y="value",
                hue="scope",
                hue_order=flows,
                palette=palette,
                errorbar=CI_BAND,
                seed=BOOT_SEED,
                linewidth=1.0,
                legend=False,
                ax=ax,
            )
        bound = bounds[(bounds["queue"] == queue) & (bounds["variant"] == variant)]
        if not bound.empty:
            # every flow of these runs crosses the same path, so one line: the mean over flows and seeds
            line = bound.groupby("t")["value"].mean()
            ax.plot(line.index, line.to_numpy(), color="0.2", ls="--", lw=1.2, zorder=5)
        ax.set_title(f"queue: {queue}, variant: {variant}", fontsize=10)
        ax.set_ylabel("end-to-end delay (ms)" if c == 0 else "")
        ax.set_xlabel("time (s)" if r == len(queues) - 1 else "")
    axes[0][0].set_ylim(bottom=0)
    handles = [Line2D([], [], color=palette[f], lw=2, label=_flow_label(f, kinds)) for f in flows]
    handles.append(Line2D([], [], color="0.2", ls="--", lw=1.2, label="bound (§5.2)"))
    handles.append(Patch(facecolor="0.6", alpha=0.35, label="95 % CI over seeds"))
    fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 4), frameon=False, fontsize=8)
    where = where_text(artifact)
    fig.suptitle(
        "\n".join(
            [
                math_safe(artifact.get("caption", artifact["id"])),
                math_safe(
                    f"{artifact['experiment']}{', ' + where if where else ''}: mean delay of the packets entering in "
                    f"each 1-s interval; {_band_note(rows, ['queue', 'variant', 'scope'])}"
                ),
                "dashed: n x $D^{avg}$ + propagation per 1-s interval (n core routers crossed; $D^{avg}$, Eq. 6 with "
                "tau = 1 s, the largest of the path's core links), mean over seeds",
            ]
        ),
        fontsize=9,
        parse_math=True,  # the paper's D^avg
    )
    return save_figure(fig, out)


# --------------------------------------------------------------------------- Table 2


def table2_frame(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """One row per cell (queue x variant, after `where`): number of seeds, and per metric of
    TABLE2_COLUMNS the mean over seeds of the per-run value (scope `all`) and the half-width
    of its 95 % confidence interval (column `<metric>_ci95`)."""
    metrics = select(data.metrics, artifact.get("where"))
    wanted = [m for m, _, _ in TABLE2_COLUMNS]
    rows = metrics[(metrics["scope"] == "all") & metrics["metric"].isin(wanted)]
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no end-to-end metrics (scope all) in {artifact['experiment']}")
    axes = [a for a in data.axes if a in rows.columns]
    return cell_stats(rows, axes, wanted, {"queue": QUEUE_ORDER, "variant": VARIANT_ORDER, **data.levels})


def table2(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """<out>.csv (numbers: mean and CI half-width in separate columns) and <out>.md."""
    frame = table2_frame(data, artifact)
    axes = [a for a in data.axes if a in frame.columns]
    where = where_text(artifact)
    lines = [
        f"**{artifact.get('caption', artifact['id'])}**",
        "",
        f"Experiment `{artifact['experiment']}`{' (' + where + ')' if where else ''}. Each cell: mean over seeds of "
        "the per-run value ± half-width of its 95 % confidence interval (Student t over seeds; n/a with one seed). "
        "Per run, delay is taken over every delivered data packet of all flows and loss rate over the 1-s "
        "intervals of packet entry (experiments/measure/).",
        "",
        *cell_stats_markdown(frame, axes, TABLE2_COLUMNS),
    ]
    return write_table(frame, lines, out)


# --------------------------------------------------------------------------- load

# The load each core link sees (issue: does any queue reach the thresholds the schemes act at?):
# (per-run metric of a core link, header, decimals); queue_above_<b>B_pct for the experiment's queue_thresholds.
LOAD_COLUMNS = (
    ("node_queue_bytes_avg", "Mean Q(t) (B)", 0),
    ("node_delay_ms_avg", "Mean D(t) (ms)", 2),
    ("node_loss_pct_avg", "P(t) over busy time (%)", 3),
    ("drop_pct", "Drops / arrivals (%)", 3),
    ("utilization_pct", "Utilization (%)", 1),
)


_ABOVE = re.compile(r"queue_above_(\d+)B_pct")


def load_frame(data: ExperimentData, artifact: dict) -> tuple[pd.DataFrame, list[tuple[str, str, int]]]:
    """(cell_stats per queue x variant x core link, its columns): how loaded each core link is."""
    metrics = select(data.metrics, artifact.get("where"))
    links = metrics[metrics["scope"].str.match(r"core\d+$")]
    above = {int(m.group(1)): m.group(0) for m in map(_ABOVE.fullmatch, links["metric"].unique()) if m}
    thresholds = [(above[b], f"Time Q > {b:,} B (%)", 1) for b in sorted(above)]
    columns = [*LOAD_COLUMNS[:2], *thresholds, *LOAD_COLUMNS[2:]]
    rows = links[links["metric"].isin([m for m, _, _ in columns])].rename(columns={"scope": "link"})
    if rows.empty:
        raise ValueError(f"{artifact['id']}: no core-link metrics in {artifact['experiment']}")
    axes = [*(a for a in data.axes if a in rows.columns), "link"]
    preferred = {"queue": QUEUE_ORDER, "variant": VARIANT_ORDER, **data.levels}
    return cell_stats(rows, axes, [m for m, _, _ in columns], preferred), columns


def load(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """<out>.csv and <out>.md: per queue, variant and core link, the queue, delay and loss the link sees."""
    frame, columns = load_frame(data, artifact)
    axes = [c for c in (*data.axes, "link") if c in frame.columns]
    where = where_text(artifact)
    lines = [
        f"**{artifact.get('caption', artifact['id'])}**",
        "",
        f"Experiment `{artifact['experiment']}`{' (' + where + ')' if where else ''}. Each cell: mean over seeds of "
        "the per-run value ± half-width of its 95 % confidence interval. Q(t), D(t) and P(t) are Koo et al.'s "
        "Eqs. 4-7 computed exactly from the per-hop trace (experiments/measure/curves.py); drops / arrivals and "
        "utilization come from ns-2's queue monitor.",
        "",
        *cell_stats_markdown(frame, axes, columns),
    ]
    return write_table(frame, lines, out)


def _palette(queues: list) -> dict:
    extra = iter(c for c in _COLORS if c not in QUEUE_COLORS.values())
    return {q: QUEUE_COLORS[q] if q in QUEUE_COLORS else next(extra) for q in queues}
