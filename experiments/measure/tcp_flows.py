"""TCP flows, from the flows table (flows.tsv: payload bytes delivered in order, cwnd, retransmissions; sampled), per
flow, for all flows and per flow group (groups only when params.json names each flow's group).

The window's ends are the samples nearest warmup and duration; the _connection family takes the samples nearest 0
and duration instead (warm-up and slow start included), the _since_start family each flow's goodput from its own
start (Li's "total data received by the end to the connection time", BQM thesis Ch. 1), the _since_start_delivering
family the same over the flows that delivered anything (delivering_flows_pct: their share). Two decreases of cwnd_
within one sampling interval count as one congestion epoch.

Series: goodput_Bps of scope all per `interval` (system goodput in each bin).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from experiments.measure.scopes import nearest_rows

CONNECTION_SUFFIX = "_connection"  # goodput and fairness over [0, duration] instead of [warmup, duration]


SINCE_START_SUFFIX = "_since_start"  # each flow's goodput from its own start to duration


DELIVERING_SUFFIX = "_since_start_delivering"  # the same over the flows that delivered anything


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


def per_flow_metrics(flows: pd.DataFrame, warmup: float, end: float) -> pd.DataFrame:
    """goodput_Bps, cwnd_mean and retransmits over the window, one row per fid (see the module docstring)."""
    delivered = flows.pivot(index="time", columns="fid", values="delivered_bytes").sort_index()
    retransmits = flows.pivot(index="time", columns="fid", values="retransmits").sort_index()
    first, last = nearest_rows(delivered.index, [warmup, end])
    t_first, t_last = delivered.index[first], delivered.index[last]
    window = flows[flows["time"].between(t_first, t_last)]
    span = t_last - t_first
    decreases = cwnd_decreases(window)
    return pd.DataFrame(
        {
            "goodput_Bps": (delivered.iloc[last] - delivered.iloc[first]) / span if span > 0 else math.nan,
            "cwnd_mean": window.groupby("fid")["cwnd"].mean(),
            "retransmits": retransmits.iloc[last] - retransmits.iloc[first],
            "cwnd_epochs_per_s": decreases / span if span > 0 else math.nan,
        }
    ).astype(float)


def cwnd_decreases(samples: pd.DataFrame) -> pd.Series:
    """Per fid (sorted): how many of its samples, in time order, have a smaller cwnd than the one before."""
    order = np.lexsort((samples["time"].to_numpy(), samples["fid"].to_numpy()))
    fid, cwnd = samples["fid"].to_numpy()[order], samples["cwnd"].to_numpy(dtype=float)[order]
    fids, at = np.unique(fid, return_inverse=True)
    decrease = (cwnd[1:] < cwnd[:-1]) & (fid[1:] == fid[:-1])
    return pd.Series(np.bincount(at[1:][decrease], minlength=fids.size), index=pd.Index(fids, name="fid"))


def goodput_since_start(flows: pd.DataFrame, starts: dict[int, float], end: float) -> pd.Series:
    """Per fid: payload bytes delivered by the sample nearest `end` / (that sample's time - the flow's start)."""
    delivered = flows.pivot(index="time", columns="fid", values="delivered_bytes").sort_index()
    (last,) = nearest_rows(delivered.index, [end])
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
    rows = nearest_rows(total.index, edges, tolerance=interval / 4)
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
        # Li §4.3.2 averages "all the TCP connections", but its hops were logged "for each successful packet
        # transmission": connections that never delivered may not have entered its averages (a measure alternative)
        delivering = since[since > 0]
        rows += [
            {"scope": scope, "metric": f"{m}{DELIVERING_SUFFIX}", "value": v}
            for scope, g in sets
            for m, v in goodput_summary(delivering.loc[delivering.index.intersection(g.index)]).items()
        ]
    delivered = flows.pivot(index="time", columns="fid", values="delivered_bytes").sort_index()
    (last,) = nearest_rows(delivered.index, [end])
    final = delivered.iloc[last]
    rows += [
        {"scope": scope, "metric": "delivering_flows_pct", "value": float((final.loc[g.index] > 0).mean() * 100)}
        for scope, g in sets
    ]
    total = goodput.sum()
    shares = {scope: g.sum() / total * 100 if total else math.nan for scope, g in sets[1:]}
    rows += [{"scope": scope, "metric": "goodput_share_pct", "value": float(v)} for scope, v in shares.items()]
    epochs = per_flow["cwnd_epochs_per_s"]
    rows += [
        {"scope": scope, "metric": "cwnd_epochs_per_s", "value": float(epochs.loc[g.index].mean())} for scope, g in sets
    ]
    return rows, goodput_series(flows, warmup, end, interval)
