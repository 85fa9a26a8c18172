"""Benchmark (issue 49, target 1): what a run costs beside its own simulation, per experiment of every paper.

    .venv/bin/python bench/run_cost.py [--max-duration 20] [--repeats 3] [--papers koo_aqm psand]
                                       [--markdown docs/PERFORMANCE.md]

One representative run per experiment of each file in configs/ (its first matrix cell, first seed, the baseline
reading), cut to `--max-duration` simulated seconds when longer (but past its last flow start or stop). Each round
times, on fresh directories:

- *bare*: ns with no output beyond its samplers (the run's params with `monitors.packet_trace: false`), the
  denominator: what the simulation itself costs (for a run without packet events, its own ns);
- *run*: what the pipeline does with that run: ns as configured, then its tables made and written
  (`parsers.run_tables`, `parsers.write_tables`) and `measure.run.run_metrics` on those tables as they are in memory
  (in this process, imports already warm, as a batch job does it);
- *text*, for an experiment with packet events: the same with `packet_trace: text`, ns-2's text trace, which every
  such run wrote before patch 0019 (the same run's cost the way it was, measured beside it).

CPU time is user + sys: of the ns child (os.wait4) and of this process around each call (time.process_time,
all threads). Rounds alternate the order of the sides; medians of `--repeats` rounds. The ratio is
(ns + parsing + metrics) / bare ns; the target is at most 1.5 for every experiment.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from perfdoc import alternating, medians, publish, run_child  # noqa: E402
from run_disk import last_flow_event, shortened  # noqa: E402

import parsers  # noqa: E402
from experiments.config.load import analysis_settings, load  # noqa: E402
from experiments.measure.run import run_metrics  # noqa: E402
from experiments.planning.expansion import Expansion  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- run-cost:begin -->", "<!-- run-cost:end -->"
DRIVER = REPO / "tcl" / "driver.tcl"
TARGET = 1.5


def first_run_params(doc: dict, source: str, experiment: str, cap: float | None) -> tuple[dict, float]:
    """The experiment's first run's params.json, at most `cap` simulated seconds (past its last flow event)."""
    runs = Expansion(doc, source, experiment)
    params = runs.runs(0, 1)[0].params
    full = float(params["duration"])
    if cap and full > cap:
        params = shortened(runs, min(full, max(cap, last_flow_event(params) + 1.0))).params
    return params, float(params["duration"])


def ns_cpu(ns: Path, params: dict, directory: Path, driver: Path = DRIVER) -> float:
    """CPU seconds of one ns run of `params` in `directory` (made anew; the outputs stay there)."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    (directory / "params.json").write_text(json.dumps(params, indent=2, sort_keys=True))
    child = run_child([str(ns), str(driver), str(directory)])
    if child.returncode:
        raise SystemExit(f"{ns} {driver} failed on {directory}: {child.stderr}")
    return child.cpu


def cpu_of(call) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def pipeline_cpu(ns: Path, params: dict, directory: Path, warmup: float, analysis: dict) -> tuple[dict, tuple]:
    """ns, parsing and metrics of one run, CPU seconds each, and the run's (metrics, series) tables."""
    cost = {"ns": ns_cpu(ns, params, directory)}
    context = parsers.run_context(directory, {"seed": params["seed"], "run_key": directory.name})
    held = {}

    def parse() -> None:
        held.update(parsers.run_tables(directory))
        parsers.write_tables(held, directory / "tables", context)

    cost["parse"] = cpu_of(parse)
    keys = ("queue_thresholds", "queue_ranges", "settle", "fec_blocks")
    settings = {k: analysis[k] for k in keys if k in analysis}
    tables = []
    cost["metrics"] = cpu_of(lambda: tables.extend(run_metrics(directory, warmup, **settings, held=held)))
    cost["total"] = cost["ns"] + cost["parse"] + cost["metrics"]
    return cost, tuple(tables)


def same_tables(a: tuple, b: tuple) -> bool:
    """Whether two runs' (metrics, series) tables hold the same rows, exactly."""
    return all(x.reset_index(drop=True).equals(y.reset_index(drop=True)) for x, y in zip(a, b, strict=True))


def with_packet_trace(params: dict, value) -> dict:
    params = copy.deepcopy(params)
    params["monitors"]["packet_trace"] = value
    return params


def measure(ns: Path, params: dict, exp: dict, repeats: int, scratch: Path) -> dict:
    """Medians over the rounds of each side's CPU seconds."""
    mode = params["monitors"].get("packet_trace", True)
    # Without packet events the run's own ns is the bare simulation: timing it twice would only show noise.
    sides = {"run": params} if mode is False else {"bare": with_packet_trace(params, False), "run": params}
    if mode is not False:
        sides["text"] = with_packet_trace(params, "text")
    warmup, analysis = float(exp.get("warmup", 0)), analysis_settings(exp)
    rounds: dict[str, list] = {side: [] for side in sides}
    tables = {}
    for _, side in alternating(sides, repeats):
        directory = scratch / side
        if side == "bare":
            rounds[side].append({"total": ns_cpu(ns, sides[side], directory)})
        else:
            cost, tables[side] = pipeline_cpu(ns, sides[side], directory, warmup, analysis)
            rounds[side].append(cost)
        shutil.rmtree(directory, ignore_errors=True)
    out = medians(rounds)
    out.setdefault("bare", {"total": out["run"]["ns"]})
    # the packet log must give the text trace's metrics: every metric and series value, exactly
    out["same"] = same_tables(tables["run"], tables["text"]) if "text" in tables else None
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-duration", type=float, default=20.0, help="cap each run's simulated seconds (0: none)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--papers", nargs="*", help="paper short names (default: every file in configs/)")
    parser.add_argument("--ns", type=Path, default=REPO / "build" / "ns2" / "ns")
    parser.add_argument("--markdown", type=Path, help="write the results into this file's run-cost section")
    args = parser.parse_args()
    files = sorted((REPO / "configs").glob("*.yaml"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="run-cost-") as scratch:
        for path in files:
            doc = load(path)
            if args.papers and doc["paper"] not in args.papers:
                continue
            for experiment, exp in doc["experiments"].items():
                params, duration = first_run_params(doc, str(path), experiment, args.max_duration)
                cost = measure(args.ns, params, exp, args.repeats, Path(scratch))
                mode = params["monitors"].get("packet_trace", True)
                row = {
                    "paper": doc["paper"],
                    "experiment": experiment,
                    "duration": duration,
                    "full": float(exp["duration"]),
                    "mode": mode,
                    **cost,
                }
                rows.append(row)
                print(progress_line(row), flush=True)
    section = markdown(rows, args)
    publish(section, args.markdown, MARK_BEGIN, MARK_END)
    return 0


def progress_line(row: dict) -> str:
    run, bare = row["run"], row["bare"]["total"]
    text = f"; text trace {row['text']['total'] / bare:.2f}x, same metrics: {row['same']}" if "text" in row else ""
    return (
        f"{row['paper']}/{row['experiment']} ({row['duration']:g} s): bare ns {bare:.2f} s, run {run['total']:.2f} s "
        f"(ns {run['ns']:.2f}, parse {run['parse']:.2f}, metrics {run['metrics']:.2f}) = {run['total'] / bare:.2f}x"
        + text
    )


def markdown(rows: list[dict], args: argparse.Namespace) -> str:
    options = f" --max-duration {args.max_duration:g} --repeats {args.repeats}"
    options += f" --papers {' '.join(args.papers)}" if args.papers else ""
    lines = [
        MARK_BEGIN,
        "## A run's cost beside its simulation",
        "",
        f"Command: `.venv/bin/python bench/run_cost.py{options} --markdown docs/PERFORMANCE.md`. One run per "
        "experiment (first cell, first seed), cut to the simulated seconds shown. CPU seconds (user + sys), medians "
        f"of {args.repeats} rounds alternating the order: *bare* is ns with no output beyond its samplers "
        "(`packet_trace: false`; for an experiment without packet events, the run's own ns); *run* is ns as "
        "configured, then its tables made and written and its metrics computed from those tables in memory, in a warm "
        "process, as a batch job does them; *text* the same with "
        "ns-2's text trace (`packet_trace: text`), the way every run with packet events was made before patch "
        f"0019. Ratio = (ns + parse + metrics) / bare ns; target at most {TARGET}. *Same metrics*: whether the "
        "run's metrics and series tables from the packet log equal, value for value, those from the text trace of "
        "the same run.",
        "",
        "| experiment | packet events | s | bare ns | ns | parse | metrics | **run / bare** | text / bare "
        "| same metrics |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        run, bare = r["run"], r["bare"]["total"]
        mode = {True: "log", False: "none", "text": "text"}[r["mode"]]
        text = f"{r['text']['total'] / bare:.2f}" if "text" in r else "—"
        same = {None: "—", True: "yes", False: "**no**"}[r["same"]]
        cut = f" of {r['full']:g}" if r["duration"] < r["full"] else ""
        lines.append(
            f"| {r['paper']}/{r['experiment']} | {mode} | {r['duration']:g}{cut} | {bare:.2f} | {run['ns']:.2f} | "
            f"{run['parse']:.2f} | {run['metrics']:.2f} | **{run['total'] / bare:.2f}** | {text} | {same} |"
        )
    met = [r for r in rows if r["run"]["total"] / r["bare"]["total"] <= TARGET]
    worst = max(rows, key=lambda r: r["run"]["total"] / r["bare"]["total"]) if rows else None
    lines += [
        "",
        f"Target (at most {TARGET} for every experiment): met by {len(met)} of {len(rows)}"
        + (
            f"; worst {worst['paper']}/{worst['experiment']} at {worst['run']['total'] / worst['bare']['total']:.2f}."
            if worst
            else "."
        ),
        MARK_END,
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
