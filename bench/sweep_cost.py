"""Benchmark (issue 49, target 4): what a results folder's runs cost, read from the folder itself.

    .venv/bin/python bench/sweep_cost.py --results results [--by experiment] [--planned [--files F ...]]
        [--markdown docs/PERFORMANCE.md]

A sweep as big as the five papers' `sensitivity-all` outlives a session: it is stopped, resumed by key, paused
for other work, so no one invocation's /usr/bin/time is its cost. Each run leaves its own times in its directory:
the run writes params.json first (its start) and files.json last, after ns-2 and its parsing (its end). From those,
for every run a batch record of the folder names (a run found made, `cached`, counts where it was made):

- *run-hours*: the sum of the runs' durations (start to end), per paper (`--by experiment`: per experiment); with
  as many runs at a time as cores, about the CPU the runs and their parsing took;
- *busy*: the time in which at least one run was under way (the union of the runs' intervals): the sweep's wall
  time without its pauses and the gaps between invocations, and without what Snakemake does outside the runs
  (aggregation, reports), which a line of the section states apart when measured.

With `--planned` (run from the repository's root, with build/ns2/ns made), also how many distinct runs the default
profile's `reproduce-all sensitivity-all` plans per paper (every reading's cells; a seeding round's added seeds
are not planned ahead) and how many of them the folder holds made: what is left of a sweep under way, and a
forecast of its run-hours at each paper's (experiment's) seconds per run so far. `--files`: plan those experiment
files only (a sweep of one paper's file, or of a part of one: `python -m experiments cut`).
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


BY = ("paper", "experiment")


def group_of(paper: str, experiment: str, by: str) -> str:
    """The row a run of `paper`'s `experiment` is counted in: the paper, or paper/experiment."""
    return paper if by == "paper" else f"{paper}/{experiment}"


def run_groups(results: Path, by: str = "paper") -> dict[str, str]:
    """run key -> the paper (or paper/experiment) whose batch records name it first (every experiment, reading and
    seeding round)."""
    groups = {}
    # <paper>/<experiment>/batches, and under a reading's or a seeding round's folder (store.layout)
    patterns = ("*/*/batches/*.json", "*/*/readings/*/batches/*.json", "*/*/seeds/*/batches/*.json")
    for record in sorted(r for pattern in patterns for r in results.glob(pattern)):
        paper, experiment = record.relative_to(results).parts[:2]
        for run in json.loads(record.read_text()).get("runs", []):
            groups.setdefault(run["key"], group_of(paper, experiment, by))
    return groups


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


def measure(results: Path, by: str = "paper") -> dict:
    """Per paper (or experiment): runs, run-seconds, busy seconds, first start and last end; and the same for the
    whole folder."""
    by_group: dict[str, list[tuple[float, float]]] = {}
    missing = 0
    for key, group in run_groups(results, by).items():
        interval = run_interval(results / "runs" / key)
        if interval is None:
            missing += 1
            continue
        by_group.setdefault(group, []).append(interval)

    def summary(intervals: list[tuple[float, float]]) -> dict:
        return {
            "runs": len(intervals),
            "run_s": sum(stop - start for start, stop in intervals),
            "busy_s": busy_seconds(intervals),
            "first": min(start for start, _ in intervals),
            "last": max(stop for _, stop in intervals),
        }

    groups = {group: summary(intervals) for group, intervals in sorted(by_group.items())}
    everything = [i for intervals in by_group.values() for i in intervals]
    return {"groups": groups, "all": summary(everything) if everything else None, "missing": missing}


def planned(results: Path, config: dict | None = None, by: str = "paper") -> dict[str, tuple[int, int]]:
    """paper (or paper/experiment) -> (distinct runs the default profile plans for reproduce-all and
    sensitivity-all, how many of them `results` holds made); `config`: workflow settings over the default
    profile's (experiment_files, say). A run two experiments share counts under the first by name."""
    from experiments.planning.profiles import Settings
    from experiments.simulate.toolchain import Toolchain, key_of
    from experiments.workflow.plan_cache import cached_plan

    ns = Path("build/ns2/ns")
    plan = cached_plan(Settings.from_config(config or {}), ns)
    tools = Toolchain(ns, ns.with_name("manifest.json"), Path("tcl/driver.tcl"))
    code = tools.code_sha256
    keys: dict[str, set[str]] = {}
    seen: set[str] = set()
    # experiments in name order, as run_groups reads the records: a shared run counts under the same one in both
    for (paper, experiment, _), runs in sorted(plan.expansions.items(), key=lambda item: item[0][:2]):
        new = {key_of(run, tools, code) for run in runs.runs(0, len(runs))} - seen
        keys.setdefault(group_of(paper, experiment, by), set()).update(new)
        seen |= new
    made = {group: sum((results / "runs" / key / "files.json").exists() for key in k) for group, k in keys.items()}
    return {group: (len(k), made[group]) for group, k in sorted(keys.items())}


def run_hours_left(plan: dict[str, tuple[int, int]], groups: dict[str, dict]) -> dict[str, tuple[float, bool]]:
    """paper (or experiment) -> (the run-hours its unmade planned runs would take at its mean seconds per run so
    far, whether that mean is its paper's: an experiment with no run made yet, or whose runs were all made under
    another's name, goes at its paper's pace); those with every run made, or no mean to go by, left out."""

    def pace(group: str) -> tuple[float, bool] | None:
        if groups.get(group, {}).get("runs"):
            return groups[group]["run_s"] / groups[group]["runs"], False
        paper = [g for name, g in groups.items() if name.split("/")[0] == group.split("/")[0] and g["runs"]]
        if "/" not in group or not paper:
            return None
        return sum(g["run_s"] for g in paper) / sum(g["runs"] for g in paper), True

    left = {}
    for group, (n, m) in plan.items():
        if n > m and (found := pace(group)) is not None:
            left[group] = ((n - m) * found[0] / 3600, found[1])
    return left


def _hours(left: tuple[float, bool] | None, unmade: bool) -> str:
    """A row's run-hours left: 0 when every run is made, — when there is no mean to go by."""
    if left is None:
        return "—" if unmade else "0"
    return f"{left[0]:.2f}" + (" (paper's pace)" if left[1] else "")


def when(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d %H:%M")


def markdown(measured: dict, args: argparse.Namespace) -> str:
    flags = (f" --by {args.by}" if args.by != "paper" else "") + (" --planned" if args.planned else "")
    flags += f" --files {' '.join(args.files)}" if args.files else ""
    command = f"`.venv/bin/python bench/sweep_cost.py --results {args.results}{flags} --markdown docs/PERFORMANCE.md`"

    def row(name: str, m: dict) -> str:
        return (
            f"| {name} | {m['runs']:,} | {m['run_s'] / 3600:.2f} | {m['busy_s'] / 3600:.2f} | "
            f"{m['run_s'] / m['runs']:.2f} | {when(m['first'])} to {when(m['last'])} |"
        )

    rows = [row(group, m) for group, m in measured["groups"].items()]
    if measured["all"]:
        rows.append(row("all", measured["all"]))
    lost = f" {measured['missing']:,} runs named by a record left no complete directory." if measured["missing"] else ""
    plan = measured.get("planned")
    plan_lines = []
    if plan:
        left = run_hours_left(plan, measured["groups"])
        total, made = sum(n for n, _ in plan.values()), sum(m for _, m in plan.values())
        files = f" of {', '.join(args.files)}" if args.files else ""
        plan_lines = [
            "",
            f"Distinct runs the default profile's `reproduce-all sensitivity-all` plans{files} (seeding rounds' added "
            f"seeds aside), made in the folder: {made:,} of {total:,}. *Run-hours left*: the unmade runs at the "
            f"{args.by}'s seconds per run so far, a forecast, not a measurement (marked *paper's pace* where the "
            "experiment has no mean of its own and its paper's stands in; none where no run is made yet).",
            "",
            f"| {args.by} | planned | made | run-hours left |",
            "|---|---|---|---|",
            *(f"| {group} | {n:,} | {m:,} | {_hours(left.get(group), n > m)} |" for group, (n, m) in plan.items()),
        ]
        if left:
            unforecast = sum(n > m and group not in left for group, (n, m) in plan.items())
            where = " (where a mean exists)" if unforecast else ""
            plan_lines.append(f"| all | {total:,} | {made:,} | {sum(h for h, _ in left.values()):.2f}{where} |")
    return "\n".join(
        [
            MARK_BEGIN,
            f"## A results folder's runs, from the folder: `{args.results}`",
            "",
            f"Command: {command}. Every run a batch record of the folder names, counted once, under the {args.by} "
            "whose records name it first: *run-hours*, the sum of each run's time from its start (params.json "
            "written) to its end (files.json written, after ns-2 and its parsing), about the CPU of the runs when as "
            "many run at a time as there are cores; *busy hours*, the time in which at least one run was under way "
            "(the union of their intervals: pauses and the gaps between invocations left out, and Snakemake's own "
            f"work outside the runs too); *span*, first start to last end (UTC).{lost}",
            "",
            f"| {args.by} | runs | run-hours | busy hours | seconds per run | span |",
            "|---|---|---|---|---|---|",
            *rows,
            *plan_lines,
            MARK_END,
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, required=True, help="the results folder to read")
    parser.add_argument("--by", choices=BY, default="paper", help="a row per paper (default) or per experiment")
    parser.add_argument("--planned", action="store_true", help="also the default profile's planned runs, made or not")
    parser.add_argument("--files", nargs="+", help="with --planned: these experiment files only (default: every one)")
    parser.add_argument("--markdown", type=Path, help="write the results into this file's sweep-cost section")
    args = parser.parse_args()
    if not (args.results / "runs").is_dir():
        raise SystemExit(f"{args.results}: no runs/ folder here (--results takes a results folder)")
    if args.files and not args.planned:
        raise SystemExit("--files: only with --planned (it names the files whose plan is counted)")
    measured = measure(args.results, args.by)
    if args.planned:
        measured["planned"] = planned(args.results, {"experiment_files": args.files} if args.files else None, args.by)
    publish(markdown(measured, args), args.markdown, MARK_BEGIN, MARK_END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
