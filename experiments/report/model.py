"""What both reports say of a paper, computed once (`paper_data`): its claims judged, their notes filled, its
experiments, its failed runs traced to what they would have fed; rendered as Markdown by report.markdown and as
HTML by report.html.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from experiments.config.axes import axes_of
from experiments.config.readings import null_choices, reading_axes
from experiments.store.tables import Measured, load_measured, read_failed
from experiments.verdicts import verdict as verdict_mod
from experiments.verdicts.claims import ClaimVerdict, claim_levels, judge_all
from experiments.verdicts.headlines import BASELINE_ONLY, HeadlineVerdict, judge_headlines
from experiments.verdicts.model_checks import ModelCheckVerdict, judge_model_checks
from experiments.verdicts.notes import fill_note
from experiments.verdicts.seeding import ADDED, BUDGET, CAP, SeedPolicy, SeedRounds
from experiments.verdicts.sensitivity import NOT_RUN, claim_key, non_discriminating
from experiments.verdicts.stats import CONFIDENCE, percent
from experiments.verdicts.verdict import Verdict

VERDICTS = verdict_mod.VERDICTS


NON_DISCRIMINATING_SECTION = "non_discriminating"
CLASSES = {
    "reproduction": ("Reproduction claims", "The paper's evidence; the only class in the headline counts."),
    "sanity": (
        "Sanity checks",
        "True by construction of our implementation, or an invariant: they test our build, not the paper.",
    ),
    "calibrated": (
        "Calibrated values",
        "A free parameter was fitted to these numbers: agreement here is by construction and never counts as evidence.",
    ),
    "not_comparable": ("Not comparable", "The paper's setting for these is unknown: shown, not judged as evidence."),
    "diagnostic": (
        "Diagnostics",
        "Quantities we derive from the paper's own numbers to show a mechanism: judged, not counted, as they "
        "restate claims counted above.",
    ),
    "context": (
        "Context",
        "Results of the paper's setting without its mechanism (the protocol it improves on alone, its topology): "
        "evidence that our runs are the paper's environment, not for the mechanism; shown, not counted.",
    ),
    "no_effect": (
        "No effect stated",
        "The paper says its mechanism changes nothing here (the same as the baseline, or as a variant of the "
        "mechanism): true with the mechanism switched off too, so no evidence for it; shown, not counted.",
    ),
    # Not a class of the file: reproduction claims the null readings (sensitivity-all) show to be no evidence.
    NON_DISCRIMINATING_SECTION: (
        "Non-discriminating",
        "Reproduction claims that hold (pass or drift) with the paper's mechanism switched off too, under a null "
        "reading of `sensitivity-all`: they do not tell the mechanism apart from its absence, so they are no evidence "
        "for it and are not counted as agreement.",
    ),
}


MODEL_CHECKS_TEXT = (
    "Numbers of the paper's own models (its design rules, its analytical model) computed by our code at the "
    "arguments shown, against what the paper prints or states; no run is read and no reading changes them. They "
    "show that the models behind the runs are the paper's: never agreement of runs, and a calibrated one agrees by "
    "construction."
)


def metric_cell(verdict: Verdict) -> str:
    """The metric, with the scope beside it unless it is `all`: `core_drops_per_s [group:http]`."""
    return verdict.metric if verdict.scope == "all" else f"{verdict.metric} [{verdict.scope}]"


def counts_text(counts: Counter) -> str:
    return ", ".join(f"{counts[k]} {k}" for k in VERDICTS if counts[k]) or "none"


@dataclass(frozen=True)
class ClaimRow:
    """A claim's verdict (one per cell for combine: each) as a row of either report's claim table."""

    claim: str
    source: str
    cls: str
    experiment: str
    metric: str  # metric_cell: the metric, with its scope unless `all`
    expected: str
    measured: str  # mean ± 95 % CI half-width; of a claim over several cells, the deciding cell's, named
    tolerance: str
    seeds: str  # the deciding cell's values, and the seeding rounds that added to them
    cells: str  # the cell judged, or the combine rule and its cells' verdict counts
    verdict: str
    note: str  # the deciding cell's note, then the claim's own with its placeholders filled


def claim_row(cv: ClaimVerdict, notes: dict[str, str], seeding: dict | None = None) -> ClaimRow:
    """`seeding`: claim key (verdicts.sensitivity.claim_key) -> what the seeding rounds did for it (ClaimSeeding)."""
    d = cv.deciding
    seeded = (seeding or {}).get(row_key(cv))
    rounds = f" ({seeded.rounds} round{'s' * (seeded.rounds != 1)} added)" if seeded and seeded.rounds else ""
    undecided = seeded.undecided if seeded else ""
    return ClaimRow(
        claim=cv.claim,
        source=d.source,
        cls=cv.cls,
        experiment=d.experiment,
        metric=metric_cell(d),
        expected=d.expected,
        measured=d.measured if len(cv.cells) == 1 else f"{d.group}: {d.measured}",
        tolerance=d.tolerance,
        seeds=f"{d.seeds}{rounds}",
        cells=f"{cv.combine}: {cv.cell_counts}" if len(cv.cells) > 1 else d.group,
        verdict=cv.verdict,
        note="; ".join(n for n in (undecided, d.note, notes.get(cv.claim, "")) if n),
    )


def row_key(cv: ClaimVerdict) -> str:
    """A claim verdict's key: the claim, and its cell for combine: each (verdicts.sensitivity.claim_key)."""
    return claim_key(cv.claim, cv.deciding.group if cv.combine == "each" else "")


@dataclass(frozen=True)
class ClaimSeeding:
    """What the seeding rounds did for one claim verdict (verdicts.seeding)."""

    sent: bool  # undecided after the starting seeds: a cell of it was in round 1's schedule
    rounds: int  # the most rounds that added seeds to one of its cells
    undecided: str  # why it is still a drift more seeds could decide ("" when it is not one)


def claim_seeding(cv: ClaimVerdict, rounds: SeedRounds, paper: str) -> ClaimSeeding:
    history = {c.group: rounds.history(paper, cv.claim, c.group) for c in cv.cells}
    sent = any(h and h[0][0] == 1 for h in history.values())
    added = max((sum(e["status"] == ADDED for _, e in h) for h in history.values()), default=0)
    open_cells = cv.undecided_cells
    if not open_cells:
        return ClaimSeeding(sent, added, "")
    statuses = {history[c.group][-1][1]["status"] for c in open_cells if history[c.group]}
    n = max(c.seeds for c in open_cells)
    seeds = f"{n} seed{'s' * (n != 1)}"
    if CAP in statuses:
        why = f"at the cap of {seeds} per cell"
    elif BUDGET in statuses:
        why = f"at {seeds}, the seeding budget spent"
    elif not rounds.schedules:
        why = f"at {seeds}: this profile adds none"
    else:
        why = f"at {seeds}: rounds add seeds to reproduction claims only"
    return ClaimSeeding(sent, added, f"undecided {why} (an interval holds 0: more seeds could decide it)")


def fed_by(doc: dict, experiment: str, run: pd.Series) -> tuple[list[str], list[str]]:
    """The claims whose cells (`where` and reading levels) hold a run of `experiment`, and the figures and tables
    drawn from the experiment (as data or as reference)."""
    frame = run.to_frame().T
    claims = [
        c["id"]
        for c in doc["claims"]
        if c["experiment"] == experiment and not claim_levels(c, frame, reading_axes(doc, experiment)).empty
    ]
    artifacts = [
        a["id"]
        for kind in ("figures", "tables")
        for a in doc[kind]
        if experiment in (a["experiment"], a.get("reference"))
    ]
    return claims, artifacts


@dataclass(frozen=True)
class FailedRun:
    """A failed run of a paper's experiment (aggregate: failed.parquet), with what it would have fed."""

    experiment: str
    cell: str  # its axis labels, e.g. "queue=PI flows_n=4"
    seed: int
    run_key: str
    problem: str  # the first line of its message, after "failed: "
    claims: list[str]
    artifacts: list[str]  # the figures and tables drawn from its experiment
    rerun: str
    directory: str  # its <key>.failed/, which keeps ns's stderr


def failed_of(doc: dict, results: Path, seed_rounds: dict[str, list[int]] | None = None) -> list[FailedRun]:
    """The failed runs of a paper's experiments (and of the seeding rounds that added runs of them: experiment ->
    rounds), each with its cell, what it would have fed and its rerun command."""
    found = []
    for exp in doc["experiments"]:
        axes = list(axes_of(doc["experiments"][exp]))
        lost = [read_failed(results, doc["paper"], exp, seed_round=r) for r in [0, *(seed_rounds or {}).get(exp, [])]]
        for _, run in pd.concat(lost, ignore_index=True).iterrows():
            claims, artifacts = fed_by(doc, exp, run)
            found.append(
                FailedRun(
                    experiment=exp,
                    cell=" ".join(f"{a}={run[a]}" for a in axes if a in run),
                    seed=run["seed"],
                    run_key=run["run_key"],
                    problem=run["message"].splitlines()[0].split(" failed: ", 1)[-1],
                    claims=claims,
                    artifacts=artifacts,
                    rerun=run["rerun"],
                    directory=run["directory"],
                )
            )
    return found


@dataclass(frozen=True)
class ExperimentSummary:
    """An experiment of a paper as both reports describe it."""

    name: str
    runs: int  # runs measured (in its metrics table)
    failed: int
    axes: tuple[str, ...]
    seeds: int  # starting seeds per cell under this profile
    duration: float
    warmup: float
    judged: str  # the reading levels its claims are judged at ("variant=as_text"), if any
    added: int = 0  # runs the seeding rounds added (verdicts.seeding), beside `runs`
    confidence: float = CONFIDENCE  # of the intervals that tell two levels apart (verdicts.seeding)
    cap: int = 0  # the seeds per cell rounds may reach; 0: none are added

    @property
    def details(self) -> str:
        seeding = ""
        if self.cap:
            seeding = (
                f", at most {self.cap} where seeding rounds add some ({self.added} runs added; levels told apart "
                f"at {percent(self.confidence)})"
            )
        return (
            f"axes: {', '.join(self.axes) or 'none'}; seeds per cell: {self.seeds}{seeding}; {self.duration:g} s "
            f"simulated, {self.warmup:g} s warm-up excluded"
        )


@dataclass
class PaperData:
    """What both reports say of one paper, computed once: its claims judged (in the order of its file), their notes
    filled from the runs, its experiments and its failed runs."""

    doc: dict
    verdicts: list[ClaimVerdict]
    notes: dict[str, str]  # claim -> its note, placeholders filled
    experiments: list[ExperimentSummary]
    failed: list[FailedRun]
    non_discriminating: frozenset[str] = frozenset()  # claim keys (verdicts.sensitivity.claim_key)
    null_tested: bool = False  # the sensitivity table holds this paper's null readings
    seeding: dict[str, ClaimSeeding] = field(default_factory=dict)  # claim key (row_key) -> what rounds did
    rounds: int = 0  # seeding rounds that added runs of this paper
    headlines: list[HeadlineVerdict] = field(default_factory=list)  # the file's headlines, judged
    model_checks: list[ModelCheckVerdict] = field(default_factory=list)  # the file's model checks, judged

    @property
    def seeding_outcome(self) -> tuple[int, Counter, int]:
        """The reproduction claims undecided after the starting seeds, what each is now (its verdict, or still
        undecided), and the runs the seeding rounds added."""
        became = Counter(
            "still undecided" if self.seeding[row_key(cv)].undecided else cv.verdict
            for cv in self.verdicts
            if cv.cls == "reproduction" and self.seeding[row_key(cv)].sent
        )
        return sum(became.values()), became, sum(e.added for e in self.experiments)

    @property
    def seeding_text(self) -> str:
        sent, became, added = self.seeding_outcome
        if not sent:
            return ""
        return (
            f"Seeding rounds: {sent} reproduction claim(s) undecided after the starting seeds (a drift only because "
            f"an interval holds 0); {self.rounds} round(s) added {added} runs; now {outcome_text(became)}."
        )

    @property
    def by_class(self) -> dict[str, list[ClaimVerdict]]:
        """class -> its claims' verdicts; the reproduction claims a null reading shows to be no evidence apart."""
        by_class: dict[str, list[ClaimVerdict]] = {cls: [] for cls in CLASSES}
        for cv in self.verdicts:
            apart = cv.cls == "reproduction" and row_key(cv) in self.non_discriminating
            by_class[NON_DISCRIMINATING_SECTION if apart else cv.cls].append(cv)
        return by_class

    @property
    def null_choices(self) -> list[str]:
        return list(null_choices(self.doc))

    @property
    def counts(self) -> dict[str, Counter]:
        """class -> its claims' verdict counts"""
        return {cls: Counter(cv.verdict for cv in cvs) for cls, cvs in self.by_class.items()}

    def drawn_without(self, artifact: dict) -> int:
        """The failed runs of the experiments a figure or table is drawn from (its own and its reference)."""
        lost = {e.name: e.failed for e in self.experiments}
        return sum(lost[e] for e in {artifact["experiment"], artifact.get("reference")} if e)


def paper_data(
    doc: dict, results: Path, sensitivity: pd.DataFrame | None = None, rounds: SeedRounds | None = None
) -> PaperData:
    """`sensitivity`: the sensitivity table, when the targets made it: the claims its null readings show to be no
    evidence are set apart. `rounds`: the seeding rounds run (none: no seeds added, intervals at 95 %)."""
    paper = doc["paper"]
    rounds = rounds or SeedRounds(SeedPolicy(1, 0))
    measured = load_measured(doc, results)  # the starting seeds: the notes' values, as the figures'
    added = rounds.tables(paper)
    seeded = load_measured(doc, results, seed_rounds=added) if added else measured
    experiments = []
    for name, exp in doc["experiments"].items():
        seeds = rounds.policy.seeds(exp)
        keys = seeded[name].metrics["run_key"].unique() if name in seeded else []
        runs = len(measured[name].metrics["run_key"].unique()) if name in measured else 0
        experiments.append(
            ExperimentSummary(
                name=name,
                runs=runs,
                failed=sum(len(read_failed(results, paper, name, seed_round=r)) for r in [0, *added.get(name, [])]),
                axes=tuple(axes_of(exp)),
                seeds=exp["seeds"]["count"],
                duration=exp["duration"],
                warmup=exp["warmup"],
                judged=", ".join(f"{a}={lvl}" for a, lvl in reading_axes(doc, name).items()),
                added=len(keys) - runs,
                confidence=seeds.confidence,
                cap=seeds.cap if seeds.rounds else 0,
            )
        )
    fixed = {name: reading_axes(doc, name) for name in doc["experiments"]}
    notes = {
        c["id"]: "; ".join(
            n
            for n in (
                fill_note(c.get("note", ""), c, _metrics_of(measured, c["experiment"]), fixed[c["experiment"]]),
                f"a measured 0 passes: {c['zero_passes']}" if "zero_passes" in c else "",
            )
            if n
        )
        for c in doc["claims"]
    }
    rows = sensitivity[sensitivity["paper"] == doc["paper"]] if sensitivity is not None else None
    apart = frozenset(non_discriminating(rows)) if rows is not None and not rows.empty else frozenset()
    tested = rows is not None and bool(rows["null"].astype(bool).any())
    verdicts = judge_all(doc, seeded, judging=rounds.judging(doc))
    seeding = {row_key(cv): claim_seeding(cv, rounds, paper) for cv in verdicts}
    n_rounds = sum(1 for s in rounds.schedules if any(r["paper"] == paper for r in s["runs"]))
    failed = failed_of(doc, results, added)
    headlines = judge_headlines(doc, verdicts, rows)
    return PaperData(
        doc, verdicts, notes, experiments, failed, apart, tested, seeding, n_rounds, headlines, judge_model_checks(doc)
    )


def _metrics_of(measured: dict[str, Measured], experiment: str):
    return measured[experiment].metrics if experiment in measured else None


FAILED_RUNS_TEXT = (
    "Left out of every table, figure and verdict: the claims they would have fed are incomplete, the figures drawn "
    "without them. The same Snakemake command reruns them."
)


VERDICT_LEGEND = (
    "Every measured value below is computed from this profile's runs; a published value appears only as a "
    "claim's expected value. Each claim gets one verdict. **pass**: within the claim's pass tolerance (a "
    "directional claim: on the claimed side, by the claimed factor, the difference told apart from 0: paired, the "
    "interval of its per-seed values clear of 0, where the levels ran the same seeds; unpaired, the levels' "
    "intervals apart, where they did not; the intervals are 95 % ones, or 1 - 0.05/K ones where seeding rounds may "
    "judge a claim K times; the tolerance column names the test and the confidence); **drift**: within the wider "
    "drift tolerance (a directional claim: the right side by mean only, or a level with too few values to form an "
    "interval: such a drift is undecided, and seeding rounds double the seeds of its cells until it is decided or "
    "the profile's cap or budget is reached, which its note then says; the seeds column counts the rounds that "
    "added some); **fail**: beyond it (the other side); **incomplete**: a run it needs "
    "failed (never a pass; the failed runs are listed with their rerun commands); **missing**: no run measured it. "
    "A claim checked over several cells (e.g. per number of flows) combines them by its rule: all (the worst "
    "cell), any (the best), each (one claim per cell), min/max over an axis. A fail is a result, reported with "
    "what could explain it. Claims are judged under the readings chosen where the paper is silent; "
    "SENSITIVITY.md (target `sensitivity-all`) judges them under every declared alternative."
)


def totals(papers: list[PaperData]) -> dict[str, Counter]:
    """class -> verdict counts over every paper"""
    out = {cls: Counter() for cls in CLASSES}
    for data in papers:
        for cls, counts in data.counts.items():
            out[cls] += counts
    return out


def seeding_total(papers: list[PaperData]) -> str:
    """What the seeding rounds did over every paper (empty when they sent no claim)."""
    sent, became, added = 0, Counter(), 0
    for data in papers:
        n, outcome, runs = data.seeding_outcome
        sent, became, added = sent + n, became + outcome, added + runs
    if not sent:
        return ""
    return (
        f"Seeding rounds, all papers: {sent} reproduction claim(s) undecided after the starting seeds; {added} runs "
        f"added; now {outcome_text(became)}."
    )


def outcome_text(became: Counter) -> str:
    return ", ".join(f"{n} {word}" for word, n in sorted(became.items()))


def headline(counts: dict[str, Counter]) -> str:
    """The reproduction claims' verdict counts over every paper, then those of the other classes that have claims."""
    return (
        f"Reproduction claims, all papers: {counts_text(counts['reproduction'])}. "
        + "".join(
            f"{CLASSES[c][0]}: {counts_text(counts[c])}. " for c in CLASSES if c != "reproduction" and counts[c]
        ).rstrip()
    )


def post_hoc_note(alternative: dict) -> str:
    """The mark of an alternative declared after the verdicts were seen (schema: alternative.post_hoc)."""
    if "post_hoc" not in alternative:
        return ""
    return f"; declared post hoc, after the verdicts, because {alternative['post_hoc']}"


def build_line(manifest: str | Path, profile: str) -> str:
    build = json.loads(Path(manifest).read_text())
    return (
        f"Profile: `{profile}`. ns-2 build `{build['key']}` (binary sha256 `{build['binary']['sha256'][:16]}…`, "
        f"patches: {', '.join(p['name'] for p in build['series']['patches'])})."
    )


HEADLINES_TEXT = (
    "What the paper says it shows (its abstract and conclusions), each sentence judged from the reproduction claims "
    "that test it (all of them, or any one where the file says so): its verdict at the baseline, whether it holds "
    "under every reading tried (`snakemake sensitivity-all`), and whether it holds with the paper's mechanism "
    "switched off too (a null reading), in which case it is no evidence for the mechanism."
)


def readings_text(hv: HeadlineVerdict) -> str:
    """What the readings tried say of a headline, in words."""
    if hv.kind == NOT_RUN:
        return "readings not run"
    if hv.kind == BASELINE_ONLY:
        return "only the baseline measured"
    if hv.kind == "depends":
        return f"depends on the reading: {', '.join(hv.depends_on)}" if hv.depends_on else "depends on the reading"
    words = {
        "holds": "holds under every reading tried",
        "fails": "fails under every reading tried",
        "not measured": "no reading measured it",
    }
    return words.get(hv.kind, hv.kind)


def mechanism_text(hv: HeadlineVerdict) -> str:
    """Whether a headline tells the paper's mechanism apart from its null readings, in words."""
    return {
        "yes": "yes: fails without it",
        "no": "no: holds without it too",
    }.get(hv.discriminates, "untested")


def claims_text(hv: HeadlineVerdict) -> str:
    """The headline's claims with their verdicts, in the file's order."""
    return "; ".join(f"{row_key(cv)}: {cv.verdict}" for cv in hv.claims)
