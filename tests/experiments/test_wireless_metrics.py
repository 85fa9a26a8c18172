"""Wireless drop metrics (experiments/measure/): each CMU drop line's cause, wireless_drops_<cause> and
wireless_drops_queue_pct over the TCP data packets dropped in [warmup, end), and run_metrics on a wireless run."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from experiments.measure.registry import WIRELESS_DROP_CAUSES
from experiments.measure.run import run_metrics
from experiments.measure.scopes import core_link_specs
from experiments.measure.wireless import drop_cause, wireless_drop_metrics


@pytest.mark.parametrize(
    "layer, reason, cause",
    [
        ("IFQ", "---", "queue"),  # an interface queue's overflow (Queue::drop gives no reason)
        ("IFQ", "ARP", "arp"),  # ARP's one-packet buffer
        ("RTR", "FIL", "purge"),  # pulled out of the interface queue after a link broke (ns2-patches/0023)
        ("RTR", "CBK", "link_failure"),  # the MAC gave up on the next hop
        ("RTR", "NRTE", "no_route"),
        ("RTR", "TOUT", "no_route"),  # expired in the routing agent's buffer while it sought a route
        ("RTR", "IFQ", "no_route"),  # the routing agent's own buffer full, not an interface queue
        ("LL", "LOSS", "random"),  # topology.loss, above the MAC (ns2-patches/0024)
        ("MAC", "ERR", "mac"),  # the MAC's own corrupted frame, not topology.loss
        ("RTR", "TTL", "other"),
        ("MAC", "COL", "mac"),
        ("MAC", "RET", "mac"),
        ("AGT", "xxx", "other"),
        ("LL", "END", "other"),
    ],
)
def test_drop_cause(layer, reason, cause):
    assert drop_cause(pd.Series([layer]), pd.Series([reason])).tolist() == [cause]


def test_drop_cause_keeps_the_index_and_covers_only_the_known_causes():
    layer = pd.Series(["IFQ", "MAC", "RTR", "AGT"], index=[10, 11, 12, 13])
    reason = pd.Series(["---", "COL", "CBK", "---"], index=[10, 11, 12, 13])
    causes = drop_cause(layer, reason)
    assert causes.to_dict() == {10: "queue", 11: "mac", 12: "link_failure", 13: "other"}
    assert set(causes) <= set(WIRELESS_DROP_CAUSES)


def drops(*rows) -> pd.DataFrame:
    """A wireless_drops table of (time, layer, reason, ptype) rows."""
    frame = pd.DataFrame(rows, columns=["time", "layer", "reason", "ptype"])
    return frame.assign(node=0, uid=range(len(rows)), size=552)


def values(rows: list[dict]) -> dict[str, float]:
    assert {r["scope"] for r in rows} == {"all"}
    return {r["metric"]: r["value"] for r in rows}


def test_only_tcp_data_in_the_window_counts():
    table = drops(
        (0.5, "IFQ", "---", "tcp"),  # before the warm-up
        (1.0, "IFQ", "---", "tcp"),  # at the warm-up: counted
        (2.0, "IFQ", "---", "tcp"),
        (3.0, "IFQ", "ARP", "tcp"),
        (4.0, "RTR", "CBK", "tcp"),
        (4.5, "RTR", "FIL", "tcp"),
        (5.0, "MAC", "COL", "tcp"),
        (6.0, "AGT", "---", "tcp"),
        (7.0, "IFQ", "---", "ack"),  # an ACK: not data
        (7.5, "RTR", "NRTE", "AODV"),  # routing traffic
        (8.0, "IFQ", "---", "cbr"),
        (10.0, "IFQ", "---", "tcp"),  # at the end: outside [warmup, end)
    )
    got = values(wireless_drop_metrics(table, warmup=1.0, end=10.0))
    assert got == {
        "wireless_drops_queue": 2.0,
        "wireless_drops_link_failure": 1.0,
        "wireless_drops_purge": 1.0,
        "wireless_drops_no_route": 0.0,
        "wireless_drops_arp": 1.0,
        "wireless_drops_random": 0.0,
        "wireless_drops_mac": 1.0,
        "wireless_drops_other": 1.0,
        "wireless_drops_queue_pct": pytest.approx(100 * 2 / 7),
    }


def test_no_tcp_drops_gives_zeros_and_no_percentage():
    got = values(wireless_drop_metrics(drops((2.0, "IFQ", "---", "ack")), warmup=0.0, end=10.0))
    assert [got[f"wireless_drops_{cause}"] for cause in WIRELESS_DROP_CAUSES] == [0.0] * len(WIRELESS_DROP_CAUSES)
    assert math.isnan(got["wireless_drops_queue_pct"])
    assert values(wireless_drop_metrics(drops(), warmup=0.0, end=10.0)).keys() == got.keys()


def test_a_wireless_topology_has_no_core_links():
    assert core_link_specs({"topology": {"kind": "wireless", "area": [500, 500], "tracks": []}}) == []


QUEUE_HEADER = (
    "time\tlink\tsize_bytes\tsize_packets\tarrivals_packets\tarrivals_bytes\tdepartures_packets\tdepartures_bytes"
    "\tdrops_packets\tdrops_bytes\n"
)
FLOWS_TSV = "time\tfid\tdelivered_bytes\tcwnd\tssthresh\tretransmits\n" + "".join(
    f"{t:.6f}\t1\t{5000 * t}\t4\t20\t{t}\n" for t in range(3)
)
DROPS_TR = (
    "D 0.5 _0_ IFQ  --- 1 tcp 552 [0 0 0 0] ------- [0:0 2:0 32 1] [0 0] 0 0\n"  # in the warm-up
    "M 1.00000 2 (400.00, 250.00, 0.00), (450.00, 250.00), 10.00\n"
    "D 1.2 _1_ IFQ  --- 2 tcp 552 [0 0 0 0] ------- [0:0 2:0 31 2] [1 0] 1 0\n"
    "D 1.3 _1_ IFQ  --- 3 tcp 552 [0 0 0 0] ------- [0:0 2:0 31 2] [2 0] 1 0\n"
    "D 1.4 _1_ RTR  CBK 4 tcp 552 [13a 2 1 800] ------- [0:0 2:0 31 2] [3 0] 1 0\n"
    "D 1.5 _2_ RTR  CBK 5 ack 40 [13a 1 2 800] ------- [2:0 0:0 32 1] [3 0] 0 0\n"
)


@pytest.fixture
def wireless_run(tmp_path):
    """A 2-s wireless run directory as the pipeline leaves it: params.json, meta.json, the header-only queue monitor,
    flows.tsv and drops.tr, parsed."""
    from parsers import parse_run

    run = tmp_path / "wireless"
    run.mkdir()
    params = {
        "schema": "ns2-repro/run-params/2",
        "seed": 1,
        "duration": 2.0,
        "topology": {
            "kind": "wireless",
            "area": [1000, 500],
            "routing": "AODV",
            "tracks": [{"x": 10 + 200 * i, "y": 250, "moves": []} for i in range(3)],
        },
        "flows": [{"fid": 1, "kind": "ftp", "group": "tcp", "source_node": 0, "sink_node": 2}],
        "monitors": {"queue_sample_interval": 1.0, "packet_trace": False},
    }
    (run / "params.json").write_text(json.dumps(params))
    (run / "meta.json").write_text(
        json.dumps({"nodes": {"core": [], "sources": {"1": 0}, "sinks": {"1": 2}}, "links": []})
    )
    (run / "queue_monitor.tsv").write_text(QUEUE_HEADER)
    (run / "flows.tsv").write_text(FLOWS_TSV)
    (run / "drops.tr").write_text(DROPS_TR)
    assert sorted(parse_run(run, run / "tables")) == ["flows", "queue", "wireless_drops"]
    return run


def test_run_metrics_of_a_wireless_run(wireless_run):
    rows, _ = run_metrics(wireless_run, warmup=1.0)
    got = {(r.scope, r.metric): r.value for r in rows.itertuples()}
    assert got["all", "wireless_drops_queue"] == 2.0 and got["all", "wireless_drops_link_failure"] == 1.0
    assert got["all", "wireless_drops_queue_pct"] == pytest.approx(200 / 3)
    assert got["flow1", "goodput_Bps"] == pytest.approx(5000.0)
    assert not [m for m in rows["metric"] if "queue" in m and not m.startswith("wireless_")], "no link metrics"
    assert not {s for s in rows["scope"] if s.startswith("core")}


TCP_COUNTERS_TSV = (
    "fid\ttimeouts\tfast_retransmits\tretransmitted_packets\tcongestion_responses\twireless_responses\t"
    "early_retransmits\n"
    "1\t2\t6\t9\t4\t1\t0\n"
)


def test_a_run_with_tcp_counters_gets_the_recovery_metrics(wireless_run):
    from parsers import parse_run

    (wireless_run / "tcp_counters.tsv").write_text(TCP_COUNTERS_TSV)
    assert "tcp_counters" in parse_run(wireless_run, wireless_run / "tables")
    rows, _ = run_metrics(wireless_run, warmup=1.0)
    got = {r.metric: r.value for r in rows.itertuples() if r.scope == "all"}
    assert got["tcp_timeouts_per_flow"] == 2.0 and got["tcp_fast_retransmits_per_flow"] == 6.0
    assert got["tcp_timeout_pct"] == pytest.approx(25.0)
    assert got["bqm_response_pct"] == pytest.approx(100 * 5 / 6)
    assert got["bqm_wireless_response_pct"] == pytest.approx(20.0)
