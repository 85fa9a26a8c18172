"""Wireless runs (topology kind wireless: drops.tr, the nodes' CMU drop lines), scope all, over the TCP data
packets dropped within [warmup, duration]. A drop's cause comes from its trace layer and reason (drop_cause). A
wireless run has no core links, hence no link metrics.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.measure.registry import RANDOM_LOSS_REASON, WIRELESS_DROP_CAUSES
from experiments.measure.scopes import in_window, metric_rows


def drop_cause(layer: pd.Series, reason: pd.Series) -> pd.Series:
    """Each wireless drop's cause (WIRELESS_DROP_CAUSES) from its CMU trace layer and reason: the names ns-2's
    trace/cmu-trace.h gives them, one cause per way a packet can be lost."""
    cause = pd.Series("other", index=layer.index)  # TTL, LOOP, ...
    cause[layer == "MAC"] = "mac"  # the MAC's own lines (our runs trace none: macTrace OFF)
    cause[layer == "IFQ"] = "queue"  # an interface queue's overflow: reason "---" (Queue::drop gives none)
    cause[reason == "ARP"] = "arp"  # ARP's one-packet buffer, while it resolves the next hop
    cause[(layer == "RTR") & (reason == "CBK")] = "link_failure"  # the MAC gave up on the next hop
    # Pulled out of the interface queue after a link broke (ns2-patches/0023; stock AODV says CBK here too)
    cause[reason == "FIL"] = "purge"
    # No route, or none found while the packet waited in the routing agent's buffer (expired, or the buffer full)
    cause[(layer == "RTR") & reason.isin(["NRTE", "TOUT", "IFQ"])] = "no_route"
    cause[(layer == "LL") & (reason == RANDOM_LOSS_REASON)] = "random"  # topology.loss: above the MAC, past its retries
    return cause


def wireless_drop_metrics(drops: pd.DataFrame, warmup: float, end: float) -> list[dict]:
    """wireless_drops_<cause> and wireless_drops_queue_pct of the TCP data packets dropped in [warmup, end]."""
    data = in_window(drops, warmup, end)
    data = data[data["ptype"] == "tcp"]
    counts = drop_cause(data["layer"], data["reason"]).value_counts()
    values = {f"wireless_drops_{cause}": float(counts.get(cause, 0)) for cause in WIRELESS_DROP_CAUSES}
    values["wireless_drops_queue_pct"] = counts.get("queue", 0) / len(data) * 100 if len(data) else math.nan
    return metric_rows("all", values)
