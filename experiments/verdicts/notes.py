"""A claim's note with its placeholders filled from the runs (config.notes)."""

from __future__ import annotations

import pandas as pd

from experiments.config.axes import label_column, label_text
from experiments.config.notes import fill_placeholders
from experiments.verdicts.claims import claim_rows


def fill_note(note: str, claim: dict, metrics: pd.DataFrame | None, fixed: dict | None = None) -> str:
    """The note with each {{metric key=value ...}} replaced by the mean of that metric over the claim's runs (its
    `where` and reading levels, narrowed by the given axis labels; `scope=` replaces the claim's scope)."""

    def value(metric: str, narrow: dict) -> str:
        narrow = dict(narrow)
        scope = narrow.pop("scope", claim.get("scope", "all"))
        if metrics is None:
            return f"[{metric}: not measured]"
        # a narrowing label overrides the claim's own `where` on its axis (a BQM-only claim's note may quote
        # Normal TCP's value); the other `where` entries stay
        where = {axis: label for axis, label in claim.get("where", {}).items() if axis not in narrow}
        one_metric = {**claim, "kind": "value", "metric": metric, "scope": scope, "where": where}  # not a slope's `per`
        rows = claim_rows(one_metric, metrics, {**(fixed or {}), **narrow})
        for axis, label in narrow.items():
            if axis in rows:
                rows = rows[label_column(rows[axis]) == label_text(label)]
        values = rows["value"].dropna()
        runs = f"{len(values)} run" + ("s" if len(values) != 1 else "")
        return f"{values.mean():.4g} (mean of {runs})" if len(values) else f"[{metric}: no value]"

    return fill_placeholders(note, value)
