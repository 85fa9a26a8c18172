"""The runs a file's preconditions void (its `preconditions`; config.preconditions makes their claims).

A queue's mean, variance and empty share, a loss rate, a ranking of schemes all look good on a link that went
dead (AVQ's virtual capacity locked at 0, a reading that drops every ACK): a verdict read off such a run is no
evidence. So one run beyond a precondition's drift_threshold is void for every other claim of its experiment, under
the baseline and under each reading alike: it joins the experiment's lost runs, with its cause, and the cells that
read it are `incomplete` (verdicts.claims.evaluate), never a pass. The precondition's own claim reads every run and
judges their mean, as any bound.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from experiments.config.preconditions import MARK
from experiments.store.tables import CAUSE, Measured


def void_runs(claims: list[dict], metrics: pd.DataFrame) -> pd.DataFrame:
    """The runs (their context columns, key and cause) beyond the drift_threshold of one of `claims` (an
    experiment's precondition claims); the first precondition a run breaks names its cause."""
    context = [c for c in metrics.columns if c not in ("scope", "metric", "value")]
    found = []
    for claim in claims:
        rows = metrics[(metrics["metric"] == claim["metric"]) & (metrics["scope"] == "all")]
        limit, below = claim["drift_threshold"], claim["bound"] == "below"
        beyond = rows[rows["value"] > limit if below else rows["value"] < limit]
        sign = ">" if below else "<"
        cause = [f"{claim[MARK]}: {claim['metric']} {v:.4g} {sign} {limit:g}" for v in beyond["value"]]
        found.append(beyond[context].assign(**{CAUSE: cause}))
    if not found:
        return pd.DataFrame(columns=[*context, CAUSE])
    return pd.concat(found, ignore_index=True).drop_duplicates(subset="run_key", keep="first")


def apply(doc: dict, measured: dict[str, Measured]) -> dict[str, Measured]:
    """Each experiment's metrics and lost runs, its void runs among the lost (with their cause); tables it has
    already looked at pass as they are, so each verdict stage may call it on what it is given."""
    out = {}
    for exp, tables in measured.items():
        claims = [c for c in doc.get("claims", []) if c.get(MARK) and c["experiment"] == exp]
        void = void_runs(claims, tables.metrics) if claims and not tables.voided else pd.DataFrame()
        if void.empty:
            out[exp] = replace(tables, voided=True)
            continue
        void = void[~void["run_key"].isin(tables.failed["run_key"])]
        failed = pd.concat([tables.failed, void], ignore_index=True) if not tables.failed.empty else void
        out[exp] = replace(tables, failed=failed, voided=True)
    return out
