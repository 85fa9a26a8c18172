"""core_log metrics (core_bins, core_drops, core_delays) and the object percentiles, on tiny hand-made tables
with the answers worked out by hand."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from experiments.measure.core_log import core_bin_metrics, core_delay_metrics, core_drop_metrics, core_drop_values
from experiments.measure.http_objects import object_metrics
from experiments.measure.run import run_metrics
from experiments.measure.scopes import group_scopes

GROUPS = {1: "ftp", 2: "http"}  # fid 3 names no group: it counts only in `all`
CAPACITY = 16_000.0  # bit/s = 2000 B/s
BIN_COLUMNS = ["bin", "event", "fid", "packets", "bytes", "hint_sum", "hinted"]
# 1 s bins of a 4 s run; warm-up 1 s, so the window is the bins 1, 2 and 3 (3 s).
BINS = pd.DataFrame(
    [
        (0.0, "arrival", 1, 10, 5000, 20.0, 10),  # warm-up: in the series only
        (0.0, "drop", 1, 2, 1000, 4.0, 2),
        (0.0, "departure", 1, 8, 1600, 16.0, 8),
        (1.0, "arrival", 1, 4, 2000, 12.0, 4),  # four packets with hint 3
        (1.0, "arrival", 2, 6, 3000, 6.0, 3),  # three with hint 2, three without
        (1.0, "drop", 2, 1, 500, 2.0, 1),
        (1.0, "departure", 1, 4, 2000, 12.0, 4),
        (1.0, "departure", 2, 5, 2500, 4.0, 2),
        (2.0, "arrival", 3, 2, 1000, 0.0, 0),  # no group, no hint
        (2.0, "departure", 3, 2, 1000, 0.0, 0),
        (3.0, "arrival", 1, 2, 1000, 10.0, 2),
        (3.0, "drop", 1, 2, 1000, 10.0, 2),
        (4.0, "arrival", 1, 100, 50_000, 100.0, 100),  # starts at the end of the run: outside
    ],
    columns=BIN_COLUMNS,
)


def as_dict(rows, scope):
    return {r["metric"]: r["value"] for r in rows if r["scope"] == scope}


def core_bins(warmup=1.0):
    return core_bin_metrics(BINS, GROUPS, interval=1.0, capacity_bps=CAPACITY, warmup=warmup, end=4.0)


def test_core_bin_metrics_of_all_flows():
    everything = as_dict(core_bins()[0], "all")
    assert everything["core_arrivals_per_s"] == pytest.approx(14 / 3)  # 4 + 6 + 2 + 2 in 3 s
    assert everything["core_drops_per_s"] == pytest.approx(1.0)  # 1 + 2 in 3 s
    assert everything["core_drop_ratio_pct"] == pytest.approx(3 / 14 * 100)
    assert everything["core_cwnd_hint_mean"] == pytest.approx(28 / 9)  # (12 + 6 + 0 + 10) / (4 + 3 + 0 + 2)
    assert everything["core_utilization"] == pytest.approx(5500 * 8 / (CAPACITY * 3))  # 11/12
    assert everything["core_drops_per_s_var"] == pytest.approx(1.0)  # rates 1, 0, 2: mean 1, (0 + 1 + 1) / 2


def test_core_bin_metrics_per_group():
    rows, _ = core_bins()
    ftp, http = as_dict(rows, "group:ftp"), as_dict(rows, "group:http")
    assert ftp["core_arrivals_per_s"] == pytest.approx(2.0)  # 4 + 2
    assert ftp["core_drops_per_s"] == pytest.approx(2 / 3)
    assert ftp["core_drop_ratio_pct"] == pytest.approx(100 / 3)  # 2 of 6
    assert ftp["core_cwnd_hint_mean"] == pytest.approx(22 / 6)  # (12 + 10) / (4 + 2)
    assert ftp["core_utilization"] == pytest.approx(1 / 3)  # 2000 B x 8 / (16 kb/s x 3 s)
    assert ftp["core_drops_per_s_var"] == pytest.approx(4 / 3)  # rates 0, 0, 2
    assert http["core_drop_ratio_pct"] == pytest.approx(100 / 6)
    assert http["core_cwnd_hint_mean"] == pytest.approx(2.0)  # only the three hinted packets count
    assert http["core_utilization"] == pytest.approx(5 / 12)
    assert http["core_drops_per_s_var"] == pytest.approx(1 / 3)  # rates 1, 0, 0
    assert {r["scope"] for r in rows} == {"all", "group:ftp", "group:http"}  # fid 3: only in all
    unnamed = 1000 * 8 / (CAPACITY * 3)  # fid 3's share of the total
    assert ftp["core_utilization"] + http["core_utilization"] + unnamed == pytest.approx(
        as_dict(rows, "all")["core_utilization"]
    )


def test_core_bin_metrics_without_arrivals_or_hints_are_nan():
    rows, _ = core_bin_metrics(BINS, GROUPS, interval=1.0, capacity_bps=CAPACITY, warmup=2.5, end=3.0)
    http = as_dict(rows, "group:http")  # no bin starts in [2.5, 3)
    assert math.isnan(http["core_drop_ratio_pct"]) and math.isnan(http["core_cwnd_hint_mean"])
    assert http["core_drops_per_s"] == 0.0 and http["core_utilization"] == 0.0


def test_core_bin_series_cover_the_whole_run_with_zeros():
    _, series = core_bins()
    series = pd.concat(series, ignore_index=True)

    def values(scope, metric):
        rows = series[(series["scope"] == scope) & (series["metric"] == metric)]
        return rows["t"].tolist(), rows["value"].tolist()

    assert values("all", "core_drops_per_s") == ([0.0, 1.0, 2.0, 3.0], [2.0, 1.0, 0.0, 2.0])  # warm-up included
    assert values("group:http", "core_drops_per_s") == ([0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 0.0, 0.0])
    t, utilization = values("all", "core_utilization")
    assert utilization == pytest.approx([0.8, 2.25, 0.5, 0.0])  # 1600, 4500, 1000, 0 B / 2000 B
    assert values("group:ftp", "core_utilization")[1] == pytest.approx([0.8, 1.0, 0.0, 0.0])


# 10 s bins of a 250 s run: drops at 0 s (10), 50 s (30), 100 s (20) and 240 s (50).
LONG_BINS = pd.DataFrame(
    [(t, "drop", 1, n, 1000 * n, 0.0, 0) for t, n in [(0.0, 10), (50.0, 30), (100.0, 20), (240.0, 50)]],
    columns=BIN_COLUMNS,
)


def test_windowed_drop_variances_start_at_zero_whatever_the_warmup():
    rows, _ = core_bin_metrics(LONG_BINS, None, interval=10.0, capacity_bps=CAPACITY, warmup=100.0, end=250.0)
    got = as_dict(rows, "all")
    windowed = {m: v for m, v in got.items() if "@" in m}
    assert windowed == pytest.approx(
        {
            "core_drops_per_s_var@0-100": 8.4 / 9,  # rates 1, 0, 0, 0, 0, 3, 0, 0, 0, 0: mean 0.4
            "core_drops_per_s_var@100-200": 3.6 / 9,  # rates 2 and nine 0: mean 0.2
        }
    )  # [200, 300) is not inside the run, nor is any 500- or 1000-s window
    assert got["core_drops_per_s_var"] == pytest.approx(386 / 210)  # 15 bins from 100 s: rates 2, 13 x 0, 5
    assert got["core_drops_per_s"] == pytest.approx(70 / 150)


DROPS = pd.DataFrame(
    [
        (0.5, 1, 1, 1040, 5.0, 100),  # warm-up
        (1.0, 1, 2, 1040, 3.0, 10),
        (1.5, 1, 3, 1040, 8.0, 20),
        (2.0, 2, 4, 40, -1.0, 30),  # an ACK: no cwnd hint
        (2.5, 2, 5, 1040, 12.0, 40),
        (3.0, 3, 6, 500, 0.0, 50),  # no hint, no group
        (4.0, 1, 7, 1040, 1.0, 60),  # at the end of the run: outside
    ],
    columns=["time", "fid", "seqno", "size", "hint", "qlen"],
)


def test_core_drop_metrics():
    rows = core_drop_metrics(DROPS, GROUPS, warmup=1.0, end=4.0)
    everything = as_dict(rows, "all")
    assert everything["core_drop_qlen_mean"] == pytest.approx(30.0)  # 10 20 30 40 50
    assert everything["core_drop_qlen_p95"] == pytest.approx(48.0)  # rank 0.95 x 4 = 3.8: 40 + 0.8 x 10
    assert everything["core_drop_qlen_max"] == 50
    assert everything["core_drop_hint_mean"] == pytest.approx(23 / 3)  # hints 3, 8, 12
    assert everything["core_drop_hint_min"] == 3
    shares = [everything[f"core_drop_hint_le{k}_pct"] for k in range(1, 11)]
    assert shares == pytest.approx([0, 0, 100 / 3, 100 / 3, 100 / 3, 100 / 3, 100 / 3, 200 / 3, 200 / 3, 200 / 3])
    ftp = as_dict(rows, "group:ftp")
    assert ftp["core_drop_qlen_p95"] == pytest.approx(19.5)  # 10 + 0.95 x 10
    assert ftp["core_drop_hint_mean"] == pytest.approx(5.5)
    assert (ftp["core_drop_hint_le7_pct"], ftp["core_drop_hint_le8_pct"]) == pytest.approx((50.0, 100.0))
    http = as_dict(rows, "group:http")
    assert http["core_drop_qlen_mean"] == pytest.approx(35.0) and http["core_drop_hint_le10_pct"] == 0.0


def test_core_drop_values_without_a_hinted_drop_are_nan():
    got = core_drop_values(DROPS[DROPS["hint"] <= 0])
    assert got["core_drop_qlen_mean"] == pytest.approx(40.0) and got["core_drop_qlen_max"] == 50
    hint_metrics = [v for m, v in got.items() if "hint" in m]
    assert len(hint_metrics) == 12 and all(math.isnan(v) for v in hint_metrics)


DELAYS = pd.DataFrame(
    [
        (0.5, 1, 1, 9.0),
        (1.0, 1, 2, 0.1),
        (2.0, 1, 3, 0.2),
        (3.0, 1, 4, 0.3),
        (3.5, 1, 5, 0.4),
        (2.0, 2, 1, 1.0),
        (4.0, 2, 2, 5.0),
    ],
    columns=["time", "fid", "seqno", "delay"],
)


def test_core_delay_metrics_per_flow_group_and_all():
    rows = core_delay_metrics(DELAYS, GROUPS, warmup=1.0, end=4.0)
    flow1 = as_dict(rows, "flow1")
    assert flow1 == pytest.approx({"core_delay_s_mean": 0.25, "core_delay_s_p90": 0.37, "core_delay_s_p99": 0.397})
    assert as_dict(rows, "group:ftp") == flow1
    assert as_dict(rows, "flow2") == pytest.approx(
        {"core_delay_s_mean": 1, "core_delay_s_p90": 1, "core_delay_s_p99": 1}
    )
    everything = as_dict(rows, "all")  # 0.1 0.2 0.3 0.4 1.0: ranks 3.6 and 3.96
    assert everything == pytest.approx({"core_delay_s_mean": 0.4, "core_delay_s_p90": 0.76, "core_delay_s_p99": 0.976})


def test_group_scopes_keep_fids_without_a_group_in_all_only():
    frame = pd.DataFrame({"fid": [1, 2, 3, 1]})
    scopes = {scope: part.index.tolist() for scope, part in group_scopes(frame, GROUPS)}
    assert scopes == {"all": [0, 1, 2, 3], "group:ftp": [0, 3], "group:http": [1]}
    assert [s for s, _ in group_scopes(frame, None)] == ["all"]


def test_object_delay_percentiles_and_shares():
    objects = pd.DataFrame(
        {"fid": [1, 1, 2, 2, 2], "start": [0.0, 5.0, 1.0, 12.0, 19.0], "end": [2.0, 6.0, 11.0, 14.0, np.nan]}
    )
    rows = object_metrics(objects, {1: "a", 2: "b"}, 3.0, 20.0)
    everything = as_dict(rows, "all")  # delays 1, 10, 2: sorted 1 2 10
    assert everything["object_delay_s_p70"] == pytest.approx(5.2)  # rank 1.4: 2 + 0.4 x 8
    assert everything["object_delay_s_p90"] == pytest.approx(8.4)
    assert everything["object_delay_s_p95"] == pytest.approx(9.2)
    assert "objects_share_pct" not in everything
    assert as_dict(rows, "group:a")["objects_share_pct"] == pytest.approx(100 / 3)
    assert as_dict(rows, "group:b")["objects_share_pct"] == pytest.approx(200 / 3)
    assert math.isnan(as_dict(object_metrics(objects, {1: "a", 2: "b"}, 15.0, 20.0), "group:a")["object_delay_s_p90"])


def tsv(frame: pd.DataFrame) -> str:
    return frame.to_csv(sep="\t", index=False, lineterminator="\n")


QUEUE_TSV = (
    "time\tlink\tsize_bytes\tsize_packets\tarrivals_packets\tarrivals_bytes\tdepartures_packets\tdepartures_bytes"
    "\tdrops_packets\tdrops_bytes\n"
) + "".join(f"{t:.6f}\tcore0\t0\t0\t{10 * t}\t0\t{10 * t}\t0\t0\t0\n" for t in range(5))


@pytest.fixture
def core_log_run(tmp_path):
    """An untraced run directory with the three core_log files, parsed to its tables."""
    from parsers import parse_run

    run = tmp_path / "core_log"
    run.mkdir()
    params = {
        "schema": "ns2-repro/run-params/2",
        "seed": 1,
        "duration": 4.0,
        "topology": {"kind": "dumbbell", "core_link": {"bandwidth": "16kb", "delay": "10ms"}},
        "flows": [
            {"fid": 1, "kind": "ftp", "group": "ftp"},
            {"fid": 2, "kind": "http", "group": "http"},
            {"fid": 3, "kind": "cbr"},
        ],
        "monitors": {"queue_sample_interval": 1.0, "packet_trace": False, "core_log": {"interval": 1.0}},
    }
    (run / "params.json").write_text(json.dumps(params))
    (run / "meta.json").write_text(json.dumps({"links": [{"name": "core0", "from": 0, "to": 1, "role": "core"}]}))
    (run / "queue_monitor.tsv").write_text(QUEUE_TSV)
    (run / "core_bins.tsv").write_text(tsv(BINS))
    (run / "core_drops.tsv").write_text(tsv(DROPS))
    (run / "core_delays.tsv").write_text(tsv(DELAYS))
    assert sorted(parse_run(run, run / "tables")) == ["core_bins", "core_delays", "core_drops", "queue"]
    return run


def test_run_metrics_reads_the_core_log_tables(core_log_run):
    metrics, series = run_metrics(core_log_run, warmup=1.0)
    got = {(r.scope, r.metric): r.value for r in metrics.itertuples()}
    assert got["all", "core_utilization"] == pytest.approx(11 / 12)  # 16kb: the bandwidth of core_link
    assert got["group:ftp", "core_cwnd_hint_mean"] == pytest.approx(11 / 3)
    assert got["group:http", "core_drop_hint_mean"] == pytest.approx(12.0)
    assert got["flow2", "core_delay_s_mean"] == pytest.approx(1.0)
    assert not any(scope == "group:cbr" or scope.endswith("None") for scope, _ in got)
    drops = series[(series["scope"] == "all") & (series["metric"] == "core_drops_per_s")]
    assert drops["t"].tolist() == [0.0, 1.0, 2.0, 3.0] and drops["value"].tolist() == [2.0, 1.0, 0.0, 2.0]
    assert {"core_drops_per_s", "core_utilization"} <= set(series[series["scope"] == "group:http"]["metric"])
    assert not metrics.duplicated(["scope", "metric"]).any()


def test_per_object_metrics_divide_the_scope_s_core_counts_by_its_completed_objects():
    from experiments.measure.http_objects import per_object_metrics

    rows = [
        {"scope": "all", "metric": "core_departed_bytes", "value": 9000.0},
        {"scope": "all", "metric": "objects_completed", "value": 3.0},
        {"scope": "all", "metric": "core_drops_per_s", "value": 0.5},
        {"scope": "all", "metric": "objects_per_s", "value": 2.0},
        {"scope": "group:http", "metric": "core_departed_bytes", "value": 4000.0},
        {"scope": "group:http", "metric": "objects_completed", "value": 0.0},  # none completed: no value
        {"scope": "group:http", "metric": "core_drops_per_s", "value": 0.5},
        {"scope": "group:http", "metric": "objects_per_s", "value": 0.0},
        {"scope": "group:ftp", "metric": "core_departed_bytes", "value": 5000.0},  # no objects at all: no value
    ]
    assert per_object_metrics(rows) == [
        {"scope": "all", "metric": "object_wire_bytes", "value": 3000.0},
        {"scope": "all", "metric": "core_drops_per_object", "value": 0.25},
    ]
    assert per_object_metrics(rows[:1]) == []
