"""Benchmark (issue 49, target 5): what Snakemake's start-up in every Slurm job costs beside the runs it carries.

    .ci/slurm start   # the one-node Slurm
    .venv/bin/python bench/slurm_share.py [--file configs/psand.yaml] [--experiment load] [--batches 8]
                                          [--markdown docs/PERFORMANCE.md]

On the one-node Slurm of .ci/slurm, through profiles/slurm with the paper profile's settings
(profiles/paper/settings.yaml: its seeds, its batch size), the first `--batches` simulate batches of one
experiment are made, from an empty results folder in a copy of this checkout. The simulate jobs are grouped into
Slurm jobs as profiles/slurm says; each Slurm job starts Snakemake (the batch script's, then srun's), and that
Snakemake hands its batches to worker processes (experiments/workflow/worker.py), which run ns and parse.

Every Python process records its own CPU at exit (a sitecustomize module on PYTHONPATH, getrusage): inside a
Slurm job, a Snakemake process's own CPU is its start-up and scheduling, the overhead; a worker's own CPU and its
children's (ns) are the runs. Overhead / runs is the share this bench reports, per Slurm job and in all. The
default experiment, Alemu's `load` (runs of about a second), is among the cheapest runs the paper profile has in
bulk: the overhead per Slurm job is fixed, so costlier runs give a smaller share. The paper profile's count of
simulate jobs and Slurm jobs comes from the plan.
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from perfdoc import process_recorder, publish, recorded_processes  # noqa: E402
from sweeps import copy_checkout  # noqa: E402

from experiments.planning.profiles import Settings  # noqa: E402
from experiments.store import layout  # noqa: E402
from experiments.workflow.plan_cache import cached_plan  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- slurm-share:begin -->", "<!-- slurm-share:end -->"
TARGET = 0.05
PAPER_SETTINGS = REPO / "profiles" / "paper" / "settings.yaml"
DEFAULT_COUNT_FILES = sorted(f"configs/{p.name}" for p in (REPO / "configs").glob("*.yaml"))


def group_sizes() -> dict[str, int]:
    """profiles/slurm's group-components, by group name."""
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    return {name: int(n) for name, n in (entry.split("=") for entry in profile["group-components"])}


def paper_plan_counts(files: list[str]) -> dict:
    """The paper profile's runs and simulate batches (baseline and readings) of `files`."""
    config = yaml.safe_load(PAPER_SETTINGS.read_text())
    config["experiment_files"] = files
    settings = Settings.from_config(config)
    plan = cached_plan(settings, REPO / "build" / "ns2" / "ns")
    size = settings.batch_size
    batches = sum(math.ceil(len(runs) / size) for runs in plan.expansions.values())
    return {"runs": plan.total_runs(), "batch_size": size, "batches": batches}


def slurm_sweep(work: Path, args: argparse.Namespace) -> list[dict]:
    """The first `args.batches` simulate batches of the experiment, through Slurm: each process's CPU record."""
    results = work / "results-bench"
    records = [str(layout.batch_record(results, args.paper, args.experiment, i)) for i in range(args.batches)]
    command = [
        str(REPO / ".venv" / "bin" / "snakemake"),
        "--profile",
        "profiles/slurm",
        "--configfile",
        str(PAPER_SETTINGS),
        "--config",
        f"experiment_files=[{args.file}]",
        f"results={results}",
        *([f"batch_size={args.batch_size}"] if args.batch_size else []),
        "--quiet",
        "--",
        *records,
    ]
    recorder, processes = process_recorder(work.parent)
    env = {**os.environ, **recorder}
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the Slurm sweep failed:\n{done.stderr[-3000:]}")
    return recorded_processes(processes)


def shares(processes: list[dict]) -> dict[str, dict[str, float]]:
    """Per Slurm job: CPU of its Snakemake processes (own) and of its workers (own + children: the runs)."""
    jobs: dict[str, dict[str, float]] = collections.defaultdict(lambda: {"snakemake": 0.0, "runs": 0.0, "starts": 0})
    for p in processes:
        if not p["job"]:
            continue  # the submitting Snakemake, on the login host: not a Slurm job's
        argv = " ".join(p["argv"])
        if "experiments/workflow/worker" in argv or p.get("spawned"):  # a job's work, not Snakemake's start-up
            jobs[p["job"]]["runs"] += p["own"] + p["children"]
        elif "snakemake" in argv:
            jobs[p["job"]]["snakemake"] += p["own"]
            jobs[p["job"]]["starts"] += 1
    return dict(jobs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", default="configs/psand.yaml")
    parser.add_argument("--experiment", default="load")
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--batch-size", type=int, help="runs per simulate batch (default: the paper profile's)")
    parser.add_argument(
        "--count-files", nargs="+", help="the files whose paper-profile plan is counted (default: configs/*.yaml)"
    )
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    args.count_files = args.count_files or DEFAULT_COUNT_FILES
    args.paper = yaml.safe_load((REPO / args.file).read_text())["paper"]
    with tempfile.TemporaryDirectory(prefix="slurm-share-", dir="/var/tmp") as scratch:
        jobs = shares(slurm_sweep(copy_checkout(Path(scratch) / "work", link_venv=True), args))
    if not jobs:
        raise SystemExit("no Slurm job recorded its processes: is PYTHONPATH passed to the jobs?")
    counts = paper_plan_counts(args.count_files)
    section = markdown(jobs, counts, args)
    publish(section, args.markdown, MARK_BEGIN, MARK_END)
    return 0


def markdown(jobs: dict, counts: dict, args: argparse.Namespace) -> str:
    overhead = sum(j["snakemake"] for j in jobs.values())
    runs = sum(j["runs"] for j in jobs.values())
    per_job = [j["snakemake"] / j["runs"] for j in jobs.values() if j["runs"]]
    group = group_sizes()["simulate"]
    size = args.batch_size or counts["batch_size"]
    options = f" --batch-size {args.batch_size}" if args.batch_size else ""
    if args.count_files != DEFAULT_COUNT_FILES:
        options += " --count-files " + " ".join(args.count_files)
    slurm_jobs = math.ceil(counts["batches"] / group)
    rows = [
        f"| {job} | {j['starts']} | {j['snakemake']:.1f} | {j['runs']:.1f} | {j['snakemake'] / j['runs']:.1%} |"
        for job, j in sorted(jobs.items(), key=lambda item: int(item[0]))
        if j["runs"]
    ]
    return "\n".join(
        [
            MARK_BEGIN,
            "## Slurm: Snakemake's start-up beside the runs of each job",
            "",
            "Command, with the one-node Slurm of .ci/slurm started: `.venv/bin/python bench/slurm_share.py "
            f"--file {args.file} --experiment {args.experiment} --batches {args.batches}{options} "
            "--markdown docs/PERFORMANCE.md`. The first "
            f"{args.batches} simulate batches of {args.paper}/{args.experiment} on the paper profile's settings "
            f"(batches of {size} runs), through profiles/slurm (simulate groups of {group} batches per Slurm job) on "
            "the one-node Slurm, from an empty results folder. CPU seconds of every process in each Slurm job, from "
            "getrusage at its exit: Snakemake's own (its start-ups and scheduling) against the workers' with their "
            "ns children (the runs).",
            "",
            "| Slurm job | Snakemake processes | Snakemake CPU | runs' CPU | share |",
            "|---|---|---|---|---|",
            *rows,
            "",
            f"In all: {overhead:.1f} s of Snakemake beside {runs:.1f} s of runs, **{overhead / runs:.1%}** (median "
            f"per job {statistics.median(per_job):.1%}); target under {TARGET:.0%}. The paper profile plans (of "
            f"{', '.join(args.count_files)}) "
            f"{counts['runs']:,} runs (baseline and readings) in {counts['batches']:,} simulate batches of "
            f"{counts['batch_size']}, "
            f"{slurm_jobs:,} Slurm jobs at {group} batches each, each paying the start-ups measured here: the share "
            "grows as a job's runs cost less (an experiment with cheaper runs than these, or too few runs to fill a "
            "job).",
            MARK_END,
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
