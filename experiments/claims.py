"""Checking a paper's claims against the measured metrics: pass, drift or fail.

A claim is evaluated once for every combination of the labels of the axes it does not
fix (e.g. once per variant), over the runs' `scope: all` values of its metric:

- kind value: measured = mean over seeds (95 % confidence half-width beside it).
  pass if |measured - expected| <= the pass tolerance, drift if within the drift
  tolerance, fail otherwise.
- kind extreme: the mean over seeds of each level of the axis. pass if the claimed
  level is the min (max) and its confidence interval does not overlap the runner-up's;
  drift if it is the extreme by mean only; fail if another level is.

A claim with no runs behind it is `missing`, never a pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from experiments.config import axes_of

# Two-sided 95 % Student t quantiles t(0.975, df) for df = 1..30; 1.96 beyond.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]  # fmt: skip


def ci95(values: pd.Series) -> float:
    """Half-width of the 95 % confidence interval of the mean (nan for one value)."""
    n = len(values)
    if n < 2:
        return math.nan
    t = _T975[n - 2] if n - 1 <= len(_T975) else 1.96
    return t * values.std(ddof=1) / math.sqrt(n)


def within(measured: float, expected: float, tolerance: dict) -> bool:
    allowed = tolerance["abs"] if "abs" in tolerance else tolerance["rel"] * abs(expected)
    return abs(measured - expected) <= allowed


def describe_tolerance(tolerance: dict) -> str:
    return f"±{tolerance['abs']}" if "abs" in tolerance else f"±{tolerance['rel'] * 100:g} %"


@dataclass
class Verdict:
    claim: str
    source: str
    experiment: str
    group: str  # the labels of the axes the claim leaves free, e.g. "variant=as_text"
    metric: str
    expected: str
    measured: str
    tolerance: str
    seeds: int
    verdict: str  # pass, drift, fail, missing
    note: str = ""


def _free_axes(claim: dict, axes: list[str]) -> list[str]:
    fixed = set(claim.get("where", {})) | ({claim["axis"]} if claim["kind"] == "extreme" else set())
    return [a for a in axes if a not in fixed]


def evaluate(claim: dict, metrics: pd.DataFrame, axes: list[str]) -> list[Verdict]:
    rows = metrics[(metrics["metric"] == claim["metric"]) & (metrics["scope"] == "all")]
    for axis, label in claim.get("where", {}).items():
        rows = rows[rows[axis].astype(str) == str(label)]
    free = _free_axes(claim, axes)
    groups = list(rows.groupby(free, sort=True)) if free else [((), rows)]
    if not groups:
        return [_missing(claim)]
    verdicts = []
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{a}={v}" for a, v in zip(free, key, strict=True)) or "all runs"
        check = _value if claim["kind"] == "value" else _extreme
        verdicts.append(check(claim, group, label))
    return verdicts


def _missing(claim: dict) -> Verdict:
    return Verdict(claim["id"], claim["source"], claim["experiment"], "-", claim["metric"], "", "", "", 0, "missing",
                   "no run measured this metric")  # fmt: skip


def _value(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    values = group["value"].dropna()
    if values.empty:
        return _missing(claim)
    mean, half = values.mean(), ci95(values)
    expected = claim["expected"]
    verdict = (
        "pass"
        if within(mean, expected, claim["pass"])
        else "drift"
        if within(mean, expected, claim["drift"])
        else "fail"
    )
    measured = f"{mean:.4g}" + (f" ± {half:.2g}" if not math.isnan(half) else "")
    tolerance = f"pass {describe_tolerance(claim['pass'])}, drift {describe_tolerance(claim['drift'])}"
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"], f"{expected:g}",
                   measured, tolerance, len(values), verdict)  # fmt: skip


def _extreme(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    axis = claim["axis"]
    stats = group.groupby(group[axis].astype(str))["value"].agg(["mean", ci95, "count"]).dropna(subset=["mean"])
    want = str(claim["level"])
    if want not in stats.index or len(stats) < 2:
        return _missing(claim)
    ordered = stats.sort_values("mean", ascending=claim["extreme"] == "min")
    best, runner_up = ordered.iloc[0], ordered.iloc[1]
    measured = ", ".join(f"{lvl} {row['mean']:.4g}" for lvl, row in ordered.iterrows())
    if ordered.index[0] != want:
        verdict, note = "fail", f"{ordered.index[0]} is the {claim['extreme']}"
    else:
        gap = abs(best["mean"] - runner_up["mean"])
        overlap = math.isnan(best["ci95"]) or gap <= best["ci95"] + runner_up["ci95"]
        verdict = "drift" if overlap else "pass"
        note = f"95 % intervals of {want} and {ordered.index[1]} overlap" if overlap else ""
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"],
                   f"{want} is the {claim['extreme']}", measured, "95 % intervals apart", int(stats["count"].min()),
                   verdict, note)  # fmt: skip


def evaluate_all(doc: dict, metrics_by_experiment: dict[str, pd.DataFrame]) -> list[Verdict]:
    verdicts = []
    for claim in doc["claims"]:
        exp = claim["experiment"]
        table = metrics_by_experiment.get(exp)
        if table is None:
            verdicts.append(_missing(claim))
            continue
        verdicts += evaluate(claim, table, list(axes_of(doc["experiments"][exp])))
    return verdicts
