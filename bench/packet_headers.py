"""Benchmark and check (issue 49, target 2): the packet headers a wired run registers (tcl/lib/headers.tcl).

    .venv/bin/python bench/packet_headers.py [--max-duration 5] [--papers koo_aqm psand] [--readings]
                                            [--markdown docs/PERFORMANCE.md]

Every matrix cell of every wired experiment of every paper (its first seed, cut to `--max-duration` simulated
seconds past its last flow start or stop, like the smoke profile), and with `--readings` every cell each
alternative reading changes: run by build/ns2/ns and tcl/driver.tcl twice, with `monitors.packet_headers` `all`
(stock ns-2's layout: room for every header class, zeroed on every packet) and `used` (the default). The two
must write the same bytes to every output file; a cell that differs, or that one side cannot run, is listed and
makes the exit status 1. CPU time (user + sys, os.wait4) of each side, the two sides alternating which runs
first; per paper the geometric mean of the ratios used / all (below 1 is faster). One run per cell and side:
the ratio of a single short run is noisy, the geometric mean over a paper's cells much less.
"""

from __future__ import annotations

import argparse
import copy
import filecmp
import json
import math
import shutil
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from perfdoc import publish, run_child  # noqa: E402
from run_disk import last_flow_event  # noqa: E402

from experiments.config.load import load  # noqa: E402
from experiments.config.readings import experiments_of, run_readings  # noqa: E402
from experiments.planning.expansion import Expansion  # noqa: E402

NS = REPO / "build" / "ns2" / "ns"
DRIVER = REPO / "tcl" / "driver.tcl"
MARK_BEGIN, MARK_END = "<!-- packet-headers:begin -->", "<!-- packet-headers:end -->"


def cell_params(doc: dict, source: Path, experiment: str, cap: float, readings: bool) -> dict[str, dict]:
    """{label: params} of the first seed of every cell (and of every cell a reading changes), at most `cap`
    simulated seconds past the last flow event; wireless cells are left out (they register every header)."""
    expansions = [Expansion(doc, source, experiment)]
    if readings:
        expansions += [
            Expansion(doc, source, experiment, r, each_level=True)
            for r in run_readings(doc)
            if experiment in experiments_of(doc, r)
        ]
    out, seen = {}, set()
    for runs in expansions:
        for i, cell in enumerate(runs.cells):
            params = runs.runs(i * runs.seeds, i * runs.seeds + 1)[0].params
            if params["topology"].get("kind") == "wireless":
                continue
            cut = max(cap, last_flow_event(params) + 1.0)
            if cap and float(params["duration"]) > cut:
                params = {**params, "duration": cut}
            label = f"{experiment} {runs.reading_label} " + " ".join(f"{k}={v}" for k, v in cell.labels.items())
            text = json.dumps(params, sort_keys=True)
            if text not in seen:  # a reading that does not change the cell runs the baseline's params
                seen.add(text)
                out[label] = params
    return out


def run_side(params: dict, which: str, directory: Path) -> tuple[float | None, str]:
    """(CPU seconds or None on failure, stderr) of one run with monitors.packet_headers = which."""
    directory.mkdir(parents=True)
    params = copy.deepcopy(params)
    params["monitors"]["packet_headers"] = which
    (directory / "params.json").write_text(json.dumps(params, indent=2, sort_keys=True))
    child = run_child([str(NS), str(DRIVER), str(directory)])
    return (None if child.returncode else child.cpu), child.stderr


def same_outputs(a: Path, b: Path) -> list[str]:
    """Names of the output files that differ (or exist on one side only); params.json aside."""
    names = ({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()}) - {"params.json"}
    return sorted(n for n in names if not ((a / n).exists() and (b / n).exists() and filecmp.cmp(a / n, b / n, False)))


def compare_cell(index: int, params: dict, tmp: Path) -> tuple[float | None, str]:
    """(CPU used / all, or None; what went wrong, or ""): both sides of one cell, alternating which runs first."""
    base = tmp / str(index)
    order = ["all", "used"] if index % 2 else ["used", "all"]
    result = {which: run_side(params, which, base / which) for which in order}
    failed = [f"{w}: {err.strip()[-200:]}" for w, (cpu, err) in result.items() if cpu is None]
    diff = [] if failed else same_outputs(base / "all", base / "used")
    shutil.rmtree(base)
    if failed or diff:
        return None, "; ".join(failed) or "differ: " + ", ".join(diff)
    return result["used"][0] / result["all"][0], ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-duration", type=float, default=5.0)
    ap.add_argument("--papers", nargs="*", help="papers (config file stems); default every configs/*.yaml")
    ap.add_argument("--readings", action="store_true", help="also every cell each alternative reading changes")
    ap.add_argument("--jobs", type=int, default=1, help="cells compared side by side")
    ap.add_argument("--markdown", type=Path, help="write the section into this file (docs/PERFORMANCE.md)")
    args = ap.parse_args(argv)
    files = sorted(p for p in (REPO / "configs").glob("*.yaml") if not args.papers or p.stem in args.papers)
    todo = []
    for source in files:
        doc = load(source)
        for experiment in doc["experiments"]:
            cells = cell_params(doc, source, experiment, args.max_duration, args.readings)
            todo += [(source.stem, label, params) for label, params in cells.items()]
    print(f"[headers] {len(todo)} cells", flush=True)
    ratios, bad, cells = defaultdict(list), [], len(todo)
    with tempfile.TemporaryDirectory(prefix="headers-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(compare_cell, i, params, Path(tmp)) for i, (_, _, params) in enumerate(todo)]
        for done, ((paper, label, _), future) in enumerate(zip(todo, futures, strict=True), 1):
            ratio, problem = future.result()
            if problem:
                bad.append(f"{paper} {label}: {problem}")
                print(f"[headers] {bad[-1]}", flush=True)
            else:
                ratios[paper].append(ratio)
            if done % 100 == 0:
                print(f"[headers] {done}/{cells} cells, {len(bad)} differ or fail", flush=True)
    command = ".venv/bin/python bench/packet_headers.py " + " ".join(argv if argv is not None else sys.argv[1:])
    publish("\n".join(markdown(ratios, bad, cells, args, command)), args.markdown, MARK_BEGIN, MARK_END)
    return 1 if bad else 0


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def markdown(ratios: dict[str, list[float]], bad: list[str], cells: int, args, command: str) -> list[str]:
    papers = " ".join(args.papers) if args.papers else "every paper"
    every = [r for values in ratios.values() for r in values]
    lines = [
        MARK_BEGIN,
        "## Packet headers: registering only those a wired run uses",
        "",
        f"Command: `{command}` ({papers}). Each wired matrix cell's first seed"
        + (" and, under each alternative reading, the cells holding every level of every axis" if args.readings else "")
        + f", cut to {args.max_duration:g} simulated s past its last flow event, run with `monitors.packet_headers`"
        " `all` (stock ns-2's layout) and `used` (the default, tcl/lib/headers.tcl); CPU of ns (user + sys), one run"
        " per side, alternating which runs first. Runs this short are mostly ns-2's start-up, so the ratios say"
        " little about the simulation proper (bench/ns2_speed.py's `:stock-layout` rows do); the identity is"
        " the point.",
        "",
        f"Cells: {cells}; outputs byte-identical on every cell both sides ran: **{'yes' if not bad else 'no'}**"
        + ("" if not bad else f" ({len(bad)} cells differ or fail, below)"),
        "",
        "| paper | cells | CPU used / all, geometric mean | min | max |",
        "|---|---|---|---|---|",
    ]
    for paper, values in sorted(ratios.items()):
        lines.append(f"| {paper} | {len(values)} | **{geomean(values):.3f}** | {min(values):.3f} | {max(values):.3f} |")
    if every:
        lines.append(f"| every paper | {len(every)} | **{geomean(every):.3f}** | {min(every):.3f} | {max(every):.3f} |")
    lines += [*([""] if bad else []), *[f"- {line}" for line in bad], MARK_END]
    return lines


if __name__ == "__main__":
    sys.exit(main())
