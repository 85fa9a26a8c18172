"""figures/psand.py's Chapter 5 functions and figures.generic.metrics_vs_axis on small hand-made tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiments.paper_models import fec_model
from figures import generic, psand
from figures.common import ExperimentData

FLOWS = [10, 20, 30, 40, 50]


def test_first_crossing_interpolates_and_says_when_there_is_none():
    assert psand.first_crossing([10, 20, 30], [-2.0, -1.0, 1.0]) == pytest.approx(25)
    assert psand.first_crossing([10, 20, 30], [-2.0, 0.0, 1.0]) == pytest.approx(20)
    assert psand.first_crossing([10, 20, 30], [0.5, -1.0, 1.0]) == -math.inf
    assert math.isnan(psand.first_crossing([10, 20, 30], [-2.0, -1.0, -0.5]))
    assert psand.crossing_text(-math.inf, 10, 30) == "at or below 10"
    assert psand.crossing_text(math.nan, 10, 30) == "none up to 30"


def fec_frame() -> pd.DataFrame:
    """h/k 0.0625 (code 16/1): RED's PLR crosses DT's at 35 flows; PLRBC grows 2 % per 10 flows for both;
    loss runs: RED 90 % of length 1, DT 60 %."""
    rows = []
    for n in FLOWS:
        for queue, plr, runs in (("RED", 1.0 + (n - 35) / 10, (90, 10)), ("DropTail", 1.0, (60, 40))):
            for seed in (1, 2):
                values = {
                    "fec_plr_16_1_pct": plr,
                    "fec_plrbc_16_1_pct": 2.0 * n / 10,
                    "sink_loss_run_1_pct": runs[0],
                    "sink_loss_run_2_pct": runs[1],
                }
                for metric, value in values.items():
                    rows.append(
                        {
                            "flows": n,
                            "queue": queue,
                            "h_over_k": 0.0625,
                            "seed": seed,
                            "scope": "all",
                            "metric": metric,
                            "value": value,
                        }
                    )
    return pd.DataFrame(rows)


CROSSOVER = {
    "id": "x",
    "experiment": "fec_flows",
    "x": "flows",
    "panels": "h_over_k",
    "hue": "queue",
    "metrics": [["fec_plr_16_1_pct", "k = 16, h = 1", 0]],
}


def test_crossover_frame_simulated_rule_and_measured_model():
    data = ExperimentData(fec_frame(), pd.DataFrame(), ["flows", "queue", "h_over_k"])
    row = psand.fec_crossover_frame(data, CROSSOVER).iloc[0]
    assert (row["k"], row["h"]) == (16, 1)
    assert row["simulated"] == pytest.approx(35)
    # the rule: p (k + h) = x_h with p = 0.02 n / 10, so n = 10 x_h / (0.02 x 17), linear between the points
    x_h = fec_model.threshold(1).x_h
    assert row["x_h"] == pytest.approx(x_h)
    assert row["model_rule"] == pytest.approx(10 * x_h / (0.02 * 17))
    # the model fed each queue's own law: with equal p the sign of Delta_1 decides, which changes at x_1
    assert 40 < row["model_measured"] < 50


def test_crossover_needs_the_code_s_ratio_among_the_levels():
    frame = fec_frame()
    data = ExperimentData(frame.assign(h_over_k=0.125), pd.DataFrame(), ["flows", "queue", "h_over_k"])
    with pytest.raises(ValueError, match="no level of h_over_k is h/k = 0.0625"):
        psand.fec_crossover_frame(data, CROSSOVER)


def block_frame() -> pd.DataFrame:
    rows = []
    for ratio, codes in ((0.25, [(8, 2), (16, 4)]), (0.1, [(10, 1), (20, 2)])):
        for queue in ("RED", "DropTail"):
            for k, h in codes:
                for seed in (1, 2):
                    for metric, value in ((f"fec_plrbc_{k}_{h}_pct", 5.0), (f"fec_plr_{k}_{h}_pct", 10.0 / k)):
                        rows.append(
                            {
                                "flows": 50,
                                "queue": queue,
                                "h_over_k": ratio,
                                "seed": seed,
                                "scope": "all",
                                "metric": metric,
                                "value": value,
                            }
                        )
    return pd.DataFrame(rows)


def test_codes_at_a_ratio_are_read_from_the_metric_names():
    assert psand.codes_at(block_frame(), 0.25) == [(8, 2), (16, 4)]
    assert psand.codes_at(block_frame(), 0.1) == [(10, 1), (20, 2)]
    assert psand.codes_at(block_frame(), 0.5) == []


def test_block_size_figure_has_a_panel_per_ratio_and_load(tmp_path):
    data = ExperimentData(block_frame(), pd.DataFrame(), ["flows", "queue", "h_over_k"])
    artifact = {"id": "fig5_7", "experiment": "fec_block_size", "panels": "h_over_k", "rows": "flows", "hue": "queue"}
    (png,) = psand.fec_block_size(data, tmp_path / "fig5_7", artifact)
    assert png.stat().st_size > 10_000
    lonely = data.metrics[data.metrics["h_over_k"] == 0.25].assign(h_over_k=0.5)
    with pytest.raises(ValueError, match="no fec_blocks code with h/k = 0.5"):
        psand.fec_block_size(ExperimentData(lonely, pd.DataFrame(), data.axes), tmp_path / "bad", artifact)


def test_model_figure_is_drawn_from_the_model_alone(tmp_path):
    (png,) = psand.fec_model_figure(ExperimentData(pd.DataFrame(), pd.DataFrame()), tmp_path / "f", {"id": "f"})
    assert png.stat().st_size > 10_000


def test_metrics_vs_axis_draws_each_metric_and_refuses_a_missing_one(tmp_path):
    data = ExperimentData(fec_frame(), pd.DataFrame(), ["flows", "queue", "h_over_k"])
    artifact = {
        "id": "f54",
        "experiment": "fec_flows",
        "x": "flows",
        "hue": "queue",
        "metrics": [["fec_plrbc_16_1_pct", "PLRBC", 3], ["fec_plr_16_1_pct", "PLR", 3]],
    }
    (png,) = generic.metrics_vs_axis(data, tmp_path / "f54", artifact)
    assert png.stat().st_size > 10_000
    with pytest.raises(ValueError, match=r"no values of \['fec_plr_16_4_pct'\]"):
        generic.metrics_vs_axis(data, tmp_path / "g", {**artifact, "metrics": [["fec_plr_16_4_pct", "PLR", 3]]})


def fixed_h_frame() -> pd.DataFrame:
    """Runs at h/k 0.25 and 0.125 counted with every code of those ratios among (4, 1), (8, 1), (8, 2), (16, 2):
    each metric's value encodes its code and ratio, so a code read at the wrong ratio shows."""
    rows = []
    for ratio in (0.25, 0.125):
        for k, h in ((4, 1), (8, 1), (8, 2), (16, 2)):
            for prefix in ("fec_plr", "fec_plrbc"):
                rows.append(
                    {
                        "flows": 50,
                        "queue": "RED",
                        "h_over_k": ratio,
                        "seed": 1,
                        "scope": "all",
                        "metric": f"{prefix}_{k}_{h}_pct",
                        "value": 100 * k + h + ratio,
                    }
                )
    return pd.DataFrame(rows)


def test_code_frame_reads_each_code_at_its_own_ratio():
    frame = psand.code_frame(fixed_h_frame(), "h_over_k", [(4, 1), (8, 1), (16, 2)])
    got = {(r.k, r.h, r.measure): r.value for r in frame.itertuples()}
    assert got == {
        (4, 1, "PLR"): 401.25,
        (4, 1, "PLRBC"): 401.25,
        (8, 1, "PLR"): 801.125,
        (8, 1, "PLRBC"): 801.125,
        (16, 2, "PLR"): 1602.125,
        (16, 2, "PLRBC"): 1602.125,
    }
    assert psand.code_frame(fixed_h_frame(), "h_over_k", [(64, 1)]).empty


def test_fixed_h_figure_has_a_panel_per_h_and_refuses_an_h_not_measured(tmp_path):
    data = ExperimentData(fixed_h_frame(), pd.DataFrame(), ["flows", "queue", "h_over_k"])
    artifact = {"id": "fig5_8", "experiment": "fec_fixed_h", "fec_h": [1, 2], "hue": "queue"}
    (png,) = psand.fec_fixed_h(data, tmp_path / "fig5_8", artifact)
    assert png.stat().st_size > 10_000
    with pytest.raises(ValueError, match="no fec_blocks code with h = 4"):
        psand.fec_fixed_h(data, tmp_path / "bad", {**artifact, "fec_h": [1, 4]})


def gap_runs(tmp_path) -> ExperimentData:
    """Three runs of fec_flows at 100 flows, h/k 0.0625 (RED seeds 1 and 2, DropTail seed 1), each with its
    sink_gaps table: RED seed 1 has 15 blocks of losses, given out of order."""
    index = []
    for queue, seed, firsts in (("RED", 1, [70 - 5 * i for i in range(15)]), ("RED", 2, [3]), ("DropTail", 1, [9])):
        run = tmp_path / "runs" / f"{queue}{seed}"
        (run / "tables").mkdir(parents=True)
        (run / "params.json").write_text('{"flows": []}')
        gaps = pd.DataFrame({"time": 0.0, "fid": 0, "first": firsts, "count": [1 + f % 3 for f in firsts]})
        gaps.to_parquet(run / "tables" / "sink_gaps.parquet")
        index.append({"flows": 100, "queue": queue, "h_over_k": 0.0625, "seed": seed, "directory": str(run)})
    pd.DataFrame(index).to_parquet(tmp_path / "runs.parquet")
    return ExperimentData(pd.DataFrame(), pd.DataFrame(), ["flows", "queue", "h_over_k"], {}, {}, tmp_path)


def test_fig5_11_draws_the_first_blocks_of_one_run_as_batches(tmp_path, monkeypatch):
    data = gap_runs(tmp_path)
    artifact = {"id": "fig5_11", "experiment": "fec_flows", "where": {"flows": 100, "queue": "RED", "h_over_k": 0.0625}}
    blocks, seed = psand.loss_blocks(data, artifact)
    assert seed == 1 and len(blocks) == psand.SKETCH_BLOCKS == 12
    assert blocks["first"].tolist() == sorted(70 - 5 * i for i in range(15))[:12], "not the first blocks in order"
    assert blocks["count"].tolist() == [1 + f % 3 for f in blocks["first"]]
    with pytest.raises(ValueError, match="queue left free"):
        psand.loss_blocks(data, {**artifact, "where": {"flows": 100}})
    drawn = []
    real_subplots = psand.plt.subplots

    def spy(*args, **kwargs):
        fig, axes = real_subplots(*args, **kwargs)
        drawn.append(axes)
        return fig, axes

    monkeypatch.setattr(psand.plt, "subplots", spy)
    (png,) = psand.loss_process_sketch(data, tmp_path / "fig", artifact)
    assert png.stat().st_size > 0
    top, bottom = drawn[0]
    (lost,) = top.collections
    assert len(lost.get_segments()) == blocks["count"].sum(), "one tick per lost packet"
    heights = [segment[1][1] for segment in bottom.collections[0].get_segments()]
    assert heights == blocks["count"].tolist(), "a batch's height is its block's size"
