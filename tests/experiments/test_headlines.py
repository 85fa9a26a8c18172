"""A headline judged from its claims (experiments/verdicts/headlines.py): its combine rule at the baseline and under
each reading of the sensitivity table, whether it survives the readings, and whether it tells the mechanism apart
from the null readings. Hand-built verdicts and table rows."""

from __future__ import annotations

import pandas as pd

from experiments.config.readings import BASELINE
from experiments.verdicts.claims import ClaimVerdict
from experiments.verdicts.headlines import judge_headlines
from experiments.verdicts.sensitivity import COLUMNS, NOT_RUN
from experiments.verdicts.verdict import Verdict


def verdict(claim: str, word: str, cls: str = "reproduction") -> ClaimVerdict:
    cell = Verdict(claim, "§5", "exp", "all runs", "m", "1", "1", "", 5, word)
    return ClaimVerdict(claim, cls, "all", word, cell, [cell])


def rows(table: dict[str, dict[str, str]], nulls: frozenset = frozenset(), inherited: frozenset = frozenset()):
    """{claim: {reading: verdict}} as the sensitivity table's rows of one experiment."""
    out = []
    for claim, by_reading in table.items():
        for reading, word in by_reading.items():
            row = dict.fromkeys(COLUMNS, "")
            row |= {"paper": "p", "claim": claim, "class": "reproduction", "experiment": "exp", "reading": reading}
            row |= {"verdict": word, "null": reading in nulls, "inherited": (claim, reading) in inherited}
            row |= {"distance": float("nan")}
            out.append(row)
    return pd.DataFrame(out, columns=COLUMNS)


def doc(*headlines: dict) -> dict:
    return {"paper": "p", "headlines": list(headlines)}


def headline(claims: list[str], combine: str = "all") -> dict:
    return {"id": "h", "quote": "q", "source": "Abstract", "claims": claims, "combine": combine, "why": "w"}


def test_all_takes_the_worst_claim_and_any_the_best():
    judged = [verdict("a", "pass"), verdict("b", "drift"), verdict("c", "fail")]
    (every,) = judge_headlines(doc(headline(["a", "b"])), judged)
    (one,) = judge_headlines(doc(headline(["b", "c"], "any")), judged)
    (worst,) = judge_headlines(doc(headline(["a", "c"])), judged)
    assert (every.verdict, one.verdict, worst.verdict) == ("drift", "drift", "fail")
    assert every.kind == NOT_RUN and every.discriminates == "untested"  # no sensitivity table


def test_a_headline_depends_on_the_readings_under_which_one_of_its_claims_fails():
    judged = [verdict("a", "pass"), verdict("b", "pass")]
    table = rows(
        {
            "a": {BASELINE: "pass", "window=200": "pass", "core=45Mb": "fail"},
            "b": {BASELINE: "pass", "window=200": "drift", "core=45Mb": "pass"},
        }
    )
    (h,) = judge_headlines(doc(headline(["a", "b"])), judged, table)
    assert h.readings == {BASELINE: "pass", "window=200": "drift", "core=45Mb": "fail"}
    assert h.kind == "depends" and h.depends_on == ["window=200", "core=45Mb"]
    (either,) = judge_headlines(doc(headline(["a", "b"], "any")), judged, table)
    assert either.kind == "holds" and either.depends_on == []


def test_a_reading_that_changes_nothing_a_claim_reads_leaves_it_its_baseline_verdict():
    judged = [verdict("a", "pass"), verdict("b", "fail")]
    # b's row under window=200 is inherited (the reading changes no metric b reads): b keeps its baseline fail
    table = rows(
        {"a": {BASELINE: "pass", "window=200": "pass"}, "b": {BASELINE: "fail", "window=200": "pass"}},
        inherited=frozenset({("b", "window=200")}),
    )
    (h,) = judge_headlines(doc(headline(["a", "b"])), judged, table)
    assert h.readings == {BASELINE: "fail", "window=200": "fail"} and h.kind == "fails"


def test_a_headline_that_holds_with_the_mechanism_switched_off_does_not_discriminate():
    judged = [verdict("a", "pass"), verdict("b", "pass")]
    base = {"a": {BASELINE: "pass", "newreno": "pass"}, "b": {BASELINE: "pass", "newreno": "fail"}}
    (told,) = judge_headlines(doc(headline(["a", "b"])), judged, rows(base, nulls=frozenset({"newreno"})))
    assert told.nulls == {"newreno": "fail"} and told.discriminates == "yes"
    assert BASELINE in told.readings and "newreno" not in told.readings
    both = {"a": {BASELINE: "pass", "newreno": "pass"}, "b": {BASELINE: "pass", "newreno": "drift"}}
    (not_told,) = judge_headlines(doc(headline(["a", "b"])), judged, rows(both, nulls=frozenset({"newreno"})))
    assert not_told.discriminates == "no"


def test_only_the_baseline_measured_is_said_so():
    judged = [verdict("a", "pass")]
    table = rows({"a": {BASELINE: "pass", "window=200": NOT_RUN}})
    (h,) = judge_headlines(doc(headline(["a"])), judged, table)
    assert h.kind == "baseline only"
