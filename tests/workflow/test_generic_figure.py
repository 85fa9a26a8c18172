"""figures.generic, the figure any sweep can ask for, on a small metrics table built here:
the same tables give the same PNG bytes (its bootstrap interval is seeded)."""

from __future__ import annotations

import pandas as pd

from figures import generic
from figures.common import ExperimentData

ARTIFACT = {
    "id": "delay_vs_flows",
    "experiment": "flows",
    "metric": "bottleneck_queue_delay_ms_mean",
    "x": "flows_n",
    "hue": "queue",
}


def sweep_data() -> ExperimentData:
    """2 queues x 3 flow counts x 5 seeds; the values spread over seeds so the 95 % band has width."""
    rows = []
    for q, queue in enumerate(("RED", "PI")):
        for flows_n in (2, 4, 8):
            for seed in range(1, 6):
                value = 10.0 * (q + 1) + flows_n + ((seed * 7919 + flows_n * 31) % 11) / 3
                rows.append(
                    {
                        "paper": "red_pi_flows",
                        "experiment": "flows",
                        "queue": queue,
                        "flows_n": flows_n,
                        "seed": seed,
                        "run_key": f"{queue}-{flows_n}-{seed}",
                        "scope": "all",
                        "metric": ARTIFACT["metric"],
                        "value": value,
                    }
                )
    series = pd.DataFrame(columns=["scope", "metric", "t", "value"])
    return ExperimentData(pd.DataFrame(rows), series, ["queue", "flows_n"], {"queue": ["RED", "PI"]})


def test_same_data_gives_the_same_png_bytes(tmp_path):
    first = generic.metric_vs_axis(sweep_data(), tmp_path / "a" / "delay_vs_flows", ARTIFACT)
    second = generic.metric_vs_axis(sweep_data(), tmp_path / "b" / "delay_vs_flows", ARTIFACT)
    assert [p.name for p in first] == [p.name for p in second] == ["delay_vs_flows.png"]
    assert first[0].stat().st_size > 10_000
    assert first[0].read_bytes() == second[0].read_bytes(), "the bootstrap band must be drawn with a fixed seed"
    assert b"Software" not in first[0].read_bytes(), "no matplotlib version string in the PNG"


def test_the_interval_is_seeded(tmp_path, monkeypatch):
    """The band's seed is the one every figure module uses (figures.common.BOOT_SEED)."""
    calls = []
    original = generic.sns.lineplot
    monkeypatch.setattr(generic.sns, "lineplot", lambda **kw: calls.append(kw) or original(**kw))
    generic.metric_vs_axis(sweep_data(), tmp_path / "fig", ARTIFACT)
    assert [kw.get("seed") for kw in calls] == [generic.BOOT_SEED]
