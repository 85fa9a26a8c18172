"""Checking a paper's claims against the measured metrics: pass, drift or fail.

A claim is evaluated in every cell, i.e. every combination of the labels of the axes it
does not fix (e.g. once per number of flows), over the runs' values of its metric in its
`scope` (default `all`; e.g. `group:ftp`, `flow1`); the cells then make its one verdict
(see the end of this docstring). A `where` entry with a list of labels keeps the claim to
those levels of the axis, each still a cell of its own (e.g. two of four deployments):

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
- kind slope: how much `metric` changes per unit of `per` between `baseline` and `level` (two
  levels of `axis`): measured = (mean of metric at level - at baseline) / (mean of per at
  level - at baseline), both means over seeds, e.g. the object time one avoided drop saves
  (object_cycle_s per core_drops_per_object); judged against `expected` like kind value;
  missing when a level lacks either metric or the change of `per` is not told apart from 0
  (|change| within the half-widths of both levels' 95 % intervals combined, sqrt(a² + b²)):
  a ratio over a change lost in the noise has no meaning.

A claim with no runs behind it is `missing`, never a pass. A claim a run of which failed
(ns or its parser; the run is left out of every table) is `incomplete`, never a pass:
its note gives the verdict of the runs that finished and the failed keys, and the
report lists the failed runs with their rerun commands.

Values that are missing (NaN: a run that did not measure the metric) are dropped
before anything is computed: a level's n counts its measured values only. A level
with fewer than two measured values has no 95 % interval, and one rule holds for every
kind: where a verdict needs intervals apart (extreme, compare, nearest), an interval
that cannot be formed is never "apart", so such a level caps the verdict at drift; the
tolerance kinds (value, bound, ratio, slope) judge the mean and show n beside it.

One verdict per claim (`judge`): the claim's cells (one per combination of the labels
of the axes it leaves free) combine by its `combine` rule: `all` (default; the worst
cell: any fail is a fail, else any incomplete or missing cell decides, else any drift is
drift), `any`
(the best cell), `each` (explicitly one claim per cell), `min:<axis>` / `max:<axis>`
(kinds value and bound: the level of <axis> with the lowest / highest mean is judged;
other free axes as `all`). Axes that are readings of an open choice (a choice with
`axis` and `baseline`) are not free: claims are judged at the baseline level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import pandas as pd

from experiments.config import axes_of, label_column, label_text

# Two-sided 95 % Student t quantiles t(0.975, df) for df = 1..30; 1.96 beyond.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]  # fmt: skip


MIN_VALUES_FOR_INTERVAL = 2
VERDICTS = ("pass", "drift", "fail", "incomplete", "missing")


def ci95(values: pd.Series) -> float:
    """Half-width of the 95 % confidence interval of the mean of the measured (non-NaN) values; nan for fewer
    than two."""
    values = values.dropna()
    n = len(values)
    if n < MIN_VALUES_FOR_INTERVAL:
        return math.nan
    t = _T975[n - 2] if n - 1 <= len(_T975) else 1.96
    return t * values.std(ddof=1) / math.sqrt(n)


# A distance exactly at the tolerance is within it; binary floating point must not decide that
# (0.4 - 0.3 is 0.10000000000000003), so the comparison allows this relative slack.
_ROUNDING = 1e-9


def within(measured: float, expected: float, tolerance: dict) -> bool:
    allowed = tolerance["abs"] if "abs" in tolerance else tolerance["rel"] * abs(expected)
    scale = max(abs(measured), abs(expected), allowed)
    return abs(measured - expected) <= allowed + _ROUNDING * scale


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
    verdict: str  # one of VERDICTS
    note: str = ""
    scope: str = "all"  # the metrics scope read: all, group:<name> or flow<fid>
    value: float = math.nan  # kinds value, ratio and slope: the number judged against expected


def scope_of(claim: dict) -> str:
    """The metrics scope a claim reads (default all)."""
    return claim.get("scope", "all")


def where_fixed(claim: dict) -> dict:
    """The axes a claim's `where` fixes to one label; an axis given a list of labels stays free among them."""
    return {axis: label for axis, label in claim.get("where", {}).items() if not isinstance(label, list)}


def _free_axes(claim: dict, axes: list[str], fixed: dict | None = None) -> list[str]:
    taken = set(where_fixed(claim)) | ({claim["axis"]} if "axis" in claim else set()) | set(fixed or {})
    return [a for a in axes if a not in taken]


def claim_metrics(claim: dict) -> list[str]:
    """The metrics a claim reads: its metric, and for kind slope also `per`."""
    return [claim["metric"], *([claim["per"]] if claim["kind"] == "slope" else [])]


def claim_rows(claim: dict, metrics: pd.DataFrame, fixed: dict | None = None) -> pd.DataFrame:
    """The metric rows a claim reads: its metrics (claim_metrics) and scope, its `where` labels (one label, or a
    list of them) and the `fixed` reading levels (a `where` entry wins over a reading level of the same axis)."""
    rows = metrics[metrics["metric"].isin(claim_metrics(claim)) & (metrics["scope"] == scope_of(claim))]
    return claim_levels(claim, rows, fixed)


def claim_levels(claim: dict, rows: pd.DataFrame, fixed: dict | None = None) -> pd.DataFrame:
    """The rows (of any table with the context columns) at the claim's `where` labels and `fixed` reading levels."""
    fixed = {axis: level for axis, level in (fixed or {}).items() if axis != claim.get("axis")}  # compared, not fixed
    for axis, label in {**fixed, **claim.get("where", {})}.items():
        if axis in rows:
            labels = [label_text(x) for x in label] if isinstance(label, list) else [label_text(label)]
            rows = rows[label_column(rows[axis]).isin(labels)]
    return rows


# Where a metrics table keeps the runs of its experiment that failed (experiments.report.load_metrics puts
# failed.parquet there when it has rows): the cells they belong to are judged `incomplete`.
FAILED_RUNS = "failed_runs"


def evaluate(claim: dict, metrics: pd.DataFrame, axes: list[str], fixed: dict | None = None) -> list[Verdict]:
    """The claim's cell verdicts, one per combination of the labels of its free axes (one `missing` if no run).

    `fixed` maps reading axes to the level the claim is judged at (experiments.readings.reading_axes). A cell that
    lacks a run which failed (`metrics.attrs[FAILED_RUNS]`) is `incomplete`, whatever its finished runs show: its
    note gives that verdict and the failed keys."""
    rows = claim_rows(claim, metrics, fixed)
    free = _free_axes(claim, axes, fixed)
    rule, _, over = claim.get("combine", "all").partition(":")
    if over:
        free = [a for a in free if a != over]
    groups = list(rows.groupby(free, sort=True)) if free else [((), rows)]
    verdicts = {}
    for key, group in groups if not rows.empty else []:
        key = key if isinstance(key, tuple) else (key,)
        label = _cell_label(free, key)
        if over:
            group, label = _extreme_level(group, over, rule, label)
        verdicts[key] = replace(_CHECKS[claim["kind"]](claim, group, label), scope=scope_of(claim))
    lost = metrics.attrs.get(FAILED_RUNS)
    lost = claim_levels(claim, lost, fixed) if lost is not None else pd.DataFrame()
    for key, group in (lost.groupby(free, sort=True) if free else [((), lost)]) if not lost.empty else []:
        key = key if isinstance(key, tuple) else (key,)
        cell = verdicts.get(key)
        keys = ", ".join(group["run_key"])
        if cell is None:
            cell = replace(missing(claim), group=_cell_label(free, key), note="")
            note = f"every run of this cell failed ({keys})"
        else:
            note = f"{len(group)} run(s) failed ({keys}); the {cell.seeds} that finished give {cell.verdict}"
        verdicts[key] = replace(cell, verdict="incomplete", note="; ".join(n for n in (note, cell.note) if n))
    if not verdicts:
        return [missing(claim)]
    try:  # in the order of the labels, as groupby gives them, a cell whose every run failed among them
        return [verdicts[key] for key in sorted(verdicts)]
    except TypeError:  # an axis of labels that do not compare (numbers and text): as found
        return list(verdicts.values())


def _cell_label(free: list[str], key: tuple) -> str:
    return ", ".join(f"{a}={label_text(v)}" for a, v in zip(free, key, strict=True)) or "all runs"


def _extreme_level(group: pd.DataFrame, axis: str, rule: str, label: str) -> tuple[pd.DataFrame, str]:
    """The rows of the level of `axis` whose mean is the lowest (rule min) or highest (max), and its label."""
    measured = group.dropna(subset=["value"])
    means = measured.groupby(label_column(measured[axis]))["value"].mean()
    if means.empty:
        return group.iloc[0:0], label
    level = means.idxmin() if rule == "min" else means.idxmax()
    chosen = f"{axis}={level} ({rule} over {axis})"
    return group[label_column(group[axis]) == level], chosen if label == "all runs" else f"{label}, {chosen}"


# How cells combine: a worse verdict first. `all` takes the worst cell, `any` the best; missing ranks between
# fail and drift for `all` (a cell that could not be judged cannot hold) and last for `any`; incomplete (a cell
# that lacks a failed run) comes before missing for `all`, and right after pass for `any` (the lost runs might
# have made it pass; a cell that passes without them settles it).
_WORST_FIRST = {
    "all": ["fail", "incomplete", "missing", "drift", "pass"],
    "any": ["pass", "incomplete", "drift", "fail", "missing"],
}


@dataclass
class ClaimVerdict:
    """One claim's verdict, with the cell verdicts it combines."""

    claim: str
    cls: str  # reproduction, sanity, calibrated, not_comparable, diagnostic
    combine: str
    verdict: str
    deciding: Verdict  # the cell that decides the verdict (for `each`: the claim's one cell)
    cells: list[Verdict]

    @property
    def cell_counts(self) -> str:
        counts = {v: sum(c.verdict == v for c in self.cells) for v in VERDICTS}
        return ", ".join(f"{n} {v}" for v, n in counts.items() if n)


def combine(claim: dict, cells: list[Verdict]) -> list[ClaimVerdict]:
    """The claim's verdict(s) from its cell verdicts, by its `combine` rule (`each`: one per cell)."""
    cls, rule = claim.get("class", "reproduction"), claim.get("combine", "all")
    if rule == "each":
        return [ClaimVerdict(claim["id"], cls, rule, c.verdict, c, [c]) for c in cells]
    order = _WORST_FIRST["any" if rule == "any" else "all"]
    deciding = min(cells, key=lambda c: order.index(c.verdict))
    return [ClaimVerdict(claim["id"], cls, rule, deciding.verdict, deciding, cells)]


def judge(claim: dict, metrics: pd.DataFrame, axes: list[str], fixed: dict | None = None) -> list[ClaimVerdict]:
    """The claim's one verdict (or one per cell, for combine: each)."""
    return combine(claim, evaluate(claim, metrics, axes, fixed))


def missing(claim: dict) -> Verdict:
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
        return missing(claim)
    mean, half = values.mean(), ci95(values)
    measured = f"{mean:.4g}" + (f" ± {half:.2g}" if not math.isnan(half) else "")
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"],
                   f"{claim['expected']:g}", measured, _tolerances(claim), len(values),
                   _tolerated(mean, claim), value=mean)  # fmt: skip


def _extreme(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    stats = _level_stats(claim, group)
    want = label_text(claim["level"])
    if want not in stats.index or len(stats) < 2:
        return missing(claim)
    ordered = stats.sort_values("mean", ascending=claim["extreme"] == "min")
    best, runner_up = ordered.iloc[0], ordered.iloc[1]
    measured = ", ".join(f"{lvl} {row['mean']:.4g}" for lvl, row in ordered.iterrows())
    if ordered.index[0] != want:
        verdict, note = "fail", f"{ordered.index[0]} is the {claim['extreme']}"
    else:
        overlap = _overlap(best, runner_up, 1)
        verdict = "drift" if overlap else "pass"
        note = f"95 % intervals of {want} and {ordered.index[1]} overlap" if overlap else ""
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"],
                   f"{want} is the {claim['extreme']}", measured, "95 % intervals apart", int(stats["count"].min()),
                   verdict, note)  # fmt: skip


def _level_stats(claim: dict, group: pd.DataFrame) -> pd.DataFrame:
    """mean, ci95 and count of the measured values per level of the claim's axis (index: its label_text);
    a level without a measured value is left out."""
    axis = claim["axis"]
    measured = group.dropna(subset=["value"])
    return measured.groupby(label_column(measured[axis]))["value"].agg(["mean", ci95, "count"])


def _compare(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    stats = _level_stats(claim, group)
    want = label_text(claim["level"])
    others = [label_text(x) for x in claim.get("than", [])] or [lvl for lvl in stats.index if lvl != want]
    if want not in stats.index or not others or any(o not in stats.index for o in others):
        return missing(claim)
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
    """Do a's 95 % interval and factor x b's touch? A level with too few values has no interval: never apart."""
    if math.isnan(a["ci95"]) or math.isnan(b["ci95"]):
        return True
    return abs(a["mean"] - factor * b["mean"]) <= a["ci95"] + factor * b["ci95"]


def _bound(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    values = group["value"].dropna()
    if values.empty:
        return missing(claim)
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
    want, target = label_text(claim["level"]), label_text(claim["nearest"])
    rivals = [label_text(x) for x in claim["among"] if label_text(x) not in (want, target)]
    if any(lvl not in stats.index for lvl in [want, target, *rivals]) or not rivals:
        return missing(claim)
    a = stats.loc[want]
    near = abs(a["mean"] - stats.loc[target, "mean"])
    verdict, notes = "pass", []
    for rival in rivals:
        far = abs(a["mean"] - stats.loc[rival, "mean"])
        halves = [a["ci95"], stats.loc[target, "ci95"], stats.loc[rival, "ci95"]]
        # No interval for some level: never apart (NaN taken explicitly, not by max()'s argument order).
        slack = math.nan if any(math.isnan(h) for h in halves) else halves[0] + max(halves[1:])
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
    level, baseline = label_text(claim["level"]), label_text(claim["baseline"])
    if level not in stats.index or baseline not in stats.index:
        return missing(claim)
    if stats.loc[baseline, "mean"] == 0:
        return replace(missing(claim), group=label, note=f"the mean at {baseline} is 0: no relative change")
    a, b = stats.loc[level, "mean"], stats.loc[baseline, "mean"]
    change = a / b - 1
    measured = f"{change:+.4f} ({level} {a:.4g} / {baseline} {b:.4g})"
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, claim["metric"],
                   f"{level} / {baseline} - 1 = {claim['expected']:+g}", measured, _tolerances(claim),
                   int(stats.loc[[level, baseline], "count"].min()), _tolerated(change, claim),
                   value=change)  # fmt: skip


def _slope(claim: dict, group: pd.DataFrame, label: str) -> Verdict:
    level, baseline = label_text(claim["level"]), label_text(claim["baseline"])
    per_stats = _level_stats(claim, group[group["metric"] == claim["per"]])
    metric_stats = _level_stats(claim, group[group["metric"] == claim["metric"]])
    if not {level, baseline} <= set(per_stats.index) & set(metric_stats.index):
        return missing(claim)
    d_metric = metric_stats.loc[level, "mean"] - metric_stats.loc[baseline, "mean"]
    d_per = per_stats.loc[level, "mean"] - per_stats.loc[baseline, "mean"]
    noise = math.hypot(per_stats.loc[level, "ci95"], per_stats.loc[baseline, "ci95"])
    if d_per == 0 or not abs(d_per) > noise:  # a nan interval (one value) cannot tell the change from 0 either
        return replace(missing(claim), group=label,
                       note=f"{claim['per']} changes by {d_per:+.4g} from {baseline} to {level}, not told apart from 0 "
                            f"(95 % intervals ±{noise:.2g})")  # fmt: skip
    slope = d_metric / d_per
    measured = f"{slope:.4g} ({claim['metric']} {d_metric:+.4g} / {claim['per']} {d_per:+.4g}, {level} - {baseline})"
    seeds = int(min(stats.loc[[level, baseline], "count"].min() for stats in (per_stats, metric_stats)))
    return Verdict(claim["id"], claim["source"], claim["experiment"], label, f"{claim['metric']} per {claim['per']}",
                   f"Δ{claim['metric']} / Δ{claim['per']} = {claim['expected']:g}", measured, _tolerances(claim),
                   seeds, _tolerated(slope, claim), value=slope)  # fmt: skip


_CHECKS = {
    "value": _value,
    "extreme": _extreme,
    "compare": _compare,
    "bound": _bound,
    "nearest": _nearest,
    "ratio": _ratio,
    "slope": _slope,
}


def judge_all(doc: dict, metrics_by_experiment: dict[str, pd.DataFrame], fixed_by_experiment: dict | None = None
              ) -> list[ClaimVerdict]:  # fmt: skip
    """Every claim of a file judged on its experiment's metrics; `fixed_by_experiment`: experiment -> the reading
    levels its claims are judged at (default: the baseline of each axis choice)."""
    from experiments.readings import reading_axes

    verdicts = []
    for claim in doc["claims"]:
        exp = claim["experiment"]
        table = metrics_by_experiment.get(exp)
        if table is None:
            verdicts += combine(claim, [missing(claim)])
            continue
        fixed = (fixed_by_experiment or {}).get(exp, reading_axes(doc, exp))
        verdicts += judge(claim, table, list(axes_of(doc["experiments"][exp])), fixed)
    return verdicts
