"""Metrics on tiny hand-made tables, with the answers worked out by hand."""

import math

import numpy as np
import pandas as pd
import pytest

from experiments.config.units import bandwidth_bps, seconds
from experiments.measure.e2e import e2e_metrics
from experiments.measure.links import (
    idle_max,
    link_metrics,
    queue_pkts_series,
    queue_range_shares,
    queue_stats,
    queue_var_metrics,
    settle_metrics,
    settle_time,
)
from experiments.measure.per_hop import bound_metrics, link_curves, node_metrics
from experiments.measure.run import run_metrics
from experiments.measure.scopes import core_link_specs, flow_groups
from experiments.measure.tcp_flows import cwnd_decreases, flow_metrics, jain_index, worst_case_fairness

QUEUE = pd.DataFrame(
    {
        "time": [0.0, 1.0, 2.0],
        "link": ["core0"] * 3,
        "size_bytes": [0, 1000, 3000],
        "size_packets": [0, 2, 6],
        "arrivals_packets": [0, 100, 200],
        "departures_packets": [0, 100, 225],
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
        "marked": [False, False, True, False, False, False, False],  # the packet entering at 0.4 arrives CE-marked
    }
)
# Flow 1 (group tcp) crosses the chain C0->C1->C2; flow 2 (group udp) leaves at C1: not `through`.
E2E_PARAMS = {
    "topology": {
        "kind": "chain",
        "core_nodes": 3,
        "core_link": {"bandwidth": "1Mb", "delay": "10ms"},
        "edge_link": {"bandwidth": "100Mb", "delay": "1ms"},
    },
    "flows": [{"fid": 1, "group": "tcp"}, {"fid": 2, "group": "udp", "leave": 1}],
}


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
    assert got["queue_pkts_mean"] == pytest.approx(8 / 3) and got["queue_pkts_max"] == 6
    assert got["idle_max_s"] == pytest.approx(1.0)  # a departure in each of the two 1-s sampling intervals
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
    rows, series = e2e_metrics(JOURNEYS, E2E_PARAMS, warmup=0.0, end=2.0, interval=1.0)
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


def test_e2e_marks_flows_groups_and_through():
    rows, _ = e2e_metrics(JOURNEYS, E2E_PARAMS, warmup=0.0, end=2.0, interval=1.0)
    everything = as_dict(rows, "all")
    # a mark counts as a loss: bin 0 has 1 of 3 (the marked one), bin 1 1 of 2 (the dropped one)
    assert everything["e2e_loss_marked_pct_mean"] == pytest.approx((100 / 3 + 50) / 2)
    assert everything["e2e_loss_marked_pct_std"] == pytest.approx((50 - 100 / 3) / 2)
    # across the flows: flow 1's mean delay 160/3 ms and loss 1 of 4; flow 2's 20 ms and 0 of 1
    assert everything["e2e_delay_ms_flow_mean"] == pytest.approx((160 / 3 + 20) / 2)
    assert everything["e2e_delay_ms_flow_std"] == pytest.approx((160 / 3 - 20) / 2)
    assert everything["e2e_loss_pct_flow_mean"] == pytest.approx(12.5)
    assert everything["e2e_loss_pct_flow_std"] == pytest.approx(12.5)
    through = as_dict(rows, "through")  # flow 1 only
    assert through["e2e_delay_ms_mean"] == pytest.approx(160 / 3) and through["e2e_packets"] == 4
    assert through["e2e_delay_ms_flow_std"] == 0.0
    assert as_dict(rows, "group:udp")["e2e_packets"] == 1
    assert "e2e_delay_ms_flow_std" not in as_dict(rows, "flow1")  # one flow has no spread across flows


@pytest.mark.parametrize(
    "text,s", [("10ms", 0.01), ("1ms", 0.001), ("2s", 2.0), ("500us", 5e-4), ("0.5", 0.5), (3, 3.0)]
)
def test_time_notation(text, s):
    assert seconds(text) == pytest.approx(s)


# A square-ish wave of queue lengths, one sample per second from 0 to 8 s, on core0; core1 is always empty.
WAVE = [0, 3, 6, 3, 0, 3, 6, 3, 0]
WAVE_QUEUE = pd.DataFrame(
    {
        "time": [float(t) for t in range(9)] * 2,
        "link": ["core0"] * 9 + ["core1"] * 9,
        "size_bytes": [500 * x for x in WAVE] + [0] * 9,
        "size_packets": WAVE + [0] * 9,
        "arrivals_packets": list(range(0, 90, 10)) * 2,
        "departures_packets": list(range(9)) * 2,
        "departures_bytes": list(range(0, 9000, 1000)) * 2,
        "drops_packets": [0] * 18,
    }
)


def test_queue_length_statistics():
    rows, _ = link_metrics(WAVE_QUEUE, None, capacity_bps=1e6, warmup=0.0, interval=1.0)
    got = as_dict(rows, "core0")
    assert got["queue_pkts_mean"] == pytest.approx(8 / 3)  # 24 packets / 9 samples
    assert got["queue_pkts_std"] == pytest.approx(math.sqrt(108 / 9 - (8 / 3) ** 2))  # population: E[x^2] - mean^2
    # sorted 0 0 0 3 3 3 3 6 6: the 95th percentile lies at position 0.95 x 8 = 7.6, between two 6s
    assert got["queue_pkts_p95"] == 6.0
    assert (got["queue_pkts_max"], got["queue_pkts_min"]) == (6, 0)
    assert got["queue_empty_pct"] == pytest.approx(100 / 3)  # 3 of 9 samples
    assert got["queue_osc_hz"] == pytest.approx(2 / 8)  # 0 -> 3 crosses 8/3 upwards twice in 8 s
    idle = as_dict(rows, "core1")
    assert idle["queue_pkts_std"] == 0 and idle["queue_empty_pct"] == 100 and idle["queue_osc_hz"] == 0


def test_queue_statistics_exclude_the_warmup():
    got = as_dict(link_metrics(WAVE_QUEUE, None, capacity_bps=1e6, warmup=4.0, interval=1.0)[0], "core0")
    assert got["queue_pkts_mean"] == pytest.approx(2.4)  # 0 3 6 3 0
    assert got["queue_empty_pct"] == pytest.approx(40.0)
    assert got["queue_osc_hz"] == pytest.approx(1 / 4)


def test_without_hops_there_is_no_queueing_delay():
    rows, series = link_metrics(WAVE_QUEUE, None, capacity_bps=1e6, warmup=0.0, interval=1.0)
    assert "queue_delay_ms_mean" not in {r["metric"] for r in rows} | {s["metric"] for s in series}
    assert as_dict(rows, "core0")["utilization_pct"] == pytest.approx(0.8)  # 8000 B x 8 / (8 s x 1 Mb/s)


def test_queue_pkts_series_is_every_sample_of_the_whole_run():
    series = queue_pkts_series(WAVE_QUEUE, end=8.0)
    assert len(series) == 18 and set(series["metric"]) == {"queue_pkts"}
    core0 = series[series["scope"] == "core0"]
    assert core0["t"].tolist() == [float(t) for t in range(9)] and core0["value"].tolist() == WAVE
    assert len(queue_pkts_series(WAVE_QUEUE, end=4.0)) == 10  # 0..4 s, per link


def departing(times, departures, link="core0") -> pd.DataFrame:
    """A queue monitor's samples of one link (the columns of QUEUE) with the given departures_packets."""
    n = len(times)
    return pd.DataFrame(
        {
            "time": times,
            "link": link,
            "size_bytes": [0] * n,
            "size_packets": [0] * n,
            "arrivals_packets": departures,
            "departures_packets": departures,
            "departures_bytes": [1000 * d for d in departures],
            "drops_packets": [0] * n,
        }
    )


# Samples every 0.01 s over [0, 10]: a departure in every sampling interval except those of (2.00, 4.99] (the
# counter changes at 2.00 and next at 5.00: 3 s without a departure to within one sampling interval).
STEPS = np.arange(1001)
TIMES = list(STEPS * 0.01)
STALLED = list(np.where(STEPS < 200, STEPS, np.where(STEPS < 500, 200, STEPS - 299)))


def idle_of(queue, warmup=0.0, end=math.inf):
    return as_dict(link_metrics(queue, None, capacity_bps=1e6, warmup=warmup, interval=1.0, end=end)[0], "core0")[
        "idle_max_s"
    ]


def test_idle_max_is_the_longest_stretch_without_a_departure():
    assert (STALLED[199], STALLED[200], STALLED[499], STALLED[500]) == (199, 200, 200, 201)
    assert idle_of(departing(TIMES, STALLED)) == pytest.approx(3.0)  # 5.00 - 2.00
    assert idle_max(pd.Series(TIMES), pd.Series(STALLED)) == pytest.approx(3.0)


def test_idle_max_of_a_link_departing_in_every_interval_is_one_interval():
    assert idle_of(departing(TIMES, list(STEPS))) == pytest.approx(0.01)
    # uneven sampling: the longest interval
    assert idle_max(pd.Series([0.0, 0.1, 0.3, 0.35]), pd.Series([0, 1, 2, 3])) == pytest.approx(0.2)


def test_idle_max_without_a_departure_in_the_window_is_the_window():
    # departures until t = 3.00, none after: the window [4, 9] holds none
    stopped = list(np.minimum(STEPS, 300))
    assert idle_of(departing(TIMES, stopped), warmup=4.0, end=9.0) == pytest.approx(5.0)
    assert idle_of(departing(TIMES, [7] * len(TIMES))) == pytest.approx(10.0)  # never a departure: 0 .. 10


def test_idle_max_counts_only_the_window():
    assert idle_of(departing(TIMES, STALLED), warmup=6.0) == pytest.approx(0.01)  # the stall is before the warm-up
    assert idle_of(departing(TIMES, STALLED), warmup=3.5) == pytest.approx(1.5)  # cut at the window's first sample
    assert idle_of(departing(TIMES, STALLED), end=4.0) == pytest.approx(2.0)  # and at its last (2.00 .. 4.00)


# The paper's worked example (Zhang, Mamas, Tsaoussidis): six flows, in Mb/s.
PAPER_FLOWS = [9, 9.5, 8.5, 9, 9, 6]


def test_jain_index_of_the_papers_example():
    assert jain_index(PAPER_FLOWS) == pytest.approx(51**2 / (6 * 441.5))  # 0.98188...
    assert round(jain_index(PAPER_FLOWS), 3) == 0.982


def test_worst_case_fairness_of_the_papers_example():
    # min / max = 6 / 9.5 = 0.6316. The paper prints 0.667, which is 6 / 9: a slip (9.5 is the largest flow).
    assert worst_case_fairness(PAPER_FLOWS) == pytest.approx(6 / 9.5)
    assert round(worst_case_fairness(PAPER_FLOWS), 4) == 0.6316


@pytest.mark.parametrize("fairness", [jain_index, worst_case_fairness])
def test_fairness_edge_cases(fairness):
    assert fairness([7.0, 7.0, 7.0]) == 1.0
    assert math.isnan(fairness([]))
    assert math.isnan(fairness([0, 0]))  # 0 / 0: nobody got anything
    assert fairness(np.array([5.0])) == 1.0


def test_a_starved_flow():
    assert worst_case_fairness([4, 0, 4]) == 0.0
    assert jain_index([4, 0, 4]) == pytest.approx(2 / 3)  # 64 / (3 x 32)
    assert jain_index([1, 0, 0, 0]) == pytest.approx(1 / 4)  # one flow has everything: 1/n


def flows_table():
    """Three TCP flows sampled every second from 0 to 4 s; flow 3 never gets an ack."""
    delivered = {1: [0, 1000, 2000, 5000, 7000], 2: [0, 500, 1500, 2500, 3500], 3: [0] * 5}
    cwnd = {1: [1, 2, 4, 6, 8], 2: [1, 2, 2, 2, 2], 3: [1] * 5}
    retransmits = {1: [0, 0, 1, 1, 3], 2: [0, 1, 1, 1, 1], 3: [0] * 5}
    rows = [
        {
            "time": float(t),
            "fid": fid,
            "delivered_bytes": delivered[fid][t],
            "cwnd": float(cwnd[fid][t]),
            "ssthresh": 20,
            "retransmits": retransmits[fid][t],
        }
        for t in range(5)
        for fid in (1, 2, 3)
    ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("warmup", [1.0, 1.04], ids=["on_a_sample", "nearest_sample"])
def test_per_flow_goodput_cwnd_and_retransmits(warmup):
    rows, _ = flow_metrics(flows_table(), None, warmup=warmup, end=4.0, interval=1.0)
    flow1, flow2 = as_dict(rows, "flow1"), as_dict(rows, "flow2")
    assert flow1 == pytest.approx(
        {"goodput_Bps": 2000.0, "cwnd_mean": 5.0, "retransmits": 3.0, "cwnd_epochs_per_s": 0.0}
    )  # (7000 - 1000) / 3
    assert flow2 == pytest.approx(
        {"goodput_Bps": 1000.0, "cwnd_mean": 2.0, "retransmits": 0.0, "cwnd_epochs_per_s": 0.0}
    )
    assert as_dict(rows, "flow3")["goodput_Bps"] == 0.0


def test_system_goodput_and_fairness():
    rows, series = flow_metrics(flows_table(), None, warmup=1.0, end=4.0, interval=1.0)
    everything = as_dict(rows, "all")
    assert everything["goodput_Bps"] == pytest.approx(3000.0)
    assert everything["goodput_per_flow_Bps"] == pytest.approx(1000.0)
    assert everything["fairness_jain"] == pytest.approx(3000**2 / (3 * (2000**2 + 1000**2)))  # 0.6
    assert everything["fairness_worst"] == 0.0
    assert not any(r["scope"].startswith("group:") for r in rows)
    goodput = {s["t"]: s["value"] for s in series if s["metric"] == "goodput_Bps" and s["scope"] == "all"}
    assert goodput == pytest.approx({1.0: 2000.0, 2.0: 4000.0, 3.0: 3000.0})  # totals 1500, 3500, 7500, 10500 B


def test_group_goodput_and_fairness():
    rows, _ = flow_metrics(flows_table(), {1: "main", 2: "main", 3: "cross"}, warmup=1.0, end=4.0, interval=1.0)
    main = {
        m: v
        for m, v in as_dict(rows, "group:main").items()
        if not m.endswith("_connection") and m != "goodput_share_pct"
    }
    assert main == pytest.approx(
        {
            "goodput_Bps": 3000.0,
            "goodput_per_flow_Bps": 1500.0,
            "fairness_jain": 0.9,
            "fairness_worst": 0.5,
            "cwnd_epochs_per_s": 0.0,
            "delivering_flows_pct": 100.0,
        }
    )
    assert as_dict(rows, "group:main")["goodput_share_pct"] == pytest.approx(100.0)
    cross = as_dict(rows, "group:cross")
    assert cross["delivering_flows_pct"] == 0.0  # flow 3 delivered nothing
    assert cross["goodput_share_pct"] == 0.0
    assert cross["goodput_Bps"] == 0.0 and math.isnan(cross["fairness_jain"]) and math.isnan(cross["fairness_worst"])


def test_flow_groups_come_from_params():
    params = {"flows": [{"fid": 1, "group": "main"}, {"fid": 2, "group": "main"}, {"fid": 4, "kind": "cbr"}]}
    assert flow_groups(params, [1, 2]) == {1: "main", 2: "main"}
    assert flow_groups({"flows": [{"fid": 1}, {"fid": 2}]}, [1, 2]) is None  # params.json of an older run


def test_run_metrics_without_a_packet_trace(untraced_run):
    metrics, series = run_metrics(untraced_run, warmup=1.0)
    got = {(r.scope, r.metric): r.value for r in metrics.itertuples()}
    assert not [m for m in metrics["metric"] if m.startswith("e2e_") or "delay" in m]
    assert got["all", "bottleneck_queue_pkts_mean"] == pytest.approx(5 / 11)  # 1.0 .. 2.0 s: 0 1 0 ... 0, 5 of 11
    assert got["all", "bottleneck_queue_empty_pct"] == pytest.approx(600 / 11)
    assert got["all", "bottleneck_queue_osc_hz"] == pytest.approx(5.0)  # 5 upward crossings in 1 s
    assert got["all", "bottleneck_utilization_pct"] == pytest.approx(40.0)  # 50 000 B x 8 / (1 s x 1 Mb/s)
    assert got["flow1", "goodput_Bps"] == pytest.approx(10_000) and got["flow2", "cwnd_mean"] == 4.0
    assert got["all", "goodput_Bps"] == pytest.approx(15_000)
    assert got["all", "fairness_worst"] == pytest.approx(0.5)
    assert got["group:main", "goodput_Bps"] == pytest.approx(10_000) and got["group:cross", "fairness_jain"] == 1.0
    queue = series[series["metric"] == "queue_pkts"]
    assert len(queue) == 21 and queue["t"].min() == 0.0  # the whole run, warm-up included
    goodput = series[series["metric"] == "goodput_Bps"]
    assert goodput["t"].tolist() == [1.0] and goodput["value"].tolist() == pytest.approx([15_000])


def test_object_metrics_count_objects_finished_in_the_window():
    import numpy as np

    from experiments.measure.http_objects import object_metrics

    objects = pd.DataFrame(
        {"fid": [1, 1, 2, 2, 2], "start": [0.0, 5.0, 1.0, 12.0, 19.0], "end": [2.0, 6.0, 11.0, 14.0, np.nan]}
    )
    rows = {(r["scope"], r["metric"]): r["value"] for r in object_metrics(objects, {1: "a", 2: "b"}, 3.0, 20.0)}
    # in [3, 20]: fid 1's second (1 s), fid 2's first (10 s) and second (2 s); one unfinished
    assert rows[("all", "objects_completed")] == 3
    assert rows[("all", "objects_per_s")] == pytest.approx(3 / 17)
    assert rows[("all", "object_delay_s_mean")] == pytest.approx(13 / 3)
    assert rows[("all", "object_delay_s_median")] == 2.0
    assert rows[("all", "objects_unfinished")] == 1
    assert rows[("group:a", "objects_completed")] == 1 and rows[("group:b", "objects_completed")] == 2
    assert rows[("group:b", "object_delay_s_mean")] == 6.0
    # 2 flows x 17 s / 3 objects; group b: its 1 flow x 17 s / 2 objects
    assert rows[("all", "object_cycle_s")] == pytest.approx(34 / 3)
    assert rows[("group:b", "object_cycle_s")] == pytest.approx(8.5)
    assert math.isnan(rows[("all", "object_delay_client_s_mean")]), "no delivered column: no client-side delay"


def test_object_delay_client_ends_when_the_client_had_the_object():
    import numpy as np

    from experiments.measure.http_objects import object_metrics

    objects = pd.DataFrame(
        {
            "fid": [1, 1, 2, 2, 2],
            "start": [0.0, 5.0, 1.0, 12.0, 19.0],
            "end": [2.0, 6.0, 11.0, 14.0, np.nan],
            "delivered": [1.9, 5.7, 10.5, 13.9, np.nan],
        }
    )
    rows = {(r["scope"], r["metric"]): r["value"] for r in object_metrics(objects, {1: "a", 2: "b"}, 3.0, 20.0)}
    # the same three objects count (their end is in the window): client-side delays 0.7, 9.5, 1.9
    assert rows[("all", "objects_completed")] == 3
    assert rows[("all", "object_delay_client_s_mean")] == pytest.approx(12.1 / 3)
    assert rows[("all", "object_delay_client_s_median")] == pytest.approx(1.9)
    assert rows[("all", "object_delay_client_s_p90")] == pytest.approx(1.9 + 0.8 * 7.6)  # rank 1.8 of 0.7 1.9 9.5
    assert rows[("group:a", "object_delay_client_s_mean")] == pytest.approx(0.7)
    assert rows[("all", "object_delay_s_mean")] == pytest.approx(13 / 3), "the server-side delay is unchanged"


def test_koo_bound_against_a_hand_built_link():
    """One 8 kb/s core link (a 1000-B packet takes 1 s): packet A in the system over [0, 1), B over [1, 2), so
    D(t) = t - 0 on [0, 1), t - 1 on [1, 2), 0 after; D_avg is 0.5 s in the bins [0, 1) and [1, 2), 0 later.
    The flow crosses 2 core routers: bound = 2 x D_avg + 10 ms + 2 x 1 ms."""
    params = {
        "topology": {
            "kind": "dumbbell",
            "core_nodes": 2,
            "core_link": {"bandwidth": "8Kb", "delay": "10ms"},
            "edge_link": {"bandwidth": "100Mb", "delay": "1ms"},
        },
        "flows": [{"fid": 1, "group": "tcp"}, {"fid": 2, "group": "back", "enter": 1, "leave": 0}],
    }
    hops = pd.DataFrame(
        {
            "link": ["core0"] * 2,
            "t_enqueue": [0.0, 1.0],
            "t_dequeue": [0.0, 1.0],
            "size": [1000, 1000],
            "dropped": [False, False],
        }
    )
    journeys = pd.DataFrame(
        {
            "fid": [1, 1, 2],
            "ptype": ["tcp", "tcp", "cbr"],
            "size": [1040, 1040, 500],
            "t_enter": [0.5, 2.0, 1.0],
            "t_exit": [1.5, 2.5, 1.2],
            "delay": [1.0, 0.5, 0.2],
            "dropped": [False] * 3,
        }
    )
    by_link = link_curves(hops, core_link_specs(params))
    rows, series = bound_metrics(journeys, params, by_link, warmup=0.0, end=4.0, interval=1.0)
    # bin [1, 2): mean delay 1.0 s <= 2 x 0.5 + 0.012; bin [2, 3): 0.5 s > 2 x 0 + 0.012: half the bins over.
    # Per packet, D_avg over the second before each exit: [0.5, 1.5] and [1.5, 2.5] both give 0.5 and 0.375 s,
    # bounds 1.012 and 0.762 s: neither packet is over. Flow 2 goes backwards over no traced link: not judged.
    assert as_dict(rows, "all") == pytest.approx({"e2e_bound_excess_pct": 50.0, "e2e_bound_excess_pkt_pct": 0.0})
    assert as_dict(rows, "through") == as_dict(rows, "all")
    assert "flow2" not in {r["scope"] for r in rows}
    bound = {s["t"]: s["value"] for s in series if s["metric"] == "e2e_delay_bound_ms" and s["scope"] == "flow1"}
    assert bound == pytest.approx({0.0: 1012.0, 1.0: 1012.0, 2.0: 12.0, 3.0: 12.0})


def test_node_metrics_use_each_core_link_s_own_bandwidth():
    """core1 is twice as fast as core0: the same packet spends half the time in its system."""
    hops = pd.DataFrame(
        {
            "link": ["core0", "core1"],
            "t_enqueue": [0.0, 1.0],
            "t_dequeue": [0.0, 1.0],
            "size": [1000, 1000],
            "dropped": [False, False],
        }
    )
    specs = [(8000.0, 0.01), (16000.0, 0.01)]
    rows, series = node_metrics(link_curves(hops, specs), 0.0, 2.0, 1.0, thresholds=(500,))
    core0, core1 = as_dict(rows, "core0"), as_dict(rows, "core1")
    assert core0["node_delay_ms_avg"] == pytest.approx(250.0)  # integral of t over [0, 1) = 0.5 s over 2 s
    assert core1["node_delay_ms_avg"] == pytest.approx(62.5)  # over [1, 1.5): 0.125 s over 2 s
    assert core0["node_busy_pct"] == 50.0 and core1["node_busy_pct"] == 25.0
    assert core0["queue_above_500B_pct"] == 50.0  # 1000 B in the system for 1 of 2 s
    assert core0["node_loss_pct_avg"] == 0.0 and core0["node_delay_ms_max"] == pytest.approx(1000.0)
    delay = {s["t"]: s["value"] for s in series if s["metric"] == "node_delay_ms_avg" and s["scope"] == "core1"}
    assert delay == pytest.approx({0.0: 0.0, 1.0: 125.0})


def test_each_core_link_s_utilization_is_against_its_own_capacity():
    """core0 at 1 Mb/s and core1 at 2 Mb/s (core_links) carry the same bytes: half the utilization on core1."""
    two = pd.concat([QUEUE, QUEUE.assign(link="core1")], ignore_index=True)
    rows, _ = link_metrics(two, None, capacity_bps=[1e6, 2e6], warmup=0.0, interval=1.0)
    assert as_dict(rows, "core0")["utilization_pct"] == pytest.approx(90.0)
    assert as_dict(rows, "core1")["utilization_pct"] == pytest.approx(45.0)
    params = {
        "topology": {
            "kind": "chain",
            "core_nodes": 3,
            "core_link": {"bandwidth": "10Mb", "delay": "10ms"},
            "core_links": [{"bandwidth": "5Mb"}, {}],
        }
    }
    assert core_link_specs(params) == [(5e6, 0.01), (1e7, 0.01)]


def test_the_95th_percentile_of_the_queue_ignores_one_burst():
    """21 samples 0..19 and one burst of 100: position 0.95 x 20 = 19 is the sample 19, the maximum is 100."""
    from experiments.measure.links import queue_stats

    packets = pd.Series([*range(20), 100])
    stats = queue_stats(pd.Series(range(21), dtype=float), packets)
    assert stats["queue_pkts_p95"] == 19.0 and stats["queue_pkts_max"] == 100


def test_connection_time_goodput_and_fairness_count_from_time_0():
    """Over [0, 4] s instead of the window [2, 4]: flow 1 delivered 7000 B, flow 2 3500 B, flow 3 nothing."""
    rows, _ = flow_metrics(flows_table(), {1: "main", 2: "main", 3: "cross"}, warmup=2.0, end=4.0, interval=1.0)
    everything, main = as_dict(rows, "all"), as_dict(rows, "group:main")
    assert everything["goodput_Bps_connection"] == pytest.approx(10500 / 4)
    assert everything["fairness_worst_connection"] == 0.0
    assert main["goodput_per_flow_Bps_connection"] == pytest.approx(5250 / 4)
    assert main["fairness_jain_connection"] == pytest.approx(10500**2 / (2 * (7000**2 + 3500**2)))  # 0.9
    assert main["fairness_worst_connection"] == pytest.approx(0.5)
    # the window's own values differ: flow 1 delivered 5000 B and flow 2 2000 B in [2, 4]
    assert main["fairness_worst"] == pytest.approx(0.4)


def test_since_start_goodput_counts_from_each_flow_s_own_start():
    """Li's throughput: bytes by the end / (end - start). Flow 1 from 0 s (7000 B / 4 s), flow 2 from 2 s."""
    rows, _ = flow_metrics(flows_table(), None, warmup=1.0, end=4.0, interval=1.0, starts={1: 0.0, 2: 2.0, 3: 1.5})
    everything = as_dict(rows, "all")
    per_flow = [7000 / 4, 3500 / 2, 0.0]
    assert everything["goodput_Bps_since_start"] == pytest.approx(sum(per_flow))
    assert everything["goodput_per_flow_Bps_since_start"] == pytest.approx(sum(per_flow) / 3)
    assert everything["fairness_jain_since_start"] == pytest.approx(
        sum(per_flow) ** 2 / (3 * sum(x * x for x in per_flow))
    )
    assert everything["fairness_worst_since_start"] == 0.0
    # without starts there is no such family
    rows, _ = flow_metrics(flows_table(), None, warmup=1.0, end=4.0, interval=1.0)
    assert not any(r["metric"].endswith("_since_start") for r in rows)


def test_the_5th_percentile_of_the_queue_ignores_one_dip():
    """21 samples: one dip to 0, then 80..99; position 0.05 x 20 = 1 is the sample 80, the minimum is 0."""
    from experiments.measure.links import queue_stats

    packets = pd.Series([0, *range(80, 100)])
    stats = queue_stats(pd.Series(range(21), dtype=float), packets)
    assert stats["queue_pkts_p5"] == 80.0 and stats["queue_pkts_min"] == 0


def test_congestion_epochs_are_the_window_s_decreases_per_second():
    """Window [1, 4] s: flow 1's cwnd 2 4 2 3 falls once, flow 2's 2 1 2 1 twice (the fall before 1 s is outside)."""
    table = flows_table()
    table.loc[table["fid"] == 1, "cwnd"] = [1.0, 2.0, 4.0, 2.0, 3.0]
    table.loc[table["fid"] == 2, "cwnd"] = [3.0, 2.0, 1.0, 2.0, 1.0]
    rows, _ = flow_metrics(table, None, warmup=1.0, end=4.0, interval=1.0)
    assert as_dict(rows, "flow1")["cwnd_epochs_per_s"] == pytest.approx(1 / 3)
    assert as_dict(rows, "flow2")["cwnd_epochs_per_s"] == pytest.approx(2 / 3)
    assert as_dict(rows, "all")["cwnd_epochs_per_s"] == pytest.approx(1 / 3)  # flow 3 never changes: 0


def test_queue_range_shares_count_a_below_x_at_most_b():
    packets = pd.Series([0, 5, 6, 15, 16, 25, 30, 35, 10, 11])
    shares = queue_range_shares(packets, [(5, 15), (25, 35), (8, 11)])
    assert shares == {"queue_pkts_in_5_15_pct": 40.0, "queue_pkts_in_25_35_pct": 20.0, "queue_pkts_in_8_11_pct": 20.0}


def test_queue_variance_is_the_population_variance_of_the_samples():
    times = pd.Series([0.0, 0.01, 0.02, 0.03])
    stats = queue_stats(times, pd.Series([2, 4, 4, 6]))
    assert stats["queue_pkts_var"] == 2.0 and stats["queue_pkts_std"] == math.sqrt(2.0)


def test_sampled_queue_variables_give_window_means_and_series():
    samples = pd.DataFrame(
        {
            "time": [0.0, 0.0, 1.0, 1.0, 2.0, 2.0],
            "var": ["ave_", "cur_max_p_"] * 3,
            "value": [0.0, 0.1, 4.0, 0.2, 8.0, 0.3],
        }
    )
    rows, series = queue_var_metrics(samples, warmup=1.0, end=2.0)
    assert rows == [
        {"scope": "core0", "metric": "qvar_ave_mean", "value": 6.0},
        {"scope": "core0", "metric": "qvar_cur_max_p_mean", "value": 0.25},
    ]
    assert sorted(set(series["metric"])) == ["qvar_ave", "qvar_cur_max_p"]
    assert len(series) == 6, "the series keeps the warm-up"


@pytest.mark.parametrize(
    "values, expected",
    [
        ([5, 5, 12, 14, 11, 9, 12], 3.0),  # above 10 at t=2, back at or below it at t=5: 5 - 2 s after t0
        ([5, 5, 8, 9, 10, 9, 8], 0.0),  # never above the level after t0: nothing to return from
        ([5, 5, 12, 14, 11, 12, 13], 4.0),  # never back: censored at the run's end (6) - t0
        ([12, 5, 5, 5, 5, 5, 5], 0.0),  # above it only before t0
    ],
)
def test_settle_time_after_t0(values, expected):
    times = np.arange(7.0)
    assert settle_time(times, np.array(values, dtype=float), t0=2.0, level=10, end=6.0) == expected


def test_settle_metrics_are_named_by_level_and_time_and_need_the_average():
    samples = pd.DataFrame({"time": [0.0, 1.0, 2.0, 3.0], "var": "ave_", "value": [1.0, 12.0, 9.0, 9.0]})
    assert settle_metrics(samples, [(0.5, 10), (0, 20)], end=3.0) == [
        {"scope": "core0", "metric": "queue_ave_settle_10_s@0.5", "value": 1.5},
        {"scope": "core0", "metric": "queue_ave_settle_20_s@0", "value": 0.0},
    ]
    assert settle_metrics(samples.assign(var="cur_max_p_"), [(0.5, 10)], end=3.0) == []


def test_cwnd_decreases_count_each_flow_s_drops_in_time_order():
    # rows out of time order and flows interleaved: flow 2's 8 -> 4 and 6 -> 3 count, its 4 -> 6 does not; flow 1's
    # last sample (10) is higher than flow 2's first (8) but belongs to another flow; a missing cwnd compares false
    samples = pd.DataFrame(
        {
            "time": [2.0, 0.0, 1.0, 0.0, 1.0, 3.0, 2.0, 3.0],
            "fid": [2, 1, 1, 2, 2, 2, 1, 1],
            "cwnd": [6.0, 4.0, 5.0, 8.0, 4.0, 3.0, math.nan, 10.0],
        }
    )
    got = cwnd_decreases(samples)
    assert got.to_dict() == {1: 0, 2: 2}


def test_the_delivering_family_leaves_out_the_flows_that_delivered_nothing():
    """Flow 3 delivered nothing: the _since_start_delivering family averages flows 1 and 2 only, and
    delivering_flows_pct counts 2 of 3 flows."""
    rows, _ = flow_metrics(flows_table(), None, warmup=1.0, end=4.0, interval=1.0, starts={1: 0.0, 2: 2.0, 3: 1.5})
    everything = as_dict(rows, "all")
    per_flow = [7000 / 4, 3500 / 2]
    assert everything["goodput_per_flow_Bps_since_start_delivering"] == pytest.approx(sum(per_flow) / 2)
    assert everything["fairness_jain_since_start_delivering"] == pytest.approx(1.0)  # 1750 B/s each
    assert everything["fairness_worst_since_start_delivering"] == pytest.approx(1.0)
    assert everything["delivering_flows_pct"] == pytest.approx(200 / 3)
    assert everything["goodput_per_flow_Bps_since_start"] < everything["goodput_per_flow_Bps_since_start_delivering"]
