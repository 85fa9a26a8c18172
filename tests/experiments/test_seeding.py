"""Seeds added until a claim is decided (experiments/verdicts/seeding.py), on hand-built tables.

A directional claim whose levels differ by a steady amount at every seed drifts on two seeds (an interval of one
degree of freedom is wide) and passes on four. The rounds double the seeds of exactly such a claim cell, on exactly
the matrix cells it compares, up to the cap and within the budget; each claim reads the seeds of its own rounds;
and every look is judged at the Bonferroni confidence the cap's looks ask for.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
import yaml

from experiments.config import load as load_mod
from experiments.planning.expansion import Expansion
from experiments.report.model import claim_row, paper_data
from experiments.store import layout
from experiments.store.tables import write_parquet
from experiments.verdicts.claims import ClaimVerdict, evaluate, judge_all
from experiments.verdicts.seeding import (
    ADDED,
    BUDGET,
    CAP,
    SeedPolicy,
    SeedRounds,
    Seeds,
    next_round,
    write_round,
)
from experiments.verdicts.stats import t_quantile
from experiments.verdicts.verdict import Verdict

# A - B at seeds 1..4: steady, so the paired interval closes once four seeds are in.
STEADY = {1: 2.5, 2: 3.5, 3: 3.0, 4: 3.05}
BASE = {1: 10.0, 2: 30.0, 3: 20.0, 4: 40.0}  # B itself varies a lot from seed to seed

SWEEP = {
    "paper": "seeded",
    "experiments": {
        "e": {
            "scenario": {
                "topology": {
                    "kind": "dumbbell",
                    "core_link": {"bandwidth": "1Mb", "delay": "10ms"},
                    "edge_link": {"bandwidth": "10Mb", "delay": "1ms"},
                },
                "core_queue": {"class": "Queue/DropTail", "knobs": {"limit_": 20}},
                "flows": {
                    "tcp": {
                        "kind": "ftp",
                        "count": 1,
                        "agent": {"class": "Agent/TCP/Newreno"},
                        "sink": {"class": "Agent/TCPSink"},
                    }
                },
            },
            "duration": 2,
            "seeds": {"count": 2},
            "matrix": {"product": {"flows_n": {"path": "flows.tcp.count", "levels": [1, 2, 3]}}},
        }
    },
}


def compare(cid: str, level: int, than: list[int], **rest) -> dict:
    return {
        "id": cid,
        "kind": "compare",
        "source": "T",
        "experiment": "e",
        "metric": "bottleneck_queue_pkts_mean",
        "axis": "flows_n",
        "level": level,
        "relation": "greater",
        "than": than,
        **rest,
    }


def load_doc(tmp_path, claims: list[dict]) -> dict:
    path = tmp_path / "seeded.yaml"
    path.write_text(yaml.safe_dump({**SWEEP, "claims": claims}))
    return load_mod.load(path)


def rows(values: dict[int, dict[int, float]], seeds) -> pd.DataFrame:
    """Metric rows: level -> seed -> value, at the given seeds."""
    return pd.DataFrame(
        [
            {
                "paper": "seeded",
                "experiment": "e",
                "flows_n": level,
                "seed": seed,
                "run_key": f"k{level}_{seed}",
                "scope": "all",
                "metric": "bottleneck_queue_pkts_mean",
                "value": by_seed[seed],
            }
            for level, by_seed in values.items()
            for seed in seeds
        ]
    )


# flows_n=2 sits STEADY above flows_n=1 at every seed; flows_n=3 far above both
LEVELS = {1: BASE, 2: {s: BASE[s] + STEADY[s] for s in BASE}, 3: {s: BASE[s] + 50 for s in BASE}}


def write_tables(results, seeds, seed_round: int = 0) -> None:
    path = layout.experiment_table(results, "seeded", "e", "metrics", seed_round=seed_round)
    write_parquet(rows(LEVELS, seeds), path, "metrics")


def test_seeds_double_up_to_the_cap_and_each_look_costs_confidence():
    seeds = Seeds(first=1, count=10, cap=40)
    assert [seeds.after(k) for k in range(4)] == [10, 20, 40, 40]
    assert (seeds.rounds, seeds.looks) == (2, 3)
    assert seeds.confidence == pytest.approx(1 - 0.05 / 3)
    assert Seeds(1, 10, 25).rounds == 2, "10, 20, then 25: the last round stops at the cap"
    assert Seeds(1, 10, 10).confidence == 0.95, "no round: one look at 95 %"
    exp = {"seeds": {"first": 1, "count": 10, "paper": 100}}
    assert SeedPolicy("paper", 500).seeds(exp).cap == 100
    assert SeedPolicy(40, 0).seeds(exp).cap == 10, "no budget: no rounds, so no looks to pay for"
    assert SeedPolicy(5, 500).seeds(exp).cap == 10, "a cap below the starting seeds takes none away"


def test_only_a_drift_an_interval_leaves_open_is_undecided():
    table = rows(LEVELS, [1, 2])
    (open_,) = evaluate(compare("c", 2, [1]), table, ["flows_n"])
    assert (open_.verdict, open_.undecided) == ("drift", True)
    (decided,) = evaluate(compare("c", 3, [1]), table, ["flows_n"])
    assert (decided.verdict, decided.undecided) == ("pass", False)
    (wrong,) = evaluate(compare("c", 1, [3]), table, ["flows_n"])
    assert (wrong.verdict, wrong.undecided) == ("fail", False)
    # short of the factor beyond doubt (60 against 10, nowhere near 10 x): a drift more seeds will not change
    calm = {1: 10.0, 2: 11.0, 3: 10.5, 4: 10.2}
    steady = rows({1: calm, 3: {s: v + 50 for s, v in calm.items()}}, [1, 2, 3, 4])
    (short,) = evaluate(compare("c", 3, [1], factor=10), steady, ["flows_n"])
    assert (short.verdict, short.undecided) == ("drift", False)
    extreme = {**compare("c", 2, []), "kind": "extreme", "extreme": "max", "level": 3}
    del extreme["than"], extreme["relation"]
    (top,) = evaluate(extreme, rows({1: BASE, 3: LEVELS[2]}, [1, 2]), ["flows_n"])
    assert (top.verdict, top.undecided) == ("drift", True)
    value = {**compare("c", 2, []), "kind": "value", "expected": 30, "pass": {"rel": 0.01}, "drift": {"rel": 0.5}}
    (band,) = evaluate(value, rows({1: BASE}, [1, 2]), ["flows_n"])
    assert (band.verdict, band.undecided) == ("drift", False), "a mean in the drift band is decided by its mean"


def cell(verdict: str, undecided: bool, group: str) -> Verdict:
    return Verdict("c", "T", "e", group, "m", "", "", "", 2, verdict, undecided=undecided)


def test_a_claim_is_undecided_only_where_more_seeds_could_change_it():
    opened, closed = cell("drift", True, "a"), cell("drift", False, "b")
    assert ClaimVerdict("c", "reproduction", "all", "drift", opened, [opened, closed]).undecided_cells == []
    assert ClaimVerdict(
        "c", "reproduction", "all", "drift", opened, [opened, cell("pass", False, "c")]
    ).undecided_cells == [opened]
    assert ClaimVerdict("c", "reproduction", "any", "drift", opened, [opened, closed]).undecided_cells == [opened]
    assert ClaimVerdict("c", "reproduction", "all", "fail", opened, [opened]).undecided_cells == []


def test_a_round_doubles_exactly_the_cells_an_undecided_claim_compares(tmp_path):
    doc = load_doc(tmp_path, [compare("open", 2, [1]), compare("decided", 3, [1])])
    results = tmp_path / "results"
    write_tables(results, [1, 2])
    policy = SeedPolicy(cap=8, budget=100)
    first = next_round([doc], results, 1, SeedRounds(policy))
    (entry,) = first["cells"]
    assert (entry["claim"], entry["status"], entry["seeds"], entry["stop"], entry["runs"]) == ("open", ADDED, 2, 5, 4)
    (runs,) = first["runs"]
    assert runs["seeds"] == [3, 5] and runs["cells"] == [{"flows_n": "1"}, {"flows_n": "2"}], (
        "flows_n=3 is not compared"
    )
    assert first["added"] == 4
    # the round's runs measured: four seeds, and the claim is decided
    write_tables(results, [3, 4], seed_round=1)
    rounds = SeedRounds(policy, (first,))
    verdicts = {cv.claim: cv for cv in judge_all(doc, load_seeded(doc, results, rounds), judging=rounds.judging(doc))}
    assert (verdicts["open"].verdict, verdicts["open"].deciding.seeds) == ("pass", 4)
    assert verdicts["decided"].deciding.seeds == 2, "flows_n=1 ran four seeds, but for another claim"
    second = next_round([doc], results, 2, rounds)
    assert (second["cells"], second["runs"], second["added"], second["spent_before"]) == ([], [], 0, 4)


def load_seeded(doc, results, rounds):
    from experiments.store.tables import load_measured

    return load_measured(doc, results, seed_rounds=rounds.tables(doc["paper"]))


def test_the_cap_and_the_budget_leave_a_drift_undecided_and_say_so(tmp_path):
    doc = load_doc(tmp_path, [compare("open", 2, [1])])
    results = tmp_path / "results"
    write_tables(results, [1, 2])
    at_cap = next_round([doc], results, 1, SeedRounds(SeedPolicy(cap=2, budget=100)))
    assert ([e["status"] for e in at_cap["cells"]], at_cap["runs"]) == ([CAP], []), "the cap is the starting seeds"
    poor = SeedRounds(SeedPolicy(cap=8, budget=3))
    schedule = next_round([doc], results, 1, poor)
    assert ([e["status"] for e in schedule["cells"]], schedule["runs"]) == ([BUDGET], [])
    data = paper_data(doc, results, rounds=SeedRounds(poor.policy, (schedule,)))
    (row,) = [claim_row(cv, data.notes, data.seeding) for cv in data.verdicts]
    assert row.verdict == "drift" and row.note.startswith("undecided at 2 seeds, the seeding budget spent")
    # doubled once to the cap of 4, still open (its values at seeds 3 and 4 as scattered as they come)
    scattered = {1: BASE, 2: {1: 12.9, 2: 36.0, 3: 19.0, 4: 45.0}}
    write_parquet(rows(scattered, [1, 2]), layout.experiment_table(results, "seeded", "e", "metrics"), "metrics")
    write_parquet(
        rows(scattered, [3, 4]), layout.experiment_table(results, "seeded", "e", "metrics", seed_round=1), "metrics"
    )
    policy = SeedPolicy(cap=4, budget=100)
    first = next_round([doc], results, 1, SeedRounds(policy))
    second = next_round([doc], results, 2, SeedRounds(policy, (first,)))
    assert [(e["status"], e["seeds"]) for e in second["cells"]] == [(CAP, 4)] and second["runs"] == []
    data = paper_data(doc, results, rounds=SeedRounds(policy, (first, second)))
    (row,) = [claim_row(cv, data.notes, data.seeding) for cv in data.verdicts]
    assert row.seeds == "4 (1 round added)"
    assert row.note.startswith("undecided at the cap of 4 seeds per cell")
    assert "1 still undecided" in data.seeding_text


def test_the_cheapest_claim_cells_go_first_and_shared_runs_count_once(tmp_path):
    nearest = {**compare("wide", 2, []), "kind": "nearest", "nearest": 1, "among": [1, 3]}
    for key in ("relation", "than"):
        del nearest[key]
    doc = load_doc(tmp_path, [nearest, compare("narrow", 2, [1])])
    results = tmp_path / "results"
    levels = {**LEVELS, 3: {s: BASE[s] + 10 for s in BASE}}  # 2 nearer to 1 than to 3 at every seed, by about 4
    write_parquet(rows(levels, [1, 2]), layout.experiment_table(results, "seeded", "e", "metrics"), "metrics")
    # the nearest claim reads levels 1, 2 and 3 (6 runs a round), the compare 1 and 2 (4): a budget of 5 takes the
    # compare only
    schedule = next_round([doc], results, 1, SeedRounds(SeedPolicy(cap=8, budget=5)))
    assert {e["claim"]: e["status"] for e in schedule["cells"]} == {"narrow": ADDED, "wide": BUDGET}
    # the nearest claim's cells hold the compare's: with 6, both fit, and the round adds 6 runs, not 10
    schedule = next_round([doc], results, 1, SeedRounds(SeedPolicy(cap=8, budget=6)))
    assert {e["claim"]: e["status"] for e in schedule["cells"]} == {"narrow": ADDED, "wide": ADDED}
    assert schedule["added"] == 6 and len(schedule["runs"][0]["cells"]) == 3


def test_every_look_is_judged_at_the_confidence_the_caps_looks_ask_for():
    # ten per-seed differences whose mean is 2.45 standard errors from 0: apart at 95 %, not at 1 - 0.05/3
    diffs = [1, 3, -1, 2, 0, 2.5, -0.5, 1.5, 0.5, 1]
    mean, sd = sum(diffs) / 10, pd.Series(diffs).std()
    se = sd / math.sqrt(10)
    assert t_quantile(9, 0.95) < mean / se < t_quantile(9, 1 - 0.05 / 3)
    table = rows(
        {1: {s: 10.0 * s for s in range(1, 11)}, 2: {s: 10.0 * s + d for s, d in enumerate(diffs, 1)}}, range(1, 11)
    )
    once = evaluate(compare("c", 2, [1]), table, ["flows_n"])[0]
    rounds = SeedRounds(SeedPolicy(cap=40, budget=100))
    doc = {"paper": "seeded", "experiments": {"e": {"seeds": {"first": 1, "count": 10}}}}
    judging = rounds.judging(doc)(compare("c", 2, [1]))
    looked = evaluate(compare("c", 2, [1]), table, ["flows_n"], judging=judging)[0]
    assert (once.verdict, looked.verdict, looked.undecided) == ("pass", "drift", True)
    assert "98.3 % interval" in looked.tolerance


def test_added_seeds_are_the_runs_a_larger_count_would_have_made(tmp_path):
    doc = load_doc(tmp_path, [])
    more = json.loads(json.dumps(doc))
    more["experiments"]["e"]["seeds"]["count"] = 4
    full = {(tuple(r.labels.items()), r.seed): r.params for r in Expansion(more, "x", "e").runs()}
    added = Expansion(doc, "x", "e").added_seeds([{"flows_n": "2"}, {"flows_n": "1"}], first=3, count=2)
    runs = added.runs()
    assert [(r.labels["flows_n"], r.seed) for r in runs] == [(1, 3), (1, 4), (2, 3), (2, 4)]
    assert all(r.params == full[(tuple(r.labels.items()), r.seed)] for r in runs), "same params, so same run keys"


def test_a_schedule_is_written_whole_and_read_back_in_round_order(tmp_path):
    doc = load_doc(tmp_path, [compare("open", 2, [1])])
    results = tmp_path / "results"
    write_tables(results, [1, 2])
    policy = SeedPolicy(cap=8, budget=100)
    out = layout.seed_schedule(results, 1)
    written = write_round([doc], results, 1, [], policy, out)
    assert json.loads(out.read_text()) == written
    assert SeedRounds.load(policy, [out]).stops("seeded", "open") == {"all runs": 5}
    with pytest.raises(ValueError, match="not seeding round 2"):
        SeedRounds.load(policy, [out, out])


def test_a_run_a_round_lost_makes_its_claim_incomplete_and_is_listed(tmp_path):
    doc = load_doc(tmp_path, [compare("open", 2, [1])])
    results = tmp_path / "results"
    write_tables(results, [1, 2])
    policy = SeedPolicy(cap=8, budget=100)
    first = next_round([doc], results, 1, SeedRounds(policy))
    write_parquet(
        rows({1: BASE, 2: LEVELS[2]}, [3, 4]).query("not (flows_n == 2 and seed == 4)"),
        layout.experiment_table(results, "seeded", "e", "metrics", seed_round=1),
        "metrics",
    )
    lost = {
        "paper": "seeded",
        "experiment": "e",
        "flows_n": 2,
        "seed": 4,
        "run_key": "lost",
        "directory": "d",
        "message": "ns failed: injected",
        "rerun": "sh rerun.sh",
    }
    write_parquet(
        pd.DataFrame([lost]), layout.experiment_table(results, "seeded", "e", "failed", seed_round=1), "failed"
    )
    data = paper_data(doc, results, rounds=SeedRounds(policy, (first,)))
    (cv,) = data.verdicts
    assert cv.verdict == "incomplete" and "lost" in cv.deciding.note
    assert [(f.run_key, f.seed, f.claims) for f in data.failed] == [("lost", 4, ["open"])]
