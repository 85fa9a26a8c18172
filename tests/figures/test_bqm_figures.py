"""figures.bqm on a small synthetic table built here: BQM's change against DropTail per cell, with
the sign §5 gives '% better' (less loss is better)."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.common.markdown import contains_row
from figures import bqm
from figures.common import ExperimentData

SEEDS = (1, 2, 3)


def wired_data() -> ExperimentData:
    """Per connections n and seed s: DropTail fairness 0.8, loss 4 %, throughput 1e6 B/s (+ s - 2 noise);
    BQM fairness 0.88 (+10 %), loss 3 % (-25 %), throughput 1.1e6 (+10 %), at every n."""
    values = {"DropTail": (0.8, 4.0, 1.0e6), "BQM": (0.88, 3.0, 1.1e6)}
    rows = []
    for scheme, (fair, loss, thr) in values.items():
        for n in (8, 32):
            for seed in SEEDS:
                ctx = {
                    "paper": "bqm",
                    "experiment": "wired",
                    "bandwidth": "10Mb",
                    "scheme": scheme,
                    "connections": n,
                    "seed": seed,
                    "run_key": f"{scheme}-{n}-{seed}",
                    "scope": "all",
                }
                noise = (seed - 2) * 1e-3
                rows += [
                    {**ctx, "metric": "fairness_jain_since_start", "value": fair + noise},
                    {**ctx, "metric": "bottleneck_drop_pct", "value": loss + noise},
                    {**ctx, "metric": "goodput_Bps_since_start", "value": thr + noise},
                ]
    levels = {"bandwidth": ["10Mb"], "scheme": ["DropTail", "BQM"], "connections": [8, 32]}
    return ExperimentData(pd.DataFrame(rows), pd.DataFrame(), ["bandwidth", "scheme", "connections"], levels)


def test_gains_are_bqm_against_droptail_signed_as_the_thesis_counts_them():
    frame = bqm.gains_frame(wired_data(), {"id": "t", "experiment": "wired"})
    assert list(frame["connections"]) == [8, 32] and list(frame["seeds"]) == [3, 3]
    assert frame["fairness_jain_since_start_change"].tolist() == pytest.approx([0.1, 0.1])
    assert frame["fairness_jain_since_start_better_pct"].tolist() == pytest.approx([10.0, 10.0])
    assert frame["bottleneck_drop_pct_change"].tolist() == pytest.approx([-0.25, -0.25])
    assert frame["bottleneck_drop_pct_better_pct"].tolist() == pytest.approx([25.0, 25.0])  # less loss: better
    assert frame["goodput_Bps_since_start_better_pct"].tolist() == pytest.approx([10.0, 10.0])


def test_gains_table_writes_csv_and_markdown(tmp_path):
    written = bqm.gains_table(wired_data(), tmp_path / "gains", {"id": "gains", "experiment": "wired", "caption": "C"})
    assert [p.name for p in written] == ["gains.csv", "gains.md"]
    text = (tmp_path / "gains.md").read_text()
    assert "**C**" in text and contains_row(text, "| 10Mb | 8 | 3 |") and contains_row(text, "| 25.0 |")


def adhoc_data(metrics: dict[str, dict[str, float]]) -> ExperimentData:
    """Per scheme, nodes 10 and 20 and three seeds: each metric's value as given per scheme (a scheme missing from a
    metric's dict has no row of it, as Normal TCP has no bqm_* metrics)."""
    rows = []
    for metric, per_scheme in metrics.items():
        for scheme, value in per_scheme.items():
            for nodes in (10, 20):
                for seed in SEEDS:
                    ctx = {"experiment": "nodes", "scheme": scheme, "nodes": nodes, "seed": seed, "scope": "all"}
                    rows.append({**ctx, "run_key": f"{scheme}-{nodes}-{seed}", "metric": metric, "value": value})
    levels = {"nodes": [10, 20], "scheme": ["DropTail", "BQM", "ModifiedBQM"]}
    return ExperimentData(pd.DataFrame(rows), pd.DataFrame(), ["nodes", "scheme"], levels)


def test_recoveries_draw_bqm_panels_only_for_bqm_schemes(tmp_path):
    data = adhoc_data(
        {
            "tcp_fast_retransmits_per_flow": {"DropTail": 4.0, "BQM": 5.0, "ModifiedBQM": 5.5},
            "tcp_timeouts_per_flow": {"DropTail": 2.0, "BQM": 2.0, "ModifiedBQM": 2.0},
            "bqm_congestion_responses_per_flow": {"BQM": 3.0, "ModifiedBQM": 2.0},
            "bqm_wireless_responses_per_flow": {"BQM": 1.0, "ModifiedBQM": 2.0},
        }
    )
    written = bqm.recoveries_vs_axis(data, tmp_path / "rec", {"id": "rec", "experiment": "nodes", "x": "nodes"})
    assert [p.suffix for p in written] == [".png"] and written[0].stat().st_size > 0


def test_recoveries_without_counters_name_the_missing_table(tmp_path):
    data = adhoc_data({"goodput_per_flow_Bps_since_start": {"DropTail": 1.0}})
    with pytest.raises(ValueError, match="tcp_counters"):
        bqm.recoveries_vs_axis(data, tmp_path / "rec", {"id": "rec", "experiment": "nodes", "x": "nodes"})


def test_drop_causes_stack_every_cause_per_scheme(tmp_path):
    data = adhoc_data(
        {
            "wireless_drops_queue": {"DropTail": 5.0, "BQM": 4.0, "ModifiedBQM": 4.0},
            "wireless_drops_link_failure": {"DropTail": 20.0, "BQM": 21.0, "ModifiedBQM": 19.0},
            "wireless_drops_goodput_not_a_cause": {"DropTail": 1e9},
        }
    )
    written = bqm.drop_causes_vs_axis(data, tmp_path / "drops", {"id": "d", "experiment": "nodes", "x": "nodes"})
    assert [p.suffix for p in written] == [".png"] and written[0].stat().st_size > 0
    with pytest.raises(ValueError, match="drops.tr"):
        bqm.drop_causes_vs_axis(
            adhoc_data({"tcp_timeouts_per_flow": {"BQM": 1.0}}),
            tmp_path / "none",
            {"id": "d", "experiment": "nodes", "x": "nodes"},
        )
