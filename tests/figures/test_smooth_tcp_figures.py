"""figures.smooth_tcp on small synthetic tables built here: the queue panels draw one seed's
trace per protocol, the fairness panels every deployment, the queue table hand-checkable
means and intervals."""

from __future__ import annotations

import pandas as pd
import pytest

from experiments.common.markdown import contains_row
from figures import smooth_tcp
from figures.common import ExperimentData

PROTOCOLS = ("TCP(0.31, 0.875)", "TCP(0.583, 0.75)", "TCP(1, 0.5)", "TCP(1.25, 0.25)")
DEPLOYMENTS = tuple(smooth_tcp.DEPLOYMENT_NAMES)
SEEDS = (1, 2, 3)
T975_DF2 = 4.302652729911275  # two-sided 95 % Student t quantile, 2 degrees of freedom


def queue_data() -> ExperimentData:
    """Per protocol p (0..3) and seed s: queue mean 80 - 20 p + (s - 2), std 5 + p; a square wave trace."""
    metrics, series = [], []
    for p, protocol in enumerate(PROTOCOLS):
        for seed in SEEDS:
            ctx = {
                "experiment": "queue_dynamics",
                "paper": "smooth_tcp",
                "protocol": protocol,
                "seed": seed,
                "setting": "droptail_10",
                "variant": "stock",
                "run_key": f"{p}-{seed}",
            }
            values = {
                "bottleneck_queue_pkts_mean": 80 - 20 * p + (seed - 2),
                "bottleneck_queue_pkts_std": 5 + p,
                "bottleneck_queue_pkts_max": 100,
                "bottleneck_queue_empty_pct": 10 * p,
                "bottleneck_queue_osc_hz": 0.5 + p,
                "bottleneck_utilization_pct": 99 - p,
            }
            metrics += [{**ctx, "scope": "all", "metric": m, "value": float(v)} for m, v in values.items()]
            for i in range(50):
                level = 90.0 - 20 * p if (i // 5) % 2 else 60.0 - 10 * p
                series.append({**ctx, "scope": "core0", "metric": "queue_pkts", "t": i / 10, "value": level + seed})
    return ExperimentData(
        pd.DataFrame(metrics),
        pd.DataFrame(series),
        ["setting", "protocol", "variant"],
        {"protocol": list(PROTOCOLS), "setting": ["droptail_10"], "variant": ["stock"]},
    )


def fairness_data() -> ExperimentData:
    metrics = []
    for d, deployment in enumerate(DEPLOYMENTS):
        for flows in (10, 20, 40):
            for seed in SEEDS:
                ctx = {
                    "experiment": "multi_bottleneck",
                    "paper": "smooth_tcp",
                    "queue": "DropTail",
                    "deployment": deployment,
                    "flows": flows,
                    "variant": "stock",
                    "seed": seed,
                    "run_key": f"{d}-{flows}-{seed}",
                }
                for metric, value in (
                    ("fairness_jain", 0.9 - 0.1 * d),
                    ("fairness_worst", 0.5 - 0.1 * d),
                    ("goodput_Bps", 1.2e6 + 1e4 * seed),
                ):
                    metrics.append({**ctx, "scope": "all", "metric": metric, "value": value})
    return ExperimentData(
        pd.DataFrame(metrics),
        pd.DataFrame(columns=["scope", "metric", "t", "value"]),
        ["queue", "deployment", "flows", "variant"],
        {"deployment": list(DEPLOYMENTS)},
    )


ARTIFACT = {"id": "fig4", "experiment": "queue_dynamics", "where": {"setting": "droptail_10", "variant": "stock"}}


def test_queue_panels_write_a_png(tmp_path):
    written = smooth_tcp.queue_panels(queue_data(), tmp_path / "fig4", ARTIFACT)
    assert [p.name for p in written] == ["fig4.png"] and written[0].stat().st_size > 10_000


def test_queue_panels_need_the_bottleneck_samples(tmp_path):
    data = queue_data()
    data.series["scope"] = "core1"
    with pytest.raises(ValueError, match="no queue_pkts samples of core0"):
        smooth_tcp.queue_panels(data, tmp_path / "fig4", ARTIFACT)


def test_fairness_figures_draw_the_deployments_asked_for(tmp_path, monkeypatch):
    drawn = []
    original = smooth_tcp.sns.lineplot
    monkeypatch.setattr(smooth_tcp.sns, "lineplot", lambda **kw: drawn.append(kw) or original(**kw))
    artifact = {"id": "fig8", "experiment": "multi_bottleneck", "where": {"queue": "DropTail", "variant": "stock"}}
    smooth_tcp.fairness_homogeneous(fairness_data(), tmp_path / "fig8", artifact)
    assert [kw["hue_order"] for kw in drawn] == [["(i) all smooth", "(ii) all responsive"]] * 3
    assert sorted(set(drawn[2]["data"]["value"].round(3))) == [1.21, 1.22, 1.23], "goodput in MB/s"
    drawn.clear()
    smooth_tcp.fairness_panels(fairness_data(), tmp_path / "fig10", artifact)
    assert len(drawn[0]["hue_order"]) == 4 and (tmp_path / "fig10.png").is_file()


def test_queue_table_means_and_intervals(tmp_path):
    frame = smooth_tcp.queue_frame(queue_data(), {"id": "t", "experiment": "queue_dynamics"})
    assert list(frame["protocol"]) == list(PROTOCOLS)
    assert list(frame["bottleneck_queue_pkts_mean"]) == [80.0, 60.0, 40.0, 20.0]
    # seeds add -1, 0, +1: sample sd 1, half-width t(0.975, 2) x 1 / sqrt(3)
    assert frame["bottleneck_queue_pkts_mean_ci95"].iloc[0] == pytest.approx(T975_DF2 / 3**0.5, rel=1e-3)
    assert list(frame["seeds"]) == [3, 3, 3, 3]
    written = smooth_tcp.queue_table(queue_data(), tmp_path / "queue_stats", {"id": "t", "experiment": "q"})
    markdown = written[1].read_text()
    assert contains_row(markdown, "| droptail_10 | TCP(0.31, 0.875) | stock | 3 | 80.0 ± 2.5 |")
