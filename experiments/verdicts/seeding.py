"""Seeds added until a claim is decided: the seeding rounds.

A profile runs each cell's starting seeds (`seeds.count`, or `seeds.paper` on the paper profile). A reproduction
claim of kind extreme, compare or nearest that drifts only because an interval holds 0 or cannot be formed
(verdicts.kinds marks such a cell `undecided`; ClaimVerdict.undecided_cells says when the claim is) may be decided
by more seeds on the cells it reads. Round r doubles the seeds of each claim cell still undecided after round r-1
(round 1: after the starting seeds), on exactly the matrix cells that claim cell compares (claims.cell_groups), up
to the profile's cap of seeds per cell (setting `seed_cap`) and within its run budget (`seed_budget`, over every
paper and round: within a round the cheapest claim cells first, then in file order). A round adds the same seeds
to every level a claim cell compares, so its levels still pair per seed. Run keys make added seeds a top-up: a run
that another claim's round already made is reused. A drift from the tolerance bands (kinds value, bound, ratio,
slope: the mean is in the drift band) is decided by its mean and gets no seeds, nor do the classes that are not
counted as agreement.

Each claim reads the seeds of its own rounds only: a cell it did not send to a round keeps its starting seeds,
although another claim's round may have run more at the same matrix cells. So a verdict never depends on another
claim's drift.

Several looks at one claim: a claim judged up to K times (its starting seeds, then after each round) would pass by
chance more often than one judged once. So every verdict of an experiment where rounds may add seeds tells levels
apart at 1 - 0.05/K confidence instead of 95 % (Bonferroni over the K looks its cap allows: K = 1 + the number of
doublings from its starting seeds to the cap), from the first look on: the chance that a claim whose levels do
not differ passes stays at most 5 % over all its looks. Where rounds add nothing (budget 0, or a cap at or below
the starting seeds), K = 1 and the intervals are 95 % ones.

A round's schedule (layout.seed_schedule: `<results>/seed-rounds/round<r>.json`) lists each claim cell that is
still undecided and may be sent to it, with its seeds so far and its status: `added` (this round doubles it, up to
`stop`), `cap` (at the cap) or `budget` (the budget left no room); and the runs it adds, per experiment: the seeds
and the matrix cells. The first schedule that adds no runs ends the rounds. A cell left at `cap` or `budget` stays
a drift, and the report says which.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from experiments.common.files import canonical_json, write_atomic
from experiments.config.axes import axes_of, label_text
from experiments.config.readings import reading_axes
from experiments.store.tables import load_measured
from experiments.verdicts import preconditions
from experiments.verdicts.claims import Judging, cell_groups, judge
from experiments.verdicts.stats import CONFIDENCE

ALPHA = 1 - CONFIDENCE  # of one claim over all its looks
FORMAT = "ns2-repro/seed-round/1"
SEEDED_CLASSES = ("reproduction",)  # the class counted as agreement: the only one worth runs
ADDED, CAP, BUDGET = "added", "cap", "budget"
STATUSES = (ADDED, CAP, BUDGET)  # of a claim cell in a schedule


@dataclass(frozen=True)
class Seeds:
    """An experiment's seeds under the profile: the first, how many each cell starts with, and the cap."""

    first: int
    count: int
    cap: int

    def after(self, rounds: int) -> int:
        """Seeds per cell after `rounds` doublings, at most the cap."""
        return min(self.count * 2**rounds, self.cap)

    @property
    def rounds(self) -> int:
        """How many rounds the cap allows."""
        n = 0
        while self.after(n) < self.cap:
            n += 1
        return n

    @property
    def looks(self) -> int:
        return 1 + self.rounds

    @property
    def confidence(self) -> float:
        """Of the intervals that tell two levels apart, at every look (the module's docstring says why)."""
        return CONFIDENCE if self.looks == 1 else 1 - ALPHA / self.looks

    @property
    def starting_stop(self) -> int:
        """The seed the starting seeds stop before."""
        return self.first + self.count


@dataclass(frozen=True)
class SeedPolicy:
    """The profile's seeding settings: the cap of seeds per cell (a number, or "paper") and the run budget."""

    cap: int | str
    budget: int

    def seeds(self, exp: dict) -> Seeds:
        """An experiment's seeds (`exp` as the profile cut it): with no budget, the cap is its starting count."""
        count = exp["seeds"]["count"]
        cap = exp["seeds"].get("paper", count) if self.cap == "paper" else int(self.cap)
        return Seeds(exp["seeds"]["first"], count, max(count, cap) if self.budget > 0 else count)

    def active(self, docs: list[dict]) -> bool:
        """Whether any experiment may get a round."""
        return any(self.seeds(exp).rounds for doc in docs for exp in doc["experiments"].values())


@dataclass(frozen=True)
class SeedRounds:
    """The rounds run so far (their schedules, in order) under a policy."""

    policy: SeedPolicy
    schedules: tuple[dict, ...] = ()

    @classmethod
    def load(cls, policy: SeedPolicy, paths: list[str | Path]) -> SeedRounds:
        schedules = []
        for number, path in enumerate(paths, 1):
            schedule = json.loads(Path(path).read_text())
            if schedule.get("format") != FORMAT or schedule.get("round") != number:
                raise ValueError(f"{path}: not seeding round {number} in format {FORMAT}")
            schedules.append(schedule)
        return cls(policy, tuple(schedules))

    def stops(self, paper: str, claim_id: str) -> dict[str, int]:
        """cell label -> the seed it stops before, for a claim's cells that rounds doubled (the last round wins)."""
        return {
            cell: e["stop"]
            for (p, c, cell), entries in self._entries.items()
            if (p, c) == (paper, claim_id)
            for _, e in entries
            if e["status"] == ADDED
        }

    def judging(self, doc: dict) -> Callable[[dict], Judging]:
        """claim -> how its cells are judged: its experiment's confidence, and the seeds of its own rounds."""

        def how(claim: dict) -> Judging:
            seeds = self.policy.seeds(doc["experiments"][claim["experiment"]])
            return Judging(seeds.confidence, self.stops(doc["paper"], claim["id"]), seeds.starting_stop)

        return how

    def tables(self, paper: str) -> dict[str, list[int]]:
        """experiment -> the rounds that added runs of it."""
        out: dict[str, list[int]] = {}
        for schedule in self.schedules:
            for runs in schedule["runs"]:
                if runs["paper"] == paper:
                    out.setdefault(runs["experiment"], []).append(schedule["round"])
        return out

    def history(self, paper: str, claim_id: str, cell: str) -> list[tuple[int, dict]]:
        """(round, entry) of each schedule that lists a claim cell, in round order."""
        return self._entries.get((paper, claim_id, cell), [])

    @cached_property
    def _entries(self) -> dict[tuple[str, str, str], list[tuple[int, dict]]]:
        found: dict[tuple[str, str, str], list[tuple[int, dict]]] = {}
        for schedule in self.schedules:
            for e in schedule["cells"]:
                found.setdefault((e["paper"], e["claim"], e["cell"]), []).append((schedule["round"], e))
        return found

    @property
    def added(self) -> int:
        return sum(schedule["added"] for schedule in self.schedules)


def run_count(schedule: dict) -> int:
    return sum(len(r["cells"]) * (r["seeds"][1] - r["seeds"][0]) for r in schedule["runs"])


@dataclass(frozen=True)
class _Candidate:
    paper: str
    claim: str
    cell: str
    experiment: str
    matrix: tuple[tuple, ...]  # the matrix cells it compares, each ((axis, label_text), ...)
    seeds: Seeds
    now: int  # seeds per cell so far
    order: tuple  # file order: (paper's rank, claim's index)

    @property
    def after(self) -> int:
        """Seeds per cell after this round: doubled, at most the cap."""
        return min(self.now * 2, self.seeds.cap)

    @property
    def cost(self) -> int:
        """The runs this round would add for this claim cell alone."""
        return len(self.matrix) * (self.after - self.now)


def undecided(docs: list[dict], results: str | Path, rounds: SeedRounds) -> list[_Candidate]:
    """The claim cells the next round may double: every reproduction claim cell more seeds could decide (round 1),
    then those of them the previous round doubled that still are."""
    doubled = (
        {(e["paper"], e["claim"], e["cell"]) for e in rounds.schedules[-1]["cells"] if e["status"] == ADDED}
        if rounds.schedules
        else None
    )
    found = []
    for rank, doc in enumerate(docs):
        paper = doc["paper"]
        measured = preconditions.apply(doc, load_measured(doc, results, seed_rounds=rounds.tables(paper)))
        how = rounds.judging(doc)
        for index, claim in enumerate(doc["claims"]):
            exp, tables = claim["experiment"], measured.get(claim["experiment"])
            if claim.get("class", "reproduction") not in SEEDED_CLASSES or tables is None:
                continue
            axes, fixed = list(axes_of(doc["experiments"][exp])), reading_axes(doc, exp)
            seeds, judging = rounds.policy.seeds(doc["experiments"][exp]), how(claim)
            cells = None
            for cv in judge(claim, tables.metrics, axes, fixed, tables.failed, judging):
                for cell in cv.undecided_cells:
                    if doubled is not None and (paper, claim["id"], cell.group) not in doubled:
                        continue
                    if cells is None:  # the matrix cells of each claim cell, from one row per matrix cell
                        grid = tables.metrics.drop_duplicates(subset=axes) if axes else tables.metrics.iloc[:1]
                        cells = cell_groups(claim, grid, axes, fixed)
                    matrix = tuple(
                        tuple((axis, label_text(row[axis])) for axis in axes) for _, row in cells[cell.group].iterrows()
                    )
                    now = judging.seed_stops.get(cell.group, seeds.starting_stop) - seeds.first
                    found.append(_Candidate(paper, claim["id"], cell.group, exp, matrix, seeds, now, (rank, index)))
    return found


def next_round(docs: list[dict], results: str | Path, number: int, rounds: SeedRounds) -> dict:
    """Round `number`'s schedule after the rounds before it: which undecided claim cells it doubles (within the
    budget, cheapest first), which it cannot (cap, budget), and the runs it adds per experiment."""
    spent = rounds.added
    entries, taken = [], {}  # taken: (paper, experiment) -> {matrix cell: None}, this round's runs
    added = 0
    candidates = undecided(docs, results, rounds)

    for c in sorted(candidates, key=lambda c: (c.cost, c.order, c.cell)):
        after = c.after
        entry = {"paper": c.paper, "claim": c.claim, "cell": c.cell, "experiment": c.experiment, "seeds": c.now}
        if after == c.now:
            entries.append({**entry, "status": CAP})
            continue
        held = taken.setdefault((c.paper, c.experiment), {})
        new = [m for m in c.matrix if m not in held]
        marginal = len(new) * (after - c.now)
        if spent + added + marginal > rounds.policy.budget:
            entries.append({**entry, "status": BUDGET, "runs": c.cost})
            continue
        held.update(dict.fromkeys(new))
        added += marginal
        entries.append({**entry, "status": ADDED, "stop": c.seeds.first + after, "runs": c.cost})
    # every cell sent to this round had the same rounds before, so an experiment's added seeds are one range
    ranges = {(c.paper, c.experiment): (c.seeds.first + c.now, c.seeds.first + c.after) for c in candidates}
    runs = [
        {
            "paper": paper,
            "experiment": experiment,
            "seeds": list(ranges[(paper, experiment)]),
            "cells": [dict(m) for m in sorted(held)],
        }
        for (paper, experiment), held in sorted(taken.items())
        if held
    ]
    entries.sort(key=lambda e: (e["paper"], e["claim"], e["cell"]))
    return {
        "format": FORMAT,
        "round": number,
        "cap": rounds.policy.cap,
        "budget": rounds.policy.budget,
        "spent_before": spent,
        "added": added,
        "cells": entries,
        "runs": runs,
    }


def write_round(
    docs: list[dict], results: str | Path, number: int, earlier: list[str], policy: SeedPolicy, out
) -> dict:
    """Round `number`'s schedule, computed from the tables of the starting seeds and of the rounds before it
    (`earlier`: their schedules, in order), written whole to `out`."""
    schedule = next_round(docs, results, number, SeedRounds.load(policy, earlier))
    write_atomic(out, canonical_json(schedule).decode() + "\n")
    return schedule


def schedule_runs(path: str | Path) -> list[dict]:
    """The runs a written schedule adds, per experiment."""
    return json.loads(Path(path).read_text())["runs"]
