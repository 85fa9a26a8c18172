"""End to end, from the journeys of data packets (entry link to exit link; a TCP connection's header-only SYN is
not data; needs the packet trace), for scope all, `through` (the flows entering at the first core router and
leaving at the last, e.g. a chain's end-to-end flows without its cross traffic), each flow group and each flow.

A packet counts when it entered in [warmup, duration) and was dropped or delivered (one still in flight when the
run ends is neither); loss is per `interval`-second bin of entry time, then averaged over the bins. A loss run is a
maximal sequence of one flow's consecutive data packets all dropped (loss_runs), counted when it begins in the
window and a delivered packet ends it (counted_runs).

Series per scope and `interval` (bins of entry time): e2e_delay_ms_mean and e2e_loss_pct.

Computed on numpy arrays, one sort per scope: a run's few hundred thousand packets went through some forty pandas
group-bys before, which cost more than the simulation of a short run. Means and standard deviations (ddof 0) are
numpy's; a mean per bin or per flow sums in row order where pandas' group-by summed with Kahan's compensation, so a
value may differ from that of the pandas code in its last bits (tests/experiments/test_e2e_definition.py keeps that
code as the definition and compares).
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
    group_masks,
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


def scope_masks(fids: np.ndarray, params: dict) -> list[tuple[str, np.ndarray]]:
    """(scope, rows) of all, through (the flows crossing the whole core) and each flow group, in that order."""
    through = [fid for fid, path in flow_paths(params).items() if path.through]
    masks = group_masks(fids, named_groups(params))
    masks.insert(1, ("through", np.isin(fids, through)))
    return masks


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if x.size else math.nan


def _std(x: np.ndarray) -> float:
    return float(x.std()) if x.size else math.nan


def group_means(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys, sorted, and the mean of `values` over each key's rows."""
    distinct, at = np.unique(keys, return_inverse=True)
    return distinct, np.bincount(at, weights=values, minlength=distinct.size) / np.bincount(at, minlength=distinct.size)


@dataclass(frozen=True)
class Packets:
    """Settled data packets of one scope as arrays: flow, bin of entry time, delay in ms (NaN if dropped), fate."""

    fid: np.ndarray
    bin: np.ndarray
    delay_ms: np.ndarray
    dropped: np.ndarray
    signalled: np.ndarray  # dropped or CE-marked

    @classmethod
    def of(cls, frame: pd.DataFrame, warmup: float, interval: float) -> Packets:
        dropped = frame["dropped"].to_numpy(dtype=bool)
        return cls(
            fid=frame["fid"].to_numpy(),
            bin=time_bins(frame["t_enter"], warmup, interval).to_numpy(dtype=float),
            delay_ms=frame["delay"].to_numpy(dtype=float) * 1000,
            dropped=dropped,
            signalled=dropped | frame["marked"].to_numpy(dtype=bool),
        )

    def take(self, rows) -> Packets:
        return Packets(*(getattr(self, name)[rows] for name in ("fid", "bin", "delay_ms", "dropped", "signalled")))

    def scope(self, multi_flow: bool) -> tuple[dict[str, float], tuple, tuple]:
        """(the scope's e2e values, its delay series (bins, ms), its loss series (bins, %)); see the module
        docstring. `multi_flow` adds the spread across its flows (the _flow_ metrics)."""
        bins, at = np.unique(self.bin, return_inverse=True)
        sent = np.bincount(at, minlength=bins.size)
        loss = np.bincount(at, weights=self.dropped, minlength=bins.size) / sent * 100
        signalled = np.bincount(at, weights=self.signalled, minlength=bins.size) / sent * 100
        delivered = ~self.dropped
        delay = self.delay_ms[delivered]
        values = {
            "e2e_delay_ms_mean": _mean(delay),
            "e2e_delay_ms_std": _std(delay),
            "e2e_loss_pct_mean": _mean(loss),
            "e2e_loss_pct_std": _std(loss),
            "e2e_loss_marked_pct_mean": _mean(signalled),
            "e2e_loss_marked_pct_std": _std(signalled),
            "e2e_packets": float(self.fid.size),
        }
        if multi_flow:
            flow_delay = group_means(self.fid[delivered], delay)[1]
            flow_loss = group_means(self.fid, self.dropped.astype(float))[1] * 100
            values |= {
                "e2e_delay_ms_flow_mean": _mean(flow_delay),
                "e2e_delay_ms_flow_std": _std(flow_delay),
                "e2e_loss_pct_flow_mean": _mean(flow_loss),
                "e2e_loss_pct_flow_std": _std(flow_loss),
            }
        return values, group_means(self.bin[delivered], delay), (bins, loss)


def loss_runs(data: pd.DataFrame) -> pd.DataFrame:
    """One row per per-flow loss run of the data packets (journeys order: entry time, uid): fid, t_start (entry
    time of its first packet), length (packets) and closed.

    A loss run is a maximal sequence of a flow's consecutive data packets that were all dropped, wherever on the
    path; other flows' packets in between do not cut it. Every data packet the trace shows counts, a
    retransmission included (it is a packet of its own, with its own uid). `closed`: the flow's next packet was
    delivered, so the run's length is known; a run that ends the trace, or is followed by a packet still in
    flight at the end, is not closed.
    """
    order = np.argsort(data["fid"].to_numpy(), kind="stable")  # each flow's packets together, in entry order
    fid, t_enter = data["fid"].to_numpy()[order], data["t_enter"].to_numpy(dtype=float)[order]
    dropped, delivered = data["dropped"].to_numpy(dtype=bool)[order], data["t_exit"].notna().to_numpy()[order]
    same_flow = fid[1:] == fid[:-1]  # row i + 1 is of row i's flow
    starts = dropped & ~np.concatenate([[False], dropped[:-1] & same_flow])[: fid.size]
    first = np.flatnonzero(starts)
    # a run's packets are consecutive rows: its length counts its dropped rows, its last row is first + length - 1
    length = np.bincount((np.cumsum(starts) - 1)[dropped], minlength=first.size).astype(np.int64)
    next_delivered = np.concatenate([same_flow & delivered[1:], [False]])[: fid.size]
    closed = next_delivered[first + length - 1]
    return pd.DataFrame({"fid": fid[first], "t_start": t_enter[first], "length": length, "closed": closed})


def counted_runs(runs: pd.DataFrame, warmup: float, end: float) -> pd.DataFrame:
    """The loss runs of the window: those whose first packet entered in [warmup, end) and whose length is known
    (closed). A run begun before warmup belongs to the warm-up, whole; one begun in the window counts whole."""
    return runs[(runs["t_start"] >= warmup) & (runs["t_start"] < end) & runs["closed"]]


def loss_run_values(lengths) -> dict[str, float]:
    """e2e_loss_run_<k>_pct for k in LOSS_RUN_LENGTHS and e2e_loss_run_mean of the runs' lengths (nan if none)."""
    lengths = np.asarray(lengths)
    names = [f"e2e_loss_run_{k}_pct" for k in LOSS_RUN_LENGTHS]
    if not lengths.size:
        return dict.fromkeys([*names, "e2e_loss_run_mean"], math.nan)
    shares = {
        name: np.count_nonzero(lengths == k) / lengths.size * 100
        for name, k in zip(names, LOSS_RUN_LENGTHS, strict=True)
    }
    return shares | {"e2e_loss_run_mean": float(lengths.mean())}


def _series(scope: str, delay: tuple, loss: tuple) -> list[dict]:
    rows = [{"scope": scope, "metric": "e2e_delay_ms_mean", "t": t, "value": v} for t, v in zip(*delay, strict=True)]
    return rows + [{"scope": scope, "metric": "e2e_loss_pct", "t": t, "value": v} for t, v in zip(*loss, strict=True)]


def e2e_metrics(journeys: pd.DataFrame, params: dict, warmup: float, end: float, interval: float):
    """(metrics rows, series rows) of end-to-end delay and loss for scope all, through, each group and each flow."""
    data = journeys[~((journeys["ptype"] == "tcp") & (journeys["size"] <= TCP_HEADER_BYTES))]
    window = data[(data["t_enter"] >= warmup) & (data["t_enter"] < end)]
    settled = window[window["dropped"] | window["t_exit"].notna()]  # not still in flight at the end
    runs = counted_runs(loss_runs(data), warmup, end)
    packets = Packets.of(settled, warmup, interval)
    run_fids, run_lengths = runs["fid"].to_numpy(), runs["length"].to_numpy()
    rows, series = [], []
    for scope, mask in scope_masks(packets.fid, params):
        if not mask.any():
            continue
        part = packets.take(mask)
        values, delay, loss = part.scope(multi_flow=True)
        rows += metric_rows(scope, values | loss_run_values(run_lengths[np.isin(run_fids, part.fid)]))
        series += _series(scope, delay, loss)
    flow_rows, flow_series = flow_e2e(settled, runs, warmup, interval)
    return rows + flow_rows, series + flow_series


def flow_e2e(settled: pd.DataFrame, runs: pd.DataFrame, warmup: float, interval: float):
    """(metrics rows, series rows) of every flow<fid> scope: its packets' values as a scope of one flow (no _flow_
    metrics), its counted loss runs' values and its two series; flows in fid order."""
    packets = Packets.of(settled, warmup, interval)
    order = np.argsort(packets.fid, kind="stable")
    packets = packets.take(order)
    fids, starts = np.unique(packets.fid, return_index=True)
    run_fids, run_lengths = runs["fid"].to_numpy(), runs["length"].to_numpy()
    rows, series = [], []
    ends = np.append(starts[1:], packets.fid.size)[: fids.size]
    for fid, lo, hi in zip(fids, starts, ends, strict=True):
        values, delay, loss = packets.take(slice(lo, hi)).scope(multi_flow=False)
        rows += metric_rows(f"flow{fid}", values | loss_run_values(run_lengths[run_fids == fid]))
        series += _series(f"flow{fid}", delay, loss)
    return rows, series
