"""Metrics of one run, computed from its parquet tables (docs/DESIGN.md §6).

The list of metric names, with their scopes, units and what each needs, is
experiments/metric_registry.py (a test checks that this module produces exactly those);
this docstring says how each is computed. Everything is measured over
[warmup, duration] unless said otherwise. Two tidy long tables come out: `metrics` (scope, metric, value)
with one value per run, and `series` (scope, metric, t, value) per `interval` seconds
(or per sample, where said), for time-series figures. `scope` is a link name (core0,
core1, ...), a flow (flow1, ...), a flow group (`group:<name>`) or `all` (every flow
together). A run made without a packet trace (no hops, no journeys) has no delay and
no e2e metrics; a run without flows.tsv has no goodput, cwnd or fairness metrics.

Per monitored core link, from the queue monitor (queue_monitor.tsv) and the per-hop trace:
  utilization_pct     bytes departed x 8 / (seconds x link bandwidth) x 100
  drop_pct            packets dropped / packets arrived x 100
  queue_bytes_mean    mean of the sampled queue length in bytes
  queue_pkts_mean     mean of the sampled queue length in packets
  queue_pkts_std      its population standard deviation (ddof 0)
  queue_pkts_max      largest sampled queue length in packets
  queue_pkts_p5       5th percentile of the sampled queue length in packets (a floor that
                      one dip among hundreds of samples does not set)
  queue_pkts_p95      95th percentile of the sampled queue length in packets (a top that
                      one burst among hundreds of samples does not set)
  queue_pkts_min      smallest sampled queue length in packets
  queue_empty_pct     samples with an empty queue (0 packets) / samples x 100
  queue_osc_hz        oscillation frequency: upward crossings of the mean queue length
                      (a sample below queue_pkts_mean followed by one at or above it)
                      per second between the first and last sample of the window
  queue_delay_ms_mean mean time from enqueue to dequeue of the packets not dropped
                      (needs the packet trace)
Koo et al.'s per-node measures (§2.3, Eqs. 4-7), exact from the per-hop trace by
experiments/curves.py (its docstring has the definitions; a node's delay includes the
packet's transmission, and Eq. 5 as printed is corrected there), per core link with its
own bandwidth (`core_links` overrides applied):
  node_queue_bytes_avg  time average of Q(t) = R_in(t) - R_out(t)
  node_delay_ms_avg     time average of D(t), the age of the oldest packet not yet sent
  node_delay_ms_max     largest D(t)
  node_loss_pct_avg     time average over the busy time of P(t): bytes dropped / bytes
                        arrived since the current busy period began, x 100
  node_busy_pct         time with Q(t) > 0 / window x 100
  queue_above_<b>B_pct  time with Q(t) > b / window x 100, for each b of the experiment's
                        `queue_thresholds`
The first core link, where every flow enters the core, is also reported as
`bottleneck_<metric>` with scope `all`.
Series per link: utilization_pct, drop_pct, queue_bytes_mean, queue_delay_ms_mean,
node_delay_ms_avg (Eq. 6 with tau = the interval), node_queue_bytes_avg and
node_loss_pct_avg (over the busy time in the interval; none without) per interval; and
queue_pkts, one row per raw sample (t = sample time) over the WHOLE run [0, duration],
warm-up included.

End to end, from the journeys of data packets (entry link to exit link; a TCP
connection's header-only SYN is not data; needs the packet trace), for scope `all`,
`through` (the flows entering at the first core router and leaving at the last, e.g. a
chain's end-to-end flows without its cross traffic), each flow group and each flow:
  e2e_delay_ms_mean / _std   over every delivered packet
  e2e_loss_pct_mean / _std   over the `interval`-second bins of entry time, each bin's
                             dropped / (dropped + delivered) x 100; packets still in
                             flight when the run ends are neither
  e2e_loss_marked_pct_mean / _std  the same with a packet delivered CE-marked counted lost
  e2e_packets                data packets counted (dropped or delivered)
  e2e_loss_run_<k>_pct       k = 1..10: the scope's per-flow loss runs of exactly k packets /
                             its runs x 100; a run is a maximal sequence of one flow's
                             consecutive data packets all dropped (loss_runs), counted when it
                             begins in the window and a delivered packet ends it (counted_runs);
                             the runs of the scope's flows pooled; nan without a run
  e2e_loss_run_mean          mean length (packets) of the same runs; nan without a run
  e2e_delay_ms_flow_mean / _std, e2e_loss_pct_flow_mean / _std  (not per flow): mean and
                             population standard deviation across the scope's flows of
                             each flow's mean delay, and of each flow's dropped / sent x 100
  e2e_bound_excess_pct       Koo et al.'s §5.2 bound n x D_avg + propagation, n the core
                             routers a flow crosses, D_avg the largest node_delay_ms_avg of
                             the core links on its path over the interval, propagation its
                             links' delays: (flow, interval of exit time) pairs whose mean
                             delay exceeds the interval's bound / pairs x 100 (from the
                             second interval on: D_avg needs a whole interval before)
  e2e_bound_excess_pkt_pct   per delivered packet: delay > bound with D_avg over the
                             interval before its exit / packets x 100
Series: e2e_delay_bound_ms per flow and interval (the bound of that interval).

TCP flows, from the flows table (flows.tsv: payload bytes delivered in order, cwnd,
retransmissions; sampled). The window's ends are the samples nearest warmup and
duration:
  goodput_Bps          per flow: delivered bytes between the window's ends / the
                       seconds between them (payload bytes per second)
  cwnd_mean            per flow: mean sampled cwnd_ (packets) over the window's samples
  retransmits          per flow: packets retransmitted between the window's ends
  cwnd_epochs_per_s    per flow: congestion epochs per second, the decreases of the sampled
                       cwnd_ between consecutive samples of the window / its seconds (two
                       decreases within one sampling interval count once); all and groups:
                       the mean over their flows
Over the flows of scope `all` and of each flow group `group:<name>` (groups only
when params.json names each flow's group):
  goodput_Bps          sum of the flows' goodput (system goodput)
  goodput_per_flow_Bps mean of the flows' goodput
  fairness_jain        Jain's index of the flows' goodputs, (sum x)^2 / (n sum x^2)
  fairness_worst       worst-case fairness, min x / max x
  goodput_share_pct    (groups only) the group's goodput_Bps / all's x 100 (nan if all is 0)
  <each of these four>_connection  the same over the whole connection time, between the
                       samples nearest 0 and duration (warm-up and slow start included)
  <each of these four>_since_start  the same with each flow's goodput taken from its own
                       start: bytes delivered by the sample nearest duration / (that time -
                       the flow's start), Li's (BQM thesis, Ch. 1) "total data received by
                       the end to the connection time" for flows that start at random times
Series: goodput_Bps of scope `all` per interval (system goodput in each bin).

HTTP objects (objects.tsv, flow kind http), for scope `all` and each flow group; an
object counts when its last byte was acknowledged within [warmup, duration]:
  objects_completed     objects completed
  objects_per_s         objects completed per second of the window
  object_delay_s_mean   mean time from an object's start to its last acknowledgement
  object_delay_s_median median of the same
  object_delay_s_p70 / _p90 / _p95  70th, 90th and 95th percentiles of the same
  object_delay_client_s_<mean|median|p70|p90|p95>  the same ending when the client had the
                        whole object (objects.tsv's `delivered`), server to client as the
                        PISA/PIMC thesis measures object delay (§2.3); nan without the column
  object_cycle_s        flow-seconds per completed object: the scope's http flows x window
                        seconds / objects_completed (delay, idle gap and set-up together; the
                        thesis's tables give it as 100 flows x 500 s / objects)
  objects_unfinished    objects still in progress when the run ended
  objects_share_pct     groups only: the group's objects_completed / all's x 100 (nan if none)

Core log (monitors.core_log: tables core_bins, core_drops and core_delays, DESIGN.md §5.4),
at the first core link core0, over [warmup, duration) ("window seconds" = duration - warmup),
for scope `all` and each flow group (a fid whose flow names no group counts only in `all`;
a group appears when the table has rows of its flows). Bins are monitors.core_log.interval
seconds long; those starting in [warmup, duration) count. From core_bins:
  core_arrivals_per_s   packets arriving at core0's queue / window seconds
  core_drops_per_s      packets dropped there / window seconds
  core_drop_ratio_pct   drops / arrivals x 100 (nan without arrivals)
  core_cwnd_hint_mean   mean cwnd hint of the arriving packets that carry one (hint > 0):
                        sum of their hints / their number (nan if none)
  core_utilization      bytes departed (at the link's far end) x 8 / (core link bandwidth x
                        window seconds), a fraction (0..1); the groups' values add up to all's
  core_departed_bytes   the bytes departed over the window themselves (headers included)
  object_wire_bytes     core_departed_bytes / objects_completed of the same scope (runs with
                        http flows): wire bytes per completed object, a diagnostic of what
                        an object costs the link (retransmissions, headers, SYNs)
  core_drops_per_object core_drops_per_s / objects_per_s of the same scope: drops at core0
                        per completed object. Between two AQMs, the change of object_cycle_s
                        over the change of this (claim kind slope) is the object time one
                        avoided drop saves
  core_drops_per_s_var  sample variance (ddof 1) of the per-bin drop rate (drops in the bin /
                        interval) over every bin of the window, a bin without drops as 0
  core_drops_per_s_var@<a>-<b>  the same over the bins starting in [a, b) for every aligned
                        window of L = 100, 500 and 1000 s: a = k x L, b = a + L <= duration
                        (integer seconds), from time 0 whatever the warm-up
From core_drops, over the drops in [warmup, duration):
  core_drop_qlen_mean / _p95 / _max  queue length (packets) the dropped arrivals found
  core_drop_hint_mean / _min         cwnd hint of the dropped packets that carry one (hint > 0)
  core_drop_hint_le<k>_pct           k = 1..10: those with hint <= k / all of them x 100
                                     (nan when no dropped packet carried a hint)
From core_delays (logged for the TCP data packets of the first flow of each group), over
those that left core0's link in [warmup, duration), also per flow (flow<fid>):
  core_delay_s_mean / _p90 / _p99    seconds from the packet's creation at its source agent to
                                     its departure at the far end of core0's link
Series, scope `all` and each group, one row per bin over the whole run [0, duration), warm-up
included, 0 in bins without events (t = bin start): core_drops_per_s (drops in the bin /
interval) and core_utilization (bytes departed x 8 / (bandwidth x interval)).

UDP flows whose sink is an Agent/LossMonitor (sinks.tsv: its counters at flows.tsv's ticks;
sink_gaps.tsv: each gap in the received sequence numbers), per flow, per flow group and
`all` (pooled). A packet's fate is known from the sequence number the sink expected at the
last sample at or before warmup (begin) up to the one it expected at the end (end_seq):
  sink_loss_pct          sequence numbers in [begin, end_seq) never received / all of them x 100
  sink_goodput_Bps       bytes received from the warm-up sample to the end / (duration - warmup)
                         (summed over the scope's flows)
  sink_loss_run_<k>_pct  k = 1..10: loss runs (gaps) of length k / all of them x 100, the runs
                         whose first lost packet is at or after begin; sink_loss_run_mean their
                         mean length (nan without runs)
With the experiment's fec_blocks ([k, h] pairs; experiments/fec_blocks.py), over the blocks of
n = k + h sequence numbers (block j: [j n, (j + 1) n)) that lie in [begin, end_seq):
  fec_plrbc_<k>_<h>_pct  lost packets / (blocks x n) x 100, before correction
  fec_plr_<k>_<h>_pct    lost packets of the blocks with more than h losses / (blocks x n) x 100
  fec_plr_data_<k>_<h>_pct  lost data packets (a block's first k) of those blocks / (blocks x k) x 100
  fec_blocks_<k>_<h>     blocks counted
Which packets are redundancy changes nothing in the network, so any (k, h) can be counted from
one run; it measures FEC only where the source's rate includes that redundancy (Eq. 5.1).

Wireless runs (topology kind wireless: drops.tr, the nodes' CMU drop lines), scope `all`, over the TCP
data packets (type tcp) dropped within [warmup, duration]:
  wireless_drops_<cause>    cause queue (an interface queue full: layer IFQ, reason ---), route (the
                            routing agent: NRTE no route, CBK a link-layer failure, TTL, LOOP; and
                            IFQ's FIL, packets purged for a broken link), mac
                            (the MAC layer), arp (ARP's one-packet buffer), other
  wireless_drops_queue_pct  queue / all of them x 100 (nan without drops)
A wireless run has no core links: no link metrics.

Percentiles (_p<q>, _median) are pandas' Series.quantile with its default linear
interpolation (numpy's "linear" method: between the two nearest order statistics).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from experiments import curves
from experiments.fec_blocks import Blocks, blocks, fec_values, lost_seqnos
from experiments.units import bandwidth_bps, seconds

INTERVAL_S = 1.0
CORE_VAR_WINDOWS_S = (100, 500, 1000)  # window lengths of core_drops_per_s_var@<a>-<b>
HINT_LEVELS = range(1, 11)  # k of core_drop_hint_le<k>_pct
OBJECT_DELAY_PERCENTILES = (70, 90, 95)  # q of object_delay_s_p<q> and object_delay_client_s_p<q>
CONNECTION_SUFFIX = "_connection"  # goodput and fairness over [0, duration] instead of [warmup, duration]
SINCE_START_SUFFIX = "_since_start"  # each flow's goodput from its own start to duration
WIRELESS_DROP_CAUSES = ("queue", "route", "mac", "arp", "other")  # of wireless_drops_<cause>
LOSS_RUN_LENGTHS = range(1, 11)  # k of e2e_loss_run_<k>_pct
TCP_HEADER_BYTES = 40  # ns-2's tcpip_base_hdr_size_: a TCP packet this small carries no data


def _bins(times: pd.Series, start: float, interval: float) -> pd.Series:
    return start + np.floor((times - start) / interval) * interval


def link_metrics(
    queue: pd.DataFrame,
    hops: pd.DataFrame | None,
    capacity_bps: float | Sequence[float],
    warmup: float,
    interval: float,
    end: float = math.inf,
    queue_ranges: Sequence[Sequence[int]] = (),
):
    """(metrics rows, series rows) of every monitored core link; without hops (no trace), no queueing delay.

    `capacity_bps`: every core link's bandwidth, or one per core link (core_link_specs: core_links overrides
    applied), so that a link's utilization is measured against its own capacity."""
    rows, series = [], []
    for link, samples in queue.groupby("link", sort=True):
        capacity = capacity_bps if isinstance(capacity_bps, int | float) else capacity_bps[int(link[4:])]
        samples = samples[samples["time"].between(warmup - 1e-9, end + 1e-9)].sort_values("time")
        if len(samples) < 2:
            continue
        first, last = samples.iloc[0], samples.iloc[-1]
        span = last["time"] - first["time"]
        arrived = last["arrivals_packets"] - first["arrivals_packets"]
        delays = None if hops is None else delays_of(hops, link, warmup)
        values = {
            "utilization_pct": (last["departures_bytes"] - first["departures_bytes"]) * 8 / (span * capacity) * 100,
            "drop_pct": (last["drops_packets"] - first["drops_packets"]) / arrived * 100 if arrived else math.nan,
            "queue_bytes_mean": samples["size_bytes"].mean(),
            **queue_stats(samples["time"], samples["size_packets"]),
            **queue_range_shares(samples["size_packets"], queue_ranges),
        }
        if delays is not None:
            values["queue_delay_ms_mean"] = delays["queue_delay"].mean() * 1000 if len(delays) else math.nan
        rows += [{"scope": link, "metric": m, "value": float(v)} for m, v in values.items()]
        series += _link_series(link, samples, delays, capacity, warmup, interval)
    return rows, series


def queue_stats(times: pd.Series, packets: pd.Series) -> dict[str, float]:
    """Queue length statistics (in packets) of one link's samples, sorted by time; see the module docstring."""
    x = packets.to_numpy(dtype=float)
    mean = x.mean()
    span = times.iloc[-1] - times.iloc[0]
    upward = np.count_nonzero((x[:-1] < mean) & (x[1:] >= mean))
    return {
        "queue_pkts_mean": mean,
        "queue_pkts_std": x.std(),
        "queue_pkts_var": x.var(),
        "queue_pkts_max": x.max(),
        "queue_pkts_p5": float(np.quantile(x, 0.05)),  # numpy's linear method, as pandas' quantile
        "queue_pkts_p95": float(np.quantile(x, 0.95)),
        "queue_pkts_min": x.min(),
        "queue_empty_pct": np.mean(x == 0) * 100,
        "queue_osc_hz": upward / span if span > 0 else math.nan,
    }


def queue_range_shares(packets: pd.Series, ranges: Sequence[Sequence[int]]) -> dict[str, float]:
    """queue_pkts_in_<a>_<b>_pct: samples with a < X <= b packets / samples x 100, for each [a, b]."""
    x = packets.to_numpy(dtype=float)
    return {f"queue_pkts_in_{a}_{b}_pct": float(np.mean((x > a) & (x <= b)) * 100) for a, b in ranges}


def queue_var_name(var: str) -> str:
    """qvar_<name>: a sampled queue variable's series and metric stem (ave_ -> qvar_ave)."""
    return f"qvar_{var.rstrip('_')}"


def queue_var_metrics(samples: pd.DataFrame, warmup: float, end: float) -> tuple[list[dict], pd.DataFrame]:
    """(qvar_<name>_mean rows over the window, series qvar_<name> of every sample in [0, end]), scope core0."""
    samples = samples[samples["time"] <= end + 1e-9].sort_values(["var", "time"], kind="stable")
    window = samples[samples["time"] >= warmup - 1e-9]
    rows = [
        {"scope": "core0", "metric": f"{queue_var_name(var)}_mean", "value": float(values.mean())}
        for var, values in window.groupby("var", sort=True)["value"]
    ]
    series = pd.DataFrame(
        {"scope": "core0", "metric": samples["var"].map(queue_var_name), "t": samples["time"],
         "value": samples["value"]}
    )  # fmt: skip
    return rows, series


def settle_time(times: np.ndarray, values: np.ndarray, t0: float, level: float, end: float) -> float:
    """Seconds from t0 until the sampled average is back at or below `level` after rising above it: 0 if it never
    rises above it after t0, end - t0 (censored) if it never comes back before the run ends."""
    after = times >= t0 - 1e-9
    above = np.flatnonzero(after & (values > level))
    if not len(above):
        return 0.0
    back = np.flatnonzero((times > times[above[0]]) & (values <= level))
    return float((times[back[0]] if len(back) else end) - t0)


def settle_metrics(samples: pd.DataFrame, settle: Sequence[Sequence[float]], end: float) -> list[dict]:
    """queue_ave_settle_<level>_s@<t0> of core0 for each [t0, level] (RED's sampled ave_; none without it)."""
    ave = samples[samples["var"] == "ave_"].sort_values("time")
    if ave.empty:
        return []
    times, values = ave["time"].to_numpy(), ave["value"].to_numpy()
    return [
        {"scope": "core0", "metric": f"queue_ave_settle_{level:g}_s@{t0:g}",
         "value": settle_time(times, values, t0, level, end)}
        for t0, level in settle
    ]  # fmt: skip


def queue_pkts_series(queue: pd.DataFrame, end: float = math.inf) -> pd.DataFrame:
    """Series `queue_pkts`: every raw sample of every monitored link over [0, end], warm-up included."""
    samples = queue[queue["time"] <= end + 1e-9].sort_values(["link", "time"], kind="stable")
    return pd.DataFrame(
        {"scope": samples["link"], "metric": "queue_pkts", "t": samples["time"], "value": samples["size_packets"]}
    ).astype({"value": float})


def delays_of(hops: pd.DataFrame, link: str, warmup: float) -> pd.DataFrame:
    """Enqueue time and queueing delay of the packets that left `link`'s queue (not dropped)."""
    kept = hops[(hops["link"] == link) & (hops["t_enqueue"] >= warmup) & ~hops["dropped"]]
    return kept[["t_enqueue", "queue_delay"]]


def _link_series(link, samples, delays, capacity_bps, warmup, interval) -> list[dict]:
    """Per-interval utilization, drop rate, mean queue and (with delays) mean queueing delay of one link."""
    counters = samples.set_index("time")[["arrivals_packets", "departures_bytes", "drops_packets"]]
    edges = np.arange(warmup, samples["time"].iloc[-1] + 1e-9, interval)
    at_edges = counters.reindex(edges, method="nearest", tolerance=interval / 4).dropna()
    steps = at_edges.diff().iloc[1:]
    steps.index = at_edges.index[:-1]  # each step belongs to the interval it starts
    out = []
    for t, step in steps.iterrows():
        out.append({"scope": link, "metric": "utilization_pct", "t": t,
                    "value": step["departures_bytes"] * 8 / (interval * capacity_bps) * 100})  # fmt: skip
        if step["arrivals_packets"]:
            out.append({"scope": link, "metric": "drop_pct", "t": t,
                        "value": step["drops_packets"] / step["arrivals_packets"] * 100})  # fmt: skip
    inside = samples[samples["time"] < edges[-1]]  # the sample at the very end opens no interval
    queue = inside.assign(t=_bins(inside["time"], warmup, interval)).groupby("t")["size_bytes"].mean()
    out += [{"scope": link, "metric": "queue_bytes_mean", "t": t, "value": v} for t, v in queue.items()]
    if delays is not None:
        delay = delays.assign(t=_bins(delays["t_enqueue"], warmup, interval)).groupby("t")["queue_delay"].mean()
        out += [{"scope": link, "metric": "queue_delay_ms_mean", "t": t, "value": v * 1000} for t, v in delay.items()]
    return out


def core_link_specs(params: dict) -> list[tuple[float, float]]:
    """(bandwidth bit/s, propagation s) of each core link C0->C1, C1->C2, ..., `core_links` overrides applied;
    none in a wireless topology."""
    topology = params["topology"]
    if topology["kind"] == "wireless":
        return []
    n_links = int(topology.get("core_nodes", 2)) - 1
    overrides = topology.get("core_links") or [{}] * n_links
    links = [{**topology["core_link"], **override} for override in overrides]
    return [(bandwidth_bps(link["bandwidth"]), seconds(link["delay"])) for link in links]


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
    per_bin = lost.groupby(_bins(packets["t_enter"], warmup, interval)).agg(["sum", "count"])
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
    runs = lost.groupby("run").agg(fid=("fid", "first"), t_start=("t_enter", "first"), length=("fid", "size"),
                                   closed=("next_delivered", "last"))  # fmt: skip
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
        rows += _rows(scope, e2e_values(packets, warmup, interval, multi_flow=True))
        rows += _rows(scope, loss_run_values(runs.loc[runs["fid"].isin(packets["fid"].unique()), "length"]))
        delivered = packets[~packets["dropped"]]
        mean_delay = delivered.groupby(_bins(delivered["t_enter"], warmup, interval))["delay"].mean() * 1000
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
    packets = settled.assign(bin=_bins(settled["t_enter"], warmup, interval),
                             signalled=settled["dropped"] | settled["marked"])  # fmt: skip
    delivered = packets[~packets["dropped"]]
    delay = (delivered["delay"] * 1000).groupby(delivered["fid"])
    per_bin = packets.groupby(["fid", "bin"]).agg(lost=("dropped", "sum"), signalled=("signalled", "sum"),
                                                  n=("dropped", "size"))  # fmt: skip
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
        series += [{"scope": f"flow{fid}", "metric": "e2e_delay_ms_mean", "t": t, "value": v}
                   for t, v in delay_series.get(fid, pd.Series(dtype=float)).items()]  # fmt: skip
        series += [{"scope": f"flow{fid}", "metric": "e2e_loss_pct", "t": t, "value": v}
                   for t, v in loss_series[fid].items()]  # fmt: skip
    return rows, series


def link_curves(hops: pd.DataFrame, specs: list[tuple[float, float]]) -> dict[str, curves.LinkCurves]:
    """link name -> the curves (Eqs. 4-7) of the packets that arrived at its queue, at the link's own bandwidth."""
    columns = ["t_enqueue", "t_dequeue", "size", "dropped"]
    return {
        link: curves.LinkCurves(part[columns], specs[int(link.removeprefix("core"))][0])
        for link, part in hops.groupby("link", sort=True)
    }


def node_metrics(
    by_link: dict[str, curves.LinkCurves], warmup: float, end: float, interval: float, thresholds: Sequence[int] = ()
) -> tuple[list[dict], list[dict]]:
    """(metrics rows, series rows) of Koo et al.'s Eqs. 4-7 per core link (see the module docstring)."""
    rows, series = [], []
    for link, link_curve in by_link.items():
        whole = curves.summary_curves(link_curve, warmup, end, thresholds)
        values = {
            "node_queue_bytes_avg": whole["queue_bytes_avg"],
            "node_delay_ms_avg": whole["delay_avg_s"] * 1000,
            "node_delay_ms_max": whole["delay_max_s"] * 1000,
            "node_loss_pct_avg": whole["busy_loss_pct"],
            "node_busy_pct": whole["busy_fraction"] * 100,
            **{f"queue_above_{int(b)}B_pct": whole[f"above_{int(b)}_pct"] for b in thresholds},
        }
        rows += _rows(link, values)
        bins = curves.binned_curves(link_curve, warmup, end, interval)
        for metric, column, factor in _NODE_SERIES:
            series += [{"scope": link, "metric": metric, "t": t, "value": v * factor}
                       for t, v in zip(bins["t"], bins[column], strict=True) if not math.isnan(v)]  # fmt: skip
    return rows, series


# series metric -> (curves.binned column, factor)
_NODE_SERIES = (
    ("node_delay_ms_avg", "delay_avg_s", 1000.0),
    ("node_queue_bytes_avg", "queue_bytes_avg", 1.0),
    ("node_loss_pct_avg", "busy_loss_pct", 1.0),
)


def bound_metrics(
    journeys: pd.DataFrame, params: dict, by_link: dict[str, curves.LinkCurves], warmup: float, end: float,
    interval: float,
) -> tuple[list[dict], list[dict]]:  # fmt: skip
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
    # Flows over the same core links share D_avg: one curve evaluation per set of links, for all their packets.
    for links, packets in delivered.groupby(delivered["fid"].map(lambda f: judgeable[int(f)].links), sort=False):
        fids = packets["fid"].map(lambda f: judgeable[int(f)])
        nodes = fids.map(lambda p: p.nodes).to_numpy(dtype=float)
        propagation = fids.map(lambda p: p.propagation_s).to_numpy(dtype=float)
        exits = packets["t_exit"].to_numpy()
        # per packet: D_avg over the interval before its exit, the largest over the flow's core links
        d_avg = np.max([link_curves[i].delay.mean(exits - interval, exits) for i in links], axis=0)
        over_pkt = packets["delay"].to_numpy() > nodes * d_avg + propagation
        judged.append(pd.DataFrame({"fid": packets["fid"].to_numpy(), "over_pkt": over_pkt, "bin_over": np.nan}))
        # per bin of exit time: each flow's mean delay in the bin against the bin's D_avg
        bin_ds[links] = np.max([link_curves[i].delay.mean(edges, edges + interval) for i in links], axis=0)
        bin_d = pd.Series(bin_ds[links], index=edges)
        mean_delay = packets.groupby([packets["fid"], _bins(packets["t_exit"], warmup, interval)])["delay"].mean()
        flow_of = mean_delay.index.get_level_values(0)
        path_of = [judgeable[int(f)] for f in flow_of]
        bound = np.array([p.nodes for p in path_of]) * bin_d.reindex(mean_delay.index.get_level_values(1)).to_numpy()
        bound += np.array([p.propagation_s for p in path_of])
        judged.append(pd.DataFrame({"fid": flow_of, "over_pkt": np.nan,
                                    "bin_over": (mean_delay.to_numpy() > bound).astype(float)}))  # fmt: skip
    for fid in sorted(delivered["fid"].unique()):
        path = judgeable[int(fid)]
        bin_bound = path.nodes * bin_ds[path.links] + path.propagation_s
        series += [{"scope": f"flow{fid}", "metric": "e2e_delay_bound_ms", "t": t, "value": v * 1000}
                   for t, v in zip(edges, bin_bound, strict=True)]  # fmt: skip
    if not judged:
        return [], series
    table = pd.concat(judged, ignore_index=True)
    rows = []
    for scope, part in e2e_scopes(table, params):
        if len(part):
            rows += _rows(scope, {"e2e_bound_excess_pct": part["bin_over"].mean() * 100,
                                  "e2e_bound_excess_pkt_pct": part["over_pkt"].mean() * 100})  # fmt: skip
    return rows, series


def jain_index(values) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one has everything.

    nan for no values, or when all are 0 (0/0).
    """
    x = np.asarray(values, dtype=float)
    denominator = len(x) * np.sum(x**2)
    return float(np.sum(x) ** 2 / denominator) if denominator else math.nan


def worst_case_fairness(values) -> float:
    """min x / max x: 1 when all are equal, 0 when one gets nothing; nan for no values, or when all are 0."""
    x = np.asarray(values, dtype=float)
    if not len(x) or not x.max():
        return math.nan
    return float(x.min() / x.max())


def _nearest_rows(index: pd.Index, times, tolerance: float | None = None) -> np.ndarray:
    """Positions in a sorted time index of the samples nearest `times` (-1 where none is within tolerance)."""
    return index.get_indexer(np.asarray(times, dtype=float), method="nearest", tolerance=tolerance)


def per_flow_metrics(flows: pd.DataFrame, warmup: float, end: float) -> pd.DataFrame:
    """goodput_Bps, cwnd_mean and retransmits over the window, one row per fid (see the module docstring)."""
    delivered = flows.pivot(index="time", columns="fid", values="delivered_bytes").sort_index()
    retransmits = flows.pivot(index="time", columns="fid", values="retransmits").sort_index()
    first, last = _nearest_rows(delivered.index, [warmup, end])
    t_first, t_last = delivered.index[first], delivered.index[last]
    window = flows[flows["time"].between(t_first, t_last)]
    span = t_last - t_first
    decreases = window.sort_values("time").groupby("fid")["cwnd"].agg(lambda c: int((c.diff() < 0).sum()))
    return pd.DataFrame(
        {
            "goodput_Bps": (delivered.iloc[last] - delivered.iloc[first]) / span if span > 0 else math.nan,
            "cwnd_mean": window.groupby("fid")["cwnd"].mean(),
            "retransmits": retransmits.iloc[last] - retransmits.iloc[first],
            "cwnd_epochs_per_s": decreases / span if span > 0 else math.nan,
        }
    ).astype(float)


def goodput_since_start(flows: pd.DataFrame, starts: dict[int, float], end: float) -> pd.Series:
    """Per fid: payload bytes delivered by the sample nearest `end` / (that sample's time - the flow's start)."""
    delivered = flows.pivot(index="time", columns="fid", values="delivered_bytes").sort_index()
    (last,) = _nearest_rows(delivered.index, [end])
    span = delivered.index[last] - pd.Series(starts, dtype=float).reindex(delivered.columns)
    return (delivered.iloc[last] / span.where(span > 0)).astype(float)


def goodput_summary(goodput: pd.Series) -> dict[str, float]:
    """System goodput, mean goodput per flow and the two fairness indices of a set of flows' goodputs."""
    return {
        "goodput_Bps": float(goodput.sum()),
        "goodput_per_flow_Bps": float(goodput.mean()),
        "fairness_jain": jain_index(goodput),
        "fairness_worst": worst_case_fairness(goodput),
    }


def goodput_series(flows: pd.DataFrame, warmup: float, end: float, interval: float) -> list[dict]:
    """System goodput (bytes delivered by all flows / seconds) in each `interval` from warmup on, scope `all`."""
    total = flows.groupby("time")["delivered_bytes"].sum().sort_index()
    edges = np.arange(warmup, min(end, total.index[-1]) + 1e-9, interval)
    rows = _nearest_rows(total.index, edges, tolerance=interval / 4)
    edges, rows = edges[rows >= 0], rows[rows >= 0]
    times, delivered = total.index.to_numpy()[rows], total.to_numpy()[rows]
    rates = np.diff(delivered) / np.diff(times)
    steps = zip(edges[:-1], rates, strict=True)  # each step belongs to the interval it starts
    return [{"scope": "all", "metric": "goodput_Bps", "t": t, "value": float(v)} for t, v in steps]


def flow_metrics(
    flows: pd.DataFrame,
    groups: dict[int, str] | None,
    warmup: float,
    end: float,
    interval: float,
    starts: dict[int, float] | None = None,
) -> tuple[list[dict], list[dict]]:
    """(metrics rows, series rows) of the TCP flows: per flow, for all flows and per group (if `groups` maps fids).

    `starts` (fid -> start time) adds the _since_start family.
    """
    if flows.empty:
        return [], []
    per_flow = per_flow_metrics(flows, warmup, end)
    rows = [
        {"scope": f"flow{fid}", "metric": metric, "value": value}
        for fid, values in per_flow.iterrows()
        for metric, value in values.items()
    ]
    goodput = per_flow["goodput_Bps"]
    sets = [("all", goodput)]
    if groups:
        sets += [(f"group:{name}", g) for name, g in goodput.groupby(goodput.index.map(groups), sort=True)]
    rows += [{"scope": scope, "metric": m, "value": v} for scope, g in sets for m, v in goodput_summary(g).items()]
    # The same over the whole connection time, [0, duration] (slow start included): §3.2 of Zhang et al. measures
    # throughput "at a time scale of connection time", a reading of the window the experiment's warm-up sets.
    whole = per_flow_metrics(flows, 0.0, end)["goodput_Bps"]
    rows += [
        {"scope": scope, "metric": f"{m}{CONNECTION_SUFFIX}", "value": v}
        for scope, g in sets
        for m, v in goodput_summary(whole.loc[g.index]).items()
    ]
    if starts:
        since = goodput_since_start(flows, starts, end)
        rows += [
            {"scope": scope, "metric": f"{m}{SINCE_START_SUFFIX}", "value": v}
            for scope, g in sets
            for m, v in goodput_summary(since.loc[g.index]).items()
        ]
    total = goodput.sum()
    shares = {scope: g.sum() / total * 100 if total else math.nan for scope, g in sets[1:]}
    rows += [{"scope": scope, "metric": "goodput_share_pct", "value": float(v)} for scope, v in shares.items()]
    epochs = per_flow["cwnd_epochs_per_s"]
    rows += [{"scope": scope, "metric": "cwnd_epochs_per_s", "value": float(epochs.loc[g.index].mean())}
             for scope, g in sets]  # fmt: skip
    return rows, goodput_series(flows, warmup, end, interval)


def named_groups(params: dict) -> dict[int, str]:
    """fid -> group name of every flow in params.json's flows that names one."""
    return {int(flow["fid"]): flow["group"] for flow in params.get("flows", []) if "group" in flow}


def flow_groups(params: dict, fids) -> dict[int, str] | None:
    """fid -> group name from params.json's flows, or None when a flow of `fids` has no group (older runs)."""
    groups = named_groups(params)
    return groups if all(int(fid) in groups for fid in fids) else None


def group_scopes(frame: pd.DataFrame, groups: dict[int, str] | None) -> list[tuple[str, pd.DataFrame]]:
    """("all", frame), then ("group:<name>", its rows) per group present; rows of a fid without a group only in all."""
    scopes = [("all", frame)]
    if groups:
        named = frame["fid"].map(groups)
        scopes += [(f"group:{name}", part) for name, part in frame.groupby(named, sort=True)]
    return scopes


def _rows(scope: str, values: dict[str, float]) -> list[dict]:
    return [{"scope": scope, "metric": metric, "value": float(value)} for metric, value in values.items()]


def _delay_values(prefix: str, delay: pd.Series) -> dict[str, float]:
    """<prefix>_mean, _median and _p<q> of the delays (nan if there are none)."""
    stats = {"mean": delay.mean(), "median": delay.median(),
             **{f"p{q}": delay.quantile(q / 100) for q in OBJECT_DELAY_PERCENTILES}}  # fmt: skip
    return {f"{prefix}_{name}": value if len(delay) else math.nan for name, value in stats.items()}


def object_values(objects: pd.DataFrame, warmup: float, end: float) -> dict[str, float]:
    """The object metrics of one set of http objects (see the module docstring)."""
    done = objects[objects["end"].between(warmup, end)]
    client = done["delivered"] - done["start"] if "delivered" in done else pd.Series(math.nan, index=done.index)
    flows = objects["fid"].nunique()
    return {
        "objects_completed": float(len(done)),
        "objects_per_s": len(done) / (end - warmup),
        **_delay_values("object_delay_s", done["end"] - done["start"]),
        **_delay_values("object_delay_client_s", client.dropna()),
        "object_cycle_s": flows * (end - warmup) / len(done) if len(done) else math.nan,
        "objects_unfinished": float(objects["end"].isna().sum()),
    }


def object_metrics(objects: pd.DataFrame, groups: dict[int, str] | None, warmup: float, end: float) -> list[dict]:
    """Metrics rows of the http objects: for all objects (scope all) and per flow group (with objects_share_pct)."""
    values = {scope: object_values(part, warmup, end) for scope, part in group_scopes(objects, groups)}
    total = values["all"]["objects_completed"]
    for scope in values.keys() - {"all"}:
        values[scope]["objects_share_pct"] = values[scope]["objects_completed"] / total * 100 if total else math.nan
    return [row for scope, v in values.items() for row in _rows(scope, v)]


# per-object metric -> (core_log metric, object metric over the same window) it divides
_PER_OBJECT = {
    "object_wire_bytes": ("core_departed_bytes", "objects_completed"),
    "core_drops_per_object": ("core_drops_per_s", "objects_per_s"),
}


def _sink_window(sinks: pd.DataFrame, warmup: float) -> pd.DataFrame:
    """Per fid: begin (expected at the last sample at or before warmup), end_seq (expected at the last sample) and
    the bytes received between the two samples."""
    ordered = sinks.sort_values(["fid", "time"], kind="stable")
    start = ordered[ordered["time"] <= warmup + 1e-9].groupby("fid").last()
    last = ordered.groupby("fid").last()
    return pd.DataFrame({"begin": start["expected"], "end_seq": last["expected"],
                         "bytes": last["bytes"] - start["bytes"]}).dropna().astype("int64")  # fmt: skip


def sink_values(flows: pd.DataFrame, gaps: pd.DataFrame, seconds: float, blocks_of: Sequence) -> dict[str, float]:
    """The sink metrics of one scope: `flows` its rows of _sink_window, `gaps` its rows of sink_gaps."""
    lost, runs, by_block = 0, [], {(k, h): [] for k, h in blocks_of}
    for fid, window in flows.iterrows():
        seqnos = lost_seqnos(gaps[gaps["fid"] == fid].sort_values("first", kind="stable"))
        lost += int(((seqnos >= window["begin"]) & (seqnos < window["end_seq"])).sum())
        runs.append(gaps.loc[(gaps["fid"] == fid) & (gaps["first"] >= window["begin"]), "count"])
        for k, h in blocks_of:
            by_block[(k, h)].append(blocks(seqnos, window["begin"], window["end_seq"], k, h))
    sent = int((flows["end_seq"] - flows["begin"]).sum())
    lengths = pd.concat(runs) if runs else pd.Series(dtype="int64")
    shares = lengths.value_counts(normalize=True) * 100
    values = {
        "sink_loss_pct": lost / sent * 100 if sent else math.nan,
        "sink_goodput_Bps": flows["bytes"].sum() / seconds,
        **{f"sink_loss_run_{k}_pct": float(shares.get(k, 0.0)) if len(lengths) else math.nan for k in LOSS_RUN_LENGTHS},
        "sink_loss_run_mean": float(lengths.mean()) if len(lengths) else math.nan,
    }
    for (k, h), parts in by_block.items():
        fec = fec_values(Blocks.concat(parts), k, h)
        values |= {f"fec_{name}_{k}_{h}_pct": fec[name] for name in ("plrbc", "plr", "plr_data")}
        values[f"fec_blocks_{k}_{h}"] = fec["blocks"]
    return values


def sink_metrics(sinks: pd.DataFrame, gaps: pd.DataFrame, params: dict, warmup: float, end: float,
                 blocks_of: Sequence = ()) -> list[dict]:  # fmt: skip
    """The metrics of the LossMonitor sinks (see the module docstring): per flow, per group and all."""
    windows = _sink_window(sinks, warmup)
    if windows.empty:
        return []
    groups = flow_groups(params, windows.index)
    scopes = group_scopes(windows.reset_index(), groups)
    scopes += [(f"flow{fid}", windows.loc[[fid]].reset_index()) for fid in windows.index]
    rows = []
    for scope, part in scopes:
        rows += _rows(scope, sink_values(part.set_index("fid"), gaps, end - warmup, blocks_of))
    return rows


def per_object_metrics(rows: list[dict]) -> list[dict]:
    """object_wire_bytes and core_drops_per_object per scope that has both of its metrics (objects > 0)."""
    values = pd.DataFrame(rows, columns=["scope", "metric", "value"]).pivot_table(
        index="scope", columns="metric", values="value", aggfunc="first"
    )
    out = []
    for name, (numerator, objects) in _PER_OBJECT.items():
        if {numerator, objects} <= set(values.columns):
            ratio = values[numerator] / values[objects].where(values[objects] > 0)
            out += [{"scope": scope, "metric": name, "value": float(v)} for scope, v in ratio.dropna().items()]
    return out


# column of core_bin_counts -> (core_bins column, event) it sums
_BIN_COUNTS = {
    "arrivals": ("packets", "arrival"),
    "drops": ("packets", "drop"),
    "departed_bytes": ("bytes", "departure"),
    "hint_sum": ("hint_sum", "arrival"),
    "hinted": ("hinted", "arrival"),
}


def core_bin_counts(bins: pd.DataFrame, interval: float, n_bins: int) -> pd.DataFrame:
    """Every bin k = 0 .. n_bins - 1 (start k x interval) of some core_bins rows, 0 where none: arrivals, drops
    (packets), departed_bytes, and hint_sum and hinted of the arrivals."""
    k = np.rint(bins["bin"].to_numpy(dtype=float) / interval).astype(np.int64)
    full = pd.MultiIndex.from_product([["arrival", "departure", "drop"], range(n_bins)], names=["event", "k"])
    sums = bins.assign(k=k).groupby(["event", "k"])[["packets", "bytes", "hint_sum", "hinted"]].sum()
    sums = sums.reindex(full, fill_value=0)
    columns = {name: sums.loc[event, value].to_numpy(dtype=float) for name, (value, event) in _BIN_COUNTS.items()}
    return pd.DataFrame(columns, index=pd.RangeIndex(n_bins, name="k"))


def _bin_starts(counts: pd.DataFrame, interval: float) -> np.ndarray:
    return counts.index.to_numpy() * interval


def core_bin_values(counts: pd.DataFrame, interval: float, capacity_bps: float, warmup: float, end: float) -> dict:
    """The core_bins metrics of one scope from its core_bin_counts (see the module docstring)."""
    t = _bin_starts(counts, interval)
    window = counts[(t >= warmup - 1e-9) & (t < end - 1e-9)]
    span = end - warmup
    arrivals, drops, hinted = window["arrivals"].sum(), window["drops"].sum(), window["hinted"].sum()
    return {
        "core_arrivals_per_s": arrivals / span,
        "core_drops_per_s": drops / span,
        "core_drop_ratio_pct": drops / arrivals * 100 if arrivals else math.nan,
        "core_cwnd_hint_mean": window["hint_sum"].sum() / hinted if hinted else math.nan,
        "core_utilization": window["departed_bytes"].sum() * 8 / (capacity_bps * span),
        "core_departed_bytes": window["departed_bytes"].sum(),
        "core_drops_per_s_var": (window["drops"] / interval).var(ddof=1),
        **windowed_drop_variances(counts, interval, end),
    }


def windowed_drop_variances(counts: pd.DataFrame, interval: float, end: float) -> dict[str, float]:
    """core_drops_per_s_var@<a>-<b> of the aligned windows [k L, (k + 1) L) in [0, end), L in CORE_VAR_WINDOWS_S."""
    t = _bin_starts(counts, interval)
    rate = counts["drops"] / interval
    out = {}
    for length in CORE_VAR_WINDOWS_S:
        window = np.floor(t / length + 1e-9).astype(np.int64)
        inside = window < math.floor(end / length + 1e-9)  # b = a + L <= end
        variances = rate[inside].groupby(window[inside]).var(ddof=1)
        out |= {f"core_drops_per_s_var@{w * length}-{(w + 1) * length}": v for w, v in variances.items()}
    return out


def core_bin_series(scope: str, counts: pd.DataFrame, interval: float, capacity_bps: float) -> pd.DataFrame:
    """Series core_drops_per_s and core_utilization of one scope, one row per bin (t = bin start)."""
    t = _bin_starts(counts, interval).astype(float)
    per_bin = {
        "core_drops_per_s": counts["drops"].to_numpy() / interval,
        "core_utilization": counts["departed_bytes"].to_numpy() * 8 / (capacity_bps * interval),
    }
    return pd.concat(
        [pd.DataFrame({"scope": scope, "metric": metric, "t": t, "value": v}) for metric, v in per_bin.items()],
        ignore_index=True,
    )


def core_bin_metrics(
    bins: pd.DataFrame, groups: dict[int, str] | None, interval: float, capacity_bps: float, warmup: float, end: float
) -> tuple[list[dict], list[pd.DataFrame]]:
    """(metrics rows, series frames) of core_bins for scope all and per flow group."""
    n_bins = math.ceil(end / interval - 1e-9)
    rows, series = [], []
    for scope, part in group_scopes(bins, groups):
        counts = core_bin_counts(part, interval, n_bins)
        rows += _rows(scope, core_bin_values(counts, interval, capacity_bps, warmup, end))
        series.append(core_bin_series(scope, counts, interval, capacity_bps))
    return rows, series


def core_drop_values(drops: pd.DataFrame) -> dict[str, float]:
    """Queue length and cwnd-hint statistics of some dropped packets (see the module docstring)."""
    qlen = drops["qlen"].astype(float)
    hints = drops.loc[drops["hint"] > 0, "hint"]
    shares = {f"core_drop_hint_le{k}_pct": (hints <= k).mean() * 100 if len(hints) else math.nan for k in HINT_LEVELS}
    return {
        "core_drop_qlen_mean": qlen.mean(),
        "core_drop_qlen_p95": qlen.quantile(0.95),
        "core_drop_qlen_max": qlen.max(),
        "core_drop_hint_mean": hints.mean(),
        "core_drop_hint_min": hints.min(),
        **shares,
    }


def core_delay_values(delays: pd.DataFrame) -> dict[str, float]:
    """Mean, 90th and 99th percentile of some packets' delays (s)."""
    delay = delays["delay"]
    return {
        "core_delay_s_mean": delay.mean(),
        "core_delay_s_p90": delay.quantile(0.9),
        "core_delay_s_p99": delay.quantile(0.99),
    }


def _in_window(frame: pd.DataFrame, warmup: float, end: float) -> pd.DataFrame:
    return frame[(frame["time"] >= warmup) & (frame["time"] < end)]


def core_drop_metrics(drops: pd.DataFrame, groups: dict[int, str] | None, warmup: float, end: float) -> list[dict]:
    """Metrics rows of core_drops for scope all and per flow group."""
    return [
        row
        for scope, part in group_scopes(drops, groups)
        for row in _rows(scope, core_drop_values(_in_window(part, warmup, end)))
    ]


def core_delay_metrics(delays: pd.DataFrame, groups: dict[int, str] | None, warmup: float, end: float) -> list[dict]:
    """Metrics rows of core_delays for scope all, per flow group and per flow."""
    scopes = group_scopes(delays, groups) + [(f"flow{fid}", part) for fid, part in delays.groupby("fid", sort=True)]
    return [row for scope, part in scopes for row in _rows(scope, core_delay_values(_in_window(part, warmup, end)))]


def core_log_metrics(
    tables: Path, params: dict, capacity_bps: float, warmup: float, end: float
) -> tuple[list[dict], list[pd.DataFrame]]:
    """(metrics rows, series frames) of whichever core_log tables the run has (none without monitors.core_log)."""
    groups = named_groups(params)  # a fid whose flow names no group counts only in `all`
    rows, series = [], []
    bins = _read(tables, "core_bins", ["bin", "event", "fid", "packets", "bytes", "hint_sum", "hinted"])
    if bins is not None:
        interval = float(params["monitors"]["core_log"]["interval"])
        rows, series = core_bin_metrics(bins, groups, interval, capacity_bps, warmup, end)
    drops = _read(tables, "core_drops", ["time", "fid", "hint", "qlen"])
    if drops is not None:
        rows += core_drop_metrics(drops, groups, warmup, end)
    delays = _read(tables, "core_delays", ["time", "fid", "delay"])
    if delays is not None:
        rows += core_delay_metrics(delays, groups, warmup, end)
    return rows, series


def drop_cause(layer: pd.Series, reason: pd.Series) -> pd.Series:
    """Each wireless drop's cause (WIRELESS_DROP_CAUSES) from its CMU trace layer and reason."""
    cause = pd.Series("other", index=layer.index)
    cause[layer == "MAC"] = "mac"
    cause[layer == "RTR"] = "route"
    cause[layer == "IFQ"] = "queue"  # an overflow's reason is "---" (Queue::drop gives none)
    cause[(layer == "IFQ") & (reason == "FIL")] = "route"  # purged by the routing agent on a link break
    cause[reason == "ARP"] = "arp"
    return cause


def wireless_drop_metrics(drops: pd.DataFrame, warmup: float, end: float) -> list[dict]:
    """wireless_drops_<cause> and wireless_drops_queue_pct of the TCP data packets dropped in [warmup, end]."""
    data = _in_window(drops, warmup, end)
    data = data[data["ptype"] == "tcp"]
    counts = drop_cause(data["layer"], data["reason"]).value_counts()
    values = {f"wireless_drops_{cause}": float(counts.get(cause, 0)) for cause in WIRELESS_DROP_CAUSES}
    values["wireless_drops_queue_pct"] = counts.get("queue", 0) / len(data) * 100 if len(data) else math.nan
    return _rows("all", values)


def _read(tables: Path, kind: str, columns: list[str] | None = None) -> pd.DataFrame | None:
    path = tables / f"{kind}.parquet"
    return pd.read_parquet(path, columns=columns) if path.is_file() else None


def run_metrics(
    run_dir: Path,
    warmup: float,
    interval: float = INTERVAL_S,
    queue_thresholds: Sequence[int] = (),
    queue_ranges: Sequence[Sequence[int]] = (),
    settle: Sequence[Sequence[float]] = (),
    fec_blocks: Sequence[Sequence[int]] = (),
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The (metrics, series) tables of one run directory, without context columns.

    hops and journeys (from the packet trace), flows (from flows.tsv), objects and the core_log tables are used
    when the run has them; `queue_thresholds` (bytes) are the experiment's, for queue_above_<b>B_pct, and
    `queue_ranges` ([a, b] packets) for queue_pkts_in_<a>_<b>_pct, `settle` ([t0, level]) for
    queue_ave_settle_<level>_s@<t0>, `fec_blocks` ([k, h]) for the fec_<...>_<k>_<h> metrics of LossMonitor sinks.
    """
    params = json.loads((run_dir / "params.json").read_text())
    tables, end = run_dir / "tables", float(params["duration"])
    specs = core_link_specs(params)
    capacity = specs[0][0] if specs else math.nan
    queue = pd.read_parquet(tables / "queue.parquet")
    hops = _read(tables, "hops", ["link", "size", "t_enqueue", "t_dequeue", "queue_delay", "dropped"])
    journeys = _read(tables, "journeys", ["fid", "ptype", "size", "t_enter", "t_exit", "delay", "dropped", "marked"])
    flows = _read(tables, "flows", ["time", "fid", "delivered_bytes", "cwnd", "retransmits"])
    rows, series = link_metrics(queue, hops, [bandwidth for bandwidth, _ in specs], warmup, interval, end, queue_ranges)
    by_link = link_curves(hops, specs) if hops is not None else {}
    node_rows, node_series = node_metrics(by_link, warmup, end, interval, queue_thresholds)
    rows, series = rows + node_rows, series + node_series
    queue_vars = _read(tables, "queue_vars", ["time", "var", "value"])
    var_series = None
    if queue_vars is not None:
        var_rows, var_series = queue_var_metrics(queue_vars, warmup, end)
        rows += var_rows + settle_metrics(queue_vars, settle, end)
    rows += [
        {"scope": "all", "metric": f"bottleneck_{r['metric']}", "value": r["value"]}
        for r in rows
        if r["scope"] == "core0"
    ]
    if journeys is not None:
        e2e_rows, e2e_series = e2e_metrics(journeys, params, warmup, end, interval)
        bound_rows, bound_series = bound_metrics(journeys, params, by_link, warmup, end, interval)
        rows, series = rows + e2e_rows + bound_rows, series + e2e_series + bound_series
    if flows is not None:
        groups = flow_groups(params, flows["fid"].unique())
        starts = {f["fid"]: float(f["start"]) for f in params["flows"] if f.get("kind") == "ftp" and "start" in f}
        tcp_rows, tcp_series = flow_metrics(flows, groups, warmup, end, interval, starts)
        rows, series = rows + tcp_rows, series + tcp_series
    objects = _read(tables, "objects")  # all columns: tables of runs before ns2-patches/0008 have no `delivered`
    if objects is not None:
        rows += object_metrics(objects, flow_groups(params, objects["fid"].unique()), warmup, end)
    sinks = _read(tables, "sinks", ["time", "fid", "bytes", "expected"])
    if sinks is not None:
        rows += sink_metrics(sinks, _read(tables, "sink_gaps", ["fid", "first", "count"]), params, warmup, end,
                             fec_blocks)  # fmt: skip
    wireless_drops = _read(tables, "wireless_drops", ["time", "layer", "reason", "ptype"])
    if wireless_drops is not None:
        rows += wireless_drop_metrics(wireless_drops, warmup, end)
    core_rows, core_series = core_log_metrics(tables, params, capacity, warmup, end)
    rows += core_rows
    rows += per_object_metrics(rows)
    columns = ["scope", "metric", "t", "value"]
    frames = [pd.DataFrame(series, columns=columns), queue_pkts_series(queue, end), *core_series, var_series]
    frames = [frame for frame in frames if frame is not None]
    frames = [frame for frame in frames if len(frame)]
    series = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    return pd.DataFrame(rows, columns=["scope", "metric", "value"]), series
