"""A paper's headline results (its file's `headlines`: what its abstract and conclusions say it shows), each judged
from the claims that test it.

A headline's verdict combines its claims' verdicts by its `combine` rule, as a claim combines its cells (verdicts.
claims: `all` the worst, `any` the best). With the sensitivity table, the same is done under every reading tried:
under a reading a claim has the verdict the table gives it there, or its baseline verdict where the reading changes
nothing it reads (another experiment's reading, or one the table marks inherited). From those, as for one claim
(verdicts.sensitivity): whether the headline holds under every reading, fails under every one or depends on the
reading (and on which), and whether it tells the paper's mechanism apart from its null readings.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from experiments.config.readings import BASELINE
from experiments.verdicts.claims import ClaimVerdict, combined_verdict
from experiments.verdicts.sensitivity import (
    NOT_RUN,
    UNMEASURED,
    ClaimReadings,
    by_experiment,
    classify,
    discriminates,
    flips,
)

BASELINE_ONLY = "baseline only"


@dataclass(frozen=True)
class HeadlineVerdict:
    headline: dict  # the file's entry: id, quote, source, claims, combine, why
    claims: tuple[ClaimVerdict, ...]  # its claims' verdicts, as the report judges them (each cell of a `each` claim)
    verdict: str
    readings: dict[str, str]  # reading -> the headline's verdict there (the baseline first); empty without a table
    nulls: dict[str, str]  # null reading -> the headline's verdict there

    @property
    def id(self) -> str:
        return self.headline["id"]

    @property
    def kind(self) -> str:
        """holds, fails or depends under the readings tried (verdicts.sensitivity.classify); `baseline only` where no
        other reading measured it, `not run` without the sensitivity table."""
        if not self.readings:
            return NOT_RUN
        measured = {r for r, v in self.readings.items() if v not in UNMEASURED}
        if measured == {BASELINE}:
            return BASELINE_ONLY
        return classify(self.readings)  # `not measured` when no reading measured it

    @property
    def depends_on(self) -> list[str]:
        """The readings under which the headline's verdict differs from the baseline's."""
        return flips(self.readings)

    @property
    def discriminates(self) -> str:
        """yes, no (holds under a null reading too) or untested (verdicts.sensitivity.discriminates)."""
        return discriminates(self.readings.get(BASELINE, self.verdict), self.nulls)


def judge_headlines(doc: dict, verdicts: list[ClaimVerdict], rows: pd.DataFrame | None = None) -> list[HeadlineVerdict]:
    """Each of the file's headlines from its claims' `verdicts` (the report's) and, when given, the paper's rows of
    the sensitivity table."""
    by_claim: dict[str, list[ClaimVerdict]] = {}
    for cv in verdicts:
        by_claim.setdefault(cv.claim, []).append(cv)
    readings_of: dict[str, list[ClaimReadings]] = {}
    order: list[str] = []  # every reading of the table, in its order (the baseline first)
    if rows is not None and not rows.empty:
        for exp in by_experiment(rows):
            order += [r for r in exp.readings if r not in order]
            for claim in exp.claims:
                readings_of.setdefault(claim.claim, []).append(claim)
    null = set() if rows is None else set(rows.loc[rows["null"].astype(bool), "reading"])
    out = []
    for headline in doc.get("headlines", []):
        rule = headline.get("combine", "all")
        judged = tuple(cv for claim in headline["claims"] for cv in by_claim.get(claim, []))
        verdict = combined_verdict(rule, [cv.verdict for cv in judged]) if judged else "missing"
        keys = [k for claim in headline["claims"] for k in readings_of.get(claim, [])]
        under: dict[str, str] = {}
        if keys:
            for reading in order:
                cells = [_under(k, reading) for k in keys]
                under[reading] = combined_verdict(rule, cells)
        out.append(
            HeadlineVerdict(
                headline,
                judged,
                verdict,
                {r: v for r, v in under.items() if r not in null},
                {r: v for r, v in under.items() if r in null},
            )
        )
    return out


def _under(claim: ClaimReadings, reading: str) -> str:
    """The claim's verdict under a reading: the table's, or its baseline's where the reading changes nothing it
    reads."""
    verdicts = {**claim.verdicts, **claim.null_verdicts}
    verdict = verdicts.get(reading, verdicts.get(BASELINE, "missing"))
    return "missing" if verdict == NOT_RUN else verdict  # not run: no evidence either way, as missing
