"""Koo et al.'s per-node measures (§2.3, Eqs. 4-7), exact from the per-hop trace by measure.curves (its docstring
has the definitions; a node's delay includes the packet's transmission, and Eq. 5 as printed is corrected there),
per core link with its own bandwidth (`core_links` overrides applied), and §5.2's end-to-end bound
n x D_avg + propagation against the delivered packets' delays (n the core routers a flow crosses, D_avg the largest
node_delay_ms_avg of the core links on its path, propagation its links' delays).

Series per link and `interval`: node_delay_ms_avg (Eq. 6 with tau = the interval), node_queue_bytes_avg and
node_loss_pct_avg (over the busy time in the interval; none without); per flow: e2e_delay_bound_ms, the bound of
each interval (from the second on: D_avg needs a whole interval before).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from experiments.measure.curves import LinkCurves, binned_curves, summary_curves
from experiments.measure.e2e import e2e_scopes, flow_paths
from experiments.measure.scopes import TCP_HEADER_BYTES, metric_rows, time_bins


def link_curves(hops: pd.DataFrame, specs: list[tuple[float, float]]) -> dict[str, LinkCurves]:
    """link name -> the curves (Eqs. 4-7) of the packets that arrived at its queue, at the link's own bandwidth."""
    columns = ["t_enqueue", "t_dequeue", "size", "dropped"]
    return {
        link: LinkCurves(part[columns], specs[int(link.removeprefix("core"))][0])
        for link, part in hops.groupby("link", sort=True)
    }


def node_metrics(
    by_link: dict[str, LinkCurves], warmup: float, end: float, interval: float, thresholds: Sequence[int] = ()
) -> tuple[list[dict], list[dict]]:
    """(metrics rows, series rows) of Koo et al.'s Eqs. 4-7 per core link (see the module docstring)."""
    rows, series = [], []
    for link, link_curve in by_link.items():
        whole = summary_curves(link_curve, warmup, end, thresholds)
        values = {
            "node_queue_bytes_avg": whole["queue_bytes_avg"],
            "node_delay_ms_avg": whole["delay_avg_s"] * 1000,
            "node_delay_ms_max": whole["delay_max_s"] * 1000,
            "node_loss_pct_avg": whole["busy_loss_pct"],
            "node_busy_pct": whole["busy_fraction"] * 100,
            **{f"queue_above_{int(b)}B_pct": whole[f"above_{int(b)}_pct"] for b in thresholds},
        }
        rows += metric_rows(link, values)
        bins = binned_curves(link_curve, warmup, end, interval)
        for metric, column, factor in _NODE_SERIES:
            series += [
                {"scope": link, "metric": metric, "t": t, "value": v * factor}
                for t, v in zip(bins["t"], bins[column], strict=True)
                if not math.isnan(v)
            ]
    return rows, series


# series metric -> (curves.binned column, factor)
_NODE_SERIES = (
    ("node_delay_ms_avg", "delay_avg_s", 1000.0),
    ("node_queue_bytes_avg", "queue_bytes_avg", 1.0),
    ("node_loss_pct_avg", "busy_loss_pct", 1.0),
)


def bound_metrics(
    journeys: pd.DataFrame,
    params: dict,
    by_link: dict[str, LinkCurves],
    warmup: float,
    end: float,
    interval: float,
) -> tuple[list[dict], list[dict]]:
    """Koo et al. §5.2's bound n x D_avg + propagation against the delivered packets' delays, per scope (module
    docstring): e2e_bound_excess_pct per (flow, bin of exit time), e2e_bound_excess_pkt_pct per packet, and the
    series e2e_delay_bound_ms per flow and bin (t = bin start)."""
    paths = flow_paths(params)
    link_curves = {int(name.removeprefix("core")): curve for name, curve in by_link.items()}
    data = journeys[~((journeys["ptype"] == "tcp") & (journeys["size"] <= TCP_HEADER_BYTES))]
    delivered = data[~data["dropped"] & data["t_exit"].between(warmup + interval, end, inclusive="left")]
    edges = np.arange(warmup, end - interval + 1e-9, interval)
    judged, series, bin_ds = [], [], {}
    judgeable = {fid: p for fid, p in paths.items() if p.links and all(i in link_curves for i in p.links)}
    delivered = delivered[delivered["fid"].isin(list(judgeable))]
    # per-flow values looked up by dict (vectorised), not by a Python call per packet
    links_of, nodes_of, propagation_of = (
        {fid: getattr(p, field) for fid, p in judgeable.items()} for field in ("links", "nodes", "propagation_s")
    )
    # Flows over the same core links share D_avg: one curve evaluation per set of links, for all their packets.
    for links, packets in delivered.groupby(delivered["fid"].map(links_of), sort=False):
        nodes = packets["fid"].map(nodes_of).to_numpy(dtype=float)
        propagation = packets["fid"].map(propagation_of).to_numpy(dtype=float)
        exits = packets["t_exit"].to_numpy()
        # per packet: D_avg over the interval before its exit, the largest over the flow's core links
        d_avg = np.max([link_curves[i].delay.mean(exits - interval, exits) for i in links], axis=0)
        over_pkt = packets["delay"].to_numpy() > nodes * d_avg + propagation
        judged.append(pd.DataFrame({"fid": packets["fid"].to_numpy(), "over_pkt": over_pkt, "bin_over": np.nan}))
        # per bin of exit time: each flow's mean delay in the bin against the bin's D_avg
        bin_ds[links] = np.max([link_curves[i].delay.mean(edges, edges + interval) for i in links], axis=0)
        bin_d = pd.Series(bin_ds[links], index=edges)
        mean_delay = packets.groupby([packets["fid"], time_bins(packets["t_exit"], warmup, interval)])["delay"].mean()
        flow_of = mean_delay.index.get_level_values(0)
        path_of = [judgeable[int(f)] for f in flow_of]
        bound = np.array([p.nodes for p in path_of]) * bin_d.reindex(mean_delay.index.get_level_values(1)).to_numpy()
        bound += np.array([p.propagation_s for p in path_of])
        judged.append(
            pd.DataFrame(
                {"fid": flow_of, "over_pkt": np.nan, "bin_over": (mean_delay.to_numpy() > bound).astype(float)}
            )
        )
    for fid in sorted(delivered["fid"].unique()):
        path = judgeable[int(fid)]
        bin_bound = path.nodes * bin_ds[path.links] + path.propagation_s
        series += [
            {"scope": f"flow{fid}", "metric": "e2e_delay_bound_ms", "t": t, "value": v * 1000}
            for t, v in zip(edges, bin_bound, strict=True)
        ]
    if not judged:
        return [], series
    table = pd.concat(judged, ignore_index=True)
    rows = []
    for scope, part in e2e_scopes(table, params):
        if len(part):
            rows += metric_rows(
                scope,
                {
                    "e2e_bound_excess_pct": part["bin_over"].mean() * 100,
                    "e2e_bound_excess_pkt_pct": part["over_pkt"].mean() * 100,
                },
            )
    return rows, series
