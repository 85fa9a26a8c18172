"""Per monitored core link, from the queue monitor (queue.parquet), the sampled queue variables (queue_vars) and
the per-hop trace for the queueing delay; each metric's meaning is measure.registry's.

Over [warmup, duration]: counters are differenced between the window's first and last sample; queue statistics are
over the samples in the window (population standard deviation and variance, ddof 0; percentiles numpy's linear
method, as pandas' quantile); queue_osc_hz counts the upward crossings of the mean between consecutive samples;
idle_max_s is the longest time between two of the window's samples at which departures_packets was seen to change
(idle_max).
The first core link, where every flow enters the core, is also reported as bottleneck_<metric> with scope all
(measure.run).

Series per link and `interval`: utilization_pct, drop_pct, queue_bytes_mean and (with the trace)
queue_delay_ms_mean; queue_pkts, one row per raw sample (t = sample time) over the WHOLE run [0, duration],
warm-up included; qvar_<name>, every sample of a sampled queue variable over [0, duration].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from experiments.measure.scopes import time_bins


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
    # the packets that left each link's queue (not dropped) after warmup, split by link once
    kept = None if hops is None else hops[(hops["t_enqueue"] >= warmup) & ~hops["dropped"]]
    kept_of = {} if kept is None else dict(tuple(kept.groupby("link", sort=False)[["t_enqueue", "queue_delay"]]))
    for link, samples in queue.groupby("link", sort=True):
        capacity = capacity_bps if isinstance(capacity_bps, int | float) else capacity_bps[int(link[4:])]
        samples = samples[samples["time"].between(warmup - 1e-9, end + 1e-9)].sort_values("time")
        if len(samples) < 2:
            continue
        first, last = samples.iloc[0], samples.iloc[-1]
        span = last["time"] - first["time"]
        arrived = last["arrivals_packets"] - first["arrivals_packets"]
        delays = None if kept is None else kept_of.get(link, kept.iloc[0:0][["t_enqueue", "queue_delay"]])
        values = {
            "utilization_pct": (last["departures_bytes"] - first["departures_bytes"]) * 8 / (span * capacity) * 100,
            "idle_max_s": idle_max(samples["time"], samples["departures_packets"]),
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


def idle_max(times: pd.Series, departures: pd.Series) -> float:
    """Seconds of the longest stretch in which the queue monitor counted no departure, from one link's samples in
    the window, sorted by time (at least two).

    With samples t_0 < ... < t_n and departures_packets d_0 .. d_n, the bounds are t_0, every t_i (i >= 1) with
    d_i != d_{i-1} (a departure in (t_{i-1}, t_i]) and t_n; idle_max_s is the largest gap between consecutive
    bounds. So a link that departed a packet in every sampling interval gives the longest sampling interval, one
    that departed none in the window gives t_n - t_0, a stretch begun before the window counts from t_0 and one
    still open at the end until t_n. Between consecutive bounds t_a < t_b there was no departure in (t_a, t_{b-1}],
    so where both are changes the true gap between departures differs from t_b - t_a by less than one sampling
    interval either way."""
    t = times.to_numpy(dtype=float)
    d = departures.to_numpy()
    changed = np.flatnonzero(d[1:] != d[:-1]) + 1  # i with a departure in (t_{i-1}, t_i]
    bounds = np.concatenate(([0], changed, [len(t) - 1]))
    return float(np.diff(t[bounds]).max())


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
        {
            "scope": "core0",
            "metric": samples["var"].map(queue_var_name),
            "t": samples["time"],
            "value": samples["value"],
        }
    )
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
        {
            "scope": "core0",
            "metric": f"queue_ave_settle_{level:g}_s@{t0:g}",
            "value": settle_time(times, values, t0, level, end),
        }
        for t0, level in settle
    ]


def queue_pkts_series(queue: pd.DataFrame, end: float = math.inf) -> pd.DataFrame:
    """Series `queue_pkts`: every raw sample of every monitored link over [0, end], warm-up included."""
    samples = queue[queue["time"] <= end + 1e-9].sort_values(["link", "time"], kind="stable")
    return pd.DataFrame(
        {"scope": samples["link"], "metric": "queue_pkts", "t": samples["time"], "value": samples["size_packets"]}
    ).astype({"value": float})


def _link_series(link, samples, delays, capacity_bps, warmup, interval) -> list[dict]:
    """Per-interval utilization, drop rate, mean queue and (with delays) mean queueing delay of one link."""
    counters = samples.set_index("time")[["arrivals_packets", "departures_bytes", "drops_packets"]]
    edges = np.arange(warmup, samples["time"].iloc[-1] + 1e-9, interval)
    at_edges = counters.reindex(edges, method="nearest", tolerance=interval / 4).dropna()
    steps = at_edges.diff().iloc[1:]
    steps.index = at_edges.index[:-1]  # each step belongs to the interval it starts
    out = []
    utilization = steps["departures_bytes"].to_numpy() * 8 / (interval * capacity_bps) * 100
    arrivals, drops = steps["arrivals_packets"].to_numpy(), steps["drops_packets"].to_numpy()
    for t, used, arrived, dropped in zip(steps.index, utilization, arrivals, drops, strict=True):
        out.append({"scope": link, "metric": "utilization_pct", "t": t, "value": used})
        if arrived:
            out.append({"scope": link, "metric": "drop_pct", "t": t, "value": dropped / arrived * 100})
    inside = samples[samples["time"] < edges[-1]]  # the sample at the very end opens no interval
    queue = inside.assign(t=time_bins(inside["time"], warmup, interval)).groupby("t")["size_bytes"].mean()
    out += [{"scope": link, "metric": "queue_bytes_mean", "t": t, "value": v} for t, v in queue.items()]
    if delays is not None:
        delay = delays.assign(t=time_bins(delays["t_enqueue"], warmup, interval)).groupby("t")["queue_delay"].mean()
        out += [{"scope": link, "metric": "queue_delay_ms_mean", "t": t, "value": v * 1000} for t, v in delay.items()]
    return out
