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
