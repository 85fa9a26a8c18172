"""What the Snakemake rules call: one function per job, over the plan and the workflow's settings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from experiments.common.progress import Progress
from experiments.config.axes import axes_of, level_labels
from experiments.config.load import analysis_settings
from experiments.config.readings import BASELINE
from experiments.planning.expansion import Run
from experiments.planning.profiles import Settings
from experiments.simulate.batch import RunLine, batch_record, run_batch, sweep_lines
from experiments.simulate.toolchain import Toolchain
from experiments.store import layout
from experiments.store.records import write_record
from experiments.workflow import worker
from experiments.workflow.plan import Plan


@contextmanager
def job_log(path: str | Path) -> Iterator[Callable[[str], None]]:
    """A job's progress lines, on the console and in its log, as they come."""
    with open(path, "w") as log_file:

        def progress(line: str) -> None:
            print(line, flush=True)
            log_file.write(line + "\n")
            log_file.flush()

        yield progress


def part_of(wildcards) -> tuple[str, str, str, int]:
    """The runs a job's wildcards name: (paper, experiment, reading label, seeding round); a baseline job's have no
    reading and no round (0)."""
    return (
        wildcards.paper,
        wildcards.experiment,
        getattr(wildcards, "reading", BASELINE),
        int(getattr(wildcards, "round", 0)),
    )


def batch_of(wildcards) -> tuple[str, str, int, str, int]:
    """A simulate job's (paper, experiment, batch index, reading label, seeding round) from its wildcards."""
    paper, experiment, reading, seed_round = part_of(wildcards)
    return paper, experiment, int(wildcards.batch), reading, seed_round


def simulate_batch(
    plan: Plan,
    wildcards,
    settings: Settings,
    tools: Toolchain,
    record: str | Path,
    log: str | Path,
    sweep: Progress | None = None,
    retry_of: str = "",
) -> None:
    """One Snakemake job: run (or reuse) and parse every run of a batch, then write its record, failed runs
    included (the job succeeds: Plan.batch_retry says how they are retried). `wildcards`: the job's paper,
    experiment, batch and (a reading's job) reading; `sweep`: the whole sweep's progress; `retry_of`: its retry
    param. The runs and their parsing happen in a worker process (experiments.workflow.worker says why); their
    lines come back here, where the sweep is counted."""
    paper, experiment, index, reading, seed_round = batch_of(wildcards)
    runs = plan.batch_runs(paper, experiment, index, reading, seed_round)
    name = f"{paper}/{experiment}" + (f" seeding round {seed_round}" if seed_round else "") + f" batch {index}"
    metrics = None  # the runs' metrics, filed as aggregate_experiment will ask for them (its warm-up and settings)
    if settings.parse:
        exp = plan.docs[paper]["experiments"][experiment]
        metrics = (exp["warmup"], analysis_settings(exp), layout.metrics_cache(settings.results))
    with job_log(log) as progress:

        def show(event: dict) -> None:
            if "text" in event:
                for line in sweep_lines(RunLine(**event), sweep):
                    progress(line)
            else:
                progress(event["line"])

        args = (runs, settings, tools, str(record), retry_of, name, metrics)
        worker.call(f"{__name__}:simulate_runs", args, show)


def simulate_runs(
    runs: list[Run],
    settings: Settings,
    tools: Toolchain,
    record: str,
    retry_of: str,
    label: str,
    metrics: tuple[float, dict, Path] | None,
    emit: Callable[[dict], None],
) -> None:
    """simulate_batch's work, in its worker process: each run's line emitted as it is done, then the record. With
    `metrics` (the experiment's warm-up, analysis settings and metrics cache), each run it makes has its metrics
    filed from the tables just parsed, held in memory (its aggregation reads them from the cache), and the runs it
    finds made have theirs filed after the batch."""
    from experiments.measure.aggregate import cached_run_metrics, file_metrics, metrics_code_digest

    measured: set[str] = set()  # keys of runs whose metrics were filed, or failed, as they were parsed
    code = metrics_code_digest() if metrics else ""

    def failed(directory: Path, err: Exception) -> None:
        emit({"line": f"[{label}] metrics of run {directory.name} left to the aggregation: {err}"})

    def say(line: str) -> None:
        emit({"line": f"[{label}] {line}"})

    def measure(key: str, directory: Path, tables: dict) -> None:
        warmup, analysis, cache = metrics
        try:
            cached_run_metrics(directory, warmup, analysis, analysis.get("series", True), cache, code, tables, key, say)
        except Exception as err:  # noqa: BLE001 - any error: the aggregation meets it again and reports it
            failed(directory.with_name(key), err)
        measured.add(key)

    after = parse_into_tables(settings, measure if metrics else None)
    outcomes = run_batch(runs, settings.results, tools, after, lambda line: emit(asdict(line)), label)
    if metrics:
        found = [o.directory for o in outcomes if o.status != "failed" and o.key not in measured]
        computed = file_metrics(found, *metrics, failed, say)
        filed = len(measured) + len(found)
        emit({"line": f"[{label}] metrics of {filed} runs filed ({len(found) - computed} were already)"})
    write_record(record, batch_record(outcomes, settings.results, retry_of))


def parse_into_tables(settings: Settings, measure: Callable[[str, Path, dict], None] | None = None):
    """Post-run step: the run's outputs to parquet tables in <run>/tables/, then drop the raw outputs they hold;
    `measure(key, directory, tables)` is called in between with the tables in memory (parsers.run_tables)."""
    if not settings.parse:
        return None
    import parsers  # imported here: the core package does not need pyarrow to validate files

    def after(run: Run, key: str, directory: Path) -> None:
        tables = parsers.run_tables(directory)
        context = parsers.run_context(directory, {"seed": run.seed, "run_key": key})
        parsers.write_tables(tables, directory / "tables", context)
        if measure:
            measure(key, directory, tables)
        if not settings.keep_raw:
            for name in parsers.RAW_OUTPUTS:
                (directory / name).unlink(missing_ok=True)

    return after


def aggregate_experiment(
    plan: Plan, results: str | Path, wildcards, records: list[str], metrics: str | Path, log: str | Path
) -> None:
    """One Snakemake job: an experiment's (a reading's, a seeding round's: `wildcards` say which) tables beside its
    metrics table, with a progress line now and then on the console and in its log."""
    paper, experiment, reading, seed_round = part_of(wildcards)
    out_dir = Path(metrics).parent
    exp = plan.docs[paper]["experiments"][experiment]
    contexts = plan.runs_of(paper, experiment, reading, seed_round).contexts()
    label = f"{paper}/{experiment}" + ("" if reading == BASELINE else f" under {reading}")
    label += f" seeding round {seed_round}" if seed_round else ""
    args = (
        records,
        contexts,
        exp["warmup"],
        str(out_dir),
        analysis_settings(exp),
        layout.metrics_cache(results),
        label,
        str(results),
    )
    with job_log(log) as progress:
        worker.call(f"{__name__}:aggregate_runs", args, lambda event: progress(event["line"]))


def aggregate_runs(
    records: list[str],
    contexts: list[dict],
    warmup: float,
    out_dir: str,
    analysis: dict,
    cache: Path,
    label: str,
    results: str,
    emit: Callable[[dict], None],
) -> None:
    """aggregate_experiment's work, in its worker process: its progress lines emitted as they come."""
    from experiments.measure import aggregate

    say = lambda line: emit({"line": line})  # noqa: E731
    aggregate.aggregate(records, contexts, warmup, out_dir, analysis, cache, say, label, results)


def draw(plan: Plan, results: str | Path, paper: str, kind: str, artifact_id: str, log: str | Path) -> list[Path]:
    """One Snakemake job: the figure or table function an artifact entry names, on its experiment's tables, called
    in a worker process (experiments.workflow.worker): matplotlib and pandas are imported once per worker, and two
    jobs draw side by side instead of taking turns in Snakemake's threads."""
    artifact = plan.artifact(paper, kind, artifact_id)

    def source(experiment: str) -> tuple[str, dict]:
        axes = axes_of(plan.docs[paper]["experiments"][experiment])
        levels = {name: level_labels(axis) for name, axis in axes.items()}
        return str(layout.experiment_dir(results, paper, experiment)), levels

    sources = {role: source(artifact[role]) for role in ("experiment", "reference") if role in artifact}
    module = plan.artifact_module(paper, kind, artifact_id)
    out = layout.artifact(results, paper, kind, artifact_id)
    written: list[Path] = []
    worker.call(
        f"{__name__}:draw_artifact", (module, artifact, sources, out), lambda e: written.append(Path(e["wrote"]))
    )
    Path(log).write_text("".join(f"wrote {path}\n" for path in written))
    return written


def draw_artifact(
    module: str, artifact: dict, sources: dict[str, tuple[str, dict]], out: Path, emit: Callable[[dict], None]
) -> None:
    """draw's work, in its worker process: each file the function wrote emitted as {"wrote": path}."""
    import importlib

    from experiments.store.experiment_data import ExperimentData

    def tables(role: str) -> ExperimentData:
        directory, levels = sources[role]
        return ExperimentData.load(Path(directory), list(levels), levels)

    data = tables("experiment")
    if "reference" in sources:
        data.reference = tables("reference")
    for path in getattr(importlib.import_module(module), artifact["function"])(data, out, artifact):
        emit({"wrote": str(path)})


def seed_round(plan: Plan, number: int, earlier: list[str], out: str | Path, log: str | Path) -> int:
    """Seeding round `number`'s schedule (the checkpoint's job), from the tables of the starting seeds and of the
    rounds before it (`earlier`: its inputs, their schedules among them); returns the runs it adds."""
    from experiments.verdicts import seeding

    schedules = seed_schedules(earlier)
    schedule = seeding.write_round(list(plan.docs.values()), plan.results, number, schedules, plan.policy, out)
    counts = {status: sum(e["status"] == status for e in schedule["cells"]) for status in seeding.STATUSES}
    line = (
        f"seeding round {number}: {len(schedule['cells'])} undecided claim cell(s) ("
        + ", ".join(f"{n} {status}" for status, n in counts.items())
        + f"), {schedule['added']} run(s) added"
    )
    print(line, flush=True)
    Path(log).write_text(line + "\n")
    return schedule["added"]


def seed_schedules(files: list[str]) -> list[str]:
    """The seeding rounds' schedules among a job's inputs, in round order."""
    found = [f for f in files if Path(f).parent.name == layout.SEED_ROUNDS]
    return sorted(found, key=lambda f: int(Path(f).stem.removeprefix("round")))


def seed_rounds(plan: Plan, files: list[str]):
    """The seeding rounds run (verdicts.seeding.SeedRounds), from a job's inputs."""
    from experiments.verdicts.seeding import SeedRounds

    return SeedRounds.load(plan.policy, seed_schedules(files))


def report(
    plan: Plan, settings: Settings, manifest: str | Path, out: str | Path, sensitivity: list[str], seeding: list[str]
) -> None:
    """REPORT.md; `sensitivity`: the sensitivity table's path when the targets made it (else empty); `seeding`: the
    seeding rounds' inputs (their schedules among them)."""
    from experiments.report.markdown import write_report

    table = sensitivity[0] if sensitivity else None
    docs = list(plan.docs.values())
    write_report(docs, settings.results, manifest, out, settings.profile_name, table, seed_rounds(plan, seeding))


def html_pages(plan: Plan, results: str | Path) -> list[str]:
    """Every page of the HTML report."""
    from experiments.report import html

    docs = list(plan.docs.values())
    return [str(Path(results) / page) for page in html.pages(docs) + html.curves(docs)]


def html_report(
    plan: Plan,
    settings: Settings,
    manifest: str | Path,
    sensitivity: list[str],
    seeding: list[str],
    tcl_sha256: str,
    commit: str,
    log: str | Path,
    workers: int = 1,
) -> None:
    """The HTML report with each headline's specification curve; `sensitivity`: the sensitivity table's path when
    the targets made it (else empty); `seeding`: the seeding rounds' inputs; `workers`: curves drawn at a time."""
    from experiments.report import html
    from figures import spec_curves

    written = html.write(
        list(plan.docs.values()),
        settings.results,
        manifest,
        settings.profile_name,
        tcl_sha256,
        commit,
        sensitivity[0] if sensitivity else None,
        seed_rounds(plan, seeding),
        spec_curves.draw,
        workers,
    )
    Path(log).write_text("".join(f"wrote {path}\n" for path in written))


def sensitivity_report(
    plan: Plan,
    settings: Settings,
    manifest: str | Path,
    out_md: str | Path,
    out_parquet: str | Path,
    seeding: list[str],
    workers: int = 1,
) -> None:
    """SENSITIVITY.md and its table; `seeding`: the seeding rounds' inputs (the baseline's verdicts read them);
    `workers`: papers judged at a time."""
    from experiments.report import sensitivity_markdown

    sensitivity_markdown.write(
        list(plan.docs.values()),
        settings.results,
        manifest,
        out_md,
        out_parquet,
        settings.profile_name,
        plan.reading_experiments(),
        seed_rounds(plan, seeding),
        settings.readings == "null",
        workers,
    )
