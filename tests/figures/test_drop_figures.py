"""figures/psand.py (Ch. 1) on hand-made runs, and configs/psand.yaml's Ch. 1 queues against drop_functions."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from experiments.paper_models import drop_functions as df
from figures import psand as dfig
from figures.common import ExperimentData

RED = {"class": "Queue/RED", "knobs": {"thresh_": 5, "maxthresh_": 15, "linterm_": 10, "gentle_": True}}
RIO = {
    "class": "Queue/RED/RIO",
    "knobs": {
        "linterm_": 10,
        "gentle_": False,
        "priority_method_": 1,
        "in_thresh_": 15,
        "in_maxthresh_": 30,
        "in_linterm_": 50,
        "out_thresh_": 5,
        "out_maxthresh_": 15,
    },
}


def test_queue_function_reads_the_runs_knobs():
    fn = dfig.queue_function(RED)
    assert fn.params == df.RED_GENTLE and (fn.x, fn.y) == ("qvar_ave", "qvar_prob1")
    assert (fn.low, fn.high) == (5, math.inf)  # use_mark_p_ true: computed above 2 Max_th too
    strict = dfig.queue_function({**RED, "knobs": {**RED["knobs"], "gentle_": False, "use_mark_p_": False}})
    assert strict.params == df.RED_STRICT and strict.high == 15
    rio_in, rio_out = dfig.queue_function(RIO), dfig.queue_function(RIO, out=True)
    assert rio_in.params == df.RIO_IN and (rio_in.x, rio_in.y, rio_in.high) == ("qvar_in_ave", "qvar_in_prob1", 30)
    assert rio_out.params == df.RIO_OUT and rio_out.y == "qvar_out_prob1"
    with pytest.raises(ValueError, match="no drop function"):
        dfig.queue_function({"class": "Queue/DropTail", "knobs": {}})


def test_config_queues_are_the_figures_parameters():
    doc = yaml.safe_load((Path(__file__).parents[2] / "configs" / "psand.yaml").read_text())
    queues = doc["queues"]
    assert dfig.queue_function(queues["RED_strict"]).params == df.RED_STRICT
    assert dfig.queue_function(queues["RED"]).params == df.RED_GENTLE
    assert dfig.queue_function(queues["RIO_in"]).params == df.RIO_IN
    assert dfig.queue_function(queues["RIO_in"], out=True).params == df.RIO_OUT
    levels = doc["experiments"]["drop_functions"]["matrix"]["product"]["queue"]["levels"]
    assert levels["RED_gentle"] == {"core_queue": "RED"}


def runs(tmp_path, pairs: dict) -> ExperimentData:
    """One run per level with params.json's core queue and series of (t, average, probability)."""
    index, rows = [], []
    for level, (queue, samples) in pairs.items():
        run = tmp_path / level
        run.mkdir()
        (run / "params.json").write_text(json.dumps({"core_queue": queue, "flows": []}))
        index.append({"queue": level, "seed": 1, "directory": str(run)})
        fn = dfig.queue_function(queue)
        for t, x, y in samples:
            rows += [
                {"queue": level, "seed": 1, "scope": "core0", "metric": m, "t": t, "value": v}
                for m, v in ((fn.x, x), (fn.y, y))
            ]
    pd.DataFrame(index).to_parquet(tmp_path / "runs.parquet")
    return ExperimentData(pd.DataFrame(), pd.DataFrame(rows), ["queue"], {}, {}, tmp_path)


def test_agreement_counts_only_recomputed_samples_and_finds_a_bad_one(tmp_path):
    # gentle 5, 15, 0.1: d(10) = 0.05, d(22.5) = 0.55; a stale value below Min_th; one wrong value at 12
    samples = [(0.0, 2.0, 0.3), (0.01, 10.0, 0.05), (0.02, 22.5, 0.55), (0.03, 12.0, 0.5)]
    data = runs(tmp_path, {"RED_gentle": (RED, samples)})
    fn = dfig.queue_function(RED)
    frame = dfig.agreement(dfig.sampled_pairs(data, "queue", "RED_gentle", fn.x, fn.y), fn)
    assert frame["inside"].tolist() == [False, True, True, True]
    on = frame[frame["inside"]]["error"] <= dfig.ON_CURVE
    assert on.tolist() == [True, True, False]


def test_agreement_allows_the_read_back_rounding_at_a_jump_only(tmp_path):
    # strict: an average read as 15 (6 digits) may be 14.999996, where ns-2's 0.1 is right; 0.05 is wrong anyway
    strict = {**RED, "knobs": {**RED["knobs"], "gentle_": False}}
    data = runs(tmp_path, {"RED_strict": (strict, [(0.0, 15.0, 0.1), (0.01, 15.0, 1.0), (0.02, 15.0, 0.05)])})
    fn = dfig.queue_function(strict)
    frame = dfig.agreement(dfig.sampled_pairs(data, "queue", "RED_strict", fn.x, fn.y), fn)
    assert (frame["error"] <= dfig.ON_CURVE).tolist() == [True, True, False]


def test_red_and_rio_figures_are_drawn(tmp_path):
    data = runs(tmp_path, {"RED_gentle": (RED, [(0.0, 10.0, 0.05)]), "RIO_in": (RIO, [(0.0, 20.0, 0.02 / 3)])})
    (png,) = dfig.red_figure(
        data, tmp_path / "f11", {"id": "f11", "experiment": "e", "panels": "queue", "levels": ["RED_gentle"]}
    )
    assert png.stat().st_size > 0
    (png,) = dfig.rio_figure(
        data, tmp_path / "f15", {"id": "f15", "experiment": "e", "panels": "queue", "levels": ["RIO_in"]}
    )
    assert png.stat().st_size > 0
    with pytest.raises(ValueError, match="no runs"):
        dfig.red_figure(data, tmp_path / "x", {"id": "x", "experiment": "e", "panels": "queue", "levels": ["nope"]})


def test_formula_figures_need_no_runs(tmp_path):
    empty = ExperimentData(pd.DataFrame(), pd.DataFrame())
    for function in (dfig.sred_figure, dfig.dsred_figure):
        (png,) = function(empty, tmp_path / function.__name__, {"id": function.__name__, "experiment": "e"})
        assert png.stat().st_size > 0
