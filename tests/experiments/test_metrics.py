"""Metrics on tiny hand-made tables, with the answers worked out by hand."""

import math

import pandas as pd
import pytest

from experiments.metrics import bandwidth_bps, e2e_metrics, link_metrics, seconds

QUEUE = pd.DataFrame(
    {
        "time": [0.0, 1.0, 2.0],
        "link": ["core0"] * 3,
        "size_bytes": [0, 1000, 3000],
        "arrivals_packets": [0, 100, 200],
        "departures_bytes": [0, 100_000, 225_000],
        "drops_packets": [0, 2, 2],
    }
)
HOPS = pd.DataFrame(
    {
        "link": ["core0"] * 3,
        "t_enqueue": [0.5, 1.5, 1.6],
        "queue_delay": [0.010, 0.030, None],
        "dropped": [False, False, True],
    }
)
NaN = math.nan
JOURNEYS = pd.DataFrame(
    {
        "fid": [1, 1, 1, 1, 1, 2, 2],
        "ptype": ["tcp"] * 5 + ["cbr"] * 2,
        "size": [40, 540, 540, 540, 540, 500, 500],  # the first is flow 1's SYN: not data
        "t_enter": [0.0, 0.2, 0.4, 1.2, 1.3, 0.5, 1.9],
        "t_exit": [0.03, 0.25, 0.47, NaN, 1.34, 0.52, NaN],
        "delay": [0.03, 0.05, 0.07, NaN, 0.04, 0.02, NaN],
        "dropped": [False, False, False, True, False, False, False],  # the last is still in flight at t=2
    }
)


def as_dict(rows, scope):
    return {r["metric"]: r["value"] for r in rows if r["scope"] == scope}


@pytest.mark.parametrize(
    "text,bps", [("10Mb", 1e7), ("100Mb", 1e8), ("1.5Mb", 1.5e6), ("64Kb", 64e3), ("1MB", 8e6), ("800b", 800)]
)
def test_bandwidth_notation(text, bps):
    assert bandwidth_bps(text) == bps


def test_link_metrics():
    rows, series = link_metrics(QUEUE, HOPS, capacity_bps=1e6, warmup=0.0, interval=1.0)
    got = as_dict(rows, "core0")
    assert got["utilization_pct"] == pytest.approx(90.0)  # 225 000 B x 8 / (2 s x 1 Mb/s)
    assert got["drop_pct"] == pytest.approx(1.0)  # 2 of 200
    assert got["queue_bytes_mean"] == pytest.approx(4000 / 3)
    assert got["queue_delay_ms_mean"] == pytest.approx(20.0)  # (10 + 30) / 2; the dropped one has none
    util = {s["t"]: s["value"] for s in series if s["metric"] == "utilization_pct"}
    assert util == pytest.approx({0.0: 80.0, 1.0: 100.0})
    drops = {s["t"]: s["value"] for s in series if s["metric"] == "drop_pct"}
    assert drops == pytest.approx({0.0: 2.0, 1.0: 0.0})


def test_warmup_excludes_the_start():
    rows, _ = link_metrics(QUEUE, HOPS, capacity_bps=1e6, warmup=1.0, interval=1.0)
    got = as_dict(rows, "core0")
    assert got["utilization_pct"] == pytest.approx(100.0)  # 125 000 B in the last second
    assert got["drop_pct"] == pytest.approx(0.0)
    assert got["queue_delay_ms_mean"] == pytest.approx(30.0)


def test_e2e_metrics():
    rows, series = e2e_metrics(JOURNEYS, warmup=0.0, end=2.0, interval=1.0)
    everything = as_dict(rows, "all")
    assert everything["e2e_delay_ms_mean"] == pytest.approx(45.0)  # 50, 70, 40, 20
    assert everything["e2e_delay_ms_std"] == pytest.approx(math.sqrt(325))
    assert everything["e2e_loss_pct_mean"] == pytest.approx(25.0)  # bins: 0 of 3, 1 of 2
    assert everything["e2e_loss_pct_std"] == pytest.approx(25.0)
    assert everything["e2e_packets"] == 5  # the packet in flight at the end is not counted
    flow1 = as_dict(rows, "flow1")
    assert flow1["e2e_delay_ms_mean"] == pytest.approx(160 / 3)
    assert as_dict(rows, "flow2")["e2e_loss_pct_mean"] == 0.0
    delay_series = {s["t"]: s["value"] for s in series if s["scope"] == "all" and s["metric"] == "e2e_delay_ms_mean"}
    assert delay_series == pytest.approx({0.0: (50 + 70 + 20) / 3, 1.0: 40.0})


@pytest.mark.parametrize(
    "text,s", [("10ms", 0.01), ("1ms", 0.001), ("2s", 2.0), ("500us", 5e-4), ("0.5", 0.5), (3, 3.0)]
)
def test_time_notation(text, s):
    assert seconds(text) == pytest.approx(s)
