"""What the Snakemake rules call: one function per job, over the plan and the workflow's settings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from experiments.common.progress import Progress
from experiments.config.axes import axes_of, level_labels
from experiments.config.load import analysis_settings
from experiments.config.readings import BASELINE
from experiments.planning.expansion import Run
from experiments.planning.profiles import Settings
from experiments.simulate.batch import batch_record, run_batch
from experiments.simulate.toolchain import Toolchain
from experiments.store import layout
from experiments.store.records import write_record
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


def batch_of(wildcards) -> tuple[str, str, int, str]:
    """A simulate job's (paper, experiment, batch index, reading label) from its wildcards: a baseline job's have
    no reading."""
    return wildcards.paper, wildcards.experiment, int(wildcards.batch), getattr(wildcards, "reading", BASELINE)


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
    param."""
    paper, experiment, index, reading = batch_of(wildcards)
    after = parse_into_tables(settings)
    runs = plan.batch_runs(paper, experiment, index, reading)
    with job_log(log) as progress:
        outcomes = run_batch(
            runs, settings.results, tools, after, progress, f"{paper}/{experiment} batch {index}", sweep
        )
    write_record(record, batch_record(outcomes, retry_of))


def parse_into_tables(settings: Settings):
    """Post-run step: the run's outputs to parquet tables in <run>/tables/, then drop the raw outputs they hold."""
    if not settings.parse:
        return None
    import parsers  # imported here: the core package does not need pyarrow to validate files

    def after(run: Run, key: str, directory: Path) -> None:
        parsers.parse_run(directory, directory / "tables", {"seed": run.seed, "run_key": key})
        if not settings.keep_raw:
            for name in parsers.RAW_OUTPUTS:
                (directory / name).unlink(missing_ok=True)

    return after


def aggregate_experiment(
    plan: Plan,
    results: str | Path,
    paper: str,
    experiment: str,
    records: list[str],
    out_dir: str | Path,
    log: str | Path,
    reading: str = BASELINE,
) -> None:
    """One Snakemake job: an experiment's (or a reading's) tables, with a progress line now and then on the console
    and in its log."""
    from experiments.measure import aggregate

    exp = plan.docs[paper]["experiments"][experiment]
    contexts = plan.expansions[(paper, experiment, reading)].contexts()
    label = f"{paper}/{experiment}" + ("" if reading == BASELINE else f" under {reading}")
    with job_log(log) as progress:
        aggregate.aggregate(
            records,
            contexts,
            exp["warmup"],
            out_dir,
            analysis_settings(exp),
            layout.metrics_cache(results),
            progress,
            label,
        )


def draw(plan: Plan, results: str | Path, paper: str, kind: str, artifact_id: str, log: str | Path) -> list[Path]:
    """Call the figure or table function an artifact entry names, on its experiment's tables."""
    import importlib

    from experiments.store.experiment_data import ExperimentData

    artifact = plan.artifact(paper, kind, artifact_id)
    module = importlib.import_module(plan.artifact_module(paper, kind, artifact_id))

    def tables(experiment: str) -> ExperimentData:
        axes = axes_of(plan.docs[paper]["experiments"][experiment])
        levels = {name: level_labels(axis) for name, axis in axes.items()}
        return ExperimentData.load(layout.experiment_dir(results, paper, experiment), list(axes), levels)

    data = tables(artifact["experiment"])
    if "reference" in artifact:
        data.reference = tables(artifact["reference"])
    written = getattr(module, artifact["function"])(data, layout.artifact(results, paper, kind, artifact_id), artifact)
    Path(log).write_text("".join(f"wrote {path}\n" for path in written))
    return written


def report(plan: Plan, settings: Settings, manifest: str | Path, out: str | Path, sensitivity: list[str]) -> None:
    """REPORT.md; `sensitivity`: the sensitivity table's path when the targets made it (else empty)."""
    from experiments.report.markdown import write_report

    table = sensitivity[0] if sensitivity else None
    write_report(list(plan.docs.values()), settings.results, manifest, out, settings.profile_name, table)


def html_pages(plan: Plan, results: str | Path) -> list[str]:
    """Every page of the HTML report."""
    from experiments.report import html

    return [str(Path(results) / page) for page in html.pages(list(plan.docs.values()))]


def html_report(
    plan: Plan,
    settings: Settings,
    manifest: str | Path,
    sensitivity: list[str],
    tcl_sha256: str,
    commit: str,
    log: str | Path,
) -> None:
    """The HTML report; `sensitivity`: the sensitivity table's path when the targets made it (else empty)."""
    from experiments.report import html

    written = html.write(
        list(plan.docs.values()),
        settings.results,
        manifest,
        settings.profile_name,
        tcl_sha256,
        commit,
        sensitivity[0] if sensitivity else None,
    )
    Path(log).write_text("".join(f"wrote {path}\n" for path in written))


def sensitivity_report(
    plan: Plan, settings: Settings, manifest: str | Path, out_md: str | Path, out_parquet: str | Path
) -> None:
    from experiments.report import sensitivity_markdown

    sensitivity_markdown.write(
        list(plan.docs.values()),
        settings.results,
        manifest,
        out_md,
        out_parquet,
        settings.profile_name,
        plan.reading_experiments(),
    )
