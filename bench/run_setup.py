"""Benchmark (issue 49, target 2): ns-2 and the scenario library of a baseline commit against this tree's, on
one run of every experiment of every paper.

    .venv/bin/python bench/run_setup.py (--baseline <commit> | --baseline-tree <checkout>) [--max-duration 5]
                                        [--repeats 3] [--papers psand pisa_pimc] [--markdown docs/PERFORMANCE.md]

*baseline*: the commit's ns binary (its ns2-patches built by its own ns2_build.py, so from the build cache when it
was built before) with the commit's tcl/ driver and library (or a checkout's, `--baseline-tree`); *current*:
build/ns2/ns with this tree's tcl/. Each experiment's first run (first matrix cell, first seed, baseline reading),
cut to `--max-duration` simulated seconds when longer (past its last flow start or stop; 0: the full run). The
smoke profile's runs are 5 s long, so the default shows what a start-up costs against a short run; a longer cap
shows the same change on more simulation.

Per experiment: ns's CPU time (user + sys, os.wait4) on each side, medians of `--repeats` rounds alternating the
order, their ratio (current / baseline, below 1 is faster), and whether the two sides wrote the same bytes to every
output file (the changes measured here must not move an output).
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from perfdoc import alternating, publish  # noqa: E402
from run_cost import first_run_params, ns_cpu  # noqa: E402

from experiments.config.load import load  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- run-setup:begin -->", "<!-- run-setup:end -->"


def baseline_side(commit: str | None, tree: Path | None, where: Path) -> tuple[Path, Path]:
    """(ns binary, driver.tcl) of `commit` (or of the checkout `tree`): its ns2-patches built by its own
    ns2_build.py, its tcl/ as it was."""
    where.mkdir(parents=True)
    if commit:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", commit, "ns2-patches", "tcl"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    else:
        for part in ("ns2-patches", "tcl"):
            shutil.copytree(tree / part, where / part)
    build = where / "build"
    subprocess.run(
        [sys.executable, str(where / "ns2-patches" / "ns2_build.py"), "--out", str(build)], check=True, cwd=where
    )
    return build / "ns", where / "tcl" / "driver.tcl"


def outputs(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def compare(baseline: dict[str, bytes], current: dict[str, bytes]) -> tuple[set[str], set[str]]:
    """(files both sides wrote with other bytes, files only one side wrote)."""
    both = baseline.keys() & current.keys()
    return {name for name in both if baseline[name] != current[name]}, baseline.keys() ^ current.keys()


def measure(sides: dict[str, tuple[Path, Path]], params: dict, repeats: int, scratch: Path) -> dict:
    """Median CPU seconds per side, and which output files differ (bytes of a file both sides wrote, or a file only
    one side wrote) in any round. A run the baseline cannot make (a parameter its scenario library does not know)
    gives `unrunnable` instead."""
    cpu: dict[str, list[float]] = {side: [] for side in sides}
    differing: set[str] = set()
    one_side: set[str] = set()
    for _, side in alternating(sides, repeats):
        ns, driver = sides[side]
        try:
            cpu[side].append(ns_cpu(ns, params, scratch / side, driver))
        except SystemExit as failed:
            if side != "baseline":
                raise
            return {"unrunnable": str(failed).splitlines()[-1][:200]}
        if len(cpu["baseline"]) == len(cpu["current"]):  # a round's two sides done: compare their outputs
            changed, only = compare(outputs(scratch / "baseline"), outputs(scratch / "current"))
            differing, one_side = differing | changed, one_side | only
    medians = {side: statistics.median(values) for side, values in cpu.items()}
    return medians | {"same": not differing, "differing": sorted(differing), "one_side": sorted(one_side)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    side = parser.add_mutually_exclusive_group(required=True)
    side.add_argument("--baseline", help="the commit to compare with (its ns2-patches and tcl/)")
    side.add_argument("--baseline-tree", type=Path, help="or a checkout made by hand (its ns2-patches and tcl/)")
    parser.add_argument("--max-duration", type=float, default=5.0, help="cap each run's simulated seconds (0: none)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--papers", nargs="*", help="paper short names (default: every file in configs/)")
    parser.add_argument("--markdown", type=Path, help="write the results into this file's run-setup section")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="run-setup-") as scratch:
        sides = {
            "baseline": baseline_side(args.baseline, args.baseline_tree, Path(scratch) / "baseline-tree"),
            "current": (REPO / "build" / "ns2" / "ns", REPO / "tcl" / "driver.tcl"),
        }
        for path in sorted((REPO / "configs").glob("*.yaml")):
            doc = load(path)
            if args.papers and doc["paper"] not in args.papers:
                continue
            for experiment in doc["experiments"]:
                params, duration = first_run_params(doc, str(path), experiment, args.max_duration)
                row = {"paper": doc["paper"], "experiment": experiment, "duration": duration}
                row |= measure(sides, params, args.repeats, Path(scratch) / "runs")
                row["flows"] = len(params["flows"])
                if "unrunnable" in row:
                    print(f"{row['paper']}/{experiment}: the baseline cannot run it: {row['unrunnable']}", flush=True)
                    continue
                rows.append(row)
                print(
                    f"{row['paper']}/{experiment} ({duration:g} s, {row['flows']} flows): baseline "
                    f"{row['baseline']:.2f} s, current {row['current']:.2f} s = {ratio(row):.2f}, "
                    f"same outputs: {row['same']} (differing: {', '.join(row['differing']) or 'none'}; "
                    f"one side only: {', '.join(row['one_side']) or 'none'})",
                    flush=True,
                )
    section = markdown(rows, args)
    publish(section, args.markdown, MARK_BEGIN, MARK_END)
    return 0 if all(r["same"] for r in rows) else 1


def ratio(row: dict) -> float:
    return row["current"] / row["baseline"]


def markdown(rows: list[dict], args: argparse.Namespace) -> str:
    against = f"--baseline {args.baseline}" if args.baseline else f"--baseline-tree {args.baseline_tree}"
    options = f" {against} --max-duration {args.max_duration:g} --repeats {args.repeats}"
    options += f" --papers {' '.join(args.papers)}" if args.papers else ""
    lines = [
        MARK_BEGIN,
        "## A run's start-up: ns-2 and the scenario library against a baseline commit",
        "",
        f"Command: `.venv/bin/python bench/run_setup.py{options} --markdown docs/PERFORMANCE.md`. One run per "
        "experiment (first cell, first seed), cut to the simulated seconds shown; *baseline* is the commit's ns "
        "binary (its patch series) with its tcl/, *current* this tree's. CPU seconds of ns (user + sys), medians of "
        f"{args.repeats} rounds alternating the order. Ratio = current / baseline (below 1 is faster). *Same "
        "outputs*: every file both sides wrote, byte for byte, in every round (files only one side wrote, and the "
        "experiments the baseline cannot run, are listed below the table).",
        "",
        "| experiment | flows | s | baseline | current | **current / baseline** | same outputs |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['paper']}/{r['experiment']} | {r['flows']} | {r['duration']:g} | {r['baseline']:.2f} | "
            f"{r['current']:.2f} | **{ratio(r):.2f}** | {'yes' if r['same'] else '**no**'} |"
        )
    geo = math.exp(statistics.fmean(math.log(ratio(r)) for r in rows)) if rows else float("nan")
    total = sum(r["current"] for r in rows) / sum(r["baseline"] for r in rows) if rows else float("nan")
    lines += [
        "",
        f"Geometric mean of the ratios: **{geo:.3f}**; all these runs' CPU together, current / baseline: "
        f"**{total:.3f}**; outputs the same in {sum(r['same'] for r in rows)} of {len(rows)} experiments.",
    ]
    one_side = sorted({name for r in rows for name in r["one_side"]})
    if one_side:
        lines += ["", f"Written by one side only: {', '.join(f'`{name}`' for name in one_side)}."]
    differing = [f"{r['paper']}/{r['experiment']} ({', '.join(r['differing'])})" for r in rows if r["differing"]]
    if differing:
        lines += ["", f"Files that differ: {'; '.join(differing)}."]
    lines += [
        MARK_END,
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
