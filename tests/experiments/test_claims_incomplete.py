"""A claim a run of which failed is `incomplete`, never a pass: the cell that lacks the run (or whose every run
failed) says so with the failed keys and what the finished runs give; cells combine with `incomplete` ranked
so that a complete cell settles the claim where it can (a fail under `all`, a pass under `any`)."""

from __future__ import annotations

import pandas as pd

from experiments.report.model import VERDICTS
from experiments.verdicts.claims import combine, evaluate, judge

VALUE = {
    "id": "c",
    "source": "T",
    "experiment": "e",
    "metric": "m",
    "kind": "value",
    "expected": 10.0,
    "pass": {"rel": 0.1},
    "drift": {"rel": 0.3},
}
AXES = ["queue", "n"]


def metrics(values: dict[tuple[str, int], list[float]], failed: list[tuple[str, int, int, str]]) -> dict:
    """The metrics and failed runs of an experiment, as evaluate and judge take them: values: (queue, n) -> one value
    per seed; failed: (queue, n, seed, key) of the runs that failed."""
    rows = [
        (q, n, seed, f"{q}{n}s{seed}", "all", "m", v) for (q, n), vs in values.items() for seed, v in enumerate(vs, 1)
    ]
    table = pd.DataFrame(rows, columns=["queue", "n", "seed", "run_key", "scope", "metric", "value"])
    return {"metrics": table, "failed": pd.DataFrame(failed, columns=["queue", "n", "seed", "run_key"])}


def test_a_cell_lacking_a_failed_run_is_incomplete_with_what_the_rest_give():
    table = metrics({("PI", 2): [10.0, 10.1], ("PI", 4): [10.0, 10.2]}, [("PI", 4, 3, "lost1")])
    cells = evaluate({**VALUE, "combine": "each"}, axes=AXES, **table)
    assert [(c.group, c.verdict) for c in cells] == [("queue=PI, n=2", "pass"), ("queue=PI, n=4", "incomplete")]
    assert "lost1" in cells[1].note and "the 2 that finished give pass" in cells[1].note


def test_a_cell_whose_every_run_failed_is_incomplete_in_its_place():
    table = metrics({("PI", 2): [10.0], ("PI", 8): [10.0]}, [("PI", 4, 1, "lost1"), ("PI", 4, 2, "lost2")])
    cells = evaluate({**VALUE, "combine": "each"}, axes=AXES, **table)
    assert [(c.group, c.verdict) for c in cells] == [
        ("queue=PI, n=2", "pass"),
        ("queue=PI, n=4", "incomplete"),
        ("queue=PI, n=8", "pass"),
    ]
    assert "every run of this cell failed (lost1, lost2)" in cells[1].note


def test_a_failed_run_outside_the_claim_s_cells_leaves_it_alone():
    table = metrics({("PI", 2): [10.0], ("DT", 2): [30.0]}, [("DT", 2, 2, "lost1")])
    assert [cv.verdict for cv in judge({**VALUE, "where": {"queue": "PI"}}, axes=AXES, **table)] == ["pass"]
    assert [cv.verdict for cv in judge({**VALUE, "where": {"queue": "DT"}}, axes=AXES, **table)] == ["incomplete"]


def test_every_run_failed_and_no_metric_row_is_incomplete_not_missing():
    table = metrics({}, [("PI", 2, 1, "lost1")])
    assert [cv.verdict for cv in judge(VALUE, axes=AXES, **table)] == ["incomplete"]


def test_incomplete_combines_never_as_a_pass_and_a_complete_cell_settles_what_it_can():
    table = metrics({("PI", 2): [10.0], ("PI", 4): [30.0], ("PI", 8): [10.0]}, [("PI", 8, 2, "lost1")])
    cells = evaluate(VALUE, axes=AXES, **table)  # n=2 pass, n=4 fail, n=8 incomplete (its finished run passes)
    assert [c.verdict for c in cells] == ["pass", "fail", "incomplete"]
    assert combine(VALUE, cells)[0].verdict == "fail", "all: a cell that fails with every run decides"
    assert combine(VALUE, [cells[0], cells[2]])[0].verdict == "incomplete", "all: never a pass"
    assert combine({**VALUE, "combine": "any"}, cells)[0].verdict == "pass", "any: a complete pass decides"
    assert combine({**VALUE, "combine": "any"}, cells[1:])[0].verdict == "incomplete", "any: the lost run might pass"
    assert "incomplete" in VERDICTS, "the report counts it"
