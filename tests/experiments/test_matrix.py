"""Matrix expansion: product and zipped axes, seeds, labels, resolved parameters."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from experiments import config, matrix

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def minimal():
    return config.load(REPO / "tests" / "configs" / "minimal.yaml")


def test_product_times_seeds(minimal):
    minimal["experiments"]["tiny"]["seeds"] = {"count": 3, "first": 5}
    runs = matrix.expand(minimal)
    assert [(r.labels["flows_n"], r.seed) for r in runs] == [(1, 5), (1, 6), (1, 7), (2, 5), (2, 6), (2, 7)]


def test_levels_reach_the_parameters(minimal):
    runs = matrix.expand(minimal)
    assert [len(r.params["flows"]) for r in runs] == [1, 2]
    assert [f["fid"] for f in runs[1].params["flows"]] == [1, 2]
    assert runs[1].params["flows"][1]["app"] == {"class": "Application/FTP", "knobs": {}}


def test_zip_advances_together_and_crosses_with_product(minimal):
    exp = minimal["experiments"]["tiny"]
    exp["matrix"]["zip"] = [
        {
            "bw": {"path": "topology.core_link.bandwidth", "levels": {"slow": "1Mb", "fast": "10Mb"}},
            "buf": {"path": "core_queue", "levels": {"small": {"class": "Queue/DropTail", "knobs": {"limit_": 5}},
                                                     "large": {"class": "Queue/DropTail", "knobs": {"limit_": 50}}}},
        }
    ]  # fmt: skip
    runs = matrix.expand(minimal)
    combos = [(r.labels["flows_n"], r.labels["bw"], r.labels["buf"]) for r in runs]
    assert combos == [(1, "slow", "small"), (1, "fast", "large"), (2, "slow", "small"), (2, "fast", "large")]
    fast = runs[1].params
    assert fast["topology"]["core_link"]["bandwidth"] == "10Mb"
    assert fast["core_queue"] == {"class": "Queue/DropTail", "knobs": {"limit_": 50}}


def test_named_queue_is_resolved_and_not_shared(minimal):
    runs = matrix.expand(minimal)
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
    runs = matrix.expand(minimal)
    assert [(r.params["topology"]["core_link"]["delay"], r.params["flows"][0]["start"]) for r in runs] == [
        ("5ms", 1.5),
        ("50ms", 0),
    ]


def test_no_axes_gives_one_cell(minimal):
    minimal["experiments"]["tiny"]["matrix"]["product"] = {}
    runs = matrix.expand(minimal)
    assert len(runs) == 1 and runs[0].labels == {}


def test_context_columns(minimal):
    run = matrix.expand(minimal)[0]
    assert run.context == {"paper": "minimal", "experiment": "tiny", "flows_n": 1, "seed": 1}
    assert run.params["schema"] == "ns2-repro/run-params/1"


def test_expansion_does_not_mutate_the_config(minimal):
    before = copy.deepcopy(minimal)
    matrix.expand(minimal)
    assert minimal == before


def test_koo_aqm_runs():
    doc = config.load(REPO / "configs" / "koo_aqm.yaml")
    runs = matrix.expand(doc, "configs/koo_aqm.yaml")
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
