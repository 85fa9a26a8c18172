"""Resolving wireless experiments (experiments/planning/expansion.py): placement to node tracks, flow groups'
endpoints to source_node / sink_node, random pairs from the run's seed on a stream of their own."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from experiments.config.load import load
from experiments.planning import mobility
from experiments.planning.expansion import Run, expand
from experiments.planning.params import flow_endpoints, start_times

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def wireless():
    """tests/configs/wireless.yaml: 5 nodes 200 m apart in 1000 x 500 m, one TCP group 0 -> the last node."""
    return load(REPO / "tests" / "configs" / "wireless.yaml")


@pytest.fixture
def minimal():
    return load(REPO / "tests" / "configs" / "minimal.yaml")


def adhoc(doc: dict, count: int = 16, nodes: int = 10, seeds: int = 2) -> dict:
    """doc's experiment made random: random-waypoint nodes, `count` random pairs starting in [0, 60)."""
    exp = doc["experiments"]["tiny"]
    exp["duration"] = 100
    exp["seeds"] = {"count": seeds, "first": 1}
    exp["matrix"]["product"] = {}
    exp["scenario"]["topology"] |= {
        "nodes": nodes,
        "area": [800, 1600],
        "placement": {"random_waypoint": {"max_speed": 5, "pause": 2}},
    }
    exp["scenario"]["flows"]["tcp"] |= {"endpoints": "random", "count": count, "start": {"uniform": [0, 60]}}
    return doc


def pairs(run: Run) -> list[tuple[int, int]]:
    return [(f["source_node"], f["sink_node"]) for f in run.params["flows"]]


def test_a_line_resolves_into_static_tracks(wireless):
    first, second = expand(wireless)
    topology = first.params["topology"]
    assert topology["tracks"] == [{"x": 200.0 * i, "y": 250.0, "moves": []} for i in range(5)], "y: the middle"
    assert "nodes" not in topology and "placement" not in topology, "resolved into the tracks"
    assert (topology["kind"], topology["area"], topology["routing"], topology["radio_range"]) == (
        "wireless",
        [1000, 500],
        "AODV",
        250,
    ), "routing and radio_range by default"
    assert topology["mac"] == {"class": "Mac/802_11", "knobs": {"dataRate_": "2Mb"}}
    assert first.params["core_queue"] == {"class": "Queue/DropTail/PriQueue", "knobs": {"limit_": 50}}
    assert first.params["monitors"]["packet_trace"] is False
    assert pairs(first) == [(0, 4)] and pairs(second) == [(0, 4), (0, 4)], "-1: the last node"
    for flow in second.params["flows"]:
        assert not {"enter", "leave", "edge_link"} & set(flow)
        assert (flow["kind"], flow["group"], flow["app"]["class"]) == ("ftp", "tcp", "Application/FTP")


def test_line_offsets_and_the_last_node_follow_the_node_count(wireless):
    exp = wireless["experiments"]["tiny"]
    exp["scenario"]["topology"]["placement"] = {"line": {"spacing": 150, "x0": 25, "y": 40}}
    exp["matrix"]["product"] = {"hops": {"path": "topology.nodes", "levels": {1: 2, 3: 4, 6: 7}}}
    runs = expand(wireless)
    assert [len(r.params["topology"]["tracks"]) for r in runs] == [2, 4, 7]
    assert [pairs(r) for r in runs] == [[(0, 1)], [(0, 3)], [(0, 6)]]
    assert runs[-1].params["topology"]["tracks"][-1] == {"x": 925.0, "y": 40.0, "moves": []}


def test_random_waypoint_tracks_and_random_pairs(wireless):
    runs = expand(adhoc(wireless))
    assert len(runs) == 2
    for run in runs:
        tracks = run.params["topology"]["tracks"]
        assert len(tracks) == 10
        assert tracks == mobility.random_waypoint(10, (800, 1600), 5, 100.0, f"mobility:{run.seed}", pause=2)
        for track in tracks:
            assert 0 < track["x"] < 800 and 0 < track["y"] < 1600
            times = [move[0] for move in track["moves"]]
            assert times == sorted(times) and all(2 <= t < 100 for t in times), "the first move after a pause"
            assert all(0 < x < 800 and 0 < y < 1600 and 0 < s <= 5 for _, x, y, s in track["moves"])
        got = pairs(run)
        assert len(got) == 16
        assert all(src != dst and {src, dst} <= set(range(10)) for src, dst in got)
        assert len(set(got)) > 1, "each flow draws its own pair"
    assert pairs(runs[0]) != pairs(runs[1]), "another seed, other pairs"
    assert runs[0].params["topology"]["tracks"] != runs[1].params["topology"]["tracks"]


def test_the_same_seed_gives_the_same_params(wireless):
    first = expand(adhoc(wireless))
    again = expand(adhoc(load(REPO / "tests" / "configs" / "wireless.yaml")))
    assert [r.params for r in first] == [r.params for r in again]


def test_the_first_n_pairs_of_a_seed_are_the_same_for_every_count(wireless):
    exp = adhoc(wireless, seeds=3)["experiments"]["tiny"]
    exp["matrix"]["product"] = {"connections": {"path": "flows.tcp.count", "levels": [8, 16]}}
    runs = expand(wireless)
    by_seed: dict[int, dict[int, Run]] = {}
    for run in runs:
        by_seed.setdefault(run.seed, {})[run.labels["connections"]] = run
    assert len(by_seed) == 3
    for counts in by_seed.values():
        few, many = counts[8], counts[16]
        assert pairs(many)[:8] == pairs(few)
        assert [f["start"] for f in many.params["flows"]][:8] == [f["start"] for f in few.params["flows"]]
        assert few.params["topology"] == many.params["topology"], "the tracks do not depend on the flows"


def test_endpoints_leave_the_start_times_unchanged(wireless, minimal):
    """Random endpoints draw from their own stream: the starts are those the same groups draw on a wired topology,
    i.e. random.Random(seed)'s uniforms group by group in file order."""
    adhoc(wireless, count=6)
    second = {
        "kind": "ftp",
        "count": 4,
        "start": {"uniform": [10, 20]},
        "agent": {"class": "Agent/TCP/Newreno"},
        "sink": {"class": "Agent/TCPSink"},
    }
    wireless["experiments"]["tiny"]["scenario"]["flows"]["later"] = {**second, "endpoints": "random"}
    wired = minimal["experiments"]["tiny"]
    wired["seeds"] = {"count": 2, "first": 1}
    wired["matrix"]["product"] = {}
    wired["scenario"]["flows"]["tcp"] |= {"count": 6, "start": {"uniform": [0, 60]}}
    wired["scenario"]["flows"]["later"] = dict(second)
    for ad_hoc, dumbbell in zip(expand(wireless), expand(minimal), strict=True):
        assert ad_hoc.seed == dumbbell.seed
        starts = [f["start"] for f in ad_hoc.params["flows"]]
        assert starts == [f["start"] for f in dumbbell.params["flows"]]
        rng = random.Random(ad_hoc.seed)
        assert starts == start_times({"uniform": [0, 60]}, 6, rng) + start_times({"uniform": [10, 20]}, 4, rng)


def test_random_pairs_are_uniform_over_ordered_pairs_of_two_nodes():
    ends = flow_endpoints("random", 6000, 4, random.Random("endpoints:1"))
    counts = Counter((e["source_node"], e["sink_node"]) for e in ends)
    assert set(counts) == {(s, d) for s in range(4) for d in range(4) if s != d}
    assert all(400 < n < 600 for n in counts.values()), counts  # 500 expected for each of the 12


def test_fixed_endpoints():
    assert flow_endpoints([2, -1], 2, 5, random.Random(1)) == [{"source_node": 2, "sink_node": 4}] * 2
    assert flow_endpoints([-1, 0], 1, 3, random.Random(1)) == [{"source_node": 2, "sink_node": 0}]


def test_li_s_schemes_of_one_seed_share_nodes_connections_and_starts():
    """Li §4.3.2: 'TCP connections are randomly created between these mobile nodes based on a random seed': in
    configs/bqm.yaml's ad hoc experiments the runs of one seed and cell differ only in the scheme's queue and
    agents, and a sweep over the number of connections takes the first n of one list."""
    path = REPO / "configs" / "bqm.yaml"
    doc = load(path)
    adhoc_experiments = [n for n, e in doc["experiments"].items() if e["scenario"]["topology"]["kind"] == "wireless"]
    assert adhoc_experiments
    cells: dict[tuple, list] = {}
    by_count: dict[tuple, list] = {}
    for run in expand(doc, path, experiments=adhoc_experiments):
        flows = [(f["start"], f["source_node"], f["sink_node"]) for f in run.params["flows"]]
        assert all(src != dst for _, src, dst in flows)
        assert len(run.params["topology"]["tracks"]) >= 2
        others = tuple(sorted((k, str(v)) for k, v in run.labels.items() if k != "scheme"))
        cells.setdefault((run.context["experiment"], run.seed, others), []).append((run.params["topology"], flows))
        if "connections" in run.labels:
            key = (run.context["experiment"], run.seed, run.labels.get("scheme"))
            by_count.setdefault(key, []).append(flows)
    for same in cells.values():
        assert all(entry == same[0] for entry in same[1:])
    for lists in by_count.values():
        longest = max(lists, key=len)
        assert all(flows == longest[: len(flows)] for flows in lists)
