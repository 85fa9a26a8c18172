"""Metrics of one run, computed from its parquet tables (docs/DESIGN.md §6).

Everything is measured over [warmup, duration]. Two tidy long tables come out:
`metrics` (scope, metric, value) with one value per run, and `series` (scope, metric,
t, value) per `interval` seconds, for time-series figures. `scope` is a link name
(core0, core1, ...), a flow (flow1, ...) or `all` (every flow together).

Per core link, from the queue monitor and the per-hop trace:
  utilization_pct     bytes departed x 8 / (seconds x link bandwidth) x 100
  drop_pct            packets dropped / packets arrived x 100
  queue_bytes_mean    mean of the sampled queue length in bytes
  queue_delay_ms_mean mean time from enqueue to dequeue of the packets not dropped
The first core link, where every flow enters the core, is also reported as
`bottleneck_<metric>` with scope `all`.

End to end, from the journeys of data packets (entry link to exit link; a TCP
connection's header-only SYN is not data):
  e2e_delay_ms_mean / _std   over every delivered packet
  e2e_loss_pct_mean / _std   over the `interval`-second bins of entry time, each bin's
                             dropped / (dropped + delivered) x 100; packets still in
                             flight when the run ends are neither
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


def link_metrics(queue: pd.DataFrame, hops: pd.DataFrame, capacity_bps: float, warmup: float, interval: float):
    """(metrics rows, series rows) of every monitored core link."""
    rows, series = [], []
    for link, samples in queue.groupby("link", sort=True):
        samples = samples[samples["time"] >= warmup - 1e-9].sort_values("time")
        if len(samples) < 2:
            continue
        first, last = samples.iloc[0], samples.iloc[-1]
        span = last["time"] - first["time"]
        arrived = last["arrivals_packets"] - first["arrivals_packets"]
        delays = delays_of(hops, link, warmup)
        values = {
            "utilization_pct": (last["departures_bytes"] - first["departures_bytes"]) * 8 / (span * capacity_bps) * 100,
            "drop_pct": (last["drops_packets"] - first["drops_packets"]) / arrived * 100 if arrived else math.nan,
            "queue_bytes_mean": samples["size_bytes"].mean(),
            "queue_delay_ms_mean": delays["queue_delay"].mean() * 1000 if len(delays) else math.nan,
        }
        rows += [{"scope": link, "metric": m, "value": float(v)} for m, v in values.items()]
        series += _link_series(link, samples, delays, capacity_bps, warmup, interval)
    return rows, series


def delays_of(hops: pd.DataFrame, link: str, warmup: float) -> pd.DataFrame:
    """Enqueue time and queueing delay of the packets that left `link`'s queue (not dropped)."""
    kept = hops[(hops["link"] == link) & (hops["t_enqueue"] >= warmup) & ~hops["dropped"]]
    return kept[["t_enqueue", "queue_delay"]]


def _link_series(link, samples, delays, capacity_bps, warmup, interval) -> list[dict]:
    """Per-interval utilization, drop rate, mean queue and mean queueing delay of one link."""
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
    delay = delays.assign(t=_bins(delays["t_enqueue"], warmup, interval)).groupby("t")["queue_delay"].mean() * 1000
    out += [{"scope": link, "metric": "queue_delay_ms_mean", "t": t, "value": v} for t, v in delay.items()]
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


def run_metrics(run_dir: Path, warmup: float, interval: float = INTERVAL_S) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The (metrics, series) tables of one run directory, without context columns."""
    params = json.loads((run_dir / "params.json").read_text())
    tables = run_dir / "tables"
    capacity = bandwidth_bps(params["topology"]["core_link"]["bandwidth"])
    queue = pd.read_parquet(tables / "queue.parquet")
    hops = pd.read_parquet(tables / "hops.parquet", columns=["link", "t_enqueue", "queue_delay", "dropped"])
    journeys = pd.read_parquet(
        tables / "journeys.parquet", columns=["fid", "ptype", "size", "t_enter", "t_exit", "delay", "dropped"]
    )
    link_rows, link_series = link_metrics(queue, hops, capacity, warmup, interval)
    e2e_rows, e2e_series = e2e_metrics(journeys, warmup, params["duration"], interval)
    bottleneck = [
        {"scope": "all", "metric": f"bottleneck_{r['metric']}", "value": r["value"]}
        for r in link_rows
        if r["scope"] == "core0"
    ]
    metrics = pd.DataFrame(link_rows + bottleneck + e2e_rows, columns=["scope", "metric", "value"])
    series = pd.DataFrame(link_series + e2e_series, columns=["scope", "metric", "t", "value"])
    return metrics, series
