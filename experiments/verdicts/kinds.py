"""Each kind of claim judged on the rows of one cell: value, extreme, compare, bound, nearest, ratio, slope
(verdicts.claims' docstring says what each means).

Each check takes the confidence of the intervals that tell two levels apart (95 %, or less wide a risk where the
profile may add seeds: verdicts.seeding says why); the intervals shown beside a mean are 95 % ones. The directional
kinds (extreme, compare, nearest) mark a drift `undecided` when it comes from an interval that holds 0 or cannot be
formed: more seeds could decide it either way (verdicts.seeding adds them).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd

from experiments.config.axes import label_column, label_text
from experiments.config.tolerances import describe_tolerance, tolerance_verdict
from experiments.verdicts.stats import (
    CONFIDENCE,
    ci95,
    difference,
    half_width,
    per_seed,
    percent,
    ratio_half_width,
    shared_seeds,
)
from experiments.verdicts.verdict import Verdict, missing


def _tolerances(claim: dict) -> str:
    return f"pass {describe_tolerance(claim['pass'])}, drift {describe_tolerance(claim['drift'])}"


def _value(claim: dict, group: pd.DataFrame, label: str, confidence: float = CONFIDENCE) -> Verdict:
    values = group["value"].dropna()
    if values.empty:
        return missing(claim)
    mean, half = values.mean(), ci95(values)
    measured = f"{mean:.4g}" + (f" ± {half:.2g}" if not math.isnan(half) else "")
    return Verdict(
        claim["id"],
        claim["source"],
        claim["experiment"],
        label,
        claim["metric"],
        f"{claim['expected']:g}",
        measured,
        _tolerances(claim),
        len(values),
        tolerance_verdict(mean, claim),
        value=mean,
        shown=mean,
        shown_half=half,
    )


def _extreme(claim: dict, group: pd.DataFrame, label: str, confidence: float = CONFIDENCE) -> Verdict:
    stats = _level_stats(claim, group, confidence)
    want = label_text(claim["level"])
    if want not in stats.index or len(stats) < 2:
        return missing(claim)
    ordered = stats.sort_values("mean", ascending=claim["extreme"] == "min")
    measured = ", ".join(f"{lvl} {row['mean']:.4g}" for lvl, row in ordered.iterrows())
    table = _seed_table(claim, group)
    apart = difference(stats, table, ordered.index[0], ordered.index[1], confidence=confidence)
    rival = next(lvl for lvl in ordered.index if lvl != want)  # the claimed level's nearest rival
    margin = difference(stats, table, want, rival, confidence=confidence)
    sign = 1 if claim["extreme"] == "max" else -1
    test = _test([apart.paired])
    if ordered.index[0] != want:
        verdict, note = "fail", f"{ordered.index[0]} is the {claim['extreme']}"
    else:
        verdict = "pass" if apart.apart else "drift"
        interval = f"{percent(confidence)} interval of {want} - {ordered.index[1]} ({test})"
        note = "" if apart.apart else f"{interval} includes 0"
    return Verdict(
        claim["id"],
        claim["source"],
        claim["experiment"],
        label,
        claim["metric"],
        f"{want} is the {claim['extreme']}",
        measured,
        _apart_rule(test, confidence),
        int(stats["count"].min()),
        verdict,
        note,
        test=test,
        undecided=verdict == "drift",  # the extreme by mean: the interval decides
        shown=sign * margin.mean,
        shown_half=margin.half,
    )


def _level_stats(claim: dict, group: pd.DataFrame, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """mean, half (of the `confidence` interval) and count of the measured values per level of the claim's axis
    (index: its label_text); a level without a measured value is left out."""
    axis = claim["axis"]
    measured = group.dropna(subset=["value"])
    by_level = measured.groupby(label_column(measured[axis]))["value"]
    return pd.DataFrame(
        {"mean": by_level.mean(), "half": by_level.agg(lambda v: half_width(v, confidence)), "count": by_level.count()}
    )


def _seed_table(claim: dict, group: pd.DataFrame) -> pd.DataFrame | None:
    """The cell's measured values as seed x level of the claim's axis (its label_text), for paired statistics;
    None where they cannot be paired (stats.per_seed)."""
    measured = group.dropna(subset=["value"])
    return per_seed(measured.assign(_level=label_column(measured[claim["axis"]])), "_level")


def _test(paired: list[bool]) -> str:
    """How a verdict's differences were taken: paired (every one per seed), unpaired, or partly paired."""
    return "paired" if all(paired) else "unpaired" if not any(paired) else "partly paired"


def _apart_rule(test: str, confidence: float) -> str:
    """The tolerance column of a verdict that needs two levels apart, naming the test and its confidence."""
    if test == "paired":
        return f"{percent(confidence)} interval of the per-seed differences clear of 0 (paired)"
    return f"{percent(confidence)} intervals apart ({test})"


def _compare(claim: dict, group: pd.DataFrame, label: str, confidence: float = CONFIDENCE) -> Verdict:
    stats = _level_stats(claim, group, confidence)
    want = label_text(claim["level"])
    others = [label_text(x) for x in claim.get("than", [])] or [lvl for lvl in stats.index if lvl != want]
    if want not in stats.index or not others or any(o not in stats.index for o in others):
        return missing(claim)
    sign = 1 if claim["relation"] == "greater" else -1
    factor = claim.get("factor", 1)
    a = stats.loc[want]
    table = _seed_table(claim, group)
    wrong, weak, paired, open_ = [], [], [], []
    least = None  # the smallest oriented gap over the levels compared, for the specification curve
    for other in others:
        b = stats.loc[other]
        gap = difference(stats, table, want, other, factor, confidence)
        paired.append(gap.paired)
        if least is None or sign * gap.mean < sign * least.mean:
            least = gap
        if sign * (a["mean"] - b["mean"]) <= 0:
            wrong.append(other)
        elif sign * gap.mean <= 0 or not gap.apart:
            weak.append(other)
            open_.append(not gap.apart)  # the interval holds 0: more seeds could tell; else short of the factor
    test = _test(paired)
    verdict = "fail" if wrong else "drift" if weak else "pass"
    note = ""
    if wrong:
        note = f"{', '.join(wrong)} on the other side"
    elif weak:
        interval = f"{percent(confidence)} interval ({test})"
        note = f"against {', '.join(weak)}: not by the factor, or its {interval} includes 0"
    word = ">" if sign > 0 else "<"
    scale = f"{factor:g} x " if factor != 1 else ""
    expected = f"{want} {word} {scale}{', '.join(others)}"
    measured = ", ".join(f"{lvl} {stats.loc[lvl, 'mean']:.4g}" for lvl in [want, *others])
    return Verdict(
        claim["id"],
        claim["source"],
        claim["experiment"],
        label,
        claim["metric"],
        expected,
        measured,
        _apart_rule(test, confidence),
        int(stats.loc[[want, *others], "count"].min()),
        verdict,
        note,
        test=test,
        undecided=verdict == "drift" and all(open_),  # a drift short of the factor beyond doubt stays one
        shown=sign * least.mean,
        shown_half=least.half,
    )


def _bound(claim: dict, group: pd.DataFrame, label: str, confidence: float = CONFIDENCE) -> Verdict:
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
    return Verdict(
        claim["id"],
        claim["source"],
        claim["experiment"],
        label,
        claim["metric"],
        f"{word} {claim['threshold']:g}",
        measured,
        f"drift {word} {claim['drift_threshold']:g}",
        len(values),
        verdict,
        shown=mean,
        shown_half=half,
    )


def _nearest(claim: dict, group: pd.DataFrame, label: str, confidence: float = CONFIDENCE) -> Verdict:
    stats = _level_stats(claim, group, confidence)
    want, target = label_text(claim["level"]), label_text(claim["nearest"])
    rivals = [label_text(x) for x in claim["among"] if label_text(x) not in (want, target)]
    if any(lvl not in stats.index for lvl in [want, target, *rivals]) or not rivals:
        return missing(claim)
    a = stats.loc[want]
    near = abs(a["mean"] - stats.loc[target, "mean"])
    table = _seed_table(claim, group)
    verdict, notes, paired = "pass", [], []
    margins = []  # (how much nearer to the target than to the rival, its interval's half-width) per rival
    for rival in rivals:
        far = abs(a["mean"] - stats.loc[rival, "mean"])
        seeds = shared_seeds(table, [want, target, rival])
        paired.append(seeds is not None)
        if seeds is not None:  # per seed: how much nearer A is to the target than to the rival
            gain = (seeds[want] - seeds[rival]).abs() - (seeds[want] - seeds[target]).abs()
            clear = not math.isnan(half := half_width(gain, confidence)) and gain.mean() > half
            margins.append((float(gain.mean()), half))
        else:
            halves = [a["half"], stats.loc[target, "half"], stats.loc[rival, "half"]]
            # No interval for some level: never apart (NaN taken explicitly, not by max()'s argument order).
            slack = math.nan if any(math.isnan(h) for h in halves) else halves[0] + max(halves[1:])
            clear = not math.isnan(slack) and far - near > slack
            margins.append((far - near, slack))
        if near >= far:
            verdict = "fail"
            notes.append(f"nearer to {rival}")
        elif not clear:
            verdict = "drift" if verdict == "pass" else verdict
            notes.append(
                f"nearer to {target} than to {rival} within the {percent(confidence)} intervals ({_test([paired[-1]])})"
            )
    test = _test(paired)
    measured = ", ".join(f"{lvl} {stats.loc[lvl, 'mean']:.4g}" for lvl in [want, target, *rivals])
    return Verdict(
        claim["id"],
        claim["source"],
        claim["experiment"],
        label,
        claim["metric"],
        f"{want} nearest to {target}",
        measured,
        f"distance beyond the {percent(confidence)} intervals ({test})",
        int(stats.loc[[want, target, *rivals], "count"].min()),
        verdict,
        "; ".join(notes),
        test=test,
        undecided=verdict == "drift",  # nearer by mean: the intervals decide
        shown=min(margins)[0],
        shown_half=min(margins)[1],
    )


def _ratio(claim: dict, group: pd.DataFrame, label: str, confidence: float = CONFIDENCE) -> Verdict:
    stats = _level_stats(claim, group)
    level, baseline = label_text(claim["level"]), label_text(claim["baseline"])
    if level not in stats.index or baseline not in stats.index:
        return missing(claim)
    if stats.loc[baseline, "mean"] == 0:
        return replace(missing(claim), group=label, note=f"the mean at {baseline} is 0: no relative change")
    a, b = stats.loc[level, "mean"], stats.loc[baseline, "mean"]
    change = a / b - 1
    half, paired = ratio_half_width(stats, _seed_table(claim, group), level, baseline)
    interval = f" ± {half:.2g}" if not math.isnan(half) else ""
    measured = f"{change:+.4f}{interval} ({level} {a:.4g} / {baseline} {b:.4g})"
    return Verdict(
        claim["id"],
        claim["source"],
        claim["experiment"],
        label,
        claim["metric"],
        f"{level} / {baseline} - 1 = {claim['expected']:+g}",
        measured,
        _tolerances(claim),
        int(stats.loc[[level, baseline], "count"].min()),
        tolerance_verdict(change, claim),
        value=change,
        test=_test([paired]),
        shown=change,
        shown_half=half,
    )


def _slope(claim: dict, group: pd.DataFrame, label: str, confidence: float = CONFIDENCE) -> Verdict:
    level, baseline = label_text(claim["level"]), label_text(claim["baseline"])
    per_stats = _level_stats(claim, group[group["metric"] == claim["per"]])
    metric_stats = _level_stats(claim, group[group["metric"] == claim["metric"]])
    if not {level, baseline} <= set(per_stats.index) & set(metric_stats.index):
        return missing(claim)
    d_metric = metric_stats.loc[level, "mean"] - metric_stats.loc[baseline, "mean"]
    change = difference(per_stats, _seed_table(claim, group[group["metric"] == claim["per"]]), level, baseline)
    d_per = change.mean
    # paired: the per-seed changes' interval; unpaired: the two levels' intervals combined, sqrt(a² + b²)
    noise = change.half if change.paired else math.hypot(per_stats.loc[level, "half"], per_stats.loc[baseline, "half"])
    if d_per == 0 or not abs(d_per) > noise:  # a nan interval (one value) cannot tell the change from 0 either
        return replace(
            missing(claim),
            group=label,
            note=f"{claim['per']} changes by {d_per:+.4g} from {baseline} to {level}, not told apart from 0 "
            f"(95 % interval ±{noise:.2g}, {_test([change.paired])})",
        )
    slope = d_metric / d_per
    measured = f"{slope:.4g} ({claim['metric']} {d_metric:+.4g} / {claim['per']} {d_per:+.4g}, {level} - {baseline})"
    seeds = int(min(stats.loc[[level, baseline], "count"].min() for stats in (per_stats, metric_stats)))
    return Verdict(
        claim["id"],
        claim["source"],
        claim["experiment"],
        label,
        f"{claim['metric']} per {claim['per']}",
        f"Δ{claim['metric']} / Δ{claim['per']} = {claim['expected']:g}",
        measured,
        _tolerances(claim),
        seeds,
        tolerance_verdict(slope, claim),
        value=slope,
        test=_test([change.paired]),
        shown=slope,
    )


_CHECKS = {
    "value": _value,
    "extreme": _extreme,
    "compare": _compare,
    "bound": _bound,
    "nearest": _nearest,
    "ratio": _ratio,
    "slope": _slope,
}
