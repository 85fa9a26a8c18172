"""Benchmark (issue 49, target 4): what a results folder's runs cost, read from the folder itself.

    .venv/bin/python bench/sweep_cost.py --results results [--planned] [--markdown docs/PERFORMANCE.md]

A sweep as big as the five papers' `sensitivity-all` outlives a session: it is stopped, resumed by key, paused
for other work, so no one invocation's /usr/bin/time is its cost. Each run leaves its own times in its directory:
the run writes params.json first (its start) and files.json last, after ns-2 and its parsing (its end). From those,
for every run a batch record of the folder names (a run found made, `cached`, counts where it was made):

- *run-hours*: the sum of the runs' durations (start to end), per paper; with as many runs at a time as cores,
  about the CPU the runs and their parsing took;
- *busy*: the time in which at least one run was under way (the union of the runs' intervals): the sweep's wall
  time without its pauses and the gaps between invocations, and without what Snakemake does outside the runs
  (aggregation, reports), which a line of the section states apart when measured.

With `--planned` (run from the repository's root, with build/ns2/ns made), also how many distinct runs the default
profile's `reproduce-all sensitivity-all` plans per paper (every reading's cells; a seeding round's added seeds
are not planned ahead) and how many of them the folder holds made: what is left of a sweep under way.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from perfdoc import publish  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- sweep-cost:begin -->", "<!-- sweep-cost:end -->"


def run_papers(results: Path) -> dict[str, str]:
    """run key -> the paper whose batch records name it (every experiment, reading and seeding round)."""
    papers = {}
    # <paper>/<experiment>/batches, and under a reading's or a seeding round's folder (store.layout)
    patterns = ("*/*/batches/*.json", "*/*/readings/*/batches/*.json", "*/*/seeds/*/batches/*.json")
    for record in (r for pattern in patterns for r in results.glob(pattern)):
        paper = record.relative_to(results).parts[0]
        for run in json.loads(record.read_text()).get("runs", []):
            papers.setdefault(run["key"], paper)
    return papers


def run_interval(directory: Path) -> tuple[float, float] | None:
    """(start, end) of a run from its files' times, or None for a run that left no complete directory."""
    try:
        return directory.joinpath("params.json").stat().st_mtime, directory.joinpath("files.json").stat().st_mtime
    except FileNotFoundError:
        return None


def busy_seconds(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of the intervals."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop <= end:
            continue
        total += stop - max(start, end)
        end = stop
    return total


def measure(results: Path) -> dict:
    """Per paper: runs, run-seconds, busy seconds, first start and last end; and the same for the whole folder."""
    by_paper: dict[str, list[tuple[float, float]]] = {}
    missing = 0
    for key, paper in run_papers(results).items():
        interval = run_interval(results / "runs" / key)
        if interval is None:
            missing += 1
            continue
        by_paper.setdefault(paper, []).append(interval)

    def summary(intervals: list[tuple[float, float]]) -> dict:
        return {
            "runs": len(intervals),
            "run_s": sum(stop - start for start, stop in intervals),
            "busy_s": busy_seconds(intervals),
            "first": min(start for start, _ in intervals),
            "last": max(stop for _, stop in intervals),
        }

    papers = {paper: summary(intervals) for paper, intervals in sorted(by_paper.items())}
    everything = [i for intervals in by_paper.values() for i in intervals]
    return {"papers": papers, "all": summary(everything) if everything else None, "missing": missing}


def planned(results: Path, config: dict | None = None) -> dict[str, tuple[int, int]]:
    """paper -> (distinct runs the default profile plans for reproduce-all and sensitivity-all, how many of them
    `results` holds made); `config`: workflow settings instead of the default profile's (tests)."""
    from experiments.planning.profiles import Settings
    from experiments.simulate.toolchain import Toolchain, key_of
    from experiments.workflow.plan_cache import cached_plan

    ns = Path("build/ns2/ns")
    plan = cached_plan(Settings.from_config(config or {}), ns)
    tools = Toolchain(ns, ns.with_name("manifest.json"), Path("tcl/driver.tcl"))
    code = tools.code_sha256
    keys: dict[str, set[str]] = {}
    for (paper, _, _), runs in plan.expansions.items():
        keys.setdefault(paper, set()).update(key_of(run, tools, code) for run in runs.runs(0, len(runs)))
    made = {paper: sum((results / "runs" / key / "files.json").exists() for key in k) for paper, k in keys.items()}
    return {paper: (len(k), made[paper]) for paper, k in sorted(keys.items())}


def run_hours_left(plan: dict[str, tuple[int, int]], papers: dict[str, dict]) -> dict[str, float]:
    """paper -> the run-hours its unmade planned runs would take at its mean seconds per run so far; papers with
    every run made, or none made yet (no mean to go by), left out."""
    return {
        paper: (n - m) * papers[paper]["run_s"] / papers[paper]["runs"] / 3600
        for paper, (n, m) in plan.items()
        if n > m and papers.get(paper, {}).get("runs")
    }


def when(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M")


def markdown(measured: dict, args: argparse.Namespace) -> str:
    flag = " --planned" if args.planned else ""
    command = f"`.venv/bin/python bench/sweep_cost.py --results {args.results}{flag} --markdown docs/PERFORMANCE.md`"
    rows = [
        f"| {paper} | {m['runs']:,} | {m['run_s'] / 3600:.1f} | {m['busy_s'] / 3600:.1f} | "
        f"{m['run_s'] / m['runs']:.2f} | {when(m['first'])} to {when(m['last'])} |"
        for paper, m in measured["papers"].items()
    ]
    whole = measured["all"]
    if whole:
        rows.append(
            f"| all | {whole['runs']:,} | {whole['run_s'] / 3600:.1f} | {whole['busy_s'] / 3600:.1f} | "
            f"{whole['run_s'] / whole['runs']:.2f} | {when(whole['first'])} to {when(whole['last'])} |"
        )
    lost = f" {measured['missing']:,} runs named by a record left no complete directory." if measured["missing"] else ""
    plan = measured.get("planned")
    plan_lines = []
    if plan:
        total, made = sum(n for n, _ in plan.values()), sum(m for _, m in plan.values())
        each = "; ".join(f"{paper} {m:,} of {n:,}" for paper, (n, m) in plan.items())
        plan_lines = [
            "",
            f"Distinct runs the default profile's `reproduce-all sensitivity-all` plans (seeding rounds' added seeds "
            f"aside), made in the folder: {made:,} of {total:,} ({each}).",
        ]
        left = run_hours_left(plan, measured["papers"])
        if left:
            plan_lines.append(
                "Run-hours left at each paper's seconds per run so far (a forecast, not a measurement; a paper with "
                "none made yet is left out): "
                + "; ".join(f"{paper} {hours:.1f}" for paper, hours in left.items())
                + "."
            )
    return "\n".join(
        [
            MARK_BEGIN,
            f"## A results folder's runs, from the folder: `{args.results}`",
            "",
            f"Command: {command}. Every run a batch record of the folder names, counted once, under the paper whose "
            "records name it: *run-hours*, the sum of each run's time from its start (params.json written) to its "
            "end (files.json written, after ns-2 and its parsing), about the CPU of the runs when as many run at a "
            "time as there are cores; *busy hours*, the time in which at least one run was under way (the union of "
            "their intervals: pauses and the gaps between invocations left out, and Snakemake's own work outside "
            f"the runs too); *span*, first start to last end (UTC).{lost}",
            "",
            "| paper | runs | run-hours | busy hours | seconds per run | span |",
            "|---|---|---|---|---|---|",
            *rows,
            *plan_lines,
            MARK_END,
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, required=True, help="the results folder to read")
    parser.add_argument("--planned", action="store_true", help="also the default profile's planned runs, made or not")
    parser.add_argument("--markdown", type=Path, help="write the results into this file's sweep-cost section")
    args = parser.parse_args()
    if not (args.results / "runs").is_dir():
        raise SystemExit(f"{args.results}: no runs/ folder here (--results takes a results folder)")
    measured = measure(args.results)
    if args.planned:
        measured["planned"] = planned(args.results)
    publish(markdown(measured, args), args.markdown, MARK_BEGIN, MARK_END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
