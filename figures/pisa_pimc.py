"""Figures and tables of the PISA/PIMC thesis, configs/pisa_pimc.yaml.

Time series (`drops_over_time`, `queue_over_time`, `utilization_over_time`): per-second
values at the bottleneck from the core_log monitors; drops and utilization are the mean
over seeds at each second, the queue is the lowest seed's own trace (averaging traces
would smooth away what the figure shows). Distributions (`distribution`): the values of
every run of a level pooled (objects' delays, the cwnd hint or queue length of each
dropped packet, the delay of each packet of a flow), as a CDF or a CCDF on log axes.
Tables: the per-run metrics as mean ± 95 % confidence half-width over seeds.

Nothing here contains a published value: the comparison with the thesis is the report's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from experiments.config.axes import label_column, label_text
from figures.common import (
    ExperimentData,
    cell_stats,
    cell_stats_markdown,
    ci95,
    levels,
    markdown_table,
    mean_pm,
    save_figure,
    scope_label,
    seed_note,
    select,
    where_text,
    write_table,
)

GROUP_NAMES = {"ftp": "FTP", "http": "HTTP", "all": "all flows"}
# Tables 5.1, 5.2, 5.6, 5.8: (metric, scope, header, digits).
CLASS_COLUMNS = (
    ("core_cwnd_hint_mean", "group:ftp", "FTP cwnd", 2),
    ("core_cwnd_hint_mean", "group:http", "HTTP cwnd", 2),
    ("core_drops_per_s", "group:ftp", "FTP dropped (pkt/s)", 3),
    ("core_drops_per_s", "group:http", "HTTP dropped (pkt/s)", 3),
    ("core_drops_per_s", "all", "All dropped (pkt/s)", 3),
    ("core_drop_ratio_pct", "group:ftp", "FTP drop ratio (%)", 2),
    ("core_drop_ratio_pct", "group:http", "HTTP drop ratio (%)", 2),
    ("bottleneck_queue_pkts_mean", "all", "Avg queue (pkts)", 2),
)
UTILIZATION_COLUMNS = (
    ("core_utilization", "group:ftp", "FTP flows", 3),
    ("core_utilization", "group:http", "HTTP flows", 3),
    ("core_utilization", "all", "Total", 3),
)
MINCWND_COLUMNS = (
    ("core_drops_per_s", "all", "Drop rate (pkt/s)", 3),
    ("object_delay_client_s_median", "all", "Median object delay (s)", 3),
)
# distribution column -> the objects column where the object's delay ends (DESIGN.md section 5.3)
OBJECT_DELAY_ENDS = {"object_delay": "end", "object_delay_client": "delivered"}
# Table 4.1's rows, in its order: (start, end) seconds.
VARIANCE_WINDOWS = (
    (0, 100),
    (100, 200),
    (200, 300),
    (300, 400),
    (400, 500),
    (0, 500),
    (500, 1000),
    (1000, 1500),
    (1500, 2000),
    (0, 1000),
    (1000, 2000),
)


def _hue(data: ExperimentData, artifact: dict, rows: pd.DataFrame) -> tuple[str, list]:
    """The axis drawn as colours (artifact `hue`, default queue) and its levels: the artifact's
    `levels` (in that order), else every level present in file order."""
    axis = artifact.get("hue", "queue")
    if axis not in data.axes:
        raise ValueError(f"{artifact['id']}: '{axis}' is not an axis of {artifact['experiment']}: {data.axes}")
    present = set(label_column(rows[axis]).dropna())
    wanted = [label_text(x) for x in artifact.get("levels") or levels(rows, axis, data.levels.get(axis, ()))]
    missing = [x for x in wanted if x not in present]
    if missing:
        raise ValueError(f"{artifact['id']}: no runs with {axis} = {missing}; levels: {sorted(present)}")
    return axis, wanted


def _labelled(rows: pd.DataFrame, axis: str, wanted: list[str]) -> pd.DataFrame:
    """The rows at the `wanted` labels (_hue's), their axis column replaced by its label text (seaborn's hue)."""
    texts = label_column(rows[axis])
    return rows.assign(**{axis: texts})[texts.isin(wanted)]


def _scopes(artifact: dict) -> list[str]:
    """The flow groups drawn: the artifact's scope, else FTP and HTTP side by side."""
    return [artifact["scope"]] if "scope" in artifact else ["ftp", "http"]


def _title(artifact: dict, rows: pd.DataFrame, how: str) -> str:
    where = where_text(artifact)
    return f"{artifact.get('caption', artifact['id'])}\n({how}; {seed_note(rows, [])}{'; ' + where if where else ''})"


def _series_panels(data, out, artifact, metric, scopes, ylabel):
    """One panel per scope: `metric` per second, one line per hue level, mean over seeds."""
    rows = select(data.series, artifact.get("where", {}))
    rows = rows[rows["metric"] == metric]
    axis, wanted = _hue(data, artifact, rows)
    rows = _labelled(rows, axis, wanted)
    fig, panels = plt.subplots(1, len(scopes), figsize=(6 * len(scopes), 3.8), squeeze=False, sharey=True)
    for ax, scope in zip(panels[0], scopes, strict=True):
        part = rows[rows["scope"] == scope_label(scope)]
        if part.empty:
            raise ValueError(f"{artifact['id']}: no {metric} series for {scope}")
        mean = part.groupby([axis, "t"], as_index=False)["value"].mean()
        sns.lineplot(data=mean, x="t", y="value", hue=axis, hue_order=wanted, linewidth=0.7, ax=ax)
        ax.set_xlabel("Time (s)")
        ax.set_ylabel(ylabel)
        ax.set_title(GROUP_NAMES.get(scope, scope), fontsize=9)
    fig.suptitle(_title(artifact, rows, "per second, mean over seeds"), fontsize=9)
    fig.tight_layout()
    return save_figure(fig, out)


def drops_over_time(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Packets dropped per second at the bottleneck, per flow class (Figs. 4.3, 5.1-5.5, 5.24-5.27, 5.32-5.35)."""
    return _series_panels(data, out, artifact, "core_drops_per_s", _scopes(artifact), "Packets dropped per second")


def utilization_over_time(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """The bottleneck's utilization per second by FTP, HTTP and all flows, one queue (Figs. 5.20-5.23)."""
    rows = select(data.series, artifact.get("where", {}))
    rows = rows[rows["metric"] == "core_utilization"]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for scope in ("all", "ftp", "http"):
        part = rows[rows["scope"] == scope_label(scope)]
        mean = part.groupby("t", as_index=False)["value"].mean()
        ax.plot(mean["t"], mean["value"], linewidth=0.7, label=GROUP_NAMES[scope])
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("Utilization of the bottleneck")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    ax.set_title(_title(artifact, rows, "per second, mean over seeds"), fontsize=9)
    fig.tight_layout()
    return save_figure(fig, out)


def queue_over_time(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """The bottleneck queue (packets, 0.1-s samples) of the lowest seed of each level (Figs. 4.4, 5.13)."""
    rows = select(data.series, artifact.get("where", {}))
    rows = rows[(rows["metric"] == "queue_pkts") & (rows["scope"] == "core0")]
    axis, wanted = _hue(data, artifact, rows)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    texts = label_column(rows[axis])
    for level in wanted:
        part = rows[texts == level]
        first = part[part["seed"] == part["seed"].min()].sort_values("t")
        ax.plot(first["t"], first["value"], linewidth=0.5, label=f"{level} (seed {part['seed'].min()})")
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("Queue length (packets)")
    ax.legend(fontsize=8)
    ax.set_title(_title(artifact, rows, "one run per level"), fontsize=9)
    fig.tight_layout()
    return save_figure(fig, out)


def distribution_values(data: ExperimentData, artifact: dict) -> pd.DataFrame:
    """The pooled values of a distribution figure: column `value`, the axes and seed, selected by
    `where` and the artifact's scope (flow group). Of completed objects, object_delay is end - start
    (the server's last ACK) and object_delay_client delivered - start (the client has the object);
    a hint counts only when > 0 (a TCP sender's cwnd; ACKs and UDP carry none)."""
    table, column = artifact["table"], artifact["column"]
    source = OBJECT_DELAY_ENDS.get(column, column)
    read = dict.fromkeys(["fid", source, *(["start", "end"] if column in OBJECT_DELAY_ENDS else [])])
    rows = data.run_table(table, list(read), artifact.get("where"))
    if column in OBJECT_DELAY_ENDS:
        rows = rows[rows["end"].notna()].assign(value=lambda f: f[source] - f["start"])
    else:
        rows = rows.assign(value=rows[column].astype(float))
    if column == "hint":
        rows = rows[rows["value"] > 0]
    if "scope" in artifact:
        rows = rows[rows["group"] == artifact["scope"]]
    return rows


def distribution(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """CDF (or CCDF on log axes) of a per-event value pooled over each level's runs, one line per level
    (Figs. 3.5, 5.10-5.12, 5.14-5.19, 5.28-5.31, 5.36-5.39)."""
    rows = distribution_values(data, artifact)
    axis, wanted = _hue(data, artifact, select(data.metrics, artifact.get("where", {})))
    rows = _labelled(rows, axis, wanted)
    present = [level for level in wanted if (rows[axis] == level).any()]
    complementary = artifact.get("complementary", False)
    fig, ax = plt.subplots(figsize=(6, 4))
    if complementary:
        rows = rows[rows["value"] > 0]  # log axes
    sns.ecdfplot(data=rows, x="value", hue=axis, hue_order=present, complementary=complementary, ax=ax)
    if complementary:
        ax.set_xscale("log")
        ax.set_yscale("log")
    counts = rows.groupby(axis)["value"].size()
    absent = [level for level in wanted if level not in present]
    note = "; ".join(f"{lvl}: {counts[lvl]}" for lvl in present) + (f"; none for {', '.join(absent)}" if absent else "")
    ax.set_xlabel(
        f"{artifact['column']} ({artifact['table']}{', ' + artifact['scope'] if 'scope' in artifact else ''})"
    )
    ax.set_ylabel("1 - CDF" if complementary else "CDF")
    ax.set_title(_title(artifact, rows, f"values pooled over seeds: {note}"), fontsize=8)
    fig.tight_layout()
    return save_figure(fig, out)


def _scoped(metrics: pd.DataFrame, columns: Sequence[tuple]) -> tuple[pd.DataFrame, list[tuple[str, str, int]]]:
    """The metrics rows of (metric, scope) pairs, renamed `metric@scope`, and cell_stats_markdown's columns."""
    parts, out_columns = [], []
    for metric, scope, header, digits in columns:
        key = f"{metric}@{scope}"
        part = metrics[(metrics["metric"] == metric) & (metrics["scope"] == scope)]
        parts.append(part.assign(metric=key))
        out_columns.append((key, header, digits))
    return pd.concat(parts, ignore_index=True), out_columns


def _in_order(rows: pd.DataFrame, axis: str, wanted: list[str]) -> dict:
    """cell_stats' `preferred` for the artifact's levels, in its order (labels are text; the axis' values may not)."""
    present = list(dict.fromkeys(rows[axis].tolist()))
    return {axis: [v for w in wanted for v in present if label_text(v) == w]}


def _metric_table(data, out, artifact, columns, axis="queue") -> list[Path]:
    rows = select(data.metrics, artifact.get("where", {}))
    axis, wanted = _hue(data, {**artifact, "hue": artifact.get("hue", axis)}, rows)
    rows = rows[label_column(rows[axis]).isin(wanted)]
    scoped, md_columns = _scoped(rows, columns)
    frame = cell_stats(scoped, [axis], [key for key, _, _ in md_columns], _in_order(rows, axis, wanted))
    lines = [f"**{artifact.get('caption', artifact['id'])}**", ""]
    lines += cell_stats_markdown(frame, [axis], md_columns)
    lines += ["", f"Mean ± 95 % confidence half-width over seeds; {where_text(artifact) or 'all runs'}."]
    return write_table(frame, lines, out)


def class_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Per queue: average cwnd hint, drops per second and drop ratio per class, average queue
    (Tables 5.1, 5.2, 5.6, 5.8)."""
    return _metric_table(data, out, artifact, CLASS_COLUMNS)


def utilization_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Per queue: the bottleneck's utilization by FTP, HTTP and all flows (Table 5.3)."""
    return _metric_table(data, out, artifact, UTILIZATION_COLUMNS)


def mincwnd_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Per MinCwnd: drop rate and median object delay (Table 3.1)."""
    return _metric_table(data, out, artifact, MINCWND_COLUMNS, axis="mincwnd")


def objects_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Per queue: web objects completed in the run and the change against the first level (PI)
    as the ratio of the means over seeds minus 1 (Tables 5.4, 5.7, 5.9)."""
    rows = select(data.metrics, artifact.get("where", {}))
    rows = rows[(rows["metric"] == "objects_completed") & (rows["scope"] == "all")]
    axis, wanted = _hue(data, artifact, rows)
    frame = cell_stats(
        rows[label_column(rows[axis]).isin(wanted)], [axis], ["objects_completed"], _in_order(rows, axis, wanted)
    )
    base = frame["objects_completed"].iloc[0]
    frame["improvement_pct"] = (frame["objects_completed"] / base - 1) * 100
    body = [
        [
            str(r[axis]),
            str(r["seeds"]),
            mean_pm(r["objects_completed"], r["objects_completed_ci95"], 0),
            f"{r['improvement_pct']:+.1f} %",
        ]
        for r in frame.to_dict("records")
    ]
    lines = [f"**{artifact.get('caption', artifact['id'])}**", ""]
    lines += markdown_table(
        [axis.capitalize(), "Seeds", "Objects", f"vs {frame[axis].iloc[0]}"], body, right=[False, True, True, True]
    )
    lines += ["", "Objects completed in the run, mean ± 95 % half-width over seeds; change = ratio of the means - 1."]
    return write_table(frame, lines, out)


def rtt_objects_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Per HTTP RTT group and queue: objects completed and the group's share of all objects
    (ratio of the means over seeds, %) (Tables 5.10, 5.11)."""
    rows = select(data.metrics, artifact.get("where", {}))
    rows = rows[rows["metric"] == "objects_completed"]
    axis, wanted = _hue(data, artifact, rows)
    groups = [s for s in levels(rows, "scope") if s.startswith("group:http")]
    groups.sort(key=lambda s: int(s.rsplit("_", 1)[1]))
    records = []
    texts = label_column(rows[axis])
    for level in wanted:
        at = rows[texts == level]
        total = at.loc[at["scope"] == "all", "value"].mean()
        for scope in [*groups, "all"]:
            values = at.loc[at["scope"] == scope, "value"]
            records.append(
                {
                    axis: level,
                    "group": scope,
                    "seeds": int(values.size),
                    "objects": values.mean(),
                    "share_pct": values.mean() / total * 100,
                }
            )
    frame = pd.DataFrame(records)
    headers = ["HTTP group"] + [f"{lvl} objects" for lvl in wanted] + [f"{lvl} %" for lvl in wanted]
    body = []
    for scope in [*groups, "all"]:
        cells = frame[frame["group"] == scope].set_index(axis)
        name = "Total" if scope == "all" else f"RTT {scope.rsplit('_', 1)[1]} ms"
        body.append(
            [name]
            + [f"{cells.loc[lvl, 'objects']:.0f}" for lvl in wanted]
            + [f"{cells.loc[lvl, 'share_pct']:.1f}" for lvl in wanted]
        )
    lines = [f"**{artifact.get('caption', artifact['id'])}**", ""]
    lines += markdown_table(headers, body, right=[False] + [True] * (2 * len(wanted)))
    lines += ["", f"Mean over {seed_note(rows, [axis])} of the objects completed per group; % = share of all objects."]
    return write_table(frame, lines, out)


def variance_table(data: ExperimentData, out: Path, artifact: dict) -> list[Path]:
    """Per interval of Table 4.1: the variance of the per-second drop count of FTP and HTTP flows
    (metric core_drops_per_s_var@<a>-<b>), mean ± 95 % half-width over seeds."""
    rows = select(data.metrics, artifact.get("where", {}))
    records, body = [], []
    for start, end in VARIANCE_WINDOWS:
        metric = f"core_drops_per_s_var@{start}-{end}"
        record = {"interval": f"{start}-{end}"}
        for scope in ("ftp", "http"):
            values = rows.loc[(rows["metric"] == metric) & (rows["scope"] == f"group:{scope}"), "value"].dropna()
            record[scope] = values.mean() if len(values) else float("nan")
            record[f"{scope}_ci95"] = float(ci95(values))
        records.append(record)
        body.append(
            [
                f"{start} - {end} s",
                mean_pm(record["ftp"], record["ftp_ci95"], 3),
                mean_pm(record["http"], record["http_ci95"], 3),
            ]
        )
    frame = pd.DataFrame(records)
    lines = [f"**{artifact.get('caption', artifact['id'])}**", ""]
    lines += markdown_table(["Time interval", "FTP", "HTTP"], body, right=[False, True, True])
    lines += [
        "",
        f"Sample variance of the drops per second in the interval; mean ± 95 % half-width over {seed_note(rows, [])}.",
    ]
    return write_table(frame, lines, out)
