"""A headline judged from its claims (experiments/verdicts/headlines.py): its combine rule at the baseline and under
each reading of the sensitivity table, whether it survives the readings, and whether it tells the mechanism apart
from the null readings. Hand-built verdicts and table rows."""

from __future__ import annotations

import json

import pandas as pd

from experiments.config.readings import BASELINE
from experiments.report.markdown import write_report
from experiments.store.tables import write_parquet
from experiments.verdicts.claims import ClaimVerdict
from experiments.verdicts.headlines import judge_headlines
from experiments.verdicts.sensitivity import COLUMNS, NOT_RUN, table
from experiments.verdicts.verdict import Verdict
from tests.experiments.test_null_readings import RED_OFF, claim, load, metrics


def verdict(claim: str, word: str, cls: str = "reproduction") -> ClaimVerdict:
    cell = Verdict(claim, "§5", "exp", "all runs", "m", "1", "1", "", 5, word)
    return ClaimVerdict(claim, cls, "all", word, cell, [cell])


def rows(given: dict[str, dict[str, str]], nulls: frozenset = frozenset(), inherited: frozenset = frozenset()):
    """{claim: {reading: verdict}} as the sensitivity table's rows of one experiment."""
    out = []
    for cid, by_reading in given.items():
        for reading, word in by_reading.items():
            row = dict.fromkeys(COLUMNS, "")
            row |= {"paper": "p", "claim": cid, "class": "reproduction", "experiment": "exp", "reading": reading}
            row |= {"verdict": word, "null": reading in nulls, "inherited": (cid, reading) in inherited}
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


def test_report_md_opens_each_paper_with_its_headlines(tmp_path):
    """REPORT.md: the headline table, from the report's verdicts and, with the sensitivity table, its readings."""
    headlines = [
        {"id": "busy", "quote": "The link stays busy.", "source": "Abstract", "claims": ["same"], "why": "w"},
        {"id": "fewer_drops", "quote": "RED halves the drops.", "source": "§6", "claims": ["red_only"], "why": "w"},
    ]
    doc = load(
        tmp_path,
        [RED_OFF],
        claims=[claim("same", "bottleneck_utilization_pct", 90), claim("red_only", "bottleneck_drop_pct", 5)],
        headlines=headlines,
    )
    base = metrics(bottleneck_utilization_pct=90.0, bottleneck_drop_pct=5.0)
    null = metrics(bottleneck_utilization_pct=90.0, bottleneck_drop_pct=10.0)
    results = tmp_path / "results"
    write_parquet(base.metrics, results / "minimal" / "tiny" / "metrics.parquet", "metrics")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"key": "k", "binary": {"sha256": "0" * 64}, "series": {"patches": []}}))
    sensitivity = tmp_path / "sensitivity.parquet"
    write_parquet(table(doc, {"tiny": base}, {"mechanism=off": {"tiny": null}}), sensitivity, "sensitivity")
    write_report([doc], results, manifest, tmp_path / "with.md", "smoke", sensitivity)
    write_report([doc], results, manifest, tmp_path / "without.md", "smoke")
    with_table, without = (tmp_path / "with.md").read_text(), (tmp_path / "without.md").read_text()
    for text in (with_table, without):
        assert text.index("### Headlines") < text.index("### Reproduction")
    row = next(line for line in with_table.splitlines() if line.startswith("| busy "))
    assert '"The link stays busy." (Abstract; all of its claims)' in row and "**pass**" in row
    assert "no: holds without it too" in row and "same: pass" in row
    assert "[busy.png](report/curves/minimal/busy.png)" in row
    row = next(line for line in with_table.splitlines() if line.startswith("| fewer_drops "))
    assert "yes: fails without it" in row and "only the baseline measured" in row
    row = next(line for line in without.splitlines() if line.startswith("| fewer_drops "))
    assert "readings not run" in row and "untested" in row
