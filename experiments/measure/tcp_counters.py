"""TCP senders' loss recoveries, from the tcp_counters table (tcp_counters.tsv: each one-way TCP agent's counters at
the end of the run, ns2-patches/0022 and 0011), scope all. Counters cover the whole run, warm-up included: ns-2
counts them from the agent's start and the driver reads them once.

How a sender recovered tells whether a mechanism that acts at fast retransmit could act at all: BQM's sender
responds to its receiver's diagnosis only there (patch 0011), and behaves as NewReno after a timeout.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.measure.scopes import metric_rows


def _pct(part: float, whole: float) -> float:
    return part / whole * 100 if whole else math.nan


def tcp_counter_metrics(counters: pd.DataFrame) -> list[dict]:
    """Per-connection means and shares of the recoveries (see the registry's tcp_* and bqm_* entries); the bqm_*
    metrics only when some agent is a BQM sender (its counters are not null)."""
    if counters.empty:
        return []
    timeouts, fast = counters["timeouts"].sum(), counters["fast_retransmits"].sum()
    values = {
        "tcp_timeouts_per_flow": float(counters["timeouts"].mean()),
        "tcp_fast_retransmits_per_flow": float(counters["fast_retransmits"].mean()),
        "tcp_timeout_pct": _pct(timeouts, timeouts + fast),
    }
    bqm = counters.dropna(subset=["congestion_responses"])
    if len(bqm):
        congestion, wireless = bqm["congestion_responses"].sum(), bqm["wireless_responses"].sum()
        values |= {
            "bqm_congestion_responses_per_flow": float(bqm["congestion_responses"].mean()),
            "bqm_wireless_responses_per_flow": float(bqm["wireless_responses"].mean()),
            "bqm_early_retransmits_per_flow": float(bqm["early_retransmits"].mean()),
            "bqm_response_pct": _pct(congestion + wireless, bqm["fast_retransmits"].sum()),
            "bqm_wireless_response_pct": _pct(wireless, congestion + wireless),
        }
    return metric_rows("all", values)
