"""Benchmark: bytes a run directory keeps, before and after the disk changes of issue 17, and what each profile needs.

    .venv/bin/python bench/run_disk.py [--max-duration 100] [--markdown docs/PERFORMANCE.md]

One run per experiment of every file in configs/ (its first matrix cell, first seed, at the
experiment's duration, or `--max-duration` simulated seconds at most (and past its last flow start or stop): then
its bytes are extrapolated to the full duration along the line through runs of half and all of that length,
and the table says so), run with our ns and parsed
as the workflow does, raw outputs kept. Measured side by side on that one directory:

- before: the raw outputs kept beside the tables (packets.tr only was deleted) and the
  tables written with pyarrow's default snappy compression;
- after: raw outputs deleted once parsed (`keep_raw: false`, parsers.RAW_OUTPUTS) and the
  tables as parsers/tables.py writes them now (zstd, float columns byte-stream-split).

Bytes per run times the runs of each profile (the workflow's own plan: default and paper)
give each profile's disk need, per experiment and in all.
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

import pyarrow.parquet as pq  # noqa: E402
from perfdoc import publish  # noqa: E402

import parsers  # noqa: E402
from experiments.config.readings import BASELINE  # noqa: E402
from experiments.planning.expansion import Expansion, Run  # noqa: E402
from experiments.planning.profiles import Settings  # noqa: E402
from experiments.simulate.execute import execute  # noqa: E402
from experiments.simulate.toolchain import Toolchain  # noqa: E402
from experiments.workflow import plan as plan_mod  # noqa: E402
from experiments.workflow.jobs import parse_into_tables  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- run-disk:begin -->", "<!-- run-disk:end -->"
TOOLS = Toolchain(ns=REPO / "build/ns2/ns", manifest=REPO / "build/ns2/manifest.json", driver=REPO / "tcl/driver.tcl")


def tree_bytes(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def snappy_bytes(tables: Path) -> int:
    """The tables re-encoded as they were written before (pyarrow's defaults: snappy)."""
    total = 0
    for path in tables.glob("*.parquet"):
        buffer = io.BytesIO()
        pq.write_table(pq.read_table(path), buffer)
        total += len(buffer.getvalue())
    return total


def measure_run(run: Run, scratch: Path) -> dict:
    settings = Settings.from_config({"keep_raw": True})
    outcome = execute(run, "bench", scratch, TOOLS, parse_into_tables(settings))
    if outcome.status == "failed":
        raise SystemExit(outcome.message)
    directory = outcome.directory
    raw = sum((directory / name).stat().st_size for name in parsers.RAW_OUTPUTS if (directory / name).is_file())
    tables = tree_bytes(directory / "tables")
    rest = tree_bytes(directory) - raw - tables
    traces = [directory / name for name in ("packets.tr", "packets.log")]
    kept_before = raw - sum(t.stat().st_size for t in traces if t.is_file())  # the trace was deleted before too
    result = {"before": rest + kept_before + snappy_bytes(directory / "tables"), "after": rest + tables}
    shutil.rmtree(directory)
    return result


def shortened(runs: Expansion, duration: float) -> Run:
    """The experiment's first run, `duration` simulated seconds long."""
    exp = {**runs.exp, "duration": duration}
    doc = {**runs.doc, "experiments": {**runs.doc["experiments"], runs.experiment: exp}}
    return Expansion(doc, runs.source, runs.experiment).runs(0, 1)[0]


def last_flow_event(params: dict) -> float:
    """The last flow start or stop of a run's params (a shortened run must still hold every flow it declares)."""
    flows = params.get("flows", [])
    return max((float(f.get(k) or 0) for f in flows for k in ("start", "stop")), default=0.0)


def measuring_durations(runs: Expansion, full: float, cap: float | None) -> list[float]:
    """The full duration, or two shorter ones under the cap: half of it and all of it, each past the first
    run's last flow start or stop (a run must hold every flow it declares), so at most the full one."""
    if not cap or full <= cap:
        return [full]
    low = max(cap / 2, last_flow_event(runs.runs(0, 1)[0].params) + 1.0)
    high = max(cap, low + cap / 2)
    return [full] if high >= full else [low, high]


def extrapolate(durations: list[float], sizes: list[float], full: float) -> float:
    """Bytes at the full duration: measured there, or the line through two shorter runs (a fixed part, such as
    meta.json, plus a part that grows with simulated time)."""
    if len(durations) == 1:
        return sizes[0]
    (d1, d2), (s1, s2) = durations, sizes
    return s2 + (s2 - s1) / (d2 - d1) * (full - d2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-duration", type=float, default=None, help="cap each run's simulated seconds")
    parser.add_argument("--markdown", type=Path, help="write the results into this file's run-disk section")
    args = parser.parse_args()
    files = sorted(str(p) for p in (REPO / "configs").glob("*.yaml"))
    plans = {
        name: plan_mod.plan(Settings.from_config({"experiment_files": files, "replications": reps}), TOOLS.ns)
        for name, reps in (("default", "file"), ("paper", "paper"))
    }
    rows = []
    with tempfile.TemporaryDirectory(prefix="run-disk-") as scratch:
        for (paper, experiment, reading), runs in plans["default"].expansions.items():
            if reading != BASELINE:
                continue
            full = float(runs.exp["duration"])
            durations = measuring_durations(runs, full, args.max_duration)
            measured = [measure_run(shortened(runs, d), Path(scratch)) for d in durations]
            counts = {
                f"runs_{name}": sum(len(r) for (p, e, _), r in plan.expansions.items() if (p, e) == (paper, experiment))
                for name, plan in plans.items()
            }
            row = {
                "paper": paper,
                "experiment": experiment,
                "duration": full,
                "measured_at": durations,
                **{side: extrapolate(durations, [m[side] for m in measured], full) for side in ("before", "after")},
                **counts,
            }
            rows.append(row)
            print(
                f"{paper}/{experiment}: {row['before'] / 1e6:.2f} MB -> {row['after'] / 1e6:.2f} MB per run "
                f"(measured at {durations} s); runs: default {counts['runs_default']}, "
                f"paper {counts['runs_paper']}",
                flush=True,
            )
    section = markdown(rows, args)
    publish(section, args.markdown, MARK_BEGIN, MARK_END)
    return 0


def markdown(rows: list[dict], args: argparse.Namespace) -> str:
    cap = f" --max-duration {args.max_duration:g}" if args.max_duration else ""
    lines = [
        MARK_BEGIN,
        "## Disk: bytes per run and per profile",
        "",
        f"Command: `.venv/bin/python bench/run_disk.py{cap} --markdown docs/PERFORMANCE.md`. One run per experiment "
        "(first cell, first seed), measured twice on the same directory: *before*, raw monitor outputs kept beside "
        "tables written with snappy; *after*, raw outputs deleted once parsed and tables in zstd with float columns "
        "byte-stream-split. Runs per profile (default: the files' seeds; paper: the papers' own replication counts) "
        "from the workflow's plan, the alternative readings' runs included whole: a reading shares the baseline's "
        "run where it changes nothing, so the GB are an upper bound.",
        "",
        "| experiment | s | MB/run before | MB/run after | after/before | default runs | default GB | paper runs "
        "| paper GB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        at = r["measured_at"]
        note = f" (from {at[0]:g} and {at[1]:g} s)" if len(at) > 1 else ""
        lines.append(
            f"| {r['paper']}/{r['experiment']} | {r['duration']:g}{note} | {r['before'] / 1e6:.2f} | "
            f"{r['after'] / 1e6:.2f} | {r['after'] / r['before']:.2f} | {r['runs_default']:,} | "
            f"{r['after'] * r['runs_default'] / 1e9:.2f} | {r['runs_paper']:,} | "
            f"{r['after'] * r['runs_paper'] / 1e9:.2f} |"
        )
    total = {k: sum(r[k] * r["runs_default"] for r in rows) for k in ("before", "after")}
    paper = sum(r["after"] * r["runs_paper"] for r in rows)
    lines += [
        "",
        f"Default profile, all runs: {total['before'] / 1e9:.1f} GB before, **{total['after'] / 1e9:.1f} GB after** "
        f"(ratio {total['after'] / total['before']:.2f}); paper profile: **{paper / 1e9:.1f} GB**. A run's bytes are "
        "those of its experiment's first cell: cells with more flows or longer queues write more.",
        MARK_END,
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
