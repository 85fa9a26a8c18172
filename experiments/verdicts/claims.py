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
  level is the min (max) and its difference to the runner-up is told apart from 0 (below);
  drift if it is the extreme by mean only; fail if another level is.
- kind compare: level A of an axis against each level in `than` (default: every other
  level), relation greater (or less) by `factor` (default 1): A > factor x B. pass if it
  holds for every B and A - factor x B is told apart from 0; drift if A is on the claimed
  side of every B by mean but not by the factor or not told apart; fail if some B is on
  A's side.
- kind bound: the mean over seeds is below (above) `threshold`: pass; within
  `drift_threshold`: drift; beyond it: fail.
- kind nearest: level A's mean is nearer to level `nearest` than to every other level in
  `among`. pass if nearer by more than the 95 % intervals (paired: the per-seed gain in
  nearness clear of 0; unpaired: more than A's half-width plus the larger of the other two);
  drift if nearer by mean only; fail otherwise.
- kind ratio: the relative change of `level` against `baseline` (two levels of `axis`):
  measured = mean over seeds at level / mean over seeds at baseline - 1 (e.g. 0.22 for
  "+22 %"), judged against `expected` with the `pass` and `drift` tolerances exactly like
  kind value, its 95 % interval beside it (the delta method, with the two means' covariance
  when paired); missing when either level has no value or the baseline's mean is 0.
- kind slope: how much `metric` changes per unit of `per` between `baseline` and `level` (two
  levels of `axis`): measured = (mean of metric at level - at baseline) / (mean of per at
  level - at baseline), both means over seeds, e.g. the object time one avoided drop saves
  (object_cycle_s per core_drops_per_object); judged against `expected` like kind value;
  missing when a level lacks either metric or the change of `per` is not told apart from 0
  (paired: within the 95 % interval of the per-seed changes; unpaired: within the half-widths
  of both levels' intervals combined, sqrt(a² + b²)): a ratio over a change lost in the noise
  has no meaning.

Told apart from 0, two levels' difference: every level of a cell runs the same seeds (common
random numbers), so where both levels have a value at exactly the same seeds the difference is
taken per seed, and it is told apart when the 95 % interval of those per-seed differences is
clear of 0 (paired). Where they do not (other seed lists, a failed run, a value not measured),
the levels are taken as independent: told apart when their own intervals do not overlap
(unpaired). Each verdict names its test (`test`, and the tolerance column); a claim compared
against several levels that pair with some only is "partly paired". Intervals use Student's t
for the number of values (scipy), whatever it is.

A claim with no runs behind it is `missing`, never a pass. A claim a run of which failed
(ns or its parser; the run is left out of every table) is `incomplete`, never a pass:
its note gives the verdict of the runs that finished and the failed keys, and the
report lists the failed runs with their rerun commands. A run a file's precondition voids (a
bottleneck that went dead) counts as lost in the same way (verdicts.preconditions).

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
other free axes as `all`), `mean:<axis>` (any kind: each seed's values
averaged over the levels of <axis>, a curve judged as a whole, e.g. a ranking of
schemes over a sweep of N; a seed missing a level has no average; other free axes as
`all`). Axes that are readings of an open choice (a choice with
`axis` and `baseline`) are not free: claims are judged at the baseline level.

"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pandas as pd

from experiments.config.axes import axes_of, label_column, label_text
from experiments.config.preconditions import MARK as PRECONDITION
from experiments.config.readings import reading_axes
from experiments.store.tables import CAUSE, Measured
from experiments.verdicts import preconditions
from experiments.verdicts.kinds import _CHECKS
from experiments.verdicts.stats import CONFIDENCE
from experiments.verdicts.verdict import VERDICTS, Verdict, missing, scope_of


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


@dataclass(frozen=True)
class Judging:
    """How a claim's cells are judged beyond its rows: the confidence of the intervals that tell two levels apart,
    and the seeds each cell reads: cell label -> the seed it stops before, and for a cell not named `starting`, the
    stop of the profile's own seeds (None: every row), as seeds added for other claims are not its own.
    verdicts.seeding gives them."""

    confidence: float = CONFIDENCE
    seed_stops: dict = field(default_factory=dict)
    starting: int | None = None

    def rows(self, group: pd.DataFrame, label: str) -> pd.DataFrame:
        """A cell's rows at the seeds it reads."""
        stop = self.seed_stops.get(label, self.starting)
        return group if stop is None or group.empty else group[group["seed"] < stop]


def evaluate(
    claim: dict,
    metrics: pd.DataFrame,
    axes: list[str],
    fixed: dict | None = None,
    failed: pd.DataFrame | None = None,
    judging: Judging | None = None,
) -> list[Verdict]:
    """The claim's cell verdicts, one per combination of the labels of its free axes (one `missing` if no run).

    `fixed` maps reading axes to the level the claim is judged at (config.readings.reading_axes). A cell that
    lacks a run which failed (a row of `failed`, the experiment's failed runs with their context columns), at a
    level the claim reads, is `incomplete`, whatever its finished runs show: its note gives that verdict and the
    failed keys. A row of `failed` with a CAUSE is a run a precondition voids (verdicts.preconditions): it leaves
    the claim's values and makes its cell incomplete alike, except for the precondition's own claim. `judging`: the
    confidence and the seeds of each cell (default: 95 %, every row)."""
    judging = judging or Judging()
    rule, _, over = claim.get("combine", "all").partition(":")
    metrics, failed = _without_void(claim, metrics, failed)
    verdicts = {}
    for key, label, group in _cells(claim, claim_rows(claim, metrics, fixed), axes, fixed):
        group = judging.rows(group, label)
        if over:
            mean = _mean_level if rule == "mean" else _extreme_level
            group, label = mean(group, over, rule, label)
        check = _CHECKS[claim["kind"]](claim, group, label, judging.confidence)
        verdicts[key] = replace(check, scope=scope_of(claim))
    lost = _levels_read_rows(claim, failed, fixed) if failed is not None else pd.DataFrame()
    for key, label, group in _cells(claim, lost, axes, fixed):
        group = judging.rows(group, label)
        if group.empty:
            continue
        cell = verdicts.get(key)
        any_void = CAUSE in group and group[CAUSE].notna().any()
        if cell is None:
            cell = replace(missing(claim), group=label, note="")
            keys = ", ".join(group["run_key"])
            note = (
                f"no run of this cell is left: {_lost_text(group)}"
                if any_void
                else f"every run of this cell failed ({keys})"
            )
        else:
            note = (
                f"{_lost_text(group)}; the {cell.seeds} {'left' if any_void else 'that finished'} give {cell.verdict}"
            )
        verdicts[key] = replace(cell, verdict="incomplete", note="; ".join(n for n in (note, cell.note) if n))
    if not verdicts:
        return [missing(claim)]
    try:  # in the order of the labels, as groupby gives them, a cell whose every run failed among them
        return [verdicts[key] for key in sorted(verdicts)]
    except TypeError:  # an axis of labels that do not compare (numbers and text): as found
        return list(verdicts.values())


def _without_void(
    claim: dict, metrics: pd.DataFrame, failed: pd.DataFrame | None
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The metrics a claim reads and the runs it lost: a run void by a precondition leaves the metrics of every claim
    but the precondition's own (which reads every finished run, and so is not told of the void ones)."""
    if failed is None or CAUSE not in failed or failed[CAUSE].isna().all():
        return metrics, failed
    void = failed[CAUSE].notna()
    if claim.get(PRECONDITION):
        return metrics, failed[~void]
    return metrics[~metrics["run_key"].isin(failed.loc[void, "run_key"])], failed


def _cells(claim: dict, rows: pd.DataFrame, axes: list[str], fixed: dict | None) -> list[tuple]:
    """(key, label, rows) of each of a claim's cells: one per combination of the labels of its free axes (over the
    axis of a min/max combine, which is judged within the cell)."""
    free = _free_axes(claim, axes, fixed)
    over = claim.get("combine", "all").partition(":")[2]
    free = [a for a in free if a != over]
    if rows.empty:
        return []
    groups = rows.groupby(free, sort=True) if free else [((), rows)]
    keys = [(key if isinstance(key, tuple) else (key,), group) for key, group in groups]
    return [(key, _cell_label(free, key), group) for key, group in keys]


def _lost_text(group: pd.DataFrame) -> str:
    """A cell's lost runs: those that failed, and those void by a precondition (by cause), with their keys."""
    if CAUSE not in group:
        group = group.assign(**{CAUSE: None})
    void = group[CAUSE].notna()
    parts = [f"{(~void).sum()} run(s) failed ({', '.join(group.loc[~void, 'run_key'])})"] if (~void).any() else []
    for cause, runs in group[void].groupby(CAUSE, sort=True):
        parts.append(f"{len(runs)} run(s) void, {cause} ({', '.join(runs['run_key'])})")
    return "; ".join(parts)


def _levels_read_rows(claim: dict, rows: pd.DataFrame, fixed: dict | None = None) -> pd.DataFrame:
    """The rows (of any table with the context columns) at the claim's `where` labels and `fixed` reading levels,
    of the levels its kind compares (levels_read)."""
    rows = claim_levels(claim, rows, fixed)
    read = levels_read(claim)
    if read is not None and not rows.empty:
        rows = rows[label_column(rows[claim["axis"]]).isin(read)]
    return rows


def cell_groups(claim: dict, rows: pd.DataFrame, axes: list[str], fixed: dict | None = None) -> dict[str, pd.DataFrame]:
    """A claim's cells as `evaluate` forms them: cell label -> the rows (of any table with the context columns) of
    the levels its kind compares (levels_read), at its `where` labels and `fixed` reading levels."""
    rows = _levels_read_rows(claim, rows, fixed)
    return {label: group for _, label, group in _cells(claim, rows, axes, fixed)}


def levels_read(claim: dict) -> list[str] | None:
    """The levels of its axis a claim's kind compares (label_text), or None for every level (kind extreme, a
    compare against every other level, and the kinds with no axis)."""
    if claim["kind"] == "compare" and claim.get("than"):
        return [label_text(x) for x in [claim["level"], *claim["than"]]]
    if claim["kind"] == "nearest":
        return [label_text(x) for x in [claim["level"], claim["nearest"], *claim["among"]]]
    if claim["kind"] in ("ratio", "slope"):
        return [label_text(claim["level"]), label_text(claim["baseline"])]
    return None


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


def _mean_level(group: pd.DataFrame, axis: str, rule: str, label: str) -> tuple[pd.DataFrame, str]:
    """The cell's rows with each seed's values averaged over the levels of `axis` (per level of every other
    column), as one level labelled 'mean'. Seeds stay paired (every level of a cell runs the same seeds); a
    seed that lacks a value at a level the cell has has no average (NaN), rather than a mean of fewer points."""
    if group.empty:
        return group, label
    keys = [c for c in group.columns if c not in (axis, "value", "run_key")]
    levels = label_column(group[axis]).nunique()
    grouped = group.groupby(keys, sort=False, dropna=False)
    out = grouped["value"].agg(["mean", "count"]).reset_index()
    out["value"] = out["mean"].where(out["count"] == levels)
    out[axis] = "mean"
    if "run_key" in group:
        out["run_key"] = grouped["run_key"].agg(" ".join).to_numpy()
    chosen = f"mean over {axis} ({levels} levels)"
    return out[list(group.columns)], chosen if label == "all runs" else f"{label}, {chosen}"


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
    def undecided_cells(self) -> list[Verdict]:
        """The cells more seeds could decide the claim in: of a drift, its drifting cells when each only lacks an
        interval clear of 0 (`all`, `each`; one drift of another cause keeps it a drift whatever they show), or
        those of them that do (`any`: one could pass). Empty for any other verdict."""
        if self.verdict != "drift":
            return []
        drifts = [c for c in self.cells if c.verdict == "drift"]
        open_ = [c for c in drifts if c.undecided]
        return open_ if self.combine == "any" or len(open_) == len(drifts) else []

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


def combined_verdict(rule: str, verdicts: list[str]) -> str:
    """The verdict of several by a combine rule (`all`: the worst, `any`: the best), as combine() ranks cells."""
    order = _WORST_FIRST["any" if rule == "any" else "all"]
    return min(verdicts, key=order.index)


def judge(
    claim: dict,
    metrics: pd.DataFrame,
    axes: list[str],
    fixed: dict | None = None,
    failed: pd.DataFrame | None = None,
    judging: Judging | None = None,
) -> list[ClaimVerdict]:
    """The claim's one verdict (or one per cell, for combine: each)."""
    return combine(claim, evaluate(claim, metrics, axes, fixed, failed, judging))


def judge_all(
    doc: dict,
    measured: dict[str, Measured],
    fixed_by_experiment: dict | None = None,
    judging: Callable[[dict], Judging] | None = None,
) -> list[ClaimVerdict]:
    """Every claim of a file judged on its experiment's metrics and failed runs (`measured`: experiment -> them);
    `fixed_by_experiment`: experiment -> the reading levels its claims are judged at (default: the baseline of each
    axis choice); `judging`: claim -> how its cells are judged (verdicts.seeding; default: 95 %, every row)."""
    verdicts = []
    measured = preconditions.apply(doc, measured)
    for claim in doc["claims"]:
        exp = claim["experiment"]
        tables = measured.get(exp)
        if tables is None:
            verdicts += combine(claim, [missing(claim)])
            continue
        fixed = (fixed_by_experiment or {}).get(exp, reading_axes(doc, exp))
        how = judging(claim) if judging else None
        verdicts += judge(claim, tables.metrics, list(axes_of(doc["experiments"][exp])), fixed, tables.failed, how)
    return verdicts
