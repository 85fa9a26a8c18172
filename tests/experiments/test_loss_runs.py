"""Per-flow loss run lengths (e2e_loss_run_<k>_pct, e2e_loss_run_mean) on hand-built journeys."""

import math

import pandas as pd
import pytest

from experiments.measure.e2e import counted_runs, e2e_metrics, loss_run_values, loss_runs

D, X, F = "delivered", "dropped", "in flight"  # a packet's fate at the end of the run


def journeys(packets: list[tuple[int, float, str]]) -> pd.DataFrame:
    """A journeys frame of data packets (fid, t_enter, fate), in entry order as parsers/journeys.py sorts it."""
    fid, t_enter, fate = zip(*sorted(packets, key=lambda p: p[1]), strict=True)
    dropped = [f == X for f in fate]
    t_exit = [t + 0.03 if f == D else math.nan for t, f in zip(t_enter, fate, strict=True)]
    return pd.DataFrame(
        {
            "fid": fid,
            "uid": range(len(fid)),
            "ptype": "tcp",
            "size": 1040,
            "t_enter": t_enter,
            "t_exit": t_exit,
            "delay": [e - t for e, t in zip(t_exit, t_enter, strict=True)],
            "dropped": dropped,
            "marked": False,
        }
    )


# Flows 1 and 2 interleaved in time: flow 1 loses runs of 1 and 3, flow 2 one run of 2; flow 3 loses nothing.
# Across flows (the wrong definition) the drops would read as three runs of 2.
INTERLEAVED = journeys(
    [
        (1, 0.00, D),
        (3, 0.05, D),
        (1, 0.10, X),
        (2, 0.15, X),  # flow 1's run of 1 begins, flow 2's run of 2 begins
        (1, 0.20, D),
        (2, 0.25, X),
        (1, 0.30, X),
        (2, 0.35, D),  # flow 1's run of 3 begins; flow 2's run ends
        (1, 0.40, X),
        (1, 0.45, X),
        (1, 0.50, D),
        (3, 0.55, D),
        (2, 0.60, D),
    ]
)
PARAMS = {
    "topology": {
        "kind": "dumbbell",
        "core_link": {"bandwidth": "1Mb", "delay": "10ms"},
        "edge_link": {"bandwidth": "10Mb", "delay": "1ms"},
    },
    "flows": [{"fid": 1, "group": "a"}, {"fid": 2, "group": "a"}, {"fid": 3, "group": "b"}],
}


def values(rows: list[dict], scope: str) -> dict[str, float]:
    return {r["metric"]: r["value"] for r in rows if r["scope"] == scope and r["metric"].startswith("e2e_loss_run")}


def test_runs_are_per_flow_whatever_other_flows_send_in_between():
    runs = loss_runs(INTERLEAVED)
    assert sorted(zip(runs["fid"], runs["length"], strict=True)) == [(1, 1), (1, 3), (2, 2)]
    assert runs["closed"].all()
    assert sorted(runs["t_start"]) == [0.10, 0.15, 0.30]


def test_the_shares_pool_the_runs_of_the_scope_s_flows():
    rows, _ = e2e_metrics(INTERLEAVED, PARAMS, warmup=0.0, end=1.0, interval=1.0)
    pooled = values(rows, "all")
    assert pooled["e2e_loss_run_1_pct"] == pytest.approx(100 / 3)
    assert pooled["e2e_loss_run_2_pct"] == pytest.approx(100 / 3)
    assert pooled["e2e_loss_run_3_pct"] == pytest.approx(100 / 3)
    assert pooled["e2e_loss_run_4_pct"] == 0.0
    assert pooled["e2e_loss_run_mean"] == 2.0
    assert values(rows, "group:a") == pooled
    flow1 = values(rows, "flow1")
    assert flow1["e2e_loss_run_1_pct"] == 50.0 and flow1["e2e_loss_run_3_pct"] == 50.0
    assert flow1["e2e_loss_run_2_pct"] == 0.0 and flow1["e2e_loss_run_mean"] == 2.0
    assert values(rows, "flow2")["e2e_loss_run_2_pct"] == 100.0


def test_a_scope_without_loss_has_no_value_not_zero():
    rows, _ = e2e_metrics(INTERLEAVED, PARAMS, warmup=0.0, end=1.0, interval=1.0)
    for scope in ("flow3", "group:b"):
        got = values(rows, scope)
        assert len(got) == 11 and all(math.isnan(v) for v in got.values()), scope
    assert {r["metric"]: r["value"] for r in rows if r["scope"] == "flow3"}["e2e_packets"] == 2


def test_a_retransmission_is_a_packet_of_the_run():
    # flow 1's segment is dropped, its retransmission too (another uid, the same seq): a run of 2
    runs = loss_runs(journeys([(1, 0.0, D), (1, 0.1, X), (1, 0.5, X), (1, 0.9, D)]))
    assert list(runs["length"]) == [2]


# warmup 1, end 2: flow 1's run begun in the warm-up (0.9, 1.1) does not count, not even as a run of 1; its run
# at 1.5 counts; its last drop (1.9) ends the trace, so its length is unknown. Flow 2's run of 2 begins in the
# window and counts; flow 3's drop is followed by a packet still in flight at the end: not closed.
EDGES = journeys(
    [
        (1, 0.8, D),
        (1, 0.9, X),
        (1, 1.1, X),
        (1, 1.2, D),
        (1, 1.5, X),
        (1, 1.6, D),
        (1, 1.9, X),
        (2, 1.0, D),
        (2, 1.80, X),
        (2, 1.85, X),
        (2, 1.95, D),
        (3, 1.0, D),
        (3, 1.7, X),
        (3, 1.98, F),
    ]
)


def test_a_run_belongs_to_the_window_of_its_first_packet_and_needs_a_known_end():
    runs = loss_runs(EDGES)
    assert sorted(zip(runs["fid"], runs["length"], runs["closed"], strict=True)) == [
        (1, 1, False),
        (1, 1, True),
        (1, 2, True),
        (2, 2, True),
        (3, 1, False),
    ]
    counted = counted_runs(runs, warmup=1.0, end=2.0)
    assert sorted(zip(counted["fid"], counted["length"], strict=True)) == [(1, 1), (2, 2)]


def test_window_edges_in_the_metrics():
    rows, _ = e2e_metrics(EDGES, PARAMS, warmup=1.0, end=2.0, interval=1.0)
    pooled = values(rows, "all")
    assert pooled["e2e_loss_run_1_pct"] == 50.0 and pooled["e2e_loss_run_2_pct"] == 50.0
    assert pooled["e2e_loss_run_mean"] == 1.5
    assert math.isnan(values(rows, "flow3")["e2e_loss_run_mean"])  # its only run is open


def test_loss_run_values_count_runs_longer_than_the_listed_lengths():
    got = loss_run_values(pd.Series([1, 1, 12]))
    assert got["e2e_loss_run_1_pct"] == pytest.approx(200 / 3)
    assert got["e2e_loss_run_10_pct"] == 0.0
    assert got["e2e_loss_run_mean"] == pytest.approx(14 / 3)


def test_no_packets_no_runs():
    assert loss_runs(INTERLEAVED.iloc[:0]).empty
