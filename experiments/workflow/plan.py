"""The plan: which file defines each paper, the runs of each experiment under each reading (expanded lazily: a
batch resolves its own runs only) and of each seeding round (read from the round's schedule once its checkpoint
wrote it), its batches and what each stage's job reads of the file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from experiments.common.files import canonical_json
from experiments.config.errors import ConfigError
from experiments.config.experiment_checks import NS2_SEED_MAX, seeds_text
from experiments.config.load import analysis_settings, load
from experiments.config.readings import BASELINE, Reading, experiments_of, run_readings
from experiments.planning.expansion import Expansion, Run
from experiments.planning.profiles import Settings, cut
from experiments.references import check as references
from experiments.store import layout
from experiments.store.records import failed_entries
from experiments.verdicts.seeding import SeedPolicy, schedule_runs


class BatchDescription:
    """The runs of one batch, one per line, for the job's message (`snakemake --dry-run` prints it). Drawn only when
    printed; not a str, so Snakemake leaves it out of the params it compares to decide a rerun: renaming a level
    changes the message, never the job."""

    def __init__(self, expansion: Expansion, index: int, batch_size: int, seed_round: int = 0):
        self.expansion, self.index, self.batch_size, self.seed_round = expansion, index, batch_size, seed_round

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __str__(self) -> str:
        exp = self.expansion
        contexts = exp.contexts(self.index * self.batch_size, (self.index + 1) * self.batch_size)
        lines = [
            " ".join(
                [f"{c['paper']}/{c['experiment']}", *(f"{k}={c[k]}" for k in exp.cells[0].labels), f"seed={c['seed']}"]
            )
            for c in contexts
        ]
        under = "" if exp.reading is None else f" under {exp.reading_label}"
        seeds = f" (seeds {exp.first}-{exp.first + exp.seeds - 1} of a seeding round)" if self.seed_round else ""
        head = f"batch {self.index} of {exp.doc['paper']}/{exp.experiment}{under}{seeds}: {len(contexts)} runs"
        return "\n".join([head, *(f"  {line}" for line in lines)])


@dataclass(frozen=True)
class Plan:
    """Which file defines each paper, the runs of each experiment under each reading (expanded lazily: a batch
    resolves its own runs only), and which readings (alternatives of the open choices) need runs of their own."""

    files: dict[str, str]  # paper -> experiment file
    expansions: dict[tuple[str, str, str], Expansion]  # (paper, experiment, reading label) -> its runs
    docs: dict[str, dict]  # paper -> loaded experiment file
    readings: dict[str, dict[str, Reading]]  # paper -> label -> run reading (baseline excluded)
    batch_size: int = 25
    policy: SeedPolicy = SeedPolicy(1, 0)  # the seeding rounds' cap and budget
    results: Path = Path("results")  # where the seeding rounds' schedules are read
    # (paper, experiment, round) -> the runs a seeding round adds, from its schedule (load_round)
    round_expansions: dict[tuple[str, str, int], Expansion] = field(default_factory=dict)
    _schedules: dict[int, tuple] = field(default_factory=dict)  # round -> (the schedule's stat, its experiments)

    @property
    def seeding(self) -> bool:
        """Whether seeding rounds may add runs under this profile (verdicts.seeding)."""
        return self.policy.active(list(self.docs.values()))

    def load_round(self, number: int) -> list[tuple[str, str]]:
        """Seeding round `number`'s experiments (paper, experiment) with runs to add, from its schedule (which its
        checkpoint wrote), their runs made ready for its batch jobs; read again when the file changed."""
        path = layout.seed_schedule(self.results, number)
        stat = path.stat()
        seen = self._schedules.get(number)
        if seen is not None and seen[0] == (stat.st_mtime_ns, stat.st_size):
            return seen[1]
        experiments = []
        for stale in [key for key in self.round_expansions if key[2] == number]:  # a schedule written anew
            del self.round_expansions[stale]
        for runs in schedule_runs(path):
            paper, experiment = runs["paper"], runs["experiment"]
            first, stop = runs["seeds"]
            base = self.expansions[(paper, experiment, BASELINE)]
            self.round_expansions[(paper, experiment, number)] = base.added_seeds(runs["cells"], first, stop - first)
            experiments.append((paper, experiment))
        self._schedules[number] = ((stat.st_mtime_ns, stat.st_size), experiments)
        return experiments

    def runs_of(self, paper: str, experiment: str, reading: str = BASELINE, seed_round: int = 0) -> Expansion:
        """The runs of an experiment under a reading, or those seeding round `seed_round` adds to its baseline."""
        if seed_round:
            self.load_round(seed_round)
            return self.round_expansions[(paper, experiment, seed_round)]
        return self.expansions[(paper, experiment, reading)]

    def total_runs(self, readings: bool = True) -> int:
        """Runs planned: every expansion's, or (readings False) the baselines' only."""
        return sum(len(runs) for (_, _, label), runs in self.expansions.items() if readings or label == BASELINE)

    @property
    def batches(self) -> dict[tuple[str, str, str], int]:
        """(paper, experiment, reading label) -> number of batches."""
        return {key: -(-len(runs) // self.batch_size) for key, runs in self.expansions.items()}

    def reading(self, paper: str, label: str) -> Reading | None:
        return None if label == BASELINE else self.readings[paper][label]

    def records(
        self, results: str | Path, paper: str, experiment: str, reading: str = BASELINE, seed_round: int = 0
    ) -> list[str]:
        """The batch records of one experiment (under one reading, or of one seeding round)."""
        count = -(-len(self.runs_of(paper, experiment, reading, seed_round)) // self.batch_size)
        return [str(layout.batch_record(results, paper, experiment, i, reading, seed_round)) for i in range(count)]

    def experiment_tables(
        self, results: str | Path, paper: str, experiment: str, reading: str = BASELINE, seed_round: int = 0
    ) -> dict[str, str]:
        return {
            kind: str(layout.experiment_table(results, paper, experiment, kind, reading, seed_round))
            for kind in ("runs", "metrics", "series")
        }

    def batch_runs(
        self, paper: str, experiment: str, index: int, reading: str = BASELINE, seed_round: int = 0
    ) -> list[Run]:
        runs = self.runs_of(paper, experiment, reading, seed_round)
        return runs.runs(index * self.batch_size, (index + 1) * self.batch_size)

    def batch_identity(
        self, paper: str, experiment: str, index: int, reading: str = BASELINE, seed_round: int = 0
    ) -> str:
        """What decides the batch's runs (planning.expansion.Expansion.identity): the simulate job's rerun trigger, in
        place of the whole experiment file."""
        runs = self.runs_of(paper, experiment, reading, seed_round)
        return runs.identity(index * self.batch_size, (index + 1) * self.batch_size)

    def batch_retry(
        self,
        results: str | Path,
        paper: str,
        experiment: str,
        index: int,
        reading: str = BASELINE,
        seed_round: int = 0,
    ) -> str:
        """The simulate job's retry trigger (a param): a batch whose record lists a failed run is run again by the
        next invocation, which reruns those runs and reuses the others by key.

        A batch job succeeds with failed runs in its record, so that every other job still runs and the report
        lists the failures. Snakemake reruns a job whose output exists only when something it compares changed;
        this value changes exactly when a retry is due: the digest of the failed record on disk (new whenever the
        record is), or, once a retry left a clean record, the digest that record keeps of the one it retried, which
        is the value stored when the retry ran. So a retry that succeeds is not retried again, and one that fails
        again is. Computed from the record alone, it is the same in a cluster job's process."""
        record = Path(self.records(results, paper, experiment, reading, seed_round)[index])
        if not record.is_file():
            return ""
        text = record.read_text()
        entries = json.loads(text)  # written whole or not at all (simulate_batch renames it into place)
        if failed_entries(entries):
            return f"retry:{hashlib.sha256(text.encode()).hexdigest()[:16]}"
        return entries.get("retry_of", "")

    def describe_batch(
        self, paper: str, experiment: str, index: int, reading: str = BASELINE, seed_round: int = 0
    ) -> BatchDescription:
        runs = self.runs_of(paper, experiment, reading, seed_round)
        return BatchDescription(runs, index, self.batch_size, seed_round)

    def aggregate_identity(self, paper: str, experiment: str, reading: str = BASELINE, seed_round: int = 0) -> str:
        """What the aggregate stage reads besides the records: the names it joins to each run, the warm-up and
        the queue thresholds."""
        runs = self.runs_of(paper, experiment, reading, seed_round)
        exp = self.docs[paper]["experiments"][experiment]
        # queue_thresholds always (as before); the other settings only when set, so that the identities of the
        # experiments without them stay as they were
        material = {
            "contexts": runs.contexts(),
            "warmup": exp["warmup"],
            "queue_thresholds": exp.get("queue_thresholds", []),
            **analysis_settings(exp),
        }
        return hashlib.sha256(canonical_json(material)).hexdigest()[:20]

    def artifact_identity(self, paper: str, kind: str, artifact_id: str) -> str:
        """A figure's or table's own entry: what its drawing reads of the file besides its experiment's tables."""
        return hashlib.sha256(canonical_json(self.artifact(paper, kind, artifact_id))).hexdigest()[:20]

    def artifact(self, paper: str, kind: str, artifact_id: str) -> dict:
        """A figure or table entry of a paper's file; kind is 'figures' or 'tables'."""
        return next(a for a in self.docs[paper][kind] if a["id"] == artifact_id)

    def artifact_inputs(self, results: str | Path, paper: str, kind: str, artifact_id: str) -> list[str]:
        """What drawing an artifact reads: its experiment's tables, and its reference experiment's (the code that
        draws it is the rule's `code` parameter, workflow.digests.draw_code)."""
        artifact = self.artifact(paper, kind, artifact_id)
        tables = self.experiment_tables(results, paper, artifact["experiment"])
        reference = []
        if "reference" in artifact:
            other = self.experiment_tables(results, paper, artifact["reference"])
            reference = [other["metrics"], other["series"]]
        return [tables["metrics"], tables["series"], *reference]

    def artifact_module(self, paper: str, kind: str, artifact_id: str) -> str:
        """The module that draws an artifact: the one its entry names, else figures.<paper>."""
        return self.artifact(paper, kind, artifact_id).get("module", f"figures.{paper}")

    def artifact_outputs(self, results: str | Path) -> list[str]:
        outputs = []
        for paper, doc in self.docs.items():
            for kind, suffixes in layout.ARTIFACT_KINDS.items():
                outputs += [
                    str(layout.artifact(results, paper, kind, a["id"], suffix))
                    for a in doc[kind]
                    for suffix in suffixes
                ]
        return outputs

    def all_metrics(self, results: str | Path) -> list[str]:
        """The baseline metrics table of every experiment."""
        return self.baseline_tables(results, "metrics")

    def baseline_tables(self, results: str | Path, kind: str) -> list[str]:
        """One kind of table (runs, metrics, series) of every experiment's baseline."""
        return [self.experiment_tables(results, p, e)[kind] for p, e, r in self.batches if r == BASELINE]

    def experiment_outputs(self, results: str | Path, readings: bool) -> list[str]:
        """Every table of every experiment's baseline (and with `readings`, of each reading): what a stamp lists
        beside the reports, so that a table deleted after the reports were written is made again."""
        parts = [(p, e, r) for p, e, r in self.batches if readings or r == BASELINE]
        return [
            str(layout.experiment_table(results, *part[:2], kind, part[2]))
            for part in parts
            for kind in layout.TABLE_KINDS
        ]

    def reading_metrics(self, results: str | Path) -> list[str]:
        """The metrics table of every experiment under every run reading."""
        return [self.experiment_tables(results, p, e, r)["metrics"] for p, e, r in self.batches if r != BASELINE]

    def reading_experiments(self) -> dict[str, dict[str, list[str]]]:
        """paper -> run reading label -> the experiments it runs."""
        out: dict[str, dict[str, list[str]]] = {}
        for paper, experiment, reading in self.batches:
            if reading != BASELINE:
                out.setdefault(paper, {}).setdefault(reading, []).append(experiment)
        return out


def plan(settings: Settings, ns_binary: Path | None = None) -> Plan:
    """Every file loaded and every reference in it checked (metrics, figures, ns-2 classes and knobs against
    `ns_binary`) on the file as written (a claim on a window the smoke profile's shortened runs do not reach is
    valid, it is only missing there), then cut as the profile asks, and every matrix cell of every experiment under
    every reading checked, before anything is scheduled. Runs are resolved later, a batch at a time."""
    files, expansions, docs, readings = {}, {}, {}, {}
    for path in settings.experiment_files:
        doc = load(path)
        references.check(doc, path, ns_binary)
        cut(doc, settings)
        paper = doc["paper"]
        if paper in files:
            raise ConfigError(f"{path}: paper '{paper}' is also defined by {files[paper]}")
        files[paper], docs[paper] = path, doc
        readings[paper] = {r.label: r for r in run_readings(doc) if settings.readings == "all" or r.null}
        for exp in doc["experiments"]:
            expansions[(paper, exp, BASELINE)] = Expansion(doc, path, exp)
        for reading in readings[paper].values():
            for exp in experiments_of(doc, reading):
                each_level = settings.reading_cells == "each_level"
                expansions[(paper, exp, reading.label)] = Expansion(doc, path, exp, reading, each_level)
        for runs in expansions.values():
            if runs.doc is doc:
                runs.check()
    policy = SeedPolicy(settings.seed_cap, settings.seed_budget)
    for paper, doc in docs.items():
        for name, exp in doc["experiments"].items():
            seeds = policy.seeds(exp)
            if seeds.first + seeds.cap - 1 > NS2_SEED_MAX:
                raise ConfigError(
                    f"{files[paper]}: experiments.{name}.seeds: with the seeding rounds' cap (setting seed_cap="
                    f"{settings.seed_cap}), {seeds_text(seeds.first, seeds.first + seeds.cap - 1)}; allowed: "
                    f"a seed_cap of at most {NS2_SEED_MAX - seeds.first + 1} here"
                )
    return Plan(files, expansions, docs, readings, settings.batch_size, policy, settings.results)
