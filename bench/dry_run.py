"""Benchmark (issue 49, target 6): how long a Snakemake command takes before it does anything.

    .venv/bin/python bench/dry_run.py [--rounds 3] [--results DIR] [--markdown docs/PERFORMANCE.md]

`snakemake -n reproduce-all` on every file in configs/ (default profile), a fresh process each time, timed with
os.wait4: *cold*, with an empty cache folder ($NS2REPRO_CACHE: no cached plan, no cached knob names), as the first
command after a change to a file or the code; *warm*, right after, with the plan the cold one cached
(experiments/workflow/plan_cache.py), as every later command and every Slurm job. Rounds alternate nothing (a warm
run needs its cold one first); medians. Target: a warm dry run of all five papers under 5 s of wall time.

`--results`: the results folder the dry run looks at (default: a new empty one, where every job is to run). A
folder a whole sweep has filled asks Snakemake to look at every job's outputs and records instead: the start-up
of the same command run again after a sweep, or of a sweep resumed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from perfdoc import medians, publish, run_child  # noqa: E402

# one section for a new results folder, one for a folder given with --results
MARKS = {
    False: ("<!-- dry-run:begin -->", "<!-- dry-run:end -->"),
    True: ("<!-- dry-run-full:begin -->", "<!-- dry-run-full:end -->"),
}
COMMAND = [str(REPO / ".venv" / "bin" / "snakemake"), "-n", "reproduce-all", "--quiet"]
TARGET_S = 5.0


def timed(cache: Path, results: Path) -> dict:
    """Wall and CPU seconds of one dry run with `cache` as the cache folder, into `results`."""
    command = [*COMMAND, "--config", f"results={results}"]
    child = run_child(command, cwd=REPO, env={**os.environ, "NS2REPRO_CACHE": str(cache)})
    if child.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{child.stderr[-2000:]}")
    return {"wall": child.wall, "cpu": child.cpu}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--results", type=Path, help="the results folder to look at (default: a new empty one)")
    parser.add_argument("--markdown", type=Path, help="write the results into this file's dry-run section")
    args = parser.parse_args()
    sides: dict[str, list[dict]] = {"cold": [], "warm": []}
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="dry-run-cache-") as cache:
            results = args.results.resolve() if args.results else Path(cache) / "results"
            for side in sides:
                sides[side].append(timed(Path(cache), results))
                print(f"round {r + 1}: {side} {sides[side][-1]['wall']:.2f} s wall", flush=True)
    section = markdown(medians(sides), args)
    publish(section, args.markdown, *MARKS[args.results is not None])
    return 0


def markdown(medians: dict, args: argparse.Namespace) -> str:
    cold, warm = medians["cold"], medians["warm"]
    met = "met" if warm["wall"] < TARGET_S else "missed"
    folder = f" --results {args.results}" if args.results else ""
    command = f".venv/bin/python bench/dry_run.py --rounds {args.rounds}{folder} --markdown docs/PERFORMANCE.md"
    runs_dir = args.results / "runs" if args.results else None
    held = sum(1 for p in runs_dir.iterdir() if "." not in p.name) if runs_dir and runs_dir.is_dir() else 0
    into = (
        f"into `{args.results}`, a results folder holding {held:,} runs"
        if args.results
        else "into a new empty results folder (every job to run)"
    )
    how = (
        f"`snakemake -n reproduce-all --quiet` on the default profile {into}, a fresh process each time; *cold* with "
        "an empty "
        "cache folder (the first command after a change to a file or to the code plans every file), *warm* right "
        f"after it (the plan read back). Medians of {args.rounds} rounds. Where Slurm is configured but not running, "
        "every Snakemake command first waits for `scontrol` to give up (the Slurm executor plugin asks it when "
        "loaded): measure with Slurm up, or where it is absent."
    )
    begin, end = MARKS[args.results is not None]
    lines = [
        begin,
        "## Start-up: a dry run of all five papers" + (", its results folder full" if args.results else ""),
        "",
        f"Command: `{command}`. {how}",
        "",
        "| | wall s | CPU s |",
        "|---|---|---|",
        f"| cold | {cold['wall']:.2f} | {cold['cpu']:.2f} |",
        f"| warm | {warm['wall']:.2f} | {warm['cpu']:.2f} |",
        "",
        f"Warm / cold wall time: **{warm['wall'] / cold['wall']:.2f}**. Target, a warm dry run under {TARGET_S:g} s "
        f"of wall time: **{met}**.",
        end,
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
