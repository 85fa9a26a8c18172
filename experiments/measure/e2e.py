"""End to end, from the journeys of data packets (entry link to exit link; a TCP connection's header-only SYN is
not data; needs the packet trace), for scope all, `through` (the flows entering at the first core router and
leaving at the last, e.g. a chain's end-to-end flows without its cross traffic), each flow group and each flow.

A packet counts when it entered in [warmup, duration) and was dropped or delivered (one still in flight when the
run ends is neither); loss is per `interval`-second bin of entry time, then averaged over the bins. A loss run is a
maximal sequence of one flow's consecutive data packets all dropped (loss_runs), counted when it begins in the
window and a delivered packet ends it (counted_runs).

Series per scope and `interval` (bins of entry time): e2e_delay_ms_mean and e2e_loss_pct.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.config.units import seconds
from experiments.measure.registry import LOSS_RUN_LENGTHS
from experiments.measure.scopes import (
    TCP_HEADER_BYTES,
    core_link_specs,
    group_scopes,
    metric_rows,
    named_groups,
    time_bins,
)


@dataclass(frozen=True)
class FlowPath:
    """Where a flow crosses the core: its core links (indices), routers traversed and propagation delay."""

    links: tuple[int, ...]
    nodes: int
    propagation_s: float
    through: bool  # enters at the first core router and leaves at the last


def flow_paths(params: dict) -> dict[int, FlowPath]:
    """fid -> FlowPath of every flow of params.json (a reverse flow, enter > leave, uses no forward core link)."""
    specs = core_link_specs(params)
    last = len(specs)
    edge_delay = seconds(params["topology"]["edge_link"]["delay"])
    paths = {}
    for flow in params.get("flows", []):
        enter, leave = int(flow.get("enter", 0)), int(flow.get("leave", last))
        edge = seconds(flow["edge_link"]["delay"]) if "edge_link" in flow else edge_delay
        links = tuple(range(enter, leave)) if enter < leave else ()
        core = sum(specs[i][1] for i in range(min(enter, leave), max(enter, leave)))
        paths[int(flow["fid"])] = FlowPath(links, abs(leave - enter) + 1, 2 * edge + core, (enter, leave) == (0, last))
    return paths


def e2e_scopes(packets: pd.DataFrame, params: dict, per_flow: bool = True) -> list[tuple[str, pd.DataFrame]]:
    """(scope, its packets): all, through (the flows crossing the whole core), each flow group and, with
    `per_flow`, each flow."""
    paths = flow_paths(params)
    through = [fid for fid, path in paths.items() if path.through]
    scopes = group_scopes(packets, named_groups(params))
    scopes.insert(1, ("through", packets[packets["fid"].isin(through)]))
    if not per_flow:
        return scopes
    return scopes + [(f"flow{fid}", part) for fid, part in packets.groupby("fid", sort=True)]


def _per_bin_loss(packets: pd.DataFrame, lost: pd.Series, warmup: float, interval: float) -> pd.Series:
    per_bin = lost.groupby(time_bins(packets["t_enter"], warmup, interval)).agg(["sum", "count"])
    return per_bin["sum"] / per_bin["count"] * 100


def e2e_values(packets: pd.DataFrame, warmup: float, interval: float, multi_flow: bool) -> dict[str, float]:
    """The e2e metrics of one scope's settled data packets (see the module docstring)."""
    delivered = packets[~packets["dropped"]]
    delay_ms = delivered["delay"] * 1000
    loss_pct = _per_bin_loss(packets, packets["dropped"], warmup, interval)
    signalled_pct = _per_bin_loss(packets, packets["dropped"] | packets["marked"], warmup, interval)
    values = {
        "e2e_delay_ms_mean": delay_ms.mean(),
        "e2e_delay_ms_std": delay_ms.std(ddof=0),
        "e2e_loss_pct_mean": loss_pct.mean(),
        "e2e_loss_pct_std": loss_pct.std(ddof=0),
        "e2e_loss_marked_pct_mean": signalled_pct.mean(),
        "e2e_loss_marked_pct_std": signalled_pct.std(ddof=0),
        "e2e_packets": float(len(packets)),
    }
    if multi_flow:
        flow_delay = delivered.groupby("fid")["delay"].mean() * 1000
        flow_loss = packets.groupby("fid")["dropped"].mean() * 100
        values |= {
            "e2e_delay_ms_flow_mean": flow_delay.mean(),
            "e2e_delay_ms_flow_std": flow_delay.std(ddof=0),
            "e2e_loss_pct_flow_mean": flow_loss.mean(),
            "e2e_loss_pct_flow_std": flow_loss.std(ddof=0),
        }
    return values


def loss_runs(data: pd.DataFrame) -> pd.DataFrame:
    """One row per per-flow loss run of the data packets (journeys order: entry time, uid): fid, t_start (entry
    time of its first packet), length (packets) and closed.

    A loss run is a maximal sequence of a flow's consecutive data packets that were all dropped, wherever on the
    path; other flows' packets in between do not cut it. Every data packet the trace shows counts, a
    retransmission included (it is a packet of its own, with its own uid). `closed`: the flow's next packet was
    delivered, so the run's length is known; a run that ends the trace, or is followed by a packet still in
    flight at the end, is not closed.
    """
    flows = data[["fid", "t_enter", "dropped"]].assign(delivered=data["t_exit"].notna())
    flows = flows.sort_values("fid", kind="stable")  # each flow's packets together, in entry order
    same_flow_as_previous = flows["fid"].eq(flows["fid"].shift())
    starts = flows["dropped"] & ~(flows["dropped"].shift(fill_value=False) & same_flow_as_previous)
    next_delivered = flows["fid"].eq(flows["fid"].shift(-1)) & flows["delivered"].shift(-1, fill_value=False)
    lost = flows.assign(run=starts.cumsum(), next_delivered=next_delivered)[flows["dropped"]]
    runs = lost.groupby("run").agg(
        fid=("fid", "first"), t_start=("t_enter", "first"), length=("fid", "size"), closed=("next_delivered", "last")
    )
    return runs.reset_index(drop=True)


def counted_runs(runs: pd.DataFrame, warmup: float, end: float) -> pd.DataFrame:
    """The loss runs of the window: those whose first packet entered in [warmup, end) and whose length is known
    (closed). A run begun before warmup belongs to the warm-up, whole; one begun in the window counts whole."""
    return runs[(runs["t_start"] >= warmup) & (runs["t_start"] < end) & runs["closed"]]


def loss_run_values(lengths: pd.Series) -> dict[str, float]:
    """e2e_loss_run_<k>_pct for k in LOSS_RUN_LENGTHS and e2e_loss_run_mean of the runs' lengths (nan if none)."""
    names = [f"e2e_loss_run_{k}_pct" for k in LOSS_RUN_LENGTHS]
    if lengths.empty:
        return dict.fromkeys([*names, "e2e_loss_run_mean"], math.nan)
    shares = lengths.value_counts(normalize=True) * 100
    return {name: float(shares.get(k, 0.0)) for name, k in zip(names, LOSS_RUN_LENGTHS, strict=True)} | {
        "e2e_loss_run_mean": float(lengths.mean())
    }


def e2e_metrics(journeys: pd.DataFrame, params: dict, warmup: float, end: float, interval: float):
    """(metrics rows, series rows) of end-to-end delay and loss for scope all, through, each group and each flow."""
    data = journeys[~((journeys["ptype"] == "tcp") & (journeys["size"] <= TCP_HEADER_BYTES))]
    window = data[(data["t_enter"] >= warmup) & (data["t_enter"] < end)]
    settled = window[window["dropped"] | window["t_exit"].notna()]  # not still in flight at the end
    runs = counted_runs(loss_runs(data), warmup, end)
    rows, series = [], []
    for scope, packets in e2e_scopes(settled, params, per_flow=False):
        if packets.empty:
            continue
        rows += metric_rows(scope, e2e_values(packets, warmup, interval, multi_flow=True))
        rows += metric_rows(scope, loss_run_values(runs.loc[runs["fid"].isin(packets["fid"].unique()), "length"]))
        delivered = packets[~packets["dropped"]]
        mean_delay = delivered.groupby(time_bins(delivered["t_enter"], warmup, interval))["delay"].mean() * 1000
        loss_pct = _per_bin_loss(packets, packets["dropped"], warmup, interval)
        series += [{"scope": scope, "metric": "e2e_delay_ms_mean", "t": t, "value": v} for t, v in mean_delay.items()]
        series += [{"scope": scope, "metric": "e2e_loss_pct", "t": t, "value": v} for t, v in loss_pct.items()]
    flow_rows, flow_series = flow_e2e(settled, runs, warmup, interval)
    return rows + flow_rows, series + flow_series


def flow_e2e(settled: pd.DataFrame, runs: pd.DataFrame, warmup: float, interval: float):
    """(metrics rows, series rows) of every flow<fid> scope at once: the values e2e_values (one flow: no _flow_
    metrics), loss_run_values and the two series give each flow's packets, computed by groupby instead of a
    scope at a time (a run of 100 flows made the per-scope loop the slowest part of aggregation)."""
    if settled.empty:
        return [], []
    packets = settled.assign(
        bin=time_bins(settled["t_enter"], warmup, interval), signalled=settled["dropped"] | settled["marked"]
    )
    delivered = packets[~packets["dropped"]]
    delay = (delivered["delay"] * 1000).groupby(delivered["fid"])
    per_bin = packets.groupby(["fid", "bin"]).agg(
        lost=("dropped", "sum"), signalled=("signalled", "sum"), n=("dropped", "size")
    )
    loss = (per_bin["lost"] / per_bin["n"] * 100).groupby(level="fid")
    signalled = (per_bin["signalled"] / per_bin["n"] * 100).groupby(level="fid")
    fids = np.sort(packets["fid"].unique())
    values = pd.DataFrame(
        {
            "e2e_delay_ms_mean": delay.mean(),
            "e2e_delay_ms_std": delay.std(ddof=0),
            "e2e_loss_pct_mean": loss.mean(),
            "e2e_loss_pct_std": loss.std(ddof=0),
            "e2e_loss_marked_pct_mean": signalled.mean(),
            "e2e_loss_marked_pct_std": signalled.std(ddof=0),
            "e2e_packets": packets.groupby("fid").size().astype(float),
        }
    ).reindex(fids)
    runs = runs[runs["fid"].isin(fids)]
    counts = runs.groupby(["fid", "length"]).size().unstack(fill_value=0)
    shares = counts.div(counts.sum(axis=1), axis=0).reindex(columns=list(LOSS_RUN_LENGTHS), fill_value=0) * 100
    shares.columns = [f"e2e_loss_run_{k}_pct" for k in LOSS_RUN_LENGTHS]
    shares["e2e_loss_run_mean"] = runs.groupby("fid")["length"].mean()
    values = values.join(shares.reindex(fids))  # a flow without a counted run: nan, as loss_run_values gives
    rows = [
        {"scope": f"flow{fid}", "metric": metric, "value": float(value)}
        for fid, line in zip(fids, values.itertuples(index=False), strict=True)
        for metric, value in zip(values.columns, line, strict=True)
    ]
    delay_series = (delivered["delay"] * 1000).groupby([delivered["fid"], delivered["bin"]]).mean()
    loss_series = per_bin["lost"] / per_bin["n"] * 100
    series = []
    for fid in fids:
        series += [
            {"scope": f"flow{fid}", "metric": "e2e_delay_ms_mean", "t": t, "value": v}
            for t, v in delay_series.get(fid, pd.Series(dtype=float)).items()
        ]
        series += [
            {"scope": f"flow{fid}", "metric": "e2e_loss_pct", "t": t, "value": v} for t, v in loss_series[fid].items()
        ]
    return rows, series
