"""A file's preconditions (verdicts.preconditions): a run beyond one's drift threshold is void for every other claim
of its experiment, under the baseline and under each reading alike: the cells that read it are incomplete, never a
pass, their note naming the precondition, the value and the run; the precondition's own claim reads every run."""

from __future__ import annotations

import pandas as pd

from experiments.config.preconditions import MARK
from experiments.report.sensitivity_markdown import void_lines
from experiments.store.tables import Measured
from experiments.verdicts.claims import evaluate, judge_all
from experiments.verdicts.preconditions import apply, void_runs
from experiments.verdicts.sensitivity import table

LINK = {
    "id": "busy_e",
    "class": "sanity",
    "kind": "bound",
    "source": "the runs",
    "experiment": "e",
    "metric": "idle",
    "bound": "below",
    "threshold": 5.0,
    "drift_threshold": 10.0,
    "combine": "all",
    MARK: "busy",
}
# what a dead link makes look good: a low queue, passing
QUEUE = {
    "id": "low_queue",
    "source": "T",
    "experiment": "e",
    "metric": "q",
    "kind": "bound",
    "bound": "below",
    "threshold": 5.0,
    "drift_threshold": 8.0,
    "combine": "each",
}


def measured(idle: dict[tuple[str, int], float], queue: float = 1.0) -> Measured:
    """Runs of two schemes, seeds 1-2: idle (scheme, seed) -> the run's longest idle spell; every queue at `queue`."""
    rows = []
    for (scheme, seed), spell in idle.items():
        key = f"{scheme}{seed}"
        rows += [(scheme, seed, key, "all", "idle", spell), (scheme, seed, key, "all", "q", queue)]
    return Measured(pd.DataFrame(rows, columns=["scheme", "seed", "run_key", "scope", "metric", "value"]))


DOC = {
    "paper": "p",
    "experiments": {"e": {"matrix": {"product": {"scheme": {"path": "x", "levels": ["AVQ", "RED"]}}}}},
    "claims": [QUEUE, LINK],
    "choices": [],
}
DEAD_AVQ = {("AVQ", 1): 0.5, ("AVQ", 2): 40.0, ("RED", 1): 0.3, ("RED", 2): 0.4}


def test_a_run_beyond_the_drift_threshold_is_void_with_its_cause():
    void = void_runs([LINK], measured(DEAD_AVQ).metrics)
    assert list(void["run_key"]) == ["AVQ2"]
    assert void["cause"].iloc[0] == "busy: idle 40 > 10"
    assert void_runs([LINK], measured({("AVQ", 1): 9.9}).metrics).empty, "within the drift threshold: not void"


def test_the_cells_reading_a_void_run_are_incomplete_and_the_others_keep_their_verdict():
    tables = apply(DOC, {"e": measured(DEAD_AVQ)})["e"]
    cells = evaluate(QUEUE, tables.metrics, ["scheme"], failed=tables.failed)
    assert [(c.group, c.verdict) for c in cells] == [("scheme=AVQ", "incomplete"), ("scheme=RED", "pass")]
    assert "1 run(s) void, busy: idle 40 > 10 (AVQ2)" in cells[0].note
    assert "the 1 left give pass" in cells[0].note, "the void run's values leave the claim's cells"


def test_the_precondition_s_own_claim_reads_every_run():
    verdicts = judge_all(DOC, {"e": measured(DEAD_AVQ)})
    assert [(cv.claim, cv.deciding.group, cv.verdict) for cv in verdicts] == [
        ("low_queue", "scheme=AVQ", "incomplete"),
        ("low_queue", "scheme=RED", "pass"),
        ("busy_e", "scheme=AVQ", "fail"),  # the mean idle spell of AVQ's two seeds, 20.25 s, past 10: both read
    ]


def test_a_reading_that_kills_a_link_leaves_its_claims_incomplete_not_passing():
    doc = {
        **DOC,
        "choices": [
            {
                "id": "alpha",
                "what": "w",
                "choice": "c",
                "why": "y",
                "experiments": ["e"],
                "path": "x",
                "alternatives": [{"label": "locks", "value": 1, "why": "z"}],
            }
        ],
    }
    alive = {("AVQ", 1): 0.5, ("AVQ", 2): 0.6, ("RED", 1): 0.3, ("RED", 2): 0.4}
    rows = table(doc, {"e": measured(alive)}, {"alpha=locks": {"e": measured(DEAD_AVQ)}})
    got = rows.set_index(["reading", "cell"])["verdict"].to_dict()
    assert got[("baseline", "scheme=AVQ")] == "pass"
    assert got[("alpha=locks", "scheme=AVQ")] == "incomplete"
    assert got[("alpha=locks", "scheme=RED")] == "pass"


def test_a_failed_run_at_a_level_the_claim_does_not_compare_leaves_it_alone():
    compare = {**QUEUE, "kind": "compare", "axis": "scheme", "level": "AVQ", "relation": "less", "than": ["RED"]}
    compare.pop("combine")
    rows = [
        (s, seed, f"{s}{seed}", "all", "q", v)
        for s, v in (("AVQ", 1.0), ("RED", 3.0), ("PI", 2.0))
        for seed in (1, 2, 3)
    ]
    metrics = pd.DataFrame(rows, columns=["scheme", "seed", "run_key", "scope", "metric", "value"])
    metrics.loc[metrics["scheme"] == "RED", "value"] += [0.1, 0.0, -0.1]
    failed = pd.DataFrame([("PI", 4, "PI4")], columns=["scheme", "seed", "run_key"])
    assert [c.verdict for c in evaluate(compare, metrics, ["scheme"], failed=failed)] == ["pass"]
    failed = pd.DataFrame([("RED", 4, "RED4")], columns=["scheme", "seed", "run_key"])
    assert [c.verdict for c in evaluate(compare, metrics, ["scheme"], failed=failed)] == ["incomplete"]


def test_sensitivity_md_names_the_runs_each_reading_voids():
    alive = {("AVQ", 1): 0.5, ("AVQ", 2): 0.6, ("RED", 1): 0.3, ("RED", 2): 0.4}
    baseline = apply(DOC, {"e": measured(alive)})
    lines = void_lines(baseline, {"alpha=locks": apply(DOC, {"e": measured(DEAD_AVQ)})})
    assert lines[0].startswith("**Runs void by a precondition**")
    assert lines[2:] == ["- alpha=locks: 1 of e (busy)", ""], "the baseline voids nothing and is not listed"
    assert void_lines(baseline, {}) == []


def test_applying_twice_voids_each_run_once():
    once = apply(DOC, {"e": measured(DEAD_AVQ)})
    twice = apply(DOC, once)
    assert len(once["e"].failed) == 1 and twice["e"].failed.equals(once["e"].failed)
    assert twice["e"].voided
