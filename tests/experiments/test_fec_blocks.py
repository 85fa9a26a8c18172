"""experiments/measure/fec_blocks.py and the sink metrics of experiments/measure/ on hand-built LossMonitor tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from experiments.measure import fec_blocks as fb
from experiments.measure.sinks import sink_metrics


def gaps(*rows):
    return pd.DataFrame(rows, columns=["fid", "first", "count"])


def test_lost_seqnos_expands_each_gap():
    assert fb.lost_seqnos(gaps((1, 3, 2), (1, 10, 1), (1, 12, 3))).tolist() == [3, 4, 10, 12, 13, 14]
    assert fb.lost_seqnos(gaps()).tolist() == []


def test_blocks_are_aligned_at_sequence_zero_and_lie_in_the_window():
    lost = np.array([0, 1, 5, 9, 10, 11, 12, 17])
    b = fb.blocks(lost, begin=0, end=20, k=3, h=1)  # blocks [0,4) [4,8) [8,12) [12,16) [16,20)
    assert b.lost.tolist() == [2, 1, 3, 1, 1]
    assert b.lost_data.tolist() == [2, 1, 2, 1, 1]  # data: the first 3 of each block (9 is 8's block's second)
    # a window that cuts blocks keeps only the whole ones: [4, 16) of [3, 17)
    assert fb.blocks(lost, begin=3, end=17, k=3, h=1).lost.tolist() == [1, 3, 1]
    assert len(fb.blocks(lost, begin=5, end=7, k=3, h=1).lost) == 0


def test_fec_values_by_hand():
    # k 3, h 1: blocks losing 0, 1, 2 and 4 packets; the last two are not repaired
    b = fb.Blocks(np.array([0, 1, 2, 4]), np.array([0, 1, 1, 3]))
    values = fb.fec_values(b, k=3, h=1)
    assert values["plrbc"] == pytest.approx(7 / 16 * 100)
    assert values["plr"] == pytest.approx((2 + 4) / 16 * 100)
    assert values["plr_data"] == pytest.approx((1 + 3) / 12 * 100)
    assert values["blocks"] == 4
    assert math.isnan(fb.fec_values(fb.Blocks(np.array([]), np.array([])), 3, 1)["plr"])


def test_no_redundancy_repairs_nothing():
    b = fb.blocks(np.array([2, 7, 8]), 0, 40, k=4, h=0)
    values = fb.fec_values(b, 4, 0)
    assert values["plr"] == values["plrbc"] == pytest.approx(3 / 40 * 100)


PARAMS = {"flows": [{"fid": 1, "group": "fec"}, {"fid": 2, "group": "fec"}, {"fid": 3, "group": "tcp"}]}


def sinks(*rows):
    return pd.DataFrame(rows, columns=["time", "fid", "bytes", "expected"])


def by_scope(rows):
    table = pd.DataFrame(rows)
    return {scope: part.set_index("metric")["value"] for scope, part in table.groupby("scope")}


def test_sink_metrics_per_flow_group_and_all():
    # flow 1: 0..39 sent in the window, 3 lost in two runs; flow 2: 0..19, one run of 4; warm-up 0
    table = sinks((0, 1, 0, 0), (10, 1, 37 * 100, 40), (0, 2, 0, 0), (10, 2, 16 * 100, 20))
    lost = gaps((1, 5, 2), (1, 30, 1), (2, 8, 4))
    m = by_scope(sink_metrics(table, lost, PARAMS, warmup=0, end=10, blocks_of=[[3, 1]]))
    assert set(m) == {"all", "group:fec", "flow1", "flow2"}
    assert m["flow1"]["sink_loss_pct"] == pytest.approx(3 / 40 * 100)
    assert m["all"]["sink_loss_pct"] == pytest.approx(7 / 60 * 100)
    assert m["all"]["sink_goodput_Bps"] == pytest.approx(5300 / 10)
    assert m["all"]["sink_loss_run_1_pct"] == pytest.approx(100 / 3)
    assert m["all"]["sink_loss_run_4_pct"] == pytest.approx(100 / 3)
    assert m["all"]["sink_loss_run_mean"] == pytest.approx(7 / 3)
    # blocks of 4: flow 1 loses 5, 6 (block 1: 2 > h, not repaired) and 30 (block 7, repaired); flow 2 loses
    # 8..11 (block 2, all four)
    assert m["flow1"]["fec_plr_3_1_pct"] == pytest.approx(2 / 40 * 100)
    assert m["all"]["fec_plr_3_1_pct"] == pytest.approx((2 + 4) / 60 * 100)
    assert m["all"]["fec_plr_data_3_1_pct"] == pytest.approx((2 + 3) / 45 * 100)  # 5, 6 of [4, 8); 8..10 of [8, 12)
    assert m["all"]["fec_blocks_3_1"] == 15


def test_sink_metrics_start_at_the_warmup_sample():
    # warm-up 5: the sample at 5 s expected 20, so [20, 40) counts; the run at 5 belongs to the warm-up
    table = sinks((0, 1, 0, 0), (5, 1, 1800, 20), (10, 1, 3500, 40))
    lost = gaps((1, 5, 2), (1, 30, 1))
    m = by_scope(sink_metrics(table, lost, PARAMS, warmup=5, end=10, blocks_of=[[3, 1]]))["flow1"]
    assert m["sink_loss_pct"] == pytest.approx(1 / 20 * 100)
    assert m["sink_goodput_Bps"] == pytest.approx(1700 / 5)
    assert m["sink_loss_run_1_pct"] == 100
    assert m["fec_blocks_3_1"] == 5  # blocks 5..9: [20, 40)
