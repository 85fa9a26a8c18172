"""The sensitivity table: every reproduction and diagnostic claim judged under the baseline and under each reading
the file declares (experiments.config.readings), one row per claim (per cell for combine: each) x reading, as
results/sensitivity.parquet keeps it; report.sensitivity_markdown writes SENSITIVITY.md from it.

A verdict is evidence only if it survives the readings the paper leaves open. A claim holds under a reading when it
passes or drifts there; `classify` says whether it holds under every reading tried, fails under every one, or
depends on the reading, leaving out the readings with no evidence either way: `missing` (nothing to measure),
`incomplete` (a run it needs failed) and `not run` (the reading's table is not in the results folder: a folder
only partly run, or the table written by hand); `flips` names the readings whose measured verdict differs from a
measured baseline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd

from experiments.config.axes import axes_of
from experiments.config.readings import (
    BASELINE,
    Reading,
    axis_readings,
    experiments_of,
    measure_readings,
    reading_axes,
    run_readings,
)
from experiments.store.tables import Measured
from experiments.verdicts import preconditions
from experiments.verdicts.claims import ClaimVerdict, Judging, claim_metrics, combine, evaluate
from experiments.verdicts.verdict import missing

HOLDS = {"pass", "drift"}


NOT_RUN = "not run"  # the reading's metrics table is absent from the results folder


# nothing to judge, a run it needs failed, or the reading's runs absent: no evidence either way
UNMEASURED = {"missing", "incomplete", NOT_RUN}


COLUMNS = [
    "paper",
    "claim",
    "class",
    "row",
    "cell",
    "experiment",
    "reading",
    "choices",
    "verdict",
    "measured",
    "expected",
    "distance",
    "inherited",
    "null",
    "shown",  # what a specification curve draws, and its interval's half-width (verdicts.verdict.Verdict)
    "shown_half",
]


JUDGED_CLASSES = ("reproduction", "diagnostic", "no_effect")  # the classes the table judges under every reading


def claim_readings(doc: dict, experiment: str, only_null: bool = False) -> list[tuple[Reading, dict]]:
    """(reading, the axis levels its claims are judged at) for every reading of an experiment, baseline first;
    `only_null`: the baseline and the null readings alone (the setting `readings: null`)."""
    base_levels = reading_axes(doc, experiment)
    out = [(Reading(BASELINE), base_levels)]
    runs = [r for r in run_readings(doc) if experiment in experiments_of(doc, r)]
    if only_null:
        return out + [(r, base_levels) for r in runs if r.null]
    out += [(r, base_levels) for r in runs]
    out += [(r, {**base_levels, **r.axis_levels}) for r in axis_readings(doc, experiment)]
    measures = measure_readings(doc)
    out += [(r, base_levels) for r in measures if experiment in experiments_of(doc, r)]
    return out


def reading_claim(claim: dict, reading: Reading) -> dict:
    """The claim as a reading judges it: a measure reading reads its alternative metric. A claim whose metric it
    does not replace gets the verdict of the runs the reading reads (`inherited`: the markdown leaves it out, the
    row ranking counts it, so that every reading of a row is ranked on all its claims)."""
    read = {"metric": reading.metrics.get(claim["metric"], claim["metric"])}
    if "per" in claim:
        read["per"] = reading.metrics.get(claim["per"], claim["per"])
    return {**claim, **read}


def reading_metrics(reading: Reading, baseline: dict, by_reading: dict) -> dict[str, Measured]:
    """experiment -> the metrics (and failed runs) a reading's claims are judged on: its own runs', or those of the
    runs it reads."""
    if reading.runs_anew:
        return by_reading.get(reading.label, {})
    if reading.metrics and reading.runs != BASELINE:
        return by_reading.get(reading.runs, {})
    return baseline


def table(
    doc: dict,
    baseline: dict[str, Measured],
    by_reading: dict[str, dict[str, Measured]],
    judging: Callable[[dict], Judging] | None = None,
    only_null: bool = False,
) -> pd.DataFrame:
    """One row per reproduction or diagnostic claim (per cell for combine: each) x reading; `baseline`: experiment
    -> its metrics and failed runs (store.tables.load_measured); `by_reading`: run reading label -> the same;
    `judging`: claim -> how the baseline judges its cells (verdicts.seeding: the seeds its rounds added, as in
    REPORT.md); the readings judge the starting seeds at the same confidence; `only_null`: the baseline and the
    null readings alone."""
    rows = []
    # the runs a precondition voids, under the baseline and each reading alike
    baseline = preconditions.apply(doc, baseline)
    by_reading = {label: preconditions.apply(doc, measured) for label, measured in by_reading.items()}
    readings_of: dict[str, list] = {}  # an experiment's readings, the same for each of its claims: found once
    for claim in doc["claims"]:
        if claim.get("class", "reproduction") not in JUDGED_CLASSES:
            continue
        exp = claim["experiment"]
        axes = list(axes_of(doc["experiments"][exp]))
        how = judging(claim) if judging else Judging()
        if exp not in readings_of:
            readings_of[exp] = claim_readings(doc, exp, only_null)
        for reading, fixed in readings_of[exp]:
            judged_claim = reading_claim(claim, reading)
            measured = reading_metrics(reading, baseline, by_reading).get(exp)
            if measured is None:
                judged = not_run(claim)
            else:
                # the seeds rounds added belong to the baseline's own cells
                cells_how = how if reading.is_baseline else replace(how, seed_stops={})
                cells = evaluate(judged_claim, measured.metrics, axes, fixed, measured.failed, cells_how)
                judged = combine(claim, cells or [missing(claim)])
            for cv in judged:
                rows.append(
                    {
                        "paper": doc["paper"],
                        "claim": cv.claim,
                        "class": cv.cls,
                        "row": claim.get("row", ""),
                        "cell": cv.deciding.group if cv.combine == "each" else "",
                        "experiment": exp,
                        "reading": reading.label,
                        "choices": ",".join(f"{c}={a}" for c, a in reading.choices),
                        "verdict": cv.verdict,
                        "measured": cv.deciding.measured,
                        "expected": cv.deciding.expected,
                        "distance": relative_distance(claim, cv.deciding.value),
                        "inherited": bool(reading.metrics) and not reading.metrics.keys() & claim_metrics(claim),
                        "null": reading.null,
                        "shown": cv.deciding.shown,
                        "shown_half": cv.deciding.shown_half,
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def not_run(claim: dict) -> list[ClaimVerdict]:
    """The claim under a reading whose metrics table is absent: like missing, named for its cause."""
    absent = replace(missing(claim), verdict=NOT_RUN, note="this reading's runs are not in the folder")
    return [replace(cv, verdict=NOT_RUN, deciding=absent, cells=[absent]) for cv in combine(claim, [missing(claim)])]


def relative_distance(claim: dict, value: float) -> float:
    """|measured - expected| / |expected| of a value, ratio or slope claim (nan for other kinds, or expected 0)."""
    expected = claim.get("expected")
    if expected in (None, 0) or claim["kind"] not in ("value", "ratio", "slope"):
        return float("nan")
    return abs(value - expected) / abs(expected)


def row_ranking(rows: pd.DataFrame) -> pd.DataFrame:
    """Per published row and reading: claims judged, how many hold (pass or drift), pass, and the mean relative
    distance of its value claims; best first (most holding, then most passing, then the smallest distance)."""
    rows = rows[rows["row"] != ""]
    # a reading that concerns none of a row's claims (a measure reading of other metrics) says nothing new of it
    concerns = ~rows.groupby(["row", "reading"], sort=False)["inherited"].transform("all").astype(bool)
    rows = rows[concerns | (rows["reading"] == BASELINE)]
    stats = rows.groupby(["row", "reading"], sort=False).agg(
        claims=("claim", "size"),
        holds=("verdict", lambda v: int(v.isin(list(HOLDS)).sum())),
        passes=("verdict", lambda v: int((v == "pass").sum())),
        distance=("distance", "mean"),
    )
    stats = stats.reset_index()
    return stats.sort_values(
        ["row", "holds", "passes", "distance"], ascending=[True, False, False, True], kind="stable", na_position="last"
    )


def classify(verdicts: dict[str, str]) -> str:
    """holds / fails / depends / not measured, from {reading: verdict} (unmeasured readings left out)."""
    measured = {r: v for r, v in verdicts.items() if v not in UNMEASURED}
    if not measured:
        return "not measured"
    if all(v in HOLDS for v in measured.values()):
        return "holds"
    if all(v == "fail" for v in measured.values()):
        return "fails"
    return "depends"


def flips(verdicts: dict[str, str]) -> list[str]:
    """The readings whose verdict differs from the baseline's, both measured: a reading left unmeasured (a cell it
    did not run, a failed run) flips nothing, and nothing flips a baseline left unmeasured."""
    base = verdicts.get(BASELINE)
    if base is None or base in UNMEASURED:
        return []
    return [r for r, v in verdicts.items() if r != BASELINE and v != base and v not in UNMEASURED]


DISCRIMINATES, NON_DISCRIMINATING, UNTESTED = "yes", "no", "untested"


def discriminates(baseline: str | None, null_verdicts: dict[str, str]) -> str:
    """no: the claim holds (pass or drift) under the baseline and under a null reading too, so it does not tell the
    paper's mechanism apart from its absence and is no evidence for it; yes: it holds under the baseline and under no
    measured null reading; untested: no null reading measured it, or the baseline does not hold (nothing to tell
    apart)."""
    measured = [v for v in null_verdicts.values() if v not in UNMEASURED]
    if baseline not in HOLDS or not measured:
        return UNTESTED
    return NON_DISCRIMINATING if any(v in HOLDS for v in measured) else DISCRIMINATES


def claim_key(claim: str, cell: str = "") -> str:
    """A claim's name in the table's lists: the claim, with its cell for combine: each."""
    return f"{claim} [{cell}]" if cell else claim


def _claim_key(row) -> str:
    return claim_key(row["claim"], row["cell"])


def non_discriminating(rows: pd.DataFrame) -> set[str]:
    """The keys (claim_key) of the reproduction claims that hold under a null reading as under the baseline."""
    return {
        c.key
        for exp in by_experiment(rows)
        for c in exp.claims
        if c.cls == "reproduction" and c.discriminates == NON_DISCRIMINATING
    }


@dataclass
class ClaimReadings:
    """A claim (a cell of a combine: each claim) under the readings of its experiment: its rows of the table."""

    key: str  # the claim, with its cell for combine: each
    rows: pd.DataFrame

    @property
    def claim(self) -> str:
        return self.rows["claim"].iloc[0]

    @property
    def cls(self) -> str:
        return self.rows["class"].iloc[0]

    @property
    def verdicts(self) -> dict[str, str]:
        """reading -> verdict, the null readings left out: they are controls, not readings of the paper"""
        readings = self.rows[~self.rows["null"].astype(bool)]
        return dict(zip(readings["reading"], readings["verdict"], strict=True))

    @property
    def null_verdicts(self) -> dict[str, str]:
        """null reading -> verdict: the claim with the paper's mechanism switched off"""
        nulls = self.rows[self.rows["null"].astype(bool)]
        return dict(zip(nulls["reading"], nulls["verdict"], strict=True))

    @property
    def discriminates(self) -> str:
        """Whether the claim tells the mechanism apart from its absence (discriminates)."""
        return discriminates(self.verdicts.get(BASELINE), self.null_verdicts)

    @property
    def measured(self) -> dict[str, str]:
        """reading -> measured value, the null readings' included"""
        return dict(zip(self.rows["reading"], self.rows["measured"], strict=True))

    @property
    def flipped(self) -> list[str]:
        return flips(self.verdicts)

    @property
    def kind(self) -> str:
        return classify(self.verdicts)


@dataclass
class ExperimentReadings:
    experiment: str
    readings: list[str]  # in the table's order, the baseline first
    claims: list[ClaimReadings]


def by_experiment(rows: pd.DataFrame) -> list[ExperimentReadings]:
    """A paper's rows of the table per experiment and claim, in the table's order; inherited verdicts left out."""
    rows = rows[~rows["inherited"].astype(bool)]
    rows = rows.assign(key=rows.apply(_claim_key, axis=1))
    return [
        ExperimentReadings(
            exp,
            list(dict.fromkeys(part["reading"])),
            [ClaimReadings(key, claim_rows) for key, claim_rows in part.groupby("key", sort=False)],
        )
        for exp, part in rows.groupby("experiment", sort=False)
    ]
