"""What the Snakemake rules call: plain functions over the workflow's settings.

Settings come from Snakemake's config (set by a profile or --config):
  experiment_files  experiment YAML files (default: every configs/*.yaml)
  results           results folder (default: results)
  batch_size        runs per simulation job (default 25): Snakemake spends tens of ms of
                    scheduler time per job, so one job per 1-second run would dominate
  smoke             true: 1 seed per cell and at most smoke_duration simulated seconds
  smoke_duration    (default 5)
  keep_traces       true: keep each run's packets.tr after parsing (default false: a 70 s
                    run's trace is ~100 MB, and the parquet tables hold what it said)
  profile_name      shown in the report (default: default)
  parse             false: leave runs unparsed (default true); only for measuring the
                    orchestration overhead against a plain loop of ns runs (bench/)
  replications      `file` (default): each experiment's seeds.count; `paper`: its seeds.paper,
                    the count the paper ran, where the file gives one (profiles/paper)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from experiments import config as config_mod
from experiments import matrix, simulate
from experiments import readings as readings_mod
from experiments.readings import BASELINE

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
    keep_traces: bool
    profile_name: str
    parse: bool
    replications: str = "file"

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
            keep_traces=flag(cfg, "keep_traces", False),
            profile_name=str(cfg.get("profile_name", "default")),
            parse=flag(cfg, "parse", True),
            replications=replications_setting(cfg),
        )


REPLICATIONS = ("file", "paper")


def replications_setting(cfg: dict) -> str:
    value = str(cfg.get("replications", "file"))
    if value not in REPLICATIONS:
        raise config_mod.ConfigError(f"workflow config: replications={value!r}; allowed: {', '.join(REPLICATIONS)}")
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
    if settings.smoke:
        for exp in doc["experiments"].values():
            exp["seeds"]["count"] = 1
            exp["duration"] = min(exp["duration"], settings.smoke_duration)
            exp["warmup"] = min(exp["warmup"], exp["duration"] / 2)
    return doc


@dataclass(frozen=True)
class Plan:
    """Which file defines each paper, how many batches each experiment has under each reading, and which
    readings (alternatives of the open choices) need runs of their own."""

    files: dict[str, str]  # paper -> experiment file
    batches: dict[tuple[str, str, str], int]  # (paper, experiment, reading label) -> number of batches
    docs: dict[str, dict]  # paper -> loaded experiment file
    readings: dict[str, dict[str, readings_mod.Reading]]  # paper -> label -> run reading (baseline excluded)

    def folder(self, results: str | Path, paper: str, experiment: str, reading: str = BASELINE) -> Path:
        """Where an experiment's batch records and tables live: the baseline's, or readings/<label>/."""
        base = Path(results) / paper / experiment
        return base if reading == BASELINE else base / "readings" / reading

    def reading(self, paper: str, label: str) -> readings_mod.Reading | None:
        return None if label == BASELINE else self.readings[paper][label]

    def records(self, results: str | Path, paper: str, experiment: str, reading: str = BASELINE) -> list[str]:
        """The batch records of one experiment (under one reading)."""
        count = self.batches[(paper, experiment, reading)]
        folder = self.folder(results, paper, experiment, reading)
        return [str(folder / "batches" / f"{i}.json") for i in range(count)]

    def experiment_tables(
        self, results: str | Path, paper: str, experiment: str, reading: str = BASELINE
    ) -> dict[str, str]:
        folder = self.folder(results, paper, experiment, reading)
        return {kind: str(folder / f"{kind}.parquet") for kind in ("runs", "metrics", "series")}

    def describe_batch(self, paper: str, experiment: str, index: int, batch_size: int, reading: str = BASELINE) -> str:
        """The runs of one batch, one per line, for `snakemake --dry-run`."""
        runs = batch_runs(self.docs[paper], self.files[paper], experiment, index, batch_size,
                          self.reading(paper, reading))  # fmt: skip
        lines = [" ".join([f"{paper}/{r.experiment}", *(f"{k}={v}" for k, v in r.labels.items()), f"seed={r.seed}"])
                 for r in runs]  # fmt: skip
        under = "" if reading == BASELINE else f" under {reading}"
        return f"batch {index} of {paper}/{experiment}{under}: {len(runs)} runs\n" + "\n".join(
            f"  {line}" for line in lines
        )

    def artifact(self, paper: str, kind: str, artifact_id: str) -> dict:
        """A figure or table entry of a paper's file; kind is 'figures' or 'tables'."""
        return next(a for a in self.docs[paper][kind] if a["id"] == artifact_id)

    def artifact_inputs(self, results: str | Path, paper: str, kind: str, artifact_id: str) -> list[str]:
        """What drawing an artifact reads: its experiment's tables and the code that draws it."""
        artifact = self.artifact(paper, kind, artifact_id)
        tables = self.experiment_tables(results, paper, artifact["experiment"])
        module_file = Path(*artifact.get("module", f"figures.{paper}").split(".")).with_suffix(".py")
        return [tables["metrics"], tables["series"], str(module_file), "figures/common.py"]

    def artifact_outputs(self, results: str | Path) -> list[str]:
        outputs = []
        for paper, doc in self.docs.items():
            outputs += [str(Path(results) / paper / "figures" / f"{a['id']}.png") for a in doc["figures"]]
            for table in doc["tables"]:
                outputs += [str(Path(results) / paper / "tables" / f"{table['id']}.{ext}") for ext in ("csv", "md")]
        return outputs

    def all_metrics(self, results: str | Path) -> list[str]:
        """The baseline metrics table of every experiment."""
        return [self.experiment_tables(results, p, e)["metrics"] for p, e, r in self.batches if r == BASELINE]

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
    `ns_binary`) before anything is scheduled; then the batches of every experiment under every reading."""
    files, batches, docs, readings = {}, {}, {}, {}
    for path in settings.experiment_files:
        doc = load(path, settings, ns_binary, check=True)
        paper = doc["paper"]
        if paper in files:
            raise config_mod.ConfigError(f"{path}: paper '{paper}' is also defined by {files[paper]}")
        files[paper], docs[paper] = path, doc
        for exp in doc["experiments"]:
            count = len(matrix.expand(doc, path, [exp]))
            batches[(paper, exp, BASELINE)] = -(-count // settings.batch_size)
        readings[paper] = {r.label: r for r in readings_mod.run_readings(doc)}
        for reading in readings[paper].values():
            for exp in readings_mod.experiments_of(doc, reading):
                count = len(matrix.expand(doc, path, [exp], reading))
                batches[(paper, exp, reading.label)] = -(-count // settings.batch_size)
    return Plan(files, batches, docs, readings)


def batch_runs(
    doc: dict, source: str, experiment: str, index: int, batch_size: int, reading: readings_mod.Reading | None = None
) -> list[matrix.Run]:
    runs = matrix.expand(doc, source, [experiment], reading)
    return runs[index * batch_size : (index + 1) * batch_size]


def simulate_batch(
    source: str,
    experiment: str,
    index: int,
    settings: Settings,
    tools: simulate.Toolchain,
    record: str | Path,
    log: str | Path,
    reading: str = BASELINE,
) -> None:
    """One Snakemake job: run (or reuse) and parse every run of a batch, then write its record."""
    after = parse_into_tables(settings)
    doc = load(source, settings)
    chosen = None if reading == BASELINE else {r.label: r for r in readings_mod.run_readings(doc)}[reading]
    runs = batch_runs(doc, source, experiment, index, settings.batch_size, chosen)
    with open(log, "w") as log_file:

        def progress(line: str) -> None:
            print(line, flush=True)
            log_file.write(line + "\n")
            log_file.flush()

        outcomes = simulate.run_batch(
            runs, settings.results, tools, after, progress, label=f"{doc['paper']}/{experiment} batch {index}"
        )
    simulate.raise_for_failures(outcomes)
    Path(record).write_text(json.dumps(simulate.batch_record(outcomes), indent=2, sort_keys=True) + "\n")


def parse_into_tables(settings: Settings):
    """Post-run step: the run's outputs to parquet tables in <run>/tables/, then drop the raw trace."""
    if not settings.parse:
        return None
    import parsers  # imported here: the core package does not need pyarrow to validate files

    def after(run: matrix.Run, key: str, directory: Path) -> None:
        parsers.parse_run(directory, directory / "tables", {**run.own_context, "run_key": key})
        if not settings.keep_traces:
            (directory / "packets.tr").unlink(missing_ok=True)

    return after


def aggregate_experiment(plan: Plan, paper: str, experiment: str, records: list[str], out_dir: str | Path) -> None:
    from experiments import aggregate

    exp = plan.docs[paper]["experiments"][experiment]
    aggregate.aggregate(records, exp["warmup"], out_dir, exp.get("queue_thresholds", ()))


def draw(plan: Plan, results: str | Path, paper: str, kind: str, artifact_id: str, log: str | Path) -> list[Path]:
    """Call the figure or table function an artifact entry names, on its experiment's tables."""
    import importlib

    from figures.common import ExperimentData

    artifact = plan.artifact(paper, kind, artifact_id)
    module = importlib.import_module(artifact.get("module", f"figures.{paper}"))
    axes = config_mod.axes_of(plan.docs[paper]["experiments"][artifact["experiment"]])
    levels = {name: config_mod.level_labels(axis) for name, axis in axes.items()}
    data = ExperimentData.load(Path(results) / paper / artifact["experiment"], list(axes), levels)
    written = getattr(module, artifact["function"])(data, Path(results) / paper / kind / artifact_id, artifact)
    Path(log).write_text("".join(f"wrote {path}\n" for path in written))
    return written


def report(plan: Plan, settings: Settings, manifest: str | Path, out: str | Path) -> None:
    from experiments.report import write_report

    write_report(list(plan.docs.values()), settings.results, manifest, out, settings.profile_name)


def sensitivity_report(plan: Plan, settings: Settings, manifest: str | Path, out_md: str | Path,
                       out_parquet: str | Path) -> None:  # fmt: skip
    from experiments import sensitivity

    sensitivity.write(list(plan.docs.values()), settings.results, manifest, out_md, out_parquet,
                      settings.profile_name, plan.reading_experiments())  # fmt: skip
