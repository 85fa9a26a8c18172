"""Metrics of one run, computed from its parquet tables (docs/DESIGN.md §6).

This docstring is the reference list of every metric. Everything is measured over
[warmup, duration]. Two tidy long tables come out: `metrics` (scope, metric, value)
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
  queue_pkts_min      smallest sampled queue length in packets
  queue_empty_pct     samples with an empty queue (0 packets) / samples x 100
  queue_osc_hz        oscillation frequency: upward crossings of the mean queue length
                      (a sample below queue_pkts_mean followed by one at or above it)
                      per second between the first and last sample of the window
  queue_delay_ms_mean mean time from enqueue to dequeue of the packets not dropped
                      (needs the packet trace)
The first core link, where every flow enters the core, is also reported as
`bottleneck_<metric>` with scope `all`.
Series per link: utilization_pct, drop_pct, queue_bytes_mean, queue_delay_ms_mean per
interval; and queue_pkts, one row per raw sample (t = sample time) over the WHOLE run
[0, duration], warm-up included.

End to end, from the journeys of data packets (entry link to exit link; a TCP
connection's header-only SYN is not data; needs the packet trace):
  e2e_delay_ms_mean / _std   over every delivered packet
  e2e_loss_pct_mean / _std   over the `interval`-second bins of entry time, each bin's
                             dropped / (dropped + delivered) x 100; packets still in
                             flight when the run ends are neither
  e2e_packets                data packets counted (dropped or delivered)

TCP flows, from the flows table (flows.tsv: payload bytes delivered in order, cwnd,
retransmissions; sampled). The window's ends are the samples nearest warmup and
duration:
  goodput_Bps          per flow: delivered bytes between the window's ends / the
                       seconds between them (payload bytes per second)
  cwnd_mean            per flow: mean sampled cwnd_ (packets) over the window's samples
  retransmits          per flow: packets retransmitted between the window's ends
Over the flows of scope `all` and of each flow group `group:<name>` (groups only
when params.json names each flow's group):
  goodput_Bps          sum of the flows' goodput (system goodput)
  goodput_per_flow_Bps mean of the flows' goodput
  fairness_jain        Jain's index of the flows' goodputs, (sum x)^2 / (n sum x^2)
  fairness_worst       worst-case fairness, min x / max x
Series: goodput_Bps of scope `all` per interval (system goodput in each bin).

HTTP objects (objects.tsv, flow kind http), for scope `all` and each flow group; an
object counts when its last byte was acknowledged within [warmup, duration]:
  objects_completed     objects completed
  objects_per_s         objects completed per second of the window
  object_delay_s_mean   mean time from an object's start to its last acknowledgement
  object_delay_s_median median of the same
  objects_unfinished    objects still in progress when the run ended
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

INTERVAL_S = 1.0
TCP_HEADER_BYTES = 40  # ns-2's tcpip_base_hdr_size_: a TCP packet this small carries no data
_UNITS = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}


def bandwidth_bps(text: str) -> float:
    """ns-2's bandwidth notation: '10Mb' = 1e7 bit/s, '1MB' = 8e6 bit/s."""
    number = text.rstrip("bB")
    unit = ""
    if number and number[-1] in _UNITS:
        number, unit = number[:-1], number[-1]
    scale = 8.0 if text.endswith("B") else 1.0
    return float(number) * _UNITS[unit] * scale


_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def seconds(text: str | float) -> float:
    """ns-2's time notation: '10ms' = 0.01; a bare number is seconds."""
    if isinstance(text, int | float):
        return float(text)
    for unit in ("ms", "us", "ns", "s"):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * _TIME_UNITS[unit]
    return float(text)


def _bins(times: pd.Series, start: float, interval: float) -> pd.Series:
    return start + np.floor((times - start) / interval) * interval


def link_metrics(
    queue: pd.DataFrame,
    hops: pd.DataFrame | None,
    capacity_bps: float,
    warmup: float,
    interval: float,
    end: float = math.inf,
):
    """(metrics rows, series rows) of every monitored core link; without hops (no trace), no queueing delay."""
    rows, series = [], []
    for link, samples in queue.groupby("link", sort=True):
        samples = samples[samples["time"].between(warmup - 1e-9, end + 1e-9)].sort_values("time")
        if len(samples) < 2:
            continue
        first, last = samples.iloc[0], samples.iloc[-1]
        span = last["time"] - first["time"]
        arrived = last["arrivals_packets"] - first["arrivals_packets"]
        delays = None if hops is None else delays_of(hops, link, warmup)
        values = {
            "utilization_pct": (last["departures_bytes"] - first["departures_bytes"]) * 8 / (span * capacity_bps) * 100,
            "drop_pct": (last["drops_packets"] - first["drops_packets"]) / arrived * 100 if arrived else math.nan,
            "queue_bytes_mean": samples["size_bytes"].mean(),
            **queue_stats(samples["time"], samples["size_packets"]),
        }
        if delays is not None:
            values["queue_delay_ms_mean"] = delays["queue_delay"].mean() * 1000 if len(delays) else math.nan
        rows += [{"scope": link, "metric": m, "value": float(v)} for m, v in values.items()]
        series += _link_series(link, samples, delays, capacity_bps, warmup, interval)
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
        "queue_pkts_max": x.max(),
        "queue_pkts_min": x.min(),
        "queue_empty_pct": np.mean(x == 0) * 100,
        "queue_osc_hz": upward / span if span > 0 else math.nan,
    }


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


def e2e_metrics(journeys: pd.DataFrame, warmup: float, end: float, interval: float):
    """(metrics rows, series rows) of end-to-end delay and loss, per flow and for all flows."""
    data = journeys[~((journeys["ptype"] == "tcp") & (journeys["size"] <= TCP_HEADER_BYTES))]
    window = data[(data["t_enter"] >= warmup) & (data["t_enter"] < end)]
    settled = window[window["dropped"] | window["t_exit"].notna()]  # not still in flight at the end
    rows, series = [], []
    groups = [("all", settled)] + [(f"flow{fid}", g) for fid, g in settled.groupby("fid", sort=True)]
    for scope, packets in groups:
        delivered = packets[~packets["dropped"]]
        delay_ms = delivered["delay"] * 1000
        binned = packets.assign(t=_bins(packets["t_enter"], warmup, interval))
        per_bin = binned.groupby("t")["dropped"].agg(["sum", "count"])
        loss_pct = per_bin["sum"] / per_bin["count"] * 100
        values = {
            "e2e_delay_ms_mean": delay_ms.mean(),
            "e2e_delay_ms_std": delay_ms.std(ddof=0),
            "e2e_loss_pct_mean": loss_pct.mean(),
            "e2e_loss_pct_std": loss_pct.std(ddof=0),
            "e2e_packets": float(len(packets)),
        }
        rows += [{"scope": scope, "metric": m, "value": float(v)} for m, v in values.items()]
        delay_bins = delivered.assign(t=_bins(delivered["t_enter"], warmup, interval))
        mean_delay = delay_bins.groupby("t")["delay"].mean() * 1000
        series += [{"scope": scope, "metric": "e2e_delay_ms_mean", "t": t, "value": v} for t, v in mean_delay.items()]
        series += [{"scope": scope, "metric": "e2e_loss_pct", "t": t, "value": v} for t, v in loss_pct.items()]
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
    return pd.DataFrame(
        {
            "goodput_Bps": (delivered.iloc[last] - delivered.iloc[first]) / span if span > 0 else math.nan,
            "cwnd_mean": window.groupby("fid")["cwnd"].mean(),
            "retransmits": retransmits.iloc[last] - retransmits.iloc[first],
        }
    ).astype(float)


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
    flows: pd.DataFrame, groups: dict[int, str] | None, warmup: float, end: float, interval: float
) -> tuple[list[dict], list[dict]]:
    """(metrics rows, series rows) of the TCP flows: per flow, for all flows and per group (if `groups` maps fids)."""
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
    return rows, goodput_series(flows, warmup, end, interval)


def flow_groups(params: dict, fids) -> dict[int, str] | None:
    """fid -> group name from params.json's flows, or None when a flow of `fids` has no group (older runs)."""
    groups = {int(flow["fid"]): flow["group"] for flow in params.get("flows", []) if "group" in flow}
    return groups if all(int(fid) in groups for fid in fids) else None


def object_values(objects: pd.DataFrame, warmup: float, end: float) -> dict[str, float]:
    """The object metrics of one set of http objects (see the module docstring)."""
    done = objects[objects["end"].between(warmup, end)]
    delay = done["end"] - done["start"]
    return {
        "objects_completed": float(len(done)),
        "objects_per_s": len(done) / (end - warmup),
        "object_delay_s_mean": delay.mean() if len(done) else math.nan,
        "object_delay_s_median": delay.median() if len(done) else math.nan,
        "objects_unfinished": float(objects["end"].isna().sum()),
    }


def object_metrics(objects: pd.DataFrame, groups: dict[int, str] | None, warmup: float, end: float) -> list[dict]:
    """Metrics rows of the http objects: for all objects (scope all) and per flow group."""
    scopes = [("all", objects)]
    if groups:
        named = objects.assign(group=objects["fid"].map(groups))
        scopes += [(f"group:{name}", part) for name, part in named.groupby("group", sort=True)]
    return [
        {"scope": scope, "metric": metric, "value": float(value)}
        for scope, part in scopes
        for metric, value in object_values(part, warmup, end).items()
    ]


def _read(tables: Path, kind: str, columns: list[str] | None = None) -> pd.DataFrame | None:
    path = tables / f"{kind}.parquet"
    return pd.read_parquet(path, columns=columns) if path.is_file() else None


def run_metrics(run_dir: Path, warmup: float, interval: float = INTERVAL_S) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The (metrics, series) tables of one run directory, without context columns.

    hops and journeys (from the packet trace) and flows (from flows.tsv) are used when the run has them.
    """
    params = json.loads((run_dir / "params.json").read_text())
    tables, end = run_dir / "tables", float(params["duration"])
    capacity = bandwidth_bps(params["topology"]["core_link"]["bandwidth"])
    queue = pd.read_parquet(tables / "queue.parquet")
    hops = _read(tables, "hops", ["link", "t_enqueue", "queue_delay", "dropped"])
    journeys = _read(tables, "journeys", ["fid", "ptype", "size", "t_enter", "t_exit", "delay", "dropped"])
    flows = _read(tables, "flows", ["time", "fid", "delivered_bytes", "cwnd", "retransmits"])
    rows, series = link_metrics(queue, hops, capacity, warmup, interval, end)
    rows += [
        {"scope": "all", "metric": f"bottleneck_{r['metric']}", "value": r["value"]}
        for r in rows
        if r["scope"] == "core0"
    ]
    if journeys is not None:
        e2e_rows, e2e_series = e2e_metrics(journeys, warmup, end, interval)
        rows, series = rows + e2e_rows, series + e2e_series
    if flows is not None:
        tcp_rows, tcp_series = flow_metrics(flows, flow_groups(params, flows["fid"].unique()), warmup, end, interval)
        rows, series = rows + tcp_rows, series + tcp_series
    objects = _read(tables, "objects", ["fid", "start", "end"])
    if objects is not None:
        rows += object_metrics(objects, flow_groups(params, objects["fid"].unique()), warmup, end)
    columns = ["scope", "metric", "t", "value"]
    frames = [frame for frame in (pd.DataFrame(series, columns=columns), queue_pkts_series(queue, end)) if len(frame)]
    series = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    return pd.DataFrame(rows, columns=["scope", "metric", "value"]), series
