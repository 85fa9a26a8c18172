"""The end of reproduce-all and sensitivity-all: a stamp listing every artifact with its sha256, and a non-zero
exit listing every failed run.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from pathlib import Path

from experiments.common.files import sha256_file, write_atomic
from experiments.config.readings import BASELINE
from experiments.store import layout
from experiments.store.records import failed_entries
from experiments.workflow.plan import Plan


def write_stamp(artifacts: Iterable[str | Path], results: str | Path, out: str | Path) -> None:
    """A target's two `sha256sum`-style listings, sorted by path, each written atomically: the listing in the results
    folder (store.layout.stamp_listing), of every artifact in it, named relative to it (`sha256sum -c` run in the
    folder checks it, wherever the folder was copied to); `out`, the target Snakemake is given in the working
    directory, of what lies outside the folder (the ns build) and of that listing. Every invocation rewrites
    `out`: it names the last folder made, and each folder keeps its own listing, so two folders' invocations never
    overwrite each other's."""
    root = Path(results)
    listing = layout.stamp_listing(root, Path(out).name)
    inside, outside = [], []
    for path in sorted(set(map(Path, artifacts))):
        (inside if path.is_relative_to(root) else outside).append(path)
    write_atomic(listing, "".join(f"{sha256_file(p)}  {p.relative_to(root).as_posix()}\n" for p in inside))
    write_atomic(out, "".join(f"{sha256_file(p)}  {p}\n" for p in [*outside, listing]))


def git_commit(root: str | Path) -> str:
    """The commit checked out at `root` (`git rev-parse HEAD`), or "unknown" outside a git checkout (the container
    copies no .git) or without git."""
    try:
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
    except OSError:
        return "unknown"
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


def failed_runs(plan: Plan, results: str | Path, readings: bool = True) -> list[dict]:
    """Every failed run the batch records on disk list (the baselines' and the seeding rounds' the plan loaded, and
    with `readings` the readings'), each once (a key may be in a reading's batch and the baseline's), with where it
    was planned."""
    found: dict[str, dict] = {}
    parts = [(paper, experiment, reading, 0) for paper, experiment, reading in plan.expansions]
    parts += [(paper, experiment, BASELINE, r) for paper, experiment, r in plan.round_expansions]
    for paper, experiment, reading, seed_round in parts:
        if reading != BASELINE and not readings:
            continue
        for record in map(Path, plan.records(results, paper, experiment, reading, seed_round)):
            if record.is_file():
                for entry in failed_entries(json.loads(record.read_text())):
                    found.setdefault(
                        entry["key"], {**entry, "paper": paper, "experiment": experiment, "reading": reading}
                    )
    return list(found.values())


class FailedRuns(RuntimeError):
    """A target's runs include failed ones: raised by the stamps after everything else was made."""


def raise_for_failed_runs(plan: Plan, results: str | Path, readings: bool, log: str | Path) -> None:
    """The end of `reproduce-all` (and `sensitivity-all`, with the readings): a non-zero exit when any run failed,
    listing each with its rerun command, in the exception and in the stamp's log. The report was written without
    them and lists them too."""
    failed = failed_runs(plan, results, readings)
    listing = "".join(
        f"  {f['paper']}/{f['experiment']}"
        + (f" under {f['reading']}" if f["reading"] != BASELINE else "")
        + f": {f['message']}\n"
        for f in failed
    )
    Path(log).write_text(listing)
    if failed:
        raise FailedRuns(
            f"{len(failed)} run(s) failed; the report lists the claims and figures each would have fed; the same "
            f"command reruns them (after the cause is fixed):\n{listing}"
        )
