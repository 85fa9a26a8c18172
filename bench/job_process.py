"""Benchmark (issue 49, target 3): how much of a sweep's work Snakemake's own process does.

    .venv/bin/python bench/job_process.py (--baseline <commit> | --baseline-tree <checkout>) [--rounds 2]
        [--files configs/koo_aqm.yaml] [--duration 20] [--markdown docs/PERFORMANCE.md]

The same sweep, from an empty results folder each time, with two versions of the code: *baseline*, a git worktree
of `--baseline` (a commit whose batch jobs parse and compute inside Snakemake's process, in the threads it runs
`run:` bodies in; or `--baseline-tree`, a checkout made by hand), and *current*, this working tree
(experiments/workflow/worker.py: a worker process per job). Both use this tree's ns binary and virtualenv, so
their runs are the same runs. The sweep is the smoke profile's (one seed per cell) of `--files`, each run
`--duration` simulated seconds, target `reproduce-all`, all cores.

Measured per invocation: wall time; CPU of Snakemake's own process (getrusage RUSAGE_SELF at its exit: its
scheduler and, on the baseline, the parsing and metrics of every job); CPU of everything it waited for (ns runs,
workers, figure scripts: RUSAGE_CHILDREN). Rounds alternate the order of the sides; medians.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from perfdoc import alternating, medians, process_recorder, publish, recorded_processes  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- job-process:begin -->", "<!-- job-process:end -->"


def worktree(commit: str, where: Path) -> Path:
    """A checkout of `commit` sharing this tree's ns build and virtualenv."""
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(where), commit], check=True)
    (where / "build").mkdir(exist_ok=True)
    (where / "build" / "ns2").symlink_to(REPO / "build" / "ns2")
    (where / ".venv").symlink_to(REPO / ".venv")
    return where


def sweep(tree: Path, results: Path, args: argparse.Namespace) -> dict:
    """One reproduce-all of the sweep in `tree`: wall, own and children's CPU seconds."""
    files = "[" + ",".join(args.files) + "]"
    command = [
        str(REPO / ".venv" / "bin" / "snakemake"),
        "reproduce-all",
        "--profile",
        "profiles/smoke",
        "--quiet",
        "--config",
        f"experiment_files={files}",
        f"smoke_duration={args.duration}",
        f"results={results}",
    ]
    recorder, processes = process_recorder(results.parent / f"{results.name}.processes", str(tree))
    start = time.monotonic()
    done = subprocess.run(command, cwd=tree, env={**os.environ, **recorder}, capture_output=True, text=True)
    wall = time.monotonic() - start
    if done.returncode:
        raise SystemExit(f"the sweep failed in {tree}:\n{done.stderr[-3000:]}")
    recorded = recorded_processes(processes)
    (snakemake,) = [p for p in recorded if p["argv"][0].endswith("bin/snakemake") and not p.get("spawned")]
    return {"wall": wall, "own": snakemake["own"], "children": snakemake["children"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    baseline = parser.add_mutually_exclusive_group(required=True)
    baseline.add_argument("--baseline", help="a commit whose jobs work in Snakemake's process (a worktree of it)")
    baseline.add_argument("--baseline-tree", type=Path, help="a checkout to take as the baseline, as it is")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--files", nargs="+", default=["configs/koo_aqm.yaml"])
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    times: dict[str, list[dict]] = {"baseline": [], "current": []}
    with tempfile.TemporaryDirectory(prefix="job-process-") as scratch_dir:
        scratch = Path(scratch_dir)
        made = worktree(args.baseline, scratch / "baseline") if args.baseline else None
        trees = {"baseline": made or args.baseline_tree.resolve(), "current": REPO}
        try:
            for r, side in alternating(times, args.rounds):
                results = scratch / f"results-{side}-{r}"
                times[side].append(sweep(trees[side], results, args))
                shutil.rmtree(results)
                t = times[side][-1]
                print(f"round {r + 1} {side}: {t['wall']:.1f} s wall, own CPU {t['own']:.1f} s", flush=True)
        finally:
            if made:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(made)])
    section = markdown(times, args)
    publish(section, args.markdown, MARK_BEGIN, MARK_END)
    return 0


def markdown(times: dict[str, list[dict]], args: argparse.Namespace) -> str:
    med = medians(times)
    rows = [
        f"| {side} | {m['wall']:.1f} | {m['own']:.1f} | {m['children']:.1f} | "
        f"{m['own'] / (m['own'] + m['children']):.1%} | {m['own'] / m['wall']:.2f} |"
        for side, m in med.items()
    ]
    which = f"--baseline {args.baseline}" if args.baseline else f"--baseline-tree {args.baseline_tree}"
    command = (
        f"`.venv/bin/python bench/job_process.py {which} --rounds {args.rounds} "
        f"--files {' '.join(args.files)} --duration {args.duration:g} --markdown docs/PERFORMANCE.md`"
    )
    base, cur = med["baseline"], med["current"]
    return "\n".join(
        [
            MARK_BEGIN,
            "## Batch jobs in worker processes, not in Snakemake's",
            "",
            f"Command: {command}. `reproduce-all` of the smoke profile's sweep of the files named (one seed per cell, "
            f"{args.duration:g} simulated seconds per run) from an empty results folder, all cores; *baseline*: a "
            "checkout of the commit named, whose simulate and aggregate jobs parse and compute in Snakemake's own "
            "process (the threads it runs `run:` bodies in); *current*: this tree, a worker process per job "
            "(experiments/workflow/worker.py). Same ns binary, same runs. Seconds, medians of the rounds, sides "
            "alternating.",
            "",
            "| side | wall | CPU of Snakemake's process | CPU of its children | Snakemake's share | "
            "Snakemake's cores (CPU / wall) |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
            f"Wall time current / baseline: {cur['wall'] / base['wall']:.2f}; CPU of Snakemake's process, current / "
            f"baseline: {cur['own'] / base['own']:.2f}; all CPU (own + children), current / baseline: "
            f"{(cur['own'] + cur['children']) / (base['own'] + base['children']):.2f} (a worker's start-up and "
            "imports are its cost).",
            MARK_END,
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
