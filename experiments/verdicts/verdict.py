"""A verdict of one cell of a claim, and the words a verdict can be."""

from __future__ import annotations

import math
from dataclasses import dataclass

VERDICTS = ("pass", "drift", "fail", "incomplete", "missing")


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
    test: str = ""  # how two levels were compared: paired (per seed), unpaired or partly paired (verdicts.stats)
    undecided: bool = False  # a drift only because an interval holds 0 or cannot be formed (verdicts.kinds)
    # What a specification curve draws for the cell (report.spec_curves), with its interval's half-width (nan: none):
    # the judged number (value, bound, ratio, slope), or for the orderings the margin by which the claimed order
    # holds, oriented so that above 0 it holds (extreme: over the nearest rival; compare: the least over the levels
    # compared, the factor applied; nearest: how much nearer to the target than to the closest rival).
    shown: float = math.nan
    shown_half: float = math.nan


def scope_of(claim: dict) -> str:
    """The metrics scope a claim reads (default all)."""
    return claim.get("scope", "all")


def missing(claim: dict) -> Verdict:
    return Verdict(
        claim["id"],
        claim["source"],
        claim["experiment"],
        "-",
        claim["metric"],
        "",
        "",
        "",
        0,
        "missing",
        "no run measured this metric",
        scope_of(claim),
    )
