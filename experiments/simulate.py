"""Running simulations: one run directory per run key, complete or absent.

A run executes in a temporary sibling directory and is renamed to
`<runs>/<key>/` only when ns and the post-processing both succeeded, so a run
directory that exists is complete and is reused as it is (same key, same bytes). A
failure leaves `<runs>/<key>.failed/` with params.json, ns's stderr and `rerun.sh`,
the exact command that reproduces it (the error as its comment), without the big raw
outputs (packets.tr, queue_monitor.tsv). A later success of the same key (a run found
complete too) removes `<key>.failed/`: it describes a failure that no longer holds, so
the two never stand side by side. Short runs are executed in batches (one Snakemake job
per batch, DESIGN.md), each run keeping its own key and directory.
"""

from __future__ import annotations

import fcntl
import json
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from experiments.matrix import Run
from experiments.runkey import parsers_digest, run_key, tcl_digest

STDERR_TAIL_LINES = 5


def hms(seconds: float) -> str:
    """A duration as h:mm:ss, for progress lines."""
    return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"


@dataclass(frozen=True)
class Toolchain:
    """What a run executes with; its hashes enter every run key."""

    ns: Path  # build/ns2/ns
    manifest: Path  # build/ns2/manifest.json
    driver: Path  # tcl/driver.tcl
    parsed: bool = True  # False: run directories keep raw outputs only (benchmarks)

    @property
    def ns_sha256(self) -> str:
        return json.loads(self.manifest.read_text())["binary"]["sha256"]

    @property
    def tcl_sha256(self) -> str:
        return tcl_digest(self.driver.parent)

    @property
    def code_sha256(self) -> str:
        """Tcl sources and parsers together: the code that turns params into a run directory."""
        return f"{self.tcl_sha256}:{parsers_digest() if self.parsed else 'unparsed'}"


@dataclass(frozen=True)
class Outcome:
    run: Run
    key: str
    directory: Path
    status: str  # "ran", "cached" or "failed"
    seconds: float = 0.0
    message: str = ""
    rerun: str = ""  # a failed run: the ns command that reruns it (its rerun.sh)


# Below this much free space after a failed run, the failure is reported as a full disk: ns's trace filled it
# (ns then exits with status 1 and often an empty stderr, which could not be written either).
FULL_DISK_BYTES = 1 << 20


def runs_dir(results: Path) -> Path:
    """Every run directory of every paper, named by key: a run found under its key is reused whichever paper,
    experiment or level label asks for it."""
    return results / "runs"


def key_of(run: Run, tools: Toolchain, code_sha256: str | None = None) -> str:
    tcl_sha, parsers_sha = (code_sha256 or tools.code_sha256).split(":")
    return run_key(run.params, tcl_sha, tools.ns_sha256, parsers_sha)


def ns_command(tools: Toolchain, directory: Path) -> list[str]:
    return [str(tools.ns), str(tools.driver), str(directory)]


def _write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n")


def execute(
    run: Run,
    key: str,
    results: Path,
    tools: Toolchain,
    after: Callable[[Run, str, Path], None] | None = None,
) -> Outcome:
    """Run one simulation unless its directory exists; `after` post-processes it in place.

    One key runs once at a time: two batch jobs may hold the same key (a reading's cell that the baseline runs
    too), in threads of one Snakemake process or in two processes, so the run takes the key's lock and the
    second finds the first's directory complete."""
    final = runs_dir(results) / key
    final.parent.mkdir(parents=True, exist_ok=True)
    with _key_lock(final):
        for stale in final.parent.glob(f".{key}.tmp-*"):  # left by a run killed mid-way (kill -9): the lock
            shutil.rmtree(stale, ignore_errors=True)  # is ours, so no live run of this key owns it
        if final.is_dir():
            _clear_failed(final)
            return Outcome(run, key, final, "cached")
        return _run(run, key, final, tools, after)


@contextmanager
def _key_lock(final: Path):
    """An exclusive lock on the run key, held while the run executes: <results>/.locks/<key>, beside runs/ so
    that runs/ holds run directories only."""
    locks = final.parent.parent / ".locks"
    locks.mkdir(exist_ok=True)
    with open(locks / final.name, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run(run: Run, key: str, final: Path, tools: Toolchain, after: Callable[[Run, str, Path], None] | None) -> Outcome:
    work = Path(tempfile.mkdtemp(prefix=f".{key}.tmp-", dir=final.parent))  # unique: never shared by two runs
    work.chmod(0o755)  # mkdtemp's 0700 would become the run directory's mode
    _write_json(work / "params.json", run.params)
    shutil.copyfile(tools.manifest, work / "manifest.json")
    started = time.monotonic()
    with open(work / "stderr.txt", "w") as err:
        proc = subprocess.run(ns_command(tools, work), stdout=subprocess.DEVNULL, stderr=err, check=False)
    problem = ""
    if proc.returncode < 0:  # a crash (SIGSEGV) or a kill: the status alone would read as "-11"
        problem = f"ns was killed by signal {-proc.returncode} ({signal.Signals(-proc.returncode).name})"
    elif proc.returncode != 0:
        problem = f"ns exited with status {proc.returncode}"
    elif after is not None:
        try:
            after(run, key, work)
        except Exception as exc:  # noqa: BLE001 -- any post-processing failure fails this run only
            problem = f"post-processing failed: {type(exc).__name__}: {exc}"
    if problem and (free := shutil.disk_usage(work).free) < FULL_DISK_BYTES:  # ns's own error may be lost with it
        problem += f"; the results folder's file system is full ({free} bytes free): free space and rerun"
    seconds = time.monotonic() - started
    if not problem:
        (work / "stderr.txt").unlink()
        work.rename(final)
        _clear_failed(final)
        return Outcome(run, key, final, "ran", seconds)
    return _fail(run, key, work, final, tools, problem, seconds)


def _clear_failed(final: Path) -> None:
    """Remove `<key>.failed/` beside a complete `<key>/`: the failure it records no longer holds."""
    shutil.rmtree(final.with_name(f"{final.name}.failed"), ignore_errors=True)


def _fail(run: Run, key: str, work: Path, final: Path, tools: Toolchain, problem: str, seconds: float) -> Outcome:
    failed = final.with_name(f"{key}.failed")
    shutil.rmtree(failed, ignore_errors=True)
    work.rename(failed)
    for name in ("packets.tr", "queue_monitor.tsv"):  # big, and not what a diagnosis needs
        (failed / name).unlink(missing_ok=True)
    problem = problem.replace(str(work), str(failed))  # a parser's error names the temporary directory
    rerun = shlex.join(ns_command(tools, failed))
    comment = "".join(f"# {line}\n" for line in problem.splitlines() or [""])  # a multi-line error stays a comment
    (failed / "rerun.sh").write_text(f"#!/bin/sh\n{comment}{rerun}\n")
    tail = (failed / "stderr.txt").read_text(errors="replace").strip().splitlines()[-STDERR_TAIL_LINES:]
    labels = " ".join(f"{k}={v}" for k, v in run.labels.items())
    message = (
        f"run {key} ({run.experiment} {labels} seed={run.seed}) failed: {problem}"
        + (f"\n  stderr: {' | '.join(tail)}" if tail else "")
        + f"\n  rerun: {rerun}"
    )
    return Outcome(run, key, failed, "failed", seconds, message, rerun)


def run_batch(
    runs: list[Run],
    results: Path,
    tools: Toolchain,
    after: Callable[[Run, str, Path], None] | None = None,
    progress: Callable[[str], None] = print,
    label: str = "batch",
    tally: Callable[[Outcome], str] | None = None,
) -> list[Outcome]:
    """Execute runs one after another; a failed run does not stop the others. `tally` counts each outcome into
    the whole sweep's progress and returns text to append to its line (workflow.SweepProgress)."""
    code_sha = tools.code_sha256
    outcomes = []
    for index, run in enumerate(runs, 1):
        key = key_of(run, tools, code_sha)
        outcome = execute(run, key, results, tools, after)
        outcomes.append(outcome)
        labels = " ".join(f"{k}={v}" for k, v in run.labels.items())
        overall = f" | {tally(outcome)}" if tally is not None else ""
        progress(
            f"[{label} {index}/{len(runs)}] {run.experiment} {labels} seed={run.seed} "
            f"key={key}: {outcome.status} {outcome.seconds:.1f}s{overall}"
        )
        if outcome.status == "failed":
            progress(outcome.message)
    return outcomes


def batch_record(outcomes: list[Outcome], retry_of: str = "") -> dict:
    """What a batch job leaves behind: each run's key, seed and status, in the batch's order; a failed run also its
    message and the command that reruns it (the aggregate stage leaves it out, the report lists it). No names: the
    aggregate stage joins the paper, experiment and level labels from the file as it is now. `retry_of`: the
    failed record this one retried (experiments.workflow.Plan.batch_retry says why it is kept)."""
    runs = []
    for o in outcomes:
        entry = {"key": o.key, "seed": o.run.seed, "status": o.status, "directory": str(o.directory)}
        if o.status == "failed":
            entry |= {"message": o.message, "rerun": o.rerun}
        runs.append(entry)
    return {"runs": runs} | ({"retry_of": retry_of} if retry_of else {})


def failed_entries(record: dict) -> list[dict]:
    return [entry for entry in record["runs"] if entry["status"] == "failed"]
