"""Wireless runs (topology kind wireless: drops.tr, the nodes' CMU drop lines), scope all, over the TCP data
packets dropped within [warmup, duration]. A drop's cause comes from its trace layer and reason (drop_cause). A
wireless run has no core links, hence no link metrics.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.measure.registry import WIRELESS_DROP_CAUSES
from experiments.measure.scopes import in_window, metric_rows


def drop_cause(layer: pd.Series, reason: pd.Series) -> pd.Series:
    """Each wireless drop's cause (WIRELESS_DROP_CAUSES) from its CMU trace layer and reason."""
    cause = pd.Series("other", index=layer.index)
    cause[layer == "MAC"] = "mac"
    cause[layer == "RTR"] = "route"
    cause[layer == "IFQ"] = "queue"  # an overflow's reason is "---" (Queue::drop gives none)
    cause[(layer == "IFQ") & (reason == "FIL")] = "route"  # purged by the routing agent on a link break
    cause[reason == "ARP"] = "arp"
    return cause


def wireless_drop_metrics(drops: pd.DataFrame, warmup: float, end: float) -> list[dict]:
    """wireless_drops_<cause> and wireless_drops_queue_pct of the TCP data packets dropped in [warmup, end]."""
    data = in_window(drops, warmup, end)
    data = data[data["ptype"] == "tcp"]
    counts = drop_cause(data["layer"], data["reason"]).value_counts()
    values = {f"wireless_drops_{cause}": float(counts.get(cause, 0)) for cause in WIRELESS_DROP_CAUSES}
    values["wireless_drops_queue_pct"] = counts.get("queue", 0) / len(data) * 100 if len(data) else math.nan
    return metric_rows("all", values)
