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
from experiments.measure.e2e import flow_paths, group_means, scope_masks
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
    judgeable = {fid: p for fid, p in paths.items() if p.links and all(i in link_curves for i in p.links)}
    data = journeys[~((journeys["ptype"] == "tcp") & (journeys["size"] <= TCP_HEADER_BYTES))]
    delivered = data[~data["dropped"] & data["t_exit"].between(warmup + interval, end, inclusive="left")]
    delivered = delivered[delivered["fid"].isin(list(judgeable))]
    fid, exits, delay = (delivered[c].to_numpy() for c in ("fid", "t_exit", "delay"))
    edges = np.arange(warmup, end - interval + 1e-9, interval)
    # Flows over the same core links share D_avg: one curve evaluation per set of links, for all their packets.
    flows = np.unique(fid)
    bin_d_of, packet_over, bin_fids, bin_over = {}, np.zeros(fid.size, dtype=bool), [], []
    for links in dict.fromkeys(judgeable[int(f)].links for f in flows):
        members = [f for f in flows if judgeable[int(f)].links == links]
        in_group = np.isin(fid, members)
        own_fid, own_exits, own_delay = fid[in_group], exits[in_group], delay[in_group]
        of_flow = {f: own_fid == f for f in members}
        bound = np.zeros(own_fid.size)
        # per packet: D_avg over the interval before its exit, the largest over the flow's core links
        d_avg = np.max([link_curves[i].delay.mean(own_exits - interval, own_exits) for i in links], axis=0)
        for f, mine in of_flow.items():
            bound[mine] = judgeable[int(f)].nodes * d_avg[mine] + judgeable[int(f)].propagation_s
        packet_over[in_group] = own_delay > bound
        # per bin of exit time: each flow's mean delay in the bin against the bin's D_avg
        bin_d_of[links] = np.max([link_curves[i].delay.mean(edges, edges + interval) for i in links], axis=0)
        bins = time_bins(own_exits, warmup, interval)
        for f, mine in of_flow.items():
            flow_bins, mean_delay = group_means(bins[mine], own_delay[mine])
            at = np.minimum(np.searchsorted(edges, flow_bins), edges.size - 1)
            bin_bound = judgeable[int(f)].nodes * bin_d_of[links][at] + judgeable[int(f)].propagation_s
            bin_fids.append(np.full(flow_bins.size, f))
            bin_over.append((edges[at] == flow_bins) & (mean_delay > bin_bound))  # a bin off the edges: not over
    series = []
    for f in flows:
        path = judgeable[int(f)]
        bin_bound = path.nodes * bin_d_of[path.links] + path.propagation_s
        series += [
            {"scope": f"flow{f}", "metric": "e2e_delay_bound_ms", "t": t, "value": v * 1000}
            for t, v in zip(edges, bin_bound, strict=True)
        ]
    if not fid.size:
        return [], series
    bin_fids, bin_over = np.concatenate(bin_fids), np.concatenate(bin_over)
    per_bin = dict(scope_masks(bin_fids, params))
    scopes = [(scope, per_bin[scope], mask) for scope, mask in scope_masks(fid, params)]
    scopes += [(f"flow{f}", bin_fids == f, fid == f) for f in flows]
    rows = []
    for scope, bins_of, packets_of in scopes:
        if packets_of.any():
            rows += metric_rows(
                scope,
                {
                    "e2e_bound_excess_pct": bin_over[bins_of].mean() * 100,
                    "e2e_bound_excess_pkt_pct": packet_over[packets_of].mean() * 100,
                },
            )
    return rows, series
