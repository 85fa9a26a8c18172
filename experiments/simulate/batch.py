"""Short runs are executed in batches (one Snakemake job per batch, DESIGN.md), each run keeping its own key and
directory; a failed run does not stop the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from experiments.common.progress import Count, Progress, hms
from experiments.planning.expansion import Run
from experiments.simulate.execute import Outcome, execute
from experiments.simulate.toolchain import Toolchain, key_of
from experiments.store import layout


@dataclass(frozen=True)
class RunLine:
    """One run's progress line as a batch reports it, before the whole sweep's count is added: `cost` is its
    simulation's seconds when it ran (None: found cached, or failed), `message` a failed run's error."""

    text: str
    cost: float | None = None
    message: str = ""


def run_batch(
    runs: list[Run],
    results: Path,
    tools: Toolchain,
    after: Callable[[Run, str, Path], None] | None = None,
    report: Callable[[RunLine], None] | None = None,
    label: str = "batch",
) -> list[Outcome]:
    """Execute runs one after another; a failed run does not stop the others. `report`: called with each run's
    line (default: printed)."""
    report = report or (lambda line: print(*sweep_lines(line), sep="\n", flush=True))
    code_sha = tools.code_sha256
    outcomes = []
    for index, run in enumerate(runs, 1):
        key = key_of(run, tools, code_sha)
        outcome = execute(run, key, results, tools, after)
        outcomes.append(outcome)
        labels = " ".join(f"{k}={v}" for k, v in run.labels.items())
        text = (
            f"[{label} {index}/{len(runs)}] {run.experiment} {labels} seed={run.seed} "
            f"key={key}: {outcome.status} {outcome.seconds:.1f}s"
        )
        if outcome.remade:
            text += f" (its run directory was made again: {outcome.remade})"
        cost = outcome.seconds if outcome.status == "ran" else None
        report(RunLine(text, cost, outcome.message if outcome.status == "failed" else ""))
    return outcomes


def sweep_lines(line: RunLine, sweep: Progress | None = None) -> list[str]:
    """What a run's line prints: its text, with the whole sweep's count when there is one (`sweep` advanced by
    this run), then a failed run's message."""
    text = line.text + (f" | {sweep_text(sweep.advance(line.cost))}" if sweep else "")
    return [text, line.message] if line.message else [text]


def sweep_text(count: Count) -> str:
    """The sweep's part of a run's line: runs done of all planned (cached ones count at once; a run that readings
    share counts once for each), how many of them ran, and the time left from the runs simulated so far: at the share
    of runs done that ran, and as if every run left had to run (the most it can be)."""
    text = f"sweep {count.done}/{count.total} runs, {count.costed} ran"
    if count.eta is None:
        return text
    return f"{text}; ETA {hms(count.eta_at_share)} at that share, {hms(count.eta)} if all left run"


def batch_record(outcomes: list[Outcome], results: str | Path, retry_of: str = "") -> dict:
    """What a batch job leaves behind: each run's key, seed and status, in the batch's order; a failed run also its
    message and the command that reruns it (the aggregate stage leaves it out, the report lists it). No names: the
    aggregate stage joins the paper, experiment and level labels from the file as it is now. `retry_of`: the
    failed record this one retried (experiments.workflow.plan.Plan.batch_retry says why it is kept). Each run's
    directory is named relative to the results folder (store.layout.stored says why)."""
    runs = []
    for o in outcomes:
        entry = {"key": o.key, "seed": o.run.seed, "status": o.status, "directory": layout.stored(o.directory, results)}
        if o.status == "failed":
            entry |= {"message": o.message, "rerun": o.rerun}
        runs.append(entry)
    return {"runs": runs} | ({"retry_of": retry_of} if retry_of else {})
