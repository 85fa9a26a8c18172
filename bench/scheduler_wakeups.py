"""Benchmark (issue 49, target 3): Snakemake's scheduler waking once per span instead of once per finished job.

    .venv/bin/python bench/scheduler_wakeups.py --baseline <commit> [--rounds 2] [--files configs/psand.yaml]
        [--duration 5] [--markdown docs/PERFORMANCE.md]

The same sweep, from an empty results folder each time, with two versions of the code: *baseline*, a git worktree of
`--baseline` (a commit without experiments/workflow/scheduler.py: the pinned Snakemake's scheduler arms a timer at
the end of every pass, so each finished job adds a chain of wake-ups), and *current*, this working tree (one
pending wake-up). Both use this tree's ns binary and virtualenv: the runs are the same. The sweep is the smoke
profile's (one seed per cell) of `--files`, each run `--duration` simulated seconds, target `reproduce-all`, all
cores: short runs, so that jobs finish often and many wait, as in a large sweep.

Measured per invocation (bench/job_process.py's `sweep`): wall time, CPU of Snakemake's own process (getrusage
RUSAGE_SELF at its exit: its scheduler), CPU of everything it waited for. Rounds alternate the order of the sides;
medians.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from job_process import sweep, worktree  # noqa: E402
from perfdoc import publish  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- scheduler-wakeups:begin -->", "<!-- scheduler-wakeups:end -->"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="a commit before experiments/workflow/scheduler.py")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--files", nargs="+", default=["configs/psand.yaml"])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    times: dict[str, list[dict]] = {"baseline": [], "current": []}
    with tempfile.TemporaryDirectory(prefix="scheduler-wakeups-") as scratch_dir:
        scratch = Path(scratch_dir)
        made = worktree(args.baseline, scratch / "baseline")
        trees = {"baseline": made, "current": REPO}
        try:
            for r in range(args.rounds):
                for side in list(times) if r % 2 == 0 else list(times)[::-1]:
                    results = scratch / f"results-{side}-{r}"
                    times[side].append(sweep(trees[side], results, args))
                    shutil.rmtree(results)
                    t = times[side][-1]
                    print(f"round {r + 1} {side}: {t['wall']:.1f} s wall, own CPU {t['own']:.1f} s", flush=True)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(made)])
    publish(markdown(times, args), args.markdown, MARK_BEGIN, MARK_END)
    return 0


def markdown(times: dict[str, list[dict]], args: argparse.Namespace) -> str:
    med = {
        side: {k: statistics.median(t[k] for t in ts) for k in ("wall", "own", "children")}
        for side, ts in times.items()
    }
    rows = [
        f"| {side} | {m['wall']:.1f} | {m['own']:.1f} | {m['children']:.1f} | {m['own'] / m['wall']:.2f} |"
        for side, m in med.items()
    ]
    command = (
        f"`.venv/bin/python bench/scheduler_wakeups.py --baseline {args.baseline} --rounds {args.rounds} "
        f"--files {' '.join(args.files)} --duration {args.duration:g} --markdown docs/PERFORMANCE.md`"
    )
    base, cur = med["baseline"], med["current"]
    return "\n".join(
        [
            MARK_BEGIN,
            "## Snakemake's scheduler: one pending wake-up",
            "",
            f"Command: {command}. `reproduce-all` of the smoke profile's sweep of the files named (one seed per cell, "
            f"{args.duration:g} simulated seconds per run) from an empty results folder, all cores; *baseline*: a "
            "checkout of the commit named, with the pinned Snakemake's scheduler as shipped (a timer armed at the end "
            "of every pass: each finished job adds a chain of wake-ups once a second); *current*: this tree "
            "(experiments/workflow/scheduler.py: one pending wake-up). Same ns binary, same runs. Seconds, medians "
            "of the rounds, sides alternating.",
            "",
            "| side | wall | CPU of Snakemake's process | CPU of its children | Snakemake's cores (CPU / wall) |",
            "|---|---|---|---|---|",
            *rows,
            "",
            f"CPU of Snakemake's process, current / baseline: **{cur['own'] / base['own']:.2f}**; wall time current "
            f"/ baseline: {cur['wall'] / base['wall']:.2f}.",
            MARK_END,
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
