"""Loss-recovery metrics (experiments/measure/tcp_counters.py) from hand-made tcp_counters tables: per-connection
means, the timeout share, and the BQM senders' responses only where a BQM sender ran."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiments.measure.tcp_counters import tcp_counter_metrics

NAN = float("nan")


def counters(*rows) -> pd.DataFrame:
    """(fid, timeouts, fast, rexmit packets, congestion, wireless, early) rows; NaN: not a BQM sender."""
    columns = ["fid", "timeouts", "fast_retransmits", "retransmitted_packets"]
    columns += ["congestion_responses", "wireless_responses", "early_retransmits"]
    return pd.DataFrame(rows, columns=columns)


def values(rows: list[dict]) -> dict[str, float]:
    assert {r["scope"] for r in rows} == {"all"}
    return {r["metric"]: r["value"] for r in rows}


def test_newreno_senders_have_no_bqm_metrics():
    got = values(tcp_counter_metrics(counters((1, 1, 3, 5, NAN, NAN, NAN), (2, 3, 1, 4, NAN, NAN, NAN))))
    assert got == {
        "tcp_timeouts_per_flow": 2.0,
        "tcp_fast_retransmits_per_flow": 2.0,
        "tcp_timeout_pct": pytest.approx(50.0),
    }


def test_bqm_metrics_average_the_bqm_senders_only():
    table = counters((1, 0, 4, 4, 3.0, 1.0, 2.0), (2, 2, 0, 2, 0.0, 0.0, 0.0), (3, 0, 8, 8, NAN, NAN, NAN))
    got = values(tcp_counter_metrics(table))
    assert got["tcp_fast_retransmits_per_flow"] == 4.0  # every sender
    assert got["bqm_congestion_responses_per_flow"] == 1.5  # the two BQM senders
    assert got["bqm_wireless_responses_per_flow"] == 0.5
    assert got["bqm_early_retransmits_per_flow"] == 1.0
    assert got["bqm_response_pct"] == pytest.approx(100.0)  # 4 responses at the BQM senders' 4 fast retransmits
    assert got["bqm_wireless_response_pct"] == pytest.approx(25.0)


def test_no_recovery_gives_nan_shares():
    got = values(tcp_counter_metrics(counters((1, 0, 0, 0, 0.0, 0.0, 0.0))))
    assert math.isnan(got["tcp_timeout_pct"])
    assert math.isnan(got["bqm_response_pct"]) and math.isnan(got["bqm_wireless_response_pct"])


def test_no_agents_no_rows():
    assert tcp_counter_metrics(counters()) == []
