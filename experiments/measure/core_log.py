"""The core log (monitors.core_log: tables core_bins, core_drops and core_delays, DESIGN.md §5.4), at the first
core link core0, over [warmup, duration) ("window seconds" = duration - warmup), for scope all and each flow group
(a fid whose flow names no group counts only in all; a group appears when the table has rows of its flows).

Bins are monitors.core_log.interval seconds long; those starting in [warmup, duration) count. The windowed drop
variances core_drops_per_s_var@<a>-<b> take every aligned window of L = 100, 500 and 1000 s from time 0 whatever
the warm-up (a = k x L, b = a + L <= duration, integer seconds). core_delays logs the TCP data packets of the first
flow of each group, also per flow.

Series, scope all and each group, one row per bin over the whole run [0, duration), warm-up included, 0 in bins
without events (t = bin start): core_drops_per_s (drops in the bin / interval) and core_utilization (bytes departed
x 8 / (bandwidth x interval)).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from experiments.measure.registry import CORE_VAR_WINDOWS_S, HINT_LEVELS
from experiments.measure.scopes import RunTables, group_scopes, in_window, metric_rows, named_groups

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
        rows += metric_rows(scope, core_bin_values(counts, interval, capacity_bps, warmup, end))
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


def core_drop_metrics(drops: pd.DataFrame, groups: dict[int, str] | None, warmup: float, end: float) -> list[dict]:
    """Metrics rows of core_drops for scope all and per flow group."""
    return [
        row
        for scope, part in group_scopes(drops, groups)
        for row in metric_rows(scope, core_drop_values(in_window(part, warmup, end)))
    ]


def core_delay_metrics(delays: pd.DataFrame, groups: dict[int, str] | None, warmup: float, end: float) -> list[dict]:
    """Metrics rows of core_delays for scope all, per flow group and per flow."""
    scopes = group_scopes(delays, groups) + [(f"flow{fid}", part) for fid, part in delays.groupby("fid", sort=True)]
    return [
        row for scope, part in scopes for row in metric_rows(scope, core_delay_values(in_window(part, warmup, end)))
    ]


def core_log_metrics(
    tables: RunTables, params: dict, capacity_bps: float, warmup: float, end: float
) -> tuple[list[dict], list[pd.DataFrame]]:
    """(metrics rows, series frames) of whichever core_log tables the run has (none without monitors.core_log)."""
    groups = named_groups(params)  # a fid whose flow names no group counts only in `all`
    rows, series = [], []
    bins = tables.read("core_bins", ["bin", "event", "fid", "packets", "bytes", "hint_sum", "hinted"])
    if bins is not None:
        interval = float(params["monitors"]["core_log"]["interval"])
        rows, series = core_bin_metrics(bins, groups, interval, capacity_bps, warmup, end)
    drops = tables.read("core_drops", ["time", "fid", "hint", "qlen"])
    if drops is not None:
        rows += core_drop_metrics(drops, groups, warmup, end)
    delays = tables.read("core_delays", ["time", "fid", "delay"])
    if delays is not None:
        rows += core_delay_metrics(delays, groups, warmup, end)
    return rows, series
