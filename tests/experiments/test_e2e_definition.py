"""experiments/measure/e2e.py (numpy, all scopes at once) against the definition: the pandas code it replaced,
kept here, one scope at a time. Values may differ in their last bits (pandas' group-by means sum with Kahan's
compensation); rows, their order and every NaN must be the same."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from experiments.measure.e2e import e2e_metrics, flow_e2e, flow_paths, loss_runs
from experiments.measure.registry import LOSS_RUN_LENGTHS
from experiments.measure.scopes import TCP_HEADER_BYTES, metric_rows, time_bins

FLOWS = 7  # flow 7 delivers nothing; flows 5-7 have no group (only in all and their own scope)
PARAMS = {
    "topology": {
        "kind": "chain",
        "core_nodes": 3,
        "core_link": {"bandwidth": "1Mb", "delay": "10ms"},
        "edge_link": {"bandwidth": "10Mb", "delay": "1ms"},
    },
    "flows": [
        {"fid": 1, "group": "tcp", "enter": 0, "leave": 2},
        {"fid": 2, "group": "tcp", "enter": 0, "leave": 1},
        {"fid": 3, "group": "cross", "enter": 1, "leave": 2},
        {"fid": 4, "group": "cross", "enter": 0, "leave": 2},
        {"fid": 5},
        {"fid": 6, "enter": 0, "leave": 2},
        {"fid": 7},
    ],
}


def journeys(seed: int, packets: int = 4000) -> pd.DataFrame:
    """Random journeys: drops in bursts, CE marks, packets in flight at the end, header-only TCP packets."""
    rng = np.random.default_rng(seed)
    fid = rng.integers(1, FLOWS + 1, packets)
    t_enter = np.sort(rng.uniform(0, 20, packets))
    burst = np.repeat(rng.random(packets // 4) < 0.2, 4)[:packets]
    dropped = burst | (rng.random(packets) < 0.05) | (fid == FLOWS)
    in_flight = ~dropped & (t_enter > 19.7) & (rng.random(packets) < 0.5)
    delay = np.where(dropped | in_flight, np.nan, rng.uniform(0.01, 0.3, packets))
    return pd.DataFrame(
        {
            "fid": fid.astype(np.int32),
            "ptype": np.where(rng.random(packets) < 0.9, "tcp", "cbr"),
            "size": np.where(rng.random(packets) < 0.05, TCP_HEADER_BYTES, 1040),
            "t_enter": t_enter,
            "t_exit": t_enter + delay,
            "delay": delay,
            "dropped": dropped,
            "marked": ~dropped & (rng.random(packets) < 0.05),
        }
    )


# ---- the definition (the pandas code of experiments/measure/e2e.py up to this test's commit) ----
def _per_bin_loss(packets, lost, warmup, interval):
    per_bin = lost.groupby(time_bins(packets["t_enter"], warmup, interval)).agg(["sum", "count"])
    return per_bin["sum"] / per_bin["count"] * 100


def _values(packets, warmup, interval, multi_flow):
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


def _loss_runs(data):
    flows = data[["fid", "t_enter", "dropped"]].assign(delivered=data["t_exit"].notna())
    flows = flows.sort_values("fid", kind="stable")
    same = flows["fid"].eq(flows["fid"].shift())
    starts = flows["dropped"] & ~(flows["dropped"].shift(fill_value=False) & same)
    next_delivered = flows["fid"].eq(flows["fid"].shift(-1)) & flows["delivered"].shift(-1, fill_value=False)
    lost = flows.assign(run=starts.cumsum(), next_delivered=next_delivered)[flows["dropped"]]
    runs = lost.groupby("run").agg(
        fid=("fid", "first"), t_start=("t_enter", "first"), length=("fid", "size"), closed=("next_delivered", "last")
    )
    return runs.reset_index(drop=True)


def _run_values(lengths):
    names = [f"e2e_loss_run_{k}_pct" for k in LOSS_RUN_LENGTHS]
    if lengths.empty:
        return dict.fromkeys([*names, "e2e_loss_run_mean"], math.nan)
    shares = lengths.value_counts(normalize=True) * 100
    return {n: float(shares.get(k, 0.0)) for n, k in zip(names, LOSS_RUN_LENGTHS, strict=True)} | {
        "e2e_loss_run_mean": float(lengths.mean())
    }


def _scopes(packets, params):
    groups = {f["fid"]: f["group"] for f in params["flows"] if "group" in f}
    through = [fid for fid, path in flow_paths(params).items() if path.through]
    named = packets["fid"].map(groups)
    scopes = [("all", packets), ("through", packets[packets["fid"].isin(through)])]
    scopes += [(f"group:{name}", part) for name, part in packets.groupby(named, sort=True)]
    return scopes + [(f"flow{fid}", part) for fid, part in packets.groupby("fid", sort=True)]


def definition(journeys, params, warmup, end, interval):
    data = journeys[~((journeys["ptype"] == "tcp") & (journeys["size"] <= TCP_HEADER_BYTES))]
    window = data[(data["t_enter"] >= warmup) & (data["t_enter"] < end)]
    settled = window[window["dropped"] | window["t_exit"].notna()]
    runs = _loss_runs(data)
    runs = runs[(runs["t_start"] >= warmup) & (runs["t_start"] < end) & runs["closed"]]
    rows, series = [], []
    for scope, packets in _scopes(settled, params):
        if packets.empty:
            continue
        rows += metric_rows(scope, _values(packets, warmup, interval, multi_flow=not scope.startswith("flow")))
        rows += metric_rows(scope, _run_values(runs.loc[runs["fid"].isin(packets["fid"].unique()), "length"]))
        delivered = packets[~packets["dropped"]]
        delay = delivered.groupby(time_bins(delivered["t_enter"], warmup, interval))["delay"].mean() * 1000
        loss = _per_bin_loss(packets, packets["dropped"], warmup, interval)
        series += [{"scope": scope, "metric": "e2e_delay_ms_mean", "t": t, "value": v} for t, v in delay.items()]
        series += [{"scope": scope, "metric": "e2e_loss_pct", "t": t, "value": v} for t, v in loss.items()]
    return rows, series


# ---- the tests ----
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("interval", [1.0, 0.3])
def test_e2e_metrics_give_what_the_definition_gives(seed, interval):
    frame = journeys(seed)
    got_rows, got_series = e2e_metrics(frame, PARAMS, 2.0, 20.0, interval)
    want_rows, want_series = definition(frame, PARAMS, 2.0, 20.0, interval)
    assert {r["scope"] for r in got_rows} >= {"all", "through", "group:tcp", "group:cross", "flow7"}
    for got, want in ((got_rows, want_rows), (got_series, want_series)):
        got, want = pd.DataFrame(got), pd.DataFrame(want)
        assert got.drop(columns="value").equals(want.drop(columns="value"))  # same rows, same order
        np.testing.assert_allclose(got["value"], want["value"], rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("seed", [1, 5])
def test_loss_runs_are_the_definition_s(seed):
    data = journeys(seed)
    pd.testing.assert_frame_equal(loss_runs(data), _loss_runs(data), check_dtype=False)


def test_a_flow_without_delivery_or_runs_gets_nan_not_zero():
    settled = journeys(4)
    settled = settled[settled["dropped"] | settled["t_exit"].notna()]
    rows, _ = flow_e2e(settled, loss_runs(settled).iloc[0:0], 0.0, 1.0)
    values = {(r["scope"], r["metric"]): r["value"] for r in rows}
    assert np.isnan(values[(f"flow{FLOWS}", "e2e_delay_ms_mean")])  # it delivers nothing
    assert np.isnan(values[("flow1", "e2e_loss_run_1_pct")])  # no run counted
    assert values[(f"flow{FLOWS}", "e2e_loss_pct_mean")] == 100


def test_no_packets_no_rows():
    assert flow_e2e(journeys(5).iloc[0:0], pd.DataFrame(columns=["fid", "length"]), 0.0, 1.0) == ([], [])
    assert loss_runs(journeys(5).iloc[0:0]).empty
