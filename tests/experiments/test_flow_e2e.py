"""flow_e2e (every flow<fid> scope at once) against the per-scope definition it replaces."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.measure.e2e import _per_bin_loss, counted_runs, e2e_values, flow_e2e, loss_run_values, loss_runs
from experiments.measure.scopes import metric_rows, time_bins


def journeys(seed: int, flows: int = 6, packets: int = 3000) -> pd.DataFrame:
    """Random settled data packets of several flows: some dropped, some marked, one flow never delivers."""
    rng = np.random.default_rng(seed)
    fid = rng.integers(1, flows + 1, packets)
    t_enter = np.sort(rng.uniform(0, 20, packets))
    dropped = (rng.random(packets) < 0.15) | (fid == flows)
    delay = np.where(dropped, np.nan, rng.uniform(0.01, 0.3, packets))
    return pd.DataFrame(
        {
            "fid": fid,
            "t_enter": t_enter,
            "t_exit": t_enter + delay,
            "delay": delay,
            "dropped": dropped,
            "marked": rng.random(packets) < 0.05,
        }
    )


def per_scope(settled: pd.DataFrame, runs: pd.DataFrame, warmup: float, interval: float):
    """The definition: each flow's packets alone through e2e_values, loss_run_values and the two series."""
    rows, series = [], []
    for fid, part in settled.groupby("fid", sort=True):
        scope = f"flow{fid}"
        rows += metric_rows(scope, e2e_values(part, warmup, interval, multi_flow=False))
        rows += metric_rows(scope, loss_run_values(runs.loc[runs["fid"] == fid, "length"]))
        delivered = part[~part["dropped"]]
        delay = delivered.groupby(time_bins(delivered["t_enter"], warmup, interval))["delay"].mean() * 1000
        loss = _per_bin_loss(part, part["dropped"], warmup, interval)
        series += [{"scope": scope, "metric": "e2e_delay_ms_mean", "t": t, "value": v} for t, v in delay.items()]
        series += [{"scope": scope, "metric": "e2e_loss_pct", "t": t, "value": v} for t, v in loss.items()]
    return rows, series


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_flow_e2e_gives_what_each_flow_alone_gives(seed):
    settled = journeys(seed)
    runs = counted_runs(loss_runs(settled), 2.0, 20.0)
    window = settled[settled["t_enter"] >= 2.0]
    got_rows, got_series = flow_e2e(window, runs, 2.0, 1.0)
    want_rows, want_series = per_scope(window, runs, 2.0, 1.0)
    for got, want in ((got_rows, want_rows), (got_series, want_series)):
        got, want = pd.DataFrame(got), pd.DataFrame(want)
        assert got.drop(columns="value").equals(want.drop(columns="value"))  # same rows, same order
        np.testing.assert_allclose(got["value"], want["value"], rtol=1e-12, equal_nan=True)


def test_a_flow_without_delivery_or_runs_gets_nan_not_zero():
    settled = journeys(4)
    rows, _ = flow_e2e(settled, loss_runs(settled).iloc[0:0], 0.0, 1.0)
    values = {(r["scope"], r["metric"]): r["value"] for r in rows}
    assert np.isnan(values[("flow6", "e2e_delay_ms_mean")])  # flow 6 delivers nothing
    assert np.isnan(values[("flow1", "e2e_loss_run_1_pct")])  # no run counted
    assert values[("flow6", "e2e_loss_pct_mean")] == 100


def test_no_packets_no_rows():
    assert flow_e2e(journeys(5).iloc[0:0], pd.DataFrame(columns=["fid", "length"]), 0.0, 1.0) == ([], [])
