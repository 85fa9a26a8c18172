"""Short runs are executed in batches (one Snakemake job per batch, DESIGN.md), each run keeping its own key and
directory; a failed run does not stop the others.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from experiments.common.progress import Count, Progress, hms
from experiments.planning.expansion import Run
from experiments.simulate.execute import Outcome, execute
from experiments.simulate.toolchain import Toolchain, key_of


def run_batch(
    runs: list[Run],
    results: Path,
    tools: Toolchain,
    after: Callable[[Run, str, Path], None] | None = None,
    progress: Callable[[str], None] = print,
    label: str = "batch",
    sweep: Progress | None = None,
) -> list[Outcome]:
    """Execute runs one after another; a failed run does not stop the others. `sweep`: the whole sweep's progress,
    which each outcome advances and each run's line ends with."""
    code_sha = tools.code_sha256
    outcomes = []
    for index, run in enumerate(runs, 1):
        key = key_of(run, tools, code_sha)
        outcome = execute(run, key, results, tools, after)
        outcomes.append(outcome)
        labels = " ".join(f"{k}={v}" for k, v in run.labels.items())
        overall = (
            f" | {sweep_text(sweep.advance(outcome.seconds if outcome.status == 'ran' else None))}" if sweep else ""
        )
        progress(
            f"[{label} {index}/{len(runs)}] {run.experiment} {labels} seed={run.seed} "
            f"key={key}: {outcome.status} {outcome.seconds:.1f}s{overall}"
        )
        if outcome.status == "failed":
            progress(outcome.message)
    return outcomes


def sweep_text(count: Count) -> str:
    """The sweep's part of a run's line: runs done of all planned (cached ones count at once), and the time left
    estimated from the runs simulated so far, as if every run left had to run."""
    text = f"sweep {count.done}/{count.total} runs"
    return text if count.eta is None else f"{text}, ETA {hms(count.eta)} (if all left run)"


def batch_record(outcomes: list[Outcome], retry_of: str = "") -> dict:
    """What a batch job leaves behind: each run's key, seed and status, in the batch's order; a failed run also its
    message and the command that reruns it (the aggregate stage leaves it out, the report lists it). No names: the
    aggregate stage joins the paper, experiment and level labels from the file as it is now. `retry_of`: the
    failed record this one retried (experiments.workflow.plan.Plan.batch_retry says why it is kept)."""
    runs = []
    for o in outcomes:
        entry = {"key": o.key, "seed": o.run.seed, "status": o.status, "directory": str(o.directory)}
        if o.status == "failed":
            entry |= {"message": o.message, "rerun": o.rerun}
        runs.append(entry)
    return {"runs": runs} | ({"retry_of": retry_of} if retry_of else {})
