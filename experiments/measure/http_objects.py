"""HTTP objects (objects.tsv, flow kind http), for scope all and each flow group; an object counts when its last
byte was acknowledged within [warmup, duration]. Delays end at the last acknowledgement, or (object_delay_client_s)
when the client had the whole object, server to client as the PISA/PIMC thesis measures object delay (§2.3); the
per-object ratios divide a core_log metric by an object metric of the same scope and window.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.measure.registry import OBJECT_DELAY_PERCENTILES
from experiments.measure.scopes import group_scopes, metric_rows


def _delay_values(prefix: str, delay: pd.Series) -> dict[str, float]:
    """<prefix>_mean, _median and _p<q> of the delays (nan if there are none)."""
    stats = {
        "mean": delay.mean(),
        "median": delay.median(),
        **{f"p{q}": delay.quantile(q / 100) for q in OBJECT_DELAY_PERCENTILES},
    }
    return {f"{prefix}_{name}": value if len(delay) else math.nan for name, value in stats.items()}


def object_values(objects: pd.DataFrame, warmup: float, end: float) -> dict[str, float]:
    """The object metrics of one set of http objects (see the module docstring)."""
    done = objects[objects["end"].between(warmup, end)]
    client = done["delivered"] - done["start"] if "delivered" in done else pd.Series(math.nan, index=done.index)
    flows = objects["fid"].nunique()
    return {
        "objects_completed": float(len(done)),
        "objects_per_s": len(done) / (end - warmup),
        **_delay_values("object_delay_s", done["end"] - done["start"]),
        **_delay_values("object_delay_client_s", client.dropna()),
        "object_cycle_s": flows * (end - warmup) / len(done) if len(done) else math.nan,
        "objects_unfinished": float(objects["end"].isna().sum()),
    }


def object_metrics(objects: pd.DataFrame, groups: dict[int, str] | None, warmup: float, end: float) -> list[dict]:
    """Metrics rows of the http objects: for all objects (scope all) and per flow group (with objects_share_pct)."""
    values = {scope: object_values(part, warmup, end) for scope, part in group_scopes(objects, groups)}
    total = values["all"]["objects_completed"]
    for scope in values.keys() - {"all"}:
        values[scope]["objects_share_pct"] = values[scope]["objects_completed"] / total * 100 if total else math.nan
    return [row for scope, v in values.items() for row in metric_rows(scope, v)]


# per-object metric -> (core_log metric, object metric over the same window) it divides
_PER_OBJECT = {
    "object_wire_bytes": ("core_departed_bytes", "objects_completed"),
    "core_drops_per_object": ("core_drops_per_s", "objects_per_s"),
}


def per_object_metrics(rows: list[dict]) -> list[dict]:
    """object_wire_bytes and core_drops_per_object per scope that has both of its metrics (objects > 0)."""
    values = pd.DataFrame(rows, columns=["scope", "metric", "value"]).pivot_table(
        index="scope", columns="metric", values="value", aggfunc="first"
    )
    out = []
    for name, (numerator, objects) in _PER_OBJECT.items():
        if {numerator, objects} <= set(values.columns):
            ratio = values[numerator] / values[objects].where(values[objects] > 0)
            out += [{"scope": scope, "metric": name, "value": float(v)} for scope, v in ratio.dropna().items()]
    return out
