"""Benchmark (issue 49, target 3): Snakemake's scheduler waking once per span instead of once per finished job.

    .venv/bin/python bench/scheduler_wakeups.py [--jobs 1500] [--job-seconds 0.05] [--rounds 2]
        [--markdown docs/PERFORMANCE.md]

A workflow of its own that holds nothing but the scheduler's work: `--jobs` independent jobs, each a `run:` body
that sleeps `--job-seconds` (as a batch job waits on its worker) with two inputs (as a batch job has the ns binary
and its manifest), all cores, Snakemake's process threads as the default profile sets (force-use-threads). Two
sides in the same run, alternating: *stock*, the pinned Snakemake as shipped (a timer armed at the end of every
scheduling pass, so each finished job adds a chain of wake-ups once a second for as long as jobs wait); *one
wake-up*, the same workflow calling experiments/workflow/scheduler.one_pending_reevaluation() first, as
workflows/common.smk does. Measured: wall time and the CPU of Snakemake's process (os.wait4), whose every second
beyond the jobs' own is the scheduler's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from perfdoc import alternating, medians, publish, run_child  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- scheduler-wakeups:begin -->", "<!-- scheduler-wakeups:end -->"
SIDES = {
    "stock": "",
    "one wake-up": "from experiments.workflow import scheduler\nscheduler.one_pending_reevaluation()\n",
}

SNAKEFILE = """import time
{patch}

rule all:
    input:
        expand("done/{{i}}", i=range({jobs})),


rule job:
    input:
        "tool",
        "manifest",
    output:
        "done/{{i}}",
    run:
        time.sleep({seconds})
        open(output[0], "w").close()
"""


def side(patch: str, folder: Path, args: argparse.Namespace) -> dict:
    """Wall and CPU seconds of one invocation of the workflow in `folder`."""
    folder.mkdir()
    (folder / "Snakefile").write_text(SNAKEFILE.format(patch=patch, jobs=args.jobs, seconds=args.job_seconds))
    for name in ("tool", "manifest"):  # a batch job's two inputs (the ns binary, its manifest)
        (folder / name).write_text(name)
    command = [str(REPO / ".venv" / "bin" / "snakemake"), "--cores", "all", "--force-use-threads", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = run_child(command, cwd=folder, env=env)
    if child.returncode:
        raise SystemExit(f"the workflow failed in {folder}:\n{child.stderr[-2000:]}")
    return {"wall": child.wall, "cpu": child.cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=1500)
    parser.add_argument("--job-seconds", type=float, default=0.05)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    times: dict[str, list[dict]] = {name: [] for name in SIDES}
    with tempfile.TemporaryDirectory(prefix="scheduler-wakeups-") as scratch:
        for r, name in alternating(SIDES, args.rounds):
            times[name].append(side(SIDES[name], Path(scratch) / f"{r}-{name.replace(' ', '_')}", args))
            t = times[name][-1]
            print(f"round {r + 1} {name}: {t['wall']:.1f} s wall, {t['cpu']:.1f} s CPU", flush=True)
    publish(markdown(times, args), args.markdown, MARK_BEGIN, MARK_END)
    return 0


def markdown(times: dict[str, list[dict]], args: argparse.Namespace) -> str:
    med = medians(times)
    rows = [f"| {name} | {m['wall']:.1f} | {m['cpu']:.1f} | {m['cpu'] / m['wall']:.2f} |" for name, m in med.items()]
    command = (
        f"`.venv/bin/python bench/scheduler_wakeups.py --jobs {args.jobs} --job-seconds {args.job_seconds:g} "
        f"--rounds {args.rounds} --markdown docs/PERFORMANCE.md`"
    )
    stock, patched = med["stock"], med["one wake-up"]
    return "\n".join(
        [
            MARK_BEGIN,
            "## Snakemake's scheduler: one pending wake-up",
            "",
            f"Command: {command}. A workflow of {args.jobs} independent jobs, each a `run:` body sleeping "
            f"{args.job_seconds:g} s, all cores, threads as the default profile sets; *stock*: the pinned Snakemake "
            "as shipped (each finished job adds a chain of wake-ups once a second); *one wake-up*: the same, with "
            "experiments/workflow/scheduler.py's patch, as workflows/common.smk applies it. Seconds, medians of the "
            "rounds, sides alternating.",
            "",
            "| side | wall | CPU of Snakemake's process | cores (CPU / wall) |",
            "|---|---|---|---|",
            *rows,
            "",
            f"CPU of Snakemake's process, one wake-up / stock: **{patched['cpu'] / stock['cpu']:.2f}**; wall time "
            f"one wake-up / stock: {patched['wall'] / stock['wall']:.2f}.",
            MARK_END,
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
