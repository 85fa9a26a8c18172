"""configs/psand.yaml's Chapter 5 numbers against the thesis's formulas: the UDP source's mean gap (Eq. 5.1) at
each redundancy ratio, and the codes each experiment counts."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from experiments.config.load import load

PSAND = load(Path(__file__).resolve().parents[2] / "configs" / "psand.yaml")
UDP_BITS = 573 * 8  # §5.3.1: 573-byte packets
RHO_1 = 500_000  # §5.3.1: 500 kb/s without redundancy


def idle_times(experiment: str) -> dict[float, float]:
    levels = PSAND["experiments"][experiment]["matrix"]["product"]["h_over_k"]["levels"]
    return {float(ratio): level["flows.fec.app.knobs.idle_time_"] for ratio, level in levels.items()}


FEC_EXPERIMENTS = ["fec_flows", "fec_block_size", "fec_fixed_h", "fec_sources"]


@pytest.mark.parametrize("experiment", FEC_EXPERIMENTS)
def test_the_udp_rate_is_eq_5_1(experiment):
    for ratio, idle in idle_times(experiment).items():
        assert idle == pytest.approx(UDP_BITS / (RHO_1 * (1 + ratio)), rel=1e-8), ratio


@pytest.mark.parametrize("experiment", FEC_EXPERIMENTS)
def test_every_code_counted_has_a_ratio_the_runs_send_at(experiment):
    ratios = idle_times(experiment)
    codes = PSAND["experiments"][experiment]["fec_blocks"]
    assert all(any(math.isclose(h / k, r) for r in ratios) for k, h in codes), codes
    # and every ratio serves a code
    assert all(any(math.isclose(h / k, r) for k, h in codes) for r in ratios)


def test_fig_5_7_codes_are_the_thesis_grids():
    codes = {tuple(c) for c in PSAND["experiments"]["fec_block_size"]["fec_blocks"]}
    assert {(8 * i, 2 * i) for i in range(1, 9)} | {(10 * i, i) for i in range(1, 9)} == codes


def test_runs_of_a_ratio_are_shared_across_experiments():
    """A ratio two experiments both run is the same idle_time_ literal, so that their runs have one key."""
    seen: dict[float, set] = {}
    for experiment in FEC_EXPERIMENTS:
        for ratio, idle in idle_times(experiment).items():
            seen.setdefault(round(ratio, 9), set()).add(idle)
    assert all(len(idles) == 1 for idles in seen.values()), seen


def test_fig_5_8_codes_fix_h_and_grow_k():
    codes = {tuple(c) for c in PSAND["experiments"]["fec_fixed_h"]["fec_blocks"]}
    assert codes == {(k, h) for h in (1, 2, 4) for k in (4, 8, 16, 24, 32, 40, 48, 64)}


def test_eight_sources_each_send_as_the_one_or_share_its_rate():
    assert PSAND["experiments"]["fec_sources"]["matrix"]["product"]["sources"]["levels"] == [8]
    (choice,) = [c for c in PSAND["choices"] if c.get("id") == "fec_source_rate"]
    (shared,) = choice["alternatives"]
    each = idle_times("fec_sources")
    for case in shared["cases"]:
        ratio = float(case["where"]["h_over_k"])
        assert case["set"]["flows.fec.app.knobs.idle_time_"] == pytest.approx(8 * each[ratio], rel=1e-8)
    assert {float(c["where"]["h_over_k"]) for c in shared["cases"]} == set(each)
