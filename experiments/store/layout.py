"""Every path of a results folder: no other module builds one.

  runs/<key>/                                a run directory, named by its key (simulate), of whichever paper
  runs/<key>.failed/                         a failed run: params.json, stderr.txt, rerun.sh
  .locks/<key>                               the lock a run holds while it executes (beside runs/, so that runs/
                                             holds run directories only)
  .workflow.lock                             the lock one Snakemake invocation holds (store.lock)
  metrics-cache/                             each run's metrics, filed by a digest of what computed them
  <paper>/<experiment>/                      an experiment's batch records (batches/<i>.json) and tables
                                             (runs, metrics, series, failed .parquet); readings/<label>/ under a
                                             reading, seeds/round<r>/ for the seeds a seeding round added
  seed-rounds/round<r>.json                  a seeding round's schedule (verdicts.seeding)
  <paper>/figures/<id>.png, <paper>/tables/<id>.{csv,md}   the figures and tables
  REPORT.md, SENSITIVITY.md, sensitivity.parquet            the reports
  reproduce-all.sha256, sensitivity-all.sha256              each target's listing of what it made (workflow.stamps)
  logs/                                      every job's log
  report/index.html, report/papers/<paper>.html, report/runs/<paper>/<experiment>.html   the HTML report
  report/curves/<paper>/<headline>.png       a headline's specification curve (figures/spec_curves.py)

Functions take the results folder and return a Path; the report's pages are also named relative to the folder
(posix strings), because their links are. A Snakemake rule's pattern is the same call with "{wildcard}" names.
"""

from __future__ import annotations

import os
from pathlib import Path

from experiments.config.readings import BASELINE

RUNS = "runs"
LOCKS = ".locks"
WORKFLOW_LOCK = ".workflow.lock"
METRICS_CACHE = "metrics-cache"
READINGS = "readings"
SEEDS = "seeds"
SEED_ROUNDS = "seed-rounds"
LOGS = "logs"
BATCHES = "batches"
TABLE_KINDS = ("runs", "metrics", "series", "failed")
ARTIFACT_KINDS = {"figures": (".png",), "tables": (".csv", ".md")}  # a paper's outputs, beside its experiments
FAILED_SUFFIX = ".failed"


def runs_dir(results: str | Path) -> Path:
    """Every run directory of every paper, named by key: a run found under its key is reused whichever paper,
    experiment or level label asks for it."""
    return Path(results) / RUNS


def run_dir(results: str | Path, key: str) -> Path:
    return runs_dir(results) / key


def failed_dir(run: Path) -> Path:
    """Where a run directory's failure is kept: <key>.failed beside <key>."""
    return run.with_name(f"{run.name}{FAILED_SUFFIX}")


def key_lock(run: Path) -> Path:
    """The lock file of a run directory's key: <results>/.locks/<key>."""
    return run.parent.parent / LOCKS / run.name


def metrics_cache(results: str | Path) -> Path:
    return Path(results) / METRICS_CACHE


def workflow_lock(results: str | Path) -> Path:
    return Path(results) / WORKFLOW_LOCK


def experiment_dir(
    results: str | Path, paper: str, experiment: str, reading: str = BASELINE, seed_round: int | str = 0
) -> Path:
    """Where an experiment's batch records and tables live: the baseline's, readings/<label>/ under a reading, or
    seeds/round<r>/ for the seeds seeding round r added (of the baseline)."""
    base = Path(results) / paper / experiment
    if seed_round:
        return base / SEEDS / f"round{seed_round}"
    return base if reading == BASELINE else base / READINGS / reading


def batch_record(
    results: str | Path,
    paper: str,
    experiment: str,
    index: int | str,
    reading: str = BASELINE,
    seed_round: int | str = 0,
) -> Path:
    return experiment_dir(results, paper, experiment, reading, seed_round) / BATCHES / f"{index}.json"


def experiment_table(
    results: str | Path, paper: str, experiment: str, kind: str, reading: str = BASELINE, seed_round: int | str = 0
) -> Path:
    """One of an experiment's tables: runs, metrics, series or failed."""
    return experiment_dir(results, paper, experiment, reading, seed_round) / f"{kind}.parquet"


def seed_schedule(results: str | Path, seed_round: int | str) -> Path:
    """Seeding round r's schedule: the claim cells still undecided and the runs it adds."""
    return Path(results) / SEED_ROUNDS / f"round{seed_round}.json"


def artifact(results: str | Path, paper: str, kind: str, artifact_id: str, suffix: str = "") -> Path:
    """A figure or table of a paper (kind figures or tables), without a suffix the stem its drawing writes to."""
    return Path(results) / paper / kind / f"{artifact_id}{suffix}"


def log_file(results: str | Path, name: str) -> str:
    """A job's log, <results>/logs/<name>: in the folder it ran for, so that two folders' invocations never share one
    (a Snakemake pattern when `name` holds wildcards)."""
    return str(Path(results) / LOGS / name)


def stamp_listing(results: str | Path, target: str) -> Path:
    """A target's listing of every artifact it made in the folder, <results>/<target>.sha256 (workflow.stamps)."""
    return Path(results) / f"{target}.sha256"


def report_md(results: str | Path) -> Path:
    return Path(results) / "REPORT.md"


def sensitivity_md(results: str | Path) -> Path:
    return Path(results) / "SENSITIVITY.md"


def sensitivity_table(results: str | Path) -> Path:
    return Path(results) / "sensitivity.parquet"


# The HTML report's pages, relative to the results folder.
INDEX_PAGE = "report/index.html"


def paper_page(paper: str) -> str:
    return f"report/papers/{paper}.html"


def runs_page(paper: str, experiment: str) -> str:
    return f"report/runs/{paper}/{experiment}.html"


def headline_curve(paper: str, headline: str) -> str:
    return f"report/curves/{paper}/{headline}.png"


def stored(run: Path, table_folder: str | Path) -> str:
    """How a table or record names a run directory: relative to the folder the table lies in, so that a results
    folder copied or moved elsewhere reads its own runs, not the original's (`resolved` reads it back)."""
    return os.path.relpath(run, table_folder)


def resolved(table_folder: str | Path, name: str | Path) -> Path:
    """The run directory a table in `table_folder` names (`stored`; an absolute name, as older tables hold, as is)."""
    return Path(os.path.normpath(Path(table_folder) / name))


def relative(path: Path, results: str | Path) -> str:
    """A path of the results folder as the report's links name it (posix, relative to the folder)."""
    return Path(path).relative_to(Path(results)).as_posix()


def place_of(results: str | Path, path: str | Path) -> tuple[str, ...]:
    """Where a path lies in the results folder, as the parts that name it: (paper, experiment, reading) for a file
    of (or at) an experiment's folder (reading BASELINE, or a reading's label under readings/), ("artifact", paper,
    id) for a figure or table, () for anything else (a report, a path outside the folder, a stamp)."""
    root, parts = Path(results).parts, Path(path).parts
    rest = parts[len(root) :] if parts[: len(root)] == root else ()
    if len(rest) == 3 and rest[1] in ARTIFACT_KINDS:
        return ("artifact", rest[0], Path(rest[2]).stem)
    if len(rest) > 3 and rest[2] == READINGS:
        return (rest[0], rest[1], rest[3])
    if len(rest) >= 2:
        return (rest[0], rest[1], BASELINE)
    return ()


def in_readings(path: str | Path) -> bool:
    """Whether a path lies in some readings folder (of a results folder that cannot be placed)."""
    return READINGS in Path(path).parts
