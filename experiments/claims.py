"""Checking a paper's claims against the measured metrics: pass, drift or fail.

A claim is evaluated once for every combination of the labels of the axes it does not
fix (e.g. once per variant), over the runs' values of its metric in its `scope` (default
`all`; e.g. `group:ftp`, `flow1`):

- kind value: measured = mean over seeds (95 % confidence half-width beside it).
  pass if |measured - expected| <= the pass tolerance, drift if within the drift
  tolerance, fail otherwise.
- kind extreme: the mean over seeds of each level of the axis. pass if the claimed
  level is the min (max) and its confidence interval does not overlap the runner-up's;
  drift if it is the extreme by mean only; fail if another level is.
- kind compare: level A of an axis against each level in `than` (default: every other
  level), relation greater (or less) by `factor` (default 1): A > factor x B. pass if it
  holds for every B and A's 95 % interval is clear of factor x B's; drift if A is on
  the claimed side of every B by mean but not by the factor or the intervals overlap;
  fail if some B is on A's side.
- kind bound: the mean over seeds is below (above) `threshold`: pass; within
  `drift_threshold`: drift; beyond it: fail.
- kind nearest: level A's mean is nearer to level `nearest` than to every other level in
  `among`. pass if nearer by more than the 95 % intervals of the levels involved; drift
  if nearer by mean only; fail otherwise.
- kind ratio: the relative change of `level` against `baseline` (two levels of `axis`):
  measured = mean over seeds at level / mean over seeds at baseline - 1 (e.g. 0.22 for
  "+22 %"), judged against `expected` with the `pass` and `drift` tolerances exactly like
  kind value; missing when either level has no value or the baseline's mean is 0.

A claim with no runs behind it is `missing`, never a pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

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
    scope: str = "all"  # the metrics scope read: all, group:<name> or flow<fid>


def scope_of(claim: dict) -> str:
    """The metrics scope a claim reads (default all)."""
    return claim.get("scope", "all")


def _free_axes(claim: dict, axes: list[str]) -> list[str]:
    fixed = set(claim.get("where", {})) | ({claim["axis"]} if "axis" in claim else set())
    return [a for a in axes if a not in fixed]


def evaluate(claim: dict, metrics: pd.DataFrame, axes: list[str]) -> list[Verdict]:
    """The claim's verdicts, one per combination of the labels of its free axes (one `missing` if no run)."""
    rows = metrics[(metrics["metric"] == claim["metric"]) & (metrics["scope"] == scope_of(claim))]
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
        verdicts.append(replace(_CHECKS[claim["kind"]](claim, group, label), scope=scope_of(claim)))
    return verdicts


def _missing(claim: dict) -> Verdict:
    return Verdict(claim["id"], claim["source"], claim["experiment"], "-", claim["metric"], "", "", "", 0, "missing",
                   "no run measured this metric", scope_of(claim))  # fmt: skip


def _tolerated(measured: float, claim: dict) -> str:
    """pass, drift or fail: `measured` against the claim's expected value and its pass and drift tolerances."""
    expected = claim["expected"]
    return (
        "pass"
        if within(measured, expected, claim["pass"])
        else "drift"
        if within(measured, expected, claim["drift"])
        else "fail"
    )


def _tolerances(claim: dict) -> str:
    return f"pass {describe_tolerance(claim['pass'])}, drift {describe_tolerance(claim['drift'])}"


def _value(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    values = group["value"].dropna()
    if values.empty:
        return _missing(claim)
    mean, half = values.mean(), ci95(values)
    measured = f"{mean:.4g}" + (f" ± {half:.2g}" if not math.isnan(half) else "")
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"],
                   f"{claim['expected']:g}", measured, _tolerances(claim), len(values),
                   _tolerated(mean, claim))  # fmt: skip


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


def _level_stats(claim: dict, group: pd.DataFrame) -> pd.DataFrame:
    """mean, ci95 and count of the metric per level of the claim's axis (index: level label as text)."""
    axis = claim["axis"]
    return group.groupby(group[axis].astype(str))["value"].agg(["mean", ci95, "count"]).dropna(subset=["mean"])


def _compare(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    stats = _level_stats(claim, group)
    want = str(claim["level"])
    others = [str(x) for x in claim.get("than", [])] or [lvl for lvl in stats.index if lvl != want]
    if want not in stats.index or not others or any(o not in stats.index for o in others):
        return _missing(claim)
    sign = 1 if claim["relation"] == "greater" else -1
    factor = claim.get("factor", 1)
    a = stats.loc[want]
    wrong, weak = [], []
    for other in others:
        b = stats.loc[other]
        if sign * (a["mean"] - b["mean"]) <= 0:
            wrong.append(other)
        elif sign * (a["mean"] - factor * b["mean"]) <= 0 or _overlap(a, b, factor):
            weak.append(other)
    verdict = "fail" if wrong else "drift" if weak else "pass"
    note = ""
    if wrong:
        note = f"{', '.join(wrong)} on the other side"
    elif weak:
        note = f"against {', '.join(weak)}: not by the factor, or 95 % intervals overlap"
    word = ">" if sign > 0 else "<"
    scale = f"{factor:g} x " if factor != 1 else ""
    expected = f"{want} {word} {scale}{', '.join(others)}"
    measured = ", ".join(f"{lvl} {stats.loc[lvl, 'mean']:.4g}" for lvl in [want, *others])
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"], expected, measured,
                   "95 % intervals apart", int(stats.loc[[want, *others], "count"].min()), verdict, note)  # fmt: skip


def _overlap(a: pd.Series, b: pd.Series, factor: float) -> bool:
    """Do a's 95 % interval and factor x b's touch? (One seed: no interval, counted as overlap.)"""
    if math.isnan(a["ci95"]) or math.isnan(b["ci95"]):
        return True
    return abs(a["mean"] - factor * b["mean"]) <= a["ci95"] + factor * b["ci95"]


def _bound(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    values = group["value"].dropna()
    if values.empty:
        return _missing(claim)
    mean, half = values.mean(), ci95(values)
    below = claim["bound"] == "below"

    def inside(limit: float) -> bool:
        return mean < limit if below else mean > limit

    verdict = "pass" if inside(claim["threshold"]) else "drift" if inside(claim["drift_threshold"]) else "fail"
    word = "<" if below else ">"
    measured = f"{mean:.4g}" + (f" ± {half:.2g}" if not math.isnan(half) else "")
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"],
                   f"{word} {claim['threshold']:g}", measured, f"drift {word} {claim['drift_threshold']:g}",
                   len(values), verdict)  # fmt: skip


def _nearest(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    stats = _level_stats(claim, group)
    want, target = str(claim["level"]), str(claim["nearest"])
    rivals = [str(x) for x in claim["among"] if str(x) not in (want, target)]
    if any(lvl not in stats.index for lvl in [want, target, *rivals]) or not rivals:
        return _missing(claim)
    a = stats.loc[want]
    near = abs(a["mean"] - stats.loc[target, "mean"])
    verdict, notes = "pass", []
    for rival in rivals:
        far = abs(a["mean"] - stats.loc[rival, "mean"])
        slack = a["ci95"] + max(stats.loc[target, "ci95"], stats.loc[rival, "ci95"])
        if near >= far:
            verdict = "fail"
            notes.append(f"nearer to {rival}")
        elif math.isnan(slack) or far - near <= slack:
            verdict = "drift" if verdict == "pass" else verdict
            notes.append(f"nearer to {target} than to {rival} within the 95 % intervals")
    measured = ", ".join(f"{lvl} {stats.loc[lvl, 'mean']:.4g}" for lvl in [want, target, *rivals])
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"],
                   f"{want} nearest to {target}", measured, "distance beyond 95 % intervals",
                   int(stats.loc[[want, target, *rivals], "count"].min()), verdict, "; ".join(notes))  # fmt: skip


def _ratio(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    stats = _level_stats(claim, group)
    level, baseline = str(claim["level"]), str(claim["baseline"])
    if level not in stats.index or baseline not in stats.index:
        return _missing(claim)
    if stats.loc[baseline, "mean"] == 0:
        return replace(_missing(claim), group=label, note=f"the mean at {baseline} is 0: no relative change")
    a, b = stats.loc[level, "mean"], stats.loc[baseline, "mean"]
    change = a / b - 1
    measured = f"{change:+.4f} ({level} {a:.4g} / {baseline} {b:.4g})"
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"],
                   f"{level} / {baseline} - 1 = {claim['expected']:+g}", measured, _tolerances(claim),
                   int(stats.loc[[level, baseline], "count"].min()), _tolerated(change, claim))  # fmt: skip


_CHECKS = {
    "value": _value,
    "extreme": _extreme,
    "compare": _compare,
    "bound": _bound,
    "nearest": _nearest,
    "ratio": _ratio,
}


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
