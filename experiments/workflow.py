"""What the Snakemake rules call: plain functions over the workflow's settings.

Settings come from Snakemake's config (set by a profile or --config):
  experiment_files  experiment YAML files (default: every configs/*.yaml)
  results           results folder (default: results)
  batch_size        runs per simulation job (default 25): Snakemake spends tens of ms of
                    scheduler time per job, so one job per 1-second run would dominate
  smoke             true: 1 seed per cell, at most smoke_duration simulated seconds, and of an
                    axis that names smoke_levels only those levels
  smoke_duration    (default 5)
  keep_raw          true: keep each run's raw outputs after parsing: packets.tr and the
                    monitor TSVs (default false: a 70 s run's trace is ~100 MB, and the
                    parquet tables hold what they said; bench/run_disk.py measures it)
  profile_name      shown in the report (default: default)
  parse             false: leave runs unparsed (default true); only for measuring the
                    orchestration overhead against a plain loop of ns runs (bench/)
  replications      `file` (default): each experiment's seeds.count, and of an axis that names
                    default_levels only those levels; `paper`: its seeds.paper, the count the
                    paper ran, where the file gives one, and every level (profiles/paper)
  reading_cells     the cells an alternative reading runs: `all` (default), every cell the
                    baseline runs where the reading is judged; `each_level` (profiles/smoke), a
                    subset holding every level of every axis (matrix.covering_cells): a check of
                    the readings' wiring, not a judgement of their claims. Planning checks every
                    cell either way.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path

from experiments import config as config_mod
from experiments import matrix, simulate
from experiments import readings as readings_mod
from experiments.readings import BASELINE
from experiments.runkey import canonical_json, files_digest

_TRUE, _FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0"}


def flag(cfg: dict, key: str, default: bool) -> bool:
    """A yes/no setting: YAML gives booleans, `--config key=value` gives strings."""
    value = cfg.get(key, default)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise config_mod.ConfigError(f"workflow config: {key}={value!r} is not a yes/no value; use true or false")


@dataclass(frozen=True)
class Settings:
    experiment_files: tuple[str, ...]
    results: Path
    batch_size: int
    smoke: bool
    smoke_duration: float
    keep_raw: bool
    profile_name: str
    parse: bool
    replications: str = "file"
    reading_cells: str = "all"

    @classmethod
    def from_config(cls, cfg: dict) -> Settings:
        files = cfg.get("experiment_files") or sorted(str(p) for p in Path("configs").glob("*.yaml"))
        if isinstance(files, str):
            files = [files]
        return cls(
            experiment_files=tuple(files),
            results=Path(cfg.get("results", "results")),
            batch_size=int(cfg.get("batch_size", 25)),
            smoke=flag(cfg, "smoke", False),
            smoke_duration=float(cfg.get("smoke_duration", 5)),
            keep_raw=flag(cfg, "keep_raw", False),
            profile_name=str(cfg.get("profile_name", "default")),
            parse=flag(cfg, "parse", True),
            replications=one_of(cfg, "replications", REPLICATIONS),
            reading_cells=one_of(cfg, "reading_cells", READING_CELLS),
        )


REPLICATIONS = ("file", "paper")
READING_CELLS = ("all", "each_level")


def one_of(cfg: dict, key: str, allowed: tuple[str, ...]) -> str:
    """A setting with named values, the first of `allowed` by default."""
    value = str(cfg.get(key, allowed[0]))
    if value not in allowed:
        raise config_mod.ConfigError(f"workflow config: {key}={value!r}; allowed: {', '.join(allowed)}")
    return value


def load(path: str, settings: Settings, ns_binary: Path | None = None, check: bool = False) -> dict:
    """The validated experiment file, cut down when the smoke profile asks for it. With `check`, every reference
    in it is checked first (experiments.references), on the file as written: a claim on a window the smoke
    profile's shortened runs do not reach is valid, it is only missing there."""
    doc = config_mod.load(path)
    if check:
        from experiments import references

        references.check(doc, path, ns_binary)
    if settings.replications == "paper":
        for exp in doc["experiments"].values():
            exp["seeds"]["count"] = exp["seeds"].get("paper", exp["seeds"]["count"])
    else:
        for exp in doc["experiments"].values():
            subset_matrix(exp["matrix"], "default_levels")
    if settings.smoke:
        factors = {}
        for name, exp in doc["experiments"].items():
            subset_matrix(exp["matrix"], "smoke_levels")
            exp["seeds"]["count"] = 1
            factors[name] = factor = min(1.0, settings.smoke_duration / exp["duration"])
            exp["duration"] = min(exp["duration"], settings.smoke_duration)
            exp["warmup"] = min(exp["warmup"], exp["duration"] / 2)
            for group in exp["scenario"]["flows"].values():
                group["start"] = smoke_start(group.get("start", 0), factor, exp["duration"])
                if "stop" in group:  # the group's life shrinks with the run, as its start
                    group["stop"] = group["stop"] * factor
        smoke_choice_starts(doc, factors, settings.smoke_duration)
        for figure in doc["figures"]:  # a window of the run shrinks with it (Fig. 3.6's 50-100 s of 100 s)
            if "time_window" in figure:
                factor = factors[figure["experiment"]]
                figure["time_window"] = [round(t * factor, 9) for t in figure["time_window"]]
    return doc


def subset_matrix(matrix: dict, key: str) -> None:
    """Keeps only the levels that the axes naming `key` (default_levels or smoke_levels) list, a zip group at the
    same positions."""
    for axis in matrix["product"].values():
        if key in axis:
            axis["levels"] = _levels_at(axis, _positions(axis, key))
    for group in matrix["zip"]:
        for spec in [s for s in group.values() if key in s]:
            positions = _positions(spec, key)
            for axis in group.values():
                axis["levels"] = _levels_at(axis, positions)


def _positions(axis: dict, key: str) -> list[int]:
    wanted = {config_mod.label_text(label) for label in axis[key]}
    return [i for i, label in enumerate(config_mod.level_labels(axis)) if config_mod.label_text(label) in wanted]


def _levels_at(axis: dict, positions: list[int]):
    levels = axis["levels"]
    if isinstance(levels, dict):
        items = list(levels.items())
        return dict(items[i] for i in positions)
    return [levels[i] for i in positions]


def smoke_choice_starts(doc: dict, factors: dict[str, float], duration: float) -> None:
    """An alternative that sets a flow group's start (e.g. a later start window) is compressed like the scenario's
    own, by the largest shortening among the experiments its choice names (all, if it names none)."""
    for choice in doc["choices"]:
        factor = min(factors[name] for name in choice.get("experiments", factors))
        for alt in choice.get("alternatives", []):
            if "value" in alt and _is_start(choice.get("path", "")):
                alt["value"] = smoke_start(alt["value"], factor, duration)
            for sets in [alt.get("set", {}), *(case["set"] for case in alt.get("cases", []))]:
                for path in [p for p in sets if _is_start(p)]:
                    sets[path] = smoke_start(sets[path], factor, duration)


def _is_start(path: str) -> bool:
    parts = path.split(".")
    return len(parts) == 3 and parts[0] == "flows" and parts[2] == "start"


def smoke_start(start, factor: float, duration: float):
    """A flow group's start in a run the smoke profile shortened by `factor`: unchanged if every flow still starts
    before the end, else compressed with the run (a window [0, 180) of a 300-s run becomes [0, 3) of 5 s). A
    staggered start is always compressed when the run is shortened: how many flows it starts is an axis's to say."""
    if isinstance(start, dict) and "first" in start:
        scaled = {key: round(start[key] * factor, 9) for key in ("first", "every")}
        return start if factor >= 1 else scaled
    if isinstance(start, dict):
        low, high = start["uniform"]
        return start if high < duration else {"uniform": [low * factor, high * factor]}
    return start if start < duration else start * factor


class BatchDescription:
    """The runs of one batch, one per line, for the job's message (`snakemake --dry-run` prints it). Drawn only when
    printed; not a str, so Snakemake leaves it out of the params it compares to decide a rerun: renaming a level
    changes the message, never the job."""

    def __init__(self, expansion: matrix.Expansion, index: int, batch_size: int):
        self.expansion, self.index, self.batch_size = expansion, index, batch_size

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __str__(self) -> str:
        exp = self.expansion
        contexts = exp.contexts(self.index * self.batch_size, (self.index + 1) * self.batch_size)
        lines = [" ".join([f"{c['paper']}/{c['experiment']}", *(f"{k}={c[k]}" for k in exp.cells[0].labels),
                           f"seed={c['seed']}"]) for c in contexts]  # fmt: skip
        under = "" if exp.reading is None else f" under {exp.reading_label}"
        head = f"batch {self.index} of {exp.doc['paper']}/{exp.experiment}{under}: {len(contexts)} runs"
        return "\n".join([head, *(f"  {line}" for line in lines)])


@dataclass(frozen=True)
class Plan:
    """Which file defines each paper, the runs of each experiment under each reading (expanded lazily: a batch
    resolves its own runs only), and which readings (alternatives of the open choices) need runs of their own."""

    files: dict[str, str]  # paper -> experiment file
    expansions: dict[tuple[str, str, str], matrix.Expansion]  # (paper, experiment, reading label) -> its runs
    docs: dict[str, dict]  # paper -> loaded experiment file
    readings: dict[str, dict[str, readings_mod.Reading]]  # paper -> label -> run reading (baseline excluded)
    batch_size: int = 25

    def total_runs(self, readings: bool = True) -> int:
        """Runs planned: every expansion's, or (readings False) the baselines' only."""
        return sum(len(runs) for (_, _, label), runs in self.expansions.items() if readings or label == BASELINE)

    @property
    def batches(self) -> dict[tuple[str, str, str], int]:
        """(paper, experiment, reading label) -> number of batches."""
        return {key: -(-len(runs) // self.batch_size) for key, runs in self.expansions.items()}

    def folder(self, results: str | Path, paper: str, experiment: str, reading: str = BASELINE) -> Path:
        """Where an experiment's batch records and tables live: the baseline's, or readings/<label>/."""
        base = Path(results) / paper / experiment
        return base if reading == BASELINE else base / "readings" / reading

    def reading(self, paper: str, label: str) -> readings_mod.Reading | None:
        return None if label == BASELINE else self.readings[paper][label]

    def records(self, results: str | Path, paper: str, experiment: str, reading: str = BASELINE) -> list[str]:
        """The batch records of one experiment (under one reading)."""
        count = -(-len(self.expansions[(paper, experiment, reading)]) // self.batch_size)
        folder = self.folder(results, paper, experiment, reading)
        return [str(folder / "batches" / f"{i}.json") for i in range(count)]

    def experiment_tables(
        self, results: str | Path, paper: str, experiment: str, reading: str = BASELINE
    ) -> dict[str, str]:
        folder = self.folder(results, paper, experiment, reading)
        return {kind: str(folder / f"{kind}.parquet") for kind in ("runs", "metrics", "series")}

    def batch_runs(self, paper: str, experiment: str, index: int, reading: str = BASELINE) -> list[matrix.Run]:
        runs = self.expansions[(paper, experiment, reading)]
        return runs.runs(index * self.batch_size, (index + 1) * self.batch_size)

    def batch_identity(self, paper: str, experiment: str, index: int, reading: str = BASELINE) -> str:
        """What decides the batch's runs (matrix.Expansion.identity): the simulate job's rerun trigger, in place
        of the whole experiment file."""
        runs = self.expansions[(paper, experiment, reading)]
        return runs.identity(index * self.batch_size, (index + 1) * self.batch_size)

    def batch_retry(self, results: str | Path, paper: str, experiment: str, index: int, reading: str = BASELINE) -> str:
        """The simulate job's retry trigger (a param): a batch whose record lists a failed run is run again by the
        next invocation, which reruns those runs and reuses the others by key.

        A batch job succeeds with failed runs in its record, so that every other job still runs and the report
        lists the failures. Snakemake reruns a job whose output exists only when something it compares changed;
        this value changes exactly when a retry is due: the digest of the failed record on disk (new whenever the
        record is), or, once a retry left a clean record, the digest that record keeps of the one it retried, which
        is the value stored when the retry ran. So a retry that succeeds is not retried again, and one that fails
        again is. Computed from the record alone, it is the same in a cluster job's process."""
        record = Path(self.records(results, paper, experiment, reading)[index])
        if not record.is_file():
            return ""
        text = record.read_text()
        entries = json.loads(text)  # written whole or not at all (simulate_batch renames it into place)
        if simulate.failed_entries(entries):
            return f"retry:{hashlib.sha256(text.encode()).hexdigest()[:16]}"
        return entries.get("retry_of", "")

    def describe_batch(self, paper: str, experiment: str, index: int, reading: str = BASELINE) -> BatchDescription:
        return BatchDescription(self.expansions[(paper, experiment, reading)], index, self.batch_size)

    def aggregate_identity(self, paper: str, experiment: str, reading: str = BASELINE) -> str:
        """What the aggregate stage reads besides the records: the names it joins to each run, the warm-up and
        the queue thresholds."""
        runs = self.expansions[(paper, experiment, reading)]
        exp = self.docs[paper]["experiments"][experiment]
        # queue_thresholds always (as before); the other settings only when set, so that the identities of the
        # experiments without them stay as they were
        material = {
            "contexts": runs.contexts(),
            "warmup": exp["warmup"],
            "queue_thresholds": exp.get("queue_thresholds", []),
            **config_mod.analysis_settings(exp),
        }
        return hashlib.sha256(canonical_json(material)).hexdigest()[:20]

    def artifact_identity(self, paper: str, kind: str, artifact_id: str) -> str:
        """A figure's or table's own entry: what its drawing reads of the file besides its experiment's tables."""
        return hashlib.sha256(canonical_json(self.artifact(paper, kind, artifact_id))).hexdigest()[:20]

    def artifact(self, paper: str, kind: str, artifact_id: str) -> dict:
        """A figure or table entry of a paper's file; kind is 'figures' or 'tables'."""
        return next(a for a in self.docs[paper][kind] if a["id"] == artifact_id)

    def artifact_inputs(self, results: str | Path, paper: str, kind: str, artifact_id: str) -> list[str]:
        """What drawing an artifact reads: its experiment's tables and the code that draws it."""
        artifact = self.artifact(paper, kind, artifact_id)
        tables = self.experiment_tables(results, paper, artifact["experiment"])
        module_file = Path(*artifact.get("module", f"figures.{paper}").split(".")).with_suffix(".py")
        reference = []
        if "reference" in artifact:
            other = self.experiment_tables(results, paper, artifact["reference"])
            reference = [other["metrics"], other["series"]]
        return [tables["metrics"], tables["series"], *reference, str(module_file), "figures/common.py"]

    def artifact_outputs(self, results: str | Path) -> list[str]:
        outputs = []
        for paper, doc in self.docs.items():
            outputs += [str(Path(results) / paper / "figures" / f"{a['id']}.png") for a in doc["figures"]]
            for table in doc["tables"]:
                outputs += [str(Path(results) / paper / "tables" / f"{table['id']}.{ext}") for ext in ("csv", "md")]
        return outputs

    def all_metrics(self, results: str | Path) -> list[str]:
        """The baseline metrics table of every experiment."""
        return self.baseline_tables(results, "metrics")

    def baseline_tables(self, results: str | Path, kind: str) -> list[str]:
        """One kind of table (runs, metrics, series) of every experiment's baseline."""
        return [self.experiment_tables(results, p, e)[kind] for p, e, r in self.batches if r == BASELINE]

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
    `ns_binary`), and every matrix cell of every experiment under every reading checked, before anything is
    scheduled. Runs are resolved later, a batch at a time."""
    files, expansions, docs, readings = {}, {}, {}, {}
    for path in settings.experiment_files:
        doc = load(path, settings, ns_binary, check=True)
        paper = doc["paper"]
        if paper in files:
            raise config_mod.ConfigError(f"{path}: paper '{paper}' is also defined by {files[paper]}")
        files[paper], docs[paper] = path, doc
        readings[paper] = {r.label: r for r in readings_mod.run_readings(doc)}
        for exp in doc["experiments"]:
            expansions[(paper, exp, BASELINE)] = matrix.Expansion(doc, path, exp)
        for reading in readings[paper].values():
            for exp in readings_mod.experiments_of(doc, reading):
                each_level = settings.reading_cells == "each_level"
                expansions[(paper, exp, reading.label)] = matrix.Expansion(doc, path, exp, reading, each_level)
        for runs in expansions.values():
            if runs.doc is doc:
                runs.check()
    return Plan(files, expansions, docs, readings, settings.batch_size)


# The core modules that turn a batch into run directories (besides the Tcl sources and parsers in the run key).
SIMULATE_MODULES = ("matrix.py", "runkey.py", "simulate.py")


SENSITIVITY_TARGET = "sensitivity-all"  # the stamp of the sensitivity stage (Snakefile)


def wants_sensitivity(targets) -> bool:
    """Whether Snakemake's targets include the sensitivity stage (experiments.html_report says why it matters)."""
    return SENSITIVITY_TARGET in {str(Path(str(t))) for t in targets or ()}


def runs_for_targets(plan: Plan, results: str | Path, targets) -> int:
    """The runs Snakemake's targets ask for, for the progress lines: an experiment's file (under
    <results>/<paper>/<experiment>/) its baseline's runs, a reading's file (.../readings/<label>/) that reading's,
    a figure or table (<results>/<paper>/figures/<id>.png, .../tables/<id>.md) its experiment's and its
    reference's baselines, sensitivity-all every expansion's, and anything else (no target: reproduce-all; a
    report or a rule name) every baseline's, plus every reading's if the target lies in a readings folder."""
    root = Path(results).parts
    wanted: set[tuple[str, str, str]] = set()
    for target in targets or ["reproduce-all"]:
        if target == SENSITIVITY_TARGET:
            return plan.total_runs()
        parts = Path(str(target)).parts
        rest = parts[len(root) :] if parts[: len(root)] == root else ()
        reading = rest[3] if len(rest) > 3 and rest[2] == "readings" else BASELINE
        key = (*rest[:2], reading)
        drawn = _artifact_experiments(plan, rest)
        if key in plan.expansions:
            wanted.add(key)
        elif drawn:
            wanted |= drawn
        else:
            any_reading = "readings" in parts
            wanted |= {k for k in plan.expansions if k[2] == BASELINE or any_reading}
    return sum(len(plan.expansions[key]) for key in wanted)


def _artifact_experiments(plan: Plan, rest: tuple) -> set[tuple[str, str, str]]:
    """The baselines a figure or table target (<paper>/figures|tables/<id>.<ext>) is drawn from; empty otherwise."""
    if len(rest) != 3 or rest[1] not in ("figures", "tables") or rest[0] not in plan.docs:
        return set()
    doc, stem = plan.docs[rest[0]], Path(rest[2]).stem
    for artifact in [*doc.get("figures", []), *doc.get("tables", [])]:
        if artifact["id"] == stem:
            names = [artifact["experiment"], *([artifact["reference"]] if "reference" in artifact else [])]
            return {(rest[0], name, BASELINE) for name in names if (rest[0], name, BASELINE) in plan.expansions}
    return set()


class SweepProgress:
    """The whole sweep's progress and ETA, appended to each run's progress line: runs done of all planned (cached
    ones count at once), and the time left estimated from the runs simulated so far, `cores` at a time. One per
    Snakemake process: batch jobs run as threads of it (profiles' force-use-threads); a job of its own (a cluster
    job) sees its own batch only."""

    def __init__(self, total: int, cores: int):
        self.total, self.cores = total, max(cores, 1)
        self.done = self.ran = 0
        self.seconds = 0.0
        self._lock = threading.Lock()

    def __call__(self, outcome: simulate.Outcome) -> str:
        with self._lock:
            self.done += 1
            if outcome.status == "ran":
                self.ran += 1
                self.seconds += outcome.seconds
            left = self.total - self.done
            text = f"sweep {self.done}/{self.total} runs"
            if self.ran and left:
                eta = left * self.seconds / self.ran / self.cores
                text += f", ETA {simulate.hms(eta)} (if all left run)"
            return text


def simulate_code_digest(tools: simulate.Toolchain) -> str:
    """What a simulate job's code is, by content: the Tcl sources and parsers (both in every run key) and the core
    modules that expand and run a batch. A rule parameter rather than ~90 input files per job: Snakemake compares
    it (a change re-runs the batches, which re-simulate only runs whose key changed), and planning a
    100,000-run sweep does not stat 90 files per batch."""
    here = Path(__file__).resolve().parent
    modules = files_digest([here / name for name in SIMULATE_MODULES], here)
    return f"{tools.code_sha256}:{modules}"


def batch_of(wildcards) -> tuple[str, str, int, str]:
    """A simulate job's (paper, experiment, batch index, reading label) from its wildcards: a baseline job's have
    no reading."""
    return wildcards.paper, wildcards.experiment, int(wildcards.batch), getattr(wildcards, "reading", BASELINE)


def simulate_batch(
    plan: Plan,
    wildcards,
    settings: Settings,
    tools: simulate.Toolchain,
    record: str | Path,
    log: str | Path,
    tally: SweepProgress | None = None,
    retry_of: str = "",
) -> None:
    """One Snakemake job: run (or reuse) and parse every run of a batch, then write its record, failed runs
    included (the job succeeds: Plan.batch_retry says how they are retried). `wildcards`: the job's paper,
    experiment, batch and (a reading's job) reading; `retry_of`: its retry param."""
    paper, experiment, index, reading = batch_of(wildcards)
    after = parse_into_tables(settings)
    runs = plan.batch_runs(paper, experiment, index, reading)
    with open(log, "w") as log_file:

        def progress(line: str) -> None:
            print(line, flush=True)
            log_file.write(line + "\n")
            log_file.flush()

        outcomes = simulate.run_batch(runs, settings.results, tools, after, progress,
                                      label=f"{paper}/{experiment} batch {index}", tally=tally)  # fmt: skip
    record = Path(record)
    tmp = record.with_name(f".{record.name}.tmp")
    tmp.write_text(json.dumps(simulate.batch_record(outcomes, retry_of), indent=2, sort_keys=True) + "\n")
    tmp.replace(record)


def failed_runs(plan: Plan, results: str | Path, readings: bool = True) -> list[dict]:
    """Every failed run the batch records on disk list (the baselines', and with `readings` the readings'), each
    once (a key may be in a reading's batch and the baseline's), with where it was planned."""
    found: dict[str, dict] = {}
    for paper, experiment, reading in plan.expansions:
        if reading != BASELINE and not readings:
            continue
        for record in map(Path, plan.records(results, paper, experiment, reading)):
            if record.is_file():
                for entry in simulate.failed_entries(json.loads(record.read_text())):
                    found.setdefault(entry["key"], {**entry, "paper": paper, "experiment": experiment,
                                                    "reading": reading})  # fmt: skip
    return list(found.values())


class FailedRuns(RuntimeError):
    """A target's runs include failed ones: raised by the stamps after everything else was made."""


def raise_for_failed_runs(plan: Plan, results: str | Path, readings: bool, log: str | Path) -> None:
    """The end of `reproduce-all` (and `sensitivity-all`, with the readings): a non-zero exit when any run failed,
    listing each with its rerun command, in the exception and in the stamp's log. The report was written without
    them and lists them too."""
    failed = failed_runs(plan, results, readings)
    listing = "".join(
        f"  {f['paper']}/{f['experiment']}" + (f" under {f['reading']}" if f["reading"] != BASELINE else "")
        + f": {f['message']}\n" for f in failed
    )  # fmt: skip
    Path(log).write_text(listing)
    if failed:
        raise FailedRuns(
            f"{len(failed)} run(s) failed; the report lists the claims and figures each would have fed; the same "
            f"command reruns them (after the cause is fixed):\n{listing}"
        )


def parse_into_tables(settings: Settings):
    """Post-run step: the run's outputs to parquet tables in <run>/tables/, then drop the raw outputs they hold."""
    if not settings.parse:
        return None
    import parsers  # imported here: the core package does not need pyarrow to validate files

    def after(run: matrix.Run, key: str, directory: Path) -> None:
        parsers.parse_run(directory, directory / "tables", {"seed": run.seed, "run_key": key})
        if not settings.keep_raw:
            for name in parsers.RAW_OUTPUTS:
                (directory / name).unlink(missing_ok=True)

    return after


def aggregate_experiment(
    plan: Plan,
    paper: str,
    experiment: str,
    records: list[str],
    out_dir: str | Path,
    log: str | Path,
    reading: str = BASELINE,
) -> None:
    """One Snakemake job: an experiment's (or a reading's) tables, with a progress line now and then on the console
    and in its log."""
    from experiments import aggregate

    exp = plan.docs[paper]["experiments"][experiment]
    contexts = plan.expansions[(paper, experiment, reading)].contexts()
    label = f"{paper}/{experiment}" + ("" if reading == BASELINE else f" under {reading}")
    with open(log, "w") as log_file:

        def progress(line: str) -> None:
            print(line, flush=True)
            log_file.write(line + "\n")
            log_file.flush()

        aggregate.aggregate(records, contexts, exp["warmup"], out_dir, config_mod.analysis_settings(exp),
                            progress=progress, label=label)  # fmt: skip


def draw(plan: Plan, results: str | Path, paper: str, kind: str, artifact_id: str, log: str | Path) -> list[Path]:
    """Call the figure or table function an artifact entry names, on its experiment's tables."""
    import importlib

    from figures.common import ExperimentData

    artifact = plan.artifact(paper, kind, artifact_id)
    module = importlib.import_module(artifact.get("module", f"figures.{paper}"))
    axes = config_mod.axes_of(plan.docs[paper]["experiments"][artifact["experiment"]])
    levels = {name: config_mod.level_labels(axis) for name, axis in axes.items()}
    data = ExperimentData.load(Path(results) / paper / artifact["experiment"], list(axes), levels)
    if "reference" in artifact:
        other = config_mod.axes_of(plan.docs[paper]["experiments"][artifact["reference"]])
        data.reference = ExperimentData.load(
            Path(results) / paper / artifact["reference"],
            list(other),
            {name: config_mod.level_labels(axis) for name, axis in other.items()},
        )
    written = getattr(module, artifact["function"])(data, Path(results) / paper / kind / artifact_id, artifact)
    Path(log).write_text("".join(f"wrote {path}\n" for path in written))
    return written


def report(plan: Plan, settings: Settings, manifest: str | Path, out: str | Path) -> None:
    from experiments.report import write_report

    write_report(list(plan.docs.values()), settings.results, manifest, out, settings.profile_name)


def html_pages(plan: Plan, results: str | Path) -> list[str]:
    """Every page of the HTML report."""
    from experiments import html_report

    return [str(Path(results) / page) for page in html_report.pages(list(plan.docs.values()))]


def html_report(plan: Plan, settings: Settings, manifest: str | Path, sensitivity: list[str], tcl_sha256: str,
                commit: str, log: str | Path) -> None:  # fmt: skip
    """The HTML report; `sensitivity`: the sensitivity table's path when the targets made it (else empty)."""
    from experiments import html_report

    written = html_report.write(list(plan.docs.values()), settings.results, manifest, settings.profile_name,
                                tcl_sha256, commit, sensitivity[0] if sensitivity else None)  # fmt: skip
    Path(log).write_text("".join(f"wrote {path}\n" for path in written))


def sensitivity_report(plan: Plan, settings: Settings, manifest: str | Path, out_md: str | Path,
                       out_parquet: str | Path) -> None:  # fmt: skip
    from experiments import sensitivity

    sensitivity.write(list(plan.docs.values()), settings.results, manifest, out_md, out_parquet,
                      settings.profile_name, plan.reading_experiments())  # fmt: skip
