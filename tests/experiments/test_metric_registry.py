"""The metric registry (experiments/measure/registry.py) and experiments/measure/ agree: every metric a run
produces is registered, with a scope the registry lists, and every registered metric is produced by some run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_core_log_metrics import core_log_run  # noqa: F401 -- a fixture: hand-made core_log tables

from experiments.common.markdown import row_cells
from experiments.config.load import load
from experiments.measure import registry as metric_registry
from experiments.measure.registry import (
    HINT_LEVELS,
    LOSS_RUN_LENGTHS,
    METRICS,
    WIRELESS_DROP_CAUSES,
    lookup,
    scope_kind,
)
from experiments.measure.run import run_metrics
from experiments.planning.expansion import expand

DRIVER = Path(__file__).resolve().parents[2] / "tcl" / "driver.tcl"
# Every table metrics.py reads: packet trace, TCP (ftp) and http flows, UDP cross traffic (two flows into
# LossMonitor sinks: sinks.tsv, sink_gaps.tsv), core_log, two core links;
# 101 s so that the first 100-s window of core_drops_per_s_var@<a>-<b> is measured.
EVERYTHING = {
    "paper": "registry",
    "experiments": {
        "all_tables": {
            "scenario": {
                "topology": {
                    "kind": "chain",
                    "core_nodes": 3,
                    "core_link": {"bandwidth": "1Mb", "delay": "10ms"},
                    "edge_link": {"bandwidth": "10Mb", "delay": "1ms"},
                },
                "core_queue": {"class": "Queue/RED", "knobs": {"limit_": 15}},
                "flows": {
                    "ftp": {
                        "kind": "ftp",
                        "count": 2,
                        "agent": {"class": "Agent/TCP/Newreno"},
                        "sink": {"class": "Agent/TCPSink"},
                    },
                    "web": {
                        "kind": "http",
                        "count": 2,
                        "agent": {"class": "Agent/TCP/Newreno"},
                        "sink": {"class": "Agent/TCPSink"},
                        "http": {"idle": 0.1},
                    },
                    "udp": {
                        "kind": "cbr",
                        "agent": {"class": "Agent/UDP"},
                        "sink": {"class": "Agent/Null"},
                        "app": {"class": "Application/Traffic/CBR", "knobs": {"rate_": "300Kb"}},
                    },
                    "fec": {
                        "kind": "exponential",
                        "count": 2,
                        "agent": {"class": "Agent/UDP"},
                        "sink": {"class": "Agent/LossMonitor"},
                        "app": {
                            "class": "Application/Traffic/Exponential",
                            "knobs": {"burst_time_": 0, "idle_time_": 0.02, "rate_": "1Gb"},
                        },
                    },
                },
                "monitors": {"core_log": {"interval": 1.0}, "queue_vars": ["ave_"]},
            },
            "duration": 101,
            "warmup": 1,
            "seeds": {"count": 1},
        }
    },
}
# The wireless topology's table (drops.tr): six random-waypoint nodes, interface queues of 5 packets, 1 % of the
# frames lost above the MAC (topology.loss), TCP flows between random pairs (BQM senders: the bqm_* metrics) and
# node 0 -> the last node.
WIRELESS = {
    "paper": "registry",
    "queues": {"IFQ": {"class": "Queue/DropTail/PriQueue", "knobs": {"limit_": 5}}},
    "experiments": {
        "adhoc": {
            "scenario": {
                "topology": {
                    "kind": "wireless",
                    "nodes": 6,
                    "area": [600, 600],
                    "placement": {"random_waypoint": {"max_speed": 10}},
                    "mac": {"class": "Mac/802_11", "knobs": {"dataRate_": "2Mb"}},
                    "loss": {"class": "ErrorModel", "knobs": {"rate_": 0.01}},
                },
                "core_queue": "IFQ",
                "flows": {
                    "fixed": {
                        "kind": "ftp",
                        "endpoints": [0, -1],
                        "agent": {"class": "Agent/TCP/Newreno"},
                        "sink": {"class": "Agent/TCPSink"},
                    },
                    "random": {
                        "kind": "ftp",
                        "count": 4,
                        "endpoints": "random",
                        "agent": {"class": "Agent/TCP/Newreno/BQM"},
                        "sink": {"class": "Agent/TCPSink/BQM"},
                    },
                },
                "monitors": {"packet_trace": False, "queue_sample_interval": 1.0},
            },
            "duration": 30,
            "warmup": 1,
            "seeds": {"count": 1},
        }
    },
}


def simulate(doc: dict, ns_binary: Path, work: Path) -> Path:
    """One run of the pipeline's own driver on params.json made from doc's only cell, parsed to its tables."""
    from parsers import parse_run

    source = work / "experiments.yaml"
    source.write_text(yaml.safe_dump(doc))
    (run,) = expand(load(source), source)
    directory = work / "run"
    directory.mkdir()
    (directory / "params.json").write_text(json.dumps(run.params))
    subprocess.run([str(ns_binary), str(DRIVER), str(directory)], check=True, capture_output=True, timeout=300)
    parse_run(directory, directory / "tables")
    return directory


@pytest.fixture(scope="module")
def real_run(ns_binary, tmp_path_factory) -> Path:
    """EVERYTHING's run."""
    return simulate(EVERYTHING, ns_binary, tmp_path_factory.mktemp("registry"))


@pytest.fixture(scope="module")
def wireless_run(ns_binary, tmp_path_factory) -> Path:
    """WIRELESS's run."""
    return simulate(WIRELESS, ns_binary, tmp_path_factory.mktemp("registry_wireless"))


@pytest.fixture
def produced(real_run, wireless_run, untraced_run, core_log_run) -> pd.DataFrame:  # noqa: F811
    """(scope, metric) of every metrics row of the four runs."""
    frames = [
        run_metrics(
            run, warmup=1.0, queue_thresholds=(1000,), queue_ranges=((0, 5),), settle=((1, 0.5),), fec_blocks=((4, 1),)
        )[0]
        for run in (real_run, wireless_run, untraced_run, core_log_run)
    ]
    return pd.concat(frames, ignore_index=True)[["scope", "metric"]].drop_duplicates()


def test_every_metric_produced_is_registered_with_its_scope(produced):
    unknown = sorted(set(produced["metric"]) - {m for m in produced["metric"] if lookup(m)})
    assert not unknown, f"metrics.py produces metrics the registry lacks: {unknown}"
    wrong = [
        (row.metric, row.scope)
        for row in produced.itertuples()
        if scope_kind(row.scope) not in lookup(row.metric).scopes
    ]
    assert not wrong, f"produced in scopes the registry does not list: {wrong[:10]}"


def test_every_registered_metric_is_produced_in_every_scope_it_lists(produced):
    seen = {(lookup(row.metric).name, scope_kind(row.scope)) for row in produced.itertuples()}
    missing = [(m.name, scope) for m in METRICS for scope in m.scopes if (m.name, scope) not in seen]
    assert not missing, f"registered but produced by no fixture: {missing}"


def test_the_real_run_has_every_member_of_each_patterned_family(real_run):
    names = set(
        run_metrics(real_run, warmup=1.0, queue_thresholds=(1000, 5000), queue_ranges=((0, 5), (5, 15)))[0]["metric"]
    )
    assert {"queue_above_1000B_pct", "queue_above_5000B_pct", "bottleneck_queue_above_5000B_pct"} <= names
    assert {"queue_pkts_in_0_5_pct", "queue_pkts_in_5_15_pct", "bottleneck_queue_pkts_in_5_15_pct"} <= names
    assert "qvar_ave_mean" in names
    assert {f"core_drop_hint_le{k}_pct" for k in HINT_LEVELS} <= names
    assert {"object_delay_s_p70", "object_delay_s_p90", "object_delay_s_p95"} <= names
    assert "core_drops_per_s_var@0-100" in names
    assert {f"e2e_loss_run_{k}_pct" for k in LOSS_RUN_LENGTHS} <= names


def test_the_real_run_measures_each_fec_code_asked_for(real_run):
    rows = run_metrics(real_run, warmup=1.0, fec_blocks=((4, 1), (16, 4)))[0]
    fec = rows[(rows["scope"] == "group:fec") & rows["metric"].str.startswith("fec_")].set_index("metric")["value"]
    kinds = (("plrbc", "_pct"), ("plr", "_pct"), ("plr_data", "_pct"), ("blocks", ""))
    assert set(fec.index) == {f"fec_{m}_{k}_{h}{end}" for k, h in ((4, 1), (16, 4)) for m, end in kinds}
    assert fec["fec_plrbc_4_1_pct"] > fec["fec_plr_4_1_pct"] > 0  # the setup loses packets, h = 1 repairs some
    assert {f"sink_loss_run_{k}_pct" for k in LOSS_RUN_LENGTHS} <= set(rows["metric"])


def test_the_wireless_run_has_every_cause_and_no_link_metric(wireless_run):
    rows = run_metrics(wireless_run, warmup=1.0, queue_thresholds=(1000,))[0]
    names = set(rows["metric"])
    assert {f"wireless_drops_{cause}" for cause in WIRELESS_DROP_CAUSES} <= names
    assert "wireless_drops_queue_pct" in names and "goodput_Bps" in names
    values = {r.metric: r.value for r in rows.itertuples() if r.scope == "all"}
    assert values["wireless_drops_random"] > 0, "topology.loss's drops reach drops.tr with their own reason"
    assert values["bqm_congestion_responses_per_flow"] + values["bqm_wireless_responses_per_flow"] > 0
    assert not [m for m in names if lookup(m).needs and metric_registry.PACKET_TRACE in lookup(m).needs]
    assert set(rows["scope"]) <= {"all", "group:fixed", "group:random"} | {f"flow{fid}" for fid in range(1, 6)}


def test_names_are_unique_and_no_two_entries_claim_one_name():
    names = [m.name for m in METRICS]
    assert len(names) == len(set(names))
    for m in METRICS:
        if m.pattern is None:
            assert [other.name for other in METRICS if other.matches(m.name)] == [m.name]


@pytest.mark.parametrize(
    "name,entry",
    [
        ("core_drops_per_s_var@100-200", "core_drops_per_s_var@<a>-<b>"),
        ("core_drops_per_s_var", "core_drops_per_s_var"),
        ("core_drop_hint_le10_pct", "core_drop_hint_le<k>_pct"),
        ("object_delay_s_p90", "object_delay_s_p<q>"),
        ("bottleneck_queue_osc_hz", "bottleneck_queue_osc_hz"),
        ("wireless_drops_link_failure", "wireless_drops_<cause>"),
        ("wireless_drops_queue_pct", "wireless_drops_queue_pct"),
        ("e2e_loss_run_1_pct", "e2e_loss_run_<k>_pct"),
        ("e2e_loss_run_10_pct", "e2e_loss_run_<k>_pct"),
        ("e2e_loss_run_mean", "e2e_loss_run_mean"),
        ("fec_plr_16_1_pct", "fec_plr_<k>_<h>_pct"),
        ("fec_plr_data_16_1_pct", "fec_plr_data_<k>_<h>_pct"),
        ("fec_plrbc_8_2_pct", "fec_plrbc_<k>_<h>_pct"),
        ("fec_blocks_8_2", "fec_blocks_<k>_<h>"),
        ("sink_loss_run_3_pct", "sink_loss_run_<k>_pct"),
    ],
)
def test_lookup_finds_the_family(name, entry):
    assert lookup(name).name == entry


@pytest.mark.parametrize(
    "name",
    [
        "core_drop_hint_le11_pct",
        "core_drop_hint_le0_pct",
        "object_delay_s_p50",
        "wireless_drops_ttl",
        "nope",
        "e2e_loss_run_0_pct",
        "e2e_loss_run_11_pct",
        "e2e_loss_run_01_pct",
        "fec_plr_16_pct",
        "fec_plr_x_1_pct",
        "sink_loss_run_11_pct",
    ],
)
def test_lookup_refuses_names_outside_a_family(name):
    assert lookup(name) is None


@pytest.mark.parametrize(
    "scope,kind", [("all", "all"), ("group:ftp", "group:<name>"), ("flow12", "flow<fid>"), ("core1", "core<i>")]
)
def test_scope_kinds(scope, kind):
    assert scope_kind(scope) == kind


def test_markdown_lists_every_entry():
    table = metric_registry.markdown()
    names = {row_cells(line)[0] for line in table.splitlines()[2:] if line.startswith("|")}
    assert names == {f"`{m.name}`" for m in METRICS}
    assert row_cells(table.splitlines()[0]) == ("metric", "scopes", "unit", "needs", "what")
