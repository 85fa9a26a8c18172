"""Matrix expansion: product and zipped axes, seeds, labels, resolved parameters."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from experiments.config.load import load
from experiments.config.units import seconds
from experiments.planning.expansion import expand
from experiments.planning.params import HTTP_DEFAULTS, edge_delays, gaimd_alpha

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def minimal():
    return load(REPO / "tests" / "configs" / "minimal.yaml")


def test_product_times_seeds(minimal):
    minimal["experiments"]["tiny"]["seeds"] = {"count": 3, "first": 5}
    runs = expand(minimal)
    assert [(r.labels["flows_n"], r.seed) for r in runs] == [(1, 5), (1, 6), (1, 7), (2, 5), (2, 6), (2, 7)]


def test_levels_reach_the_parameters(minimal):
    runs = expand(minimal)
    assert [len(r.params["flows"]) for r in runs] == [1, 2]
    assert [f["fid"] for f in runs[1].params["flows"]] == [1, 2]
    assert runs[1].params["flows"][1]["app"] == {"class": "Application/FTP", "knobs": {}}


def test_zip_advances_together_and_crosses_with_product(minimal):
    exp = minimal["experiments"]["tiny"]
    exp["matrix"]["zip"] = [
        {
            "bw": {"path": "topology.core_link.bandwidth", "levels": {"slow": "1Mb", "fast": "10Mb"}},
            "buf": {
                "path": "core_queue",
                "levels": {
                    "small": {"class": "Queue/DropTail", "knobs": {"limit_": 5}},
                    "large": {"class": "Queue/DropTail", "knobs": {"limit_": 50}},
                },
            },
        }
    ]
    runs = expand(minimal)
    combos = [(r.labels["flows_n"], r.labels["bw"], r.labels["buf"]) for r in runs]
    assert combos == [(1, "slow", "small"), (1, "fast", "large"), (2, "slow", "small"), (2, "fast", "large")]
    fast = runs[1].params
    assert fast["topology"]["core_link"]["bandwidth"] == "10Mb"
    assert fast["core_queue"] == {"class": "Queue/DropTail", "knobs": {"limit_": 50}}


def test_named_queue_is_resolved_and_not_shared(minimal):
    runs = expand(minimal)
    assert runs[0].params["core_queue"] == {"class": "Queue/RED", "knobs": {"thresh_": 5, "maxthresh_": 15}}
    runs[0].params["core_queue"]["knobs"]["thresh_"] = 99
    assert minimal["queues"]["RED"]["knobs"]["thresh_"] == 5


def test_levels_without_path_set_several_paths(minimal):
    exp = minimal["experiments"]["tiny"]
    levels = {
        "a": {"topology.core_link.delay": "5ms", "flows.tcp.start": 1.5},
        "b": {"topology.core_link.delay": "50ms", "flows.tcp.start": 0},
    }
    exp["matrix"]["product"] = {"mode": {"levels": levels}}
    runs = expand(minimal)
    assert [(r.params["topology"]["core_link"]["delay"], r.params["flows"][0]["start"]) for r in runs] == [
        ("5ms", 1.5),
        ("50ms", 0),
    ]


def test_no_axes_gives_one_cell(minimal):
    minimal["experiments"]["tiny"]["matrix"]["product"] = {}
    runs = expand(minimal)
    assert len(runs) == 1 and runs[0].labels == {}


def test_context_columns(minimal):
    run = expand(minimal)[0]
    assert run.context == {"paper": "minimal", "experiment": "tiny", "flows_n": 1, "seed": 1}
    assert run.params["schema"] == "ns2-repro/run-params/2"


def test_expansion_does_not_mutate_the_config(minimal):
    before = copy.deepcopy(minimal)
    expand(minimal)
    assert minimal == before


def test_koo_aqm_runs():
    doc = load(REPO / "configs" / "koo_aqm.yaml")
    runs = expand(doc, "configs/koo_aqm.yaml")
    assert len(runs) == 2 * 3 * 2 * 10  # experiments x queues x variants x seeds
    chain = [r for r in runs if r.experiment == "chain"]
    assert {r.params["topology"]["core_nodes"] for r in chain} == {4}
    pi = next(r for r in runs if r.labels["queue"] == "PI")
    assert pi.params["core_queue"]["knobs"]["qref_"] == 140  # packets of 500 B, not 70000
    text = next(r for r in runs if r.labels == {"queue": "RED", "variant": "as_text"})
    script = next(r for r in runs if r.labels == {"queue": "RED", "variant": "as_script"})
    assert text.params["flows"][3]["app"]["knobs"]["burst_time_"] == 0.01
    assert "burst_time_" not in script.params["flows"][3]["app"]["knobs"]  # ns-2's 500 ms default
    # the two variants differ in the Pareto application only
    text_rest = {**text.params, "labels": None, "flows": text.params["flows"][:3]}
    script_rest = {**script.params, "labels": None, "flows": script.params["flows"][:3]}
    assert text_rest == script_rest


def test_smooth_tcp_runs():
    doc = load(REPO / "configs" / "smooth_tcp.yaml")
    runs = expand(doc, "configs/smooth_tcp.yaml")
    queue_runs = [r for r in runs if r.experiment == "queue_dynamics"]
    multi = [r for r in runs if r.experiment == "multi_bottleneck"]
    assert len(queue_runs) == 4 * 4 * 2 * 5 and len(multi) == 2 * 4 * 5 * 2 * 5
    smooth = next(r for r in queue_runs if r.labels["protocol"] == "TCP(0.31, 0.875)")
    knobs = smooth.params["flows"][0]["agent"]["knobs"]
    assert knobs["increase_num_"] == pytest.approx(0.3125) and knobs["decrease_num_"] == 0.875
    assert "gaimd_strict_" not in knobs  # stock ns-2 unless the variant is strict
    strict = next(r for r in queue_runs if r.labels["variant"] == "strict")
    assert strict.params["flows"][0]["agent"]["knobs"]["gaimd_strict_"] == 1
    errors = next(r for r in queue_runs if r.labels["setting"] == "red_10_errors")
    assert errors.params["topology"]["sink_loss"] == {"class": "ErrorModel", "knobs": {"rate_": 0.01}}
    assert "sink_loss" not in smooth.params["topology"]
    # a mixed deployment: each group keeps its own beta (the groups share one YAML anchor)
    mixed = next(r for r in multi if r.labels["deployment"] == "main_smooth_cross_responsive")
    betas = {(f["group"], f["agent"]["knobs"]["decrease_num_"]) for f in mixed.params["flows"]}
    assert betas == {("main", 0.875), ("cross", 0.25)}
    cross = [f for f in mixed.params["flows"] if f["group"] == "cross"]
    assert {(f["enter"], f["leave"], f["edge_link"]["delay"]) for f in cross} == {(2, 3, "12.5ms")}
    assert cross[0]["edge_link"]["queue"] == {"class": "Queue/DropTail", "knobs": {"limit_": 100}}
    assert mixed.params["topology"]["core_links"][1]["queue"]["class"] == "Queue/DropTail"


def test_random_start_times_come_from_the_seed(minimal):
    minimal["experiments"]["tiny"]["scenario"]["flows"]["tcp"]["start"] = {"uniform": [1, 3]}
    minimal["experiments"]["tiny"]["seeds"] = {"count": 2, "first": 1}
    first = expand(minimal)
    again = expand(minimal)
    starts = [[f["start"] for f in r.params["flows"]] for r in first]
    assert starts == [[f["start"] for f in r.params["flows"]] for r in again]
    assert all(1 <= s < 3 for run in starts for s in run)
    assert starts[0] != starts[1], "another seed, other start times"
    assert len(set(starts[-1])) == 2, "each flow draws its own"


def test_gaimd_alpha_is_tcp_friendly():
    assert [round(gaimd_alpha(b), 4) for b in (0.875, 0.75, 0.5, 0.25)] == [0.3125, 0.5833, 1.0, 1.25]


def test_http_groups_resolve_with_the_thesis_defaults(minimal):
    groups = minimal["experiments"]["tiny"]["scenario"]["flows"]
    groups["web"] = {
        "kind": "http",
        "count": 2,
        "start": 0,
        "http": {"idle": 1.0},
        "agent": {"class": "Agent/TCP/Newreno"},
        "sink": {"class": "Agent/TCPSink"},
    }
    run = expand(minimal)[0]
    web = [f for f in run.params["flows"] if f["group"] == "web"]
    assert len(web) == 2 and all("app" not in f for f in web)
    assert web[0]["http"] == {**HTTP_DEFAULTS, "idle": 1.0}
    assert web[0]["http"]["mean_bytes"] == 10000 and web[0]["http"]["shape"] == 1.2


def test_bqm_and_droptail_runs_of_one_seed_share_their_start_times():
    """Li §4.2: 'Droptail and BQM are able to have the same simulation environment by reading the start time
    file': a run's seed draws the list, so both schemes (and every number of connections, which takes the first
    n of it) start their connections at the same times."""
    path = Path(__file__).resolve().parents[2] / "configs" / "bqm.yaml"
    doc = load(path)
    starts: dict = {}
    for run in expand(doc, path, experiments=["wired"]):  # the ad hoc experiments: test_wireless_matrix.py
        flows = [f["start"] for f in run.params["flows"]]
        assert all(0 <= s < 180 for s in flows)
        starts.setdefault((run.labels["bandwidth"], run.seed), []).append(flows)
    assert len(starts) == 2 * 10
    for lists in starts.values():
        longest = max(lists, key=len)
        assert all(flows == longest[: len(flows)] for flows in lists)  # both schemes, every n: one list
    assert len({tuple(max(lists, key=len)) for lists in starts.values()}) == 10  # one list per seed


def test_staggered_starts_and_a_group_stop_reach_every_flow(minimal):
    tcp = minimal["experiments"]["tiny"]["scenario"]["flows"]["tcp"]
    tcp.update(count=3, start={"first": 0.2, "every": 0.1}, stop=1.5)
    minimal["experiments"]["tiny"]["matrix"] = {"product": {}, "zip": []}
    (run, *_) = expand(minimal)
    flows = [f for f in run.params["flows"] if f["group"] == "tcp"]
    assert [f["start"] for f in flows] == [0.2, 0.3, 0.4]  # rounded: 0.2 + 0.1 is not 0.30000000000000004
    assert [f["stop"] for f in flows] == [1.5, 1.5, 1.5]


def test_a_group_of_no_flows_contributes_none(minimal):
    flows = minimal["experiments"]["tiny"]["scenario"]["flows"]
    flows["extra"] = {**copy.deepcopy(flows["tcp"]), "count": 0}
    (run, *_) = expand(minimal)
    assert {f["group"] for f in run.params["flows"]} == {"tcp"}


def test_edge_delays_spread_each_flows_access_links_linearly(minimal):
    scenario = minimal["experiments"]["tiny"]["scenario"]
    tcp = scenario["flows"]["tcp"]
    tcp.update(count=5, edge_delays={"first": "1ms", "last": "201ms"}, edge_link={"bandwidth": "100Mb"})
    minimal["experiments"]["tiny"]["matrix"] = {"product": {}, "zip": []}
    (run, *_) = expand(minimal)
    links = [f["edge_link"] for f in run.params["flows"] if f["group"] == "tcp"]
    assert [link["delay"] for link in links] == ["1.0ms", "51.0ms", "101.0ms", "151.0ms", "201.0ms"]
    assert {link["bandwidth"] for link in links} == {"100Mb"}  # the group's edge_link fields stay
    rng = random.Random(0)
    assert edge_delays({"first": "2.5ms", "last": "0.1s"}, 1, rng) == ["2.5ms"]
    assert edge_delays({"first": "1ms", "last": "2ms"}, 4, rng)[1] == "1.333333ms"  # to the nanosecond


def test_uniform_edge_delays_come_from_the_seed_and_leave_start_times_alone(minimal):
    tcp = minimal["experiments"]["tiny"]["scenario"]["flows"]["tcp"]
    tcp.update(count=20, start={"uniform": [0, 1]})
    minimal["experiments"]["tiny"]["matrix"] = {"product": {}, "zip": []}
    minimal["experiments"]["tiny"]["seeds"] = {"count": 2, "first": 1}
    plain = expand(minimal)
    tcp["edge_delays"] = {"uniform": ["10ms", "50ms"]}
    drawn = expand(minimal)
    again = expand(minimal)
    delays = [[seconds(f["edge_link"]["delay"]) for f in r.params["flows"]] for r in drawn]
    assert delays == [[seconds(f["edge_link"]["delay"]) for f in r.params["flows"]] for r in again]
    assert all(0.010 <= d < 0.050 for run in delays for d in run)
    assert delays[0] != delays[1], "another seed, other delays"
    assert len(set(delays[0])) == 20, "each flow draws its own"
    assert [[f["start"] for f in r.params["flows"]] for r in drawn] == [
        [f["start"] for f in r.params["flows"]] for r in plain
    ]
