"""Benchmark: per-flow sums of a large ns-2 trace with our streaming parser vs awk, same file, paired runs.

    .venv/bin/python bench/parser_vs_awk.py [--repeats 5] [--markdown docs/PERFORMANCE.md]

The trace comes from a real run of bench/workloads/long_dumbbell.tcl (120 simulated s, ~190 MB, trace-all); a
second trace three times larger comes from the same workload run for 360 s. Both tools compute `flow_sums`
(packets and bytes per (fid, event)) and their answers must be equal. Every measurement is a fresh child process
(timed with wait4, which also gives its peak RSS); rounds alternate which tool goes first, after one warm-up run of
each so both read the trace from the page cache. The parser's child also times its own call, so interpreter start
and imports can be told apart from parsing. Two more parser variants show where the time goes: one reading thread
instead of one per core, and the CSV reading alone (no summing). Last, the full `parse_run` (journeys + hops +
flow_sums, through the CLI `python -m parsers`) runs once on each trace for its peak RSS: it keeps a few numbers
per packet, so it grows with the trace.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from perfdoc import publish  # noqa: E402

NS = REPO / "build" / "ns2" / "ns"
WORKLOAD = REPO / "bench" / "workloads" / "long_dumbbell.tcl"
MARK_BEGIN, MARK_END = "<!-- parser-vs-awk:begin -->", "<!-- parser-vs-awk:end -->"
AWK_PROGRAM = '{k=$8" "$1; n[k]++; b[k]+=$6} END {for (k in n) printf "%s %d %.0f\\n", k, n[k], b[k]}'
PARSER_MODES = {
    "parser": "`parsers.flow_sums`, one reading thread per core",
    "parser-1thread": "`parsers.flow_sums`, one reading thread",
    "csv-only-1thread": "CSV reading alone (3 columns, no summing), one thread",
}
QUEUE_HEADER = (
    "time\tlink\tsize_bytes\tsize_packets\tarrivals_packets\tarrivals_bytes"
    "\tdepartures_packets\tdepartures_bytes\tdrops_packets\tdrops_bytes\n"
)


# --- child side: one measurement per process, so its peak RSS is its own -------------------------------------------
def child(mode: str, path: str) -> None:
    sys.path.insert(0, str(REPO))
    import pyarrow as pa

    from parsers import flow_sums
    from parsers.ns2_trace import read_trace

    pa.array([0])  # pyarrow imports pandas on its first conversion of Python objects: count it as start-up
    start = time.perf_counter()
    result = None
    if mode == "parser":
        result = flow_sums(path).to_pylist()
    elif mode == "parser-1thread":
        result = flow_sums(path, workers=1).to_pylist()
    elif mode == "csv-only-1thread":
        sum(batch.num_rows for batch in read_trace(path, ["event", "size", "fid"]))
    else:
        raise SystemExit(f"unknown mode {mode}")
    seconds = time.perf_counter() - start
    rows = None if result is None else [[r["fid"], r["event"], r["packets"], r["bytes"]] for r in result]
    json.dump({"seconds": seconds, "rows": rows}, sys.stdout)


# --- parent side ----------------------------------------------------------------------------------------------------
def run_child(argv: list[str], stdout_path: Path, cwd: Path | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one child process; its stdout goes to `stdout_path`."""
    with open(stdout_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {err[-500:]}")
    return wall, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def run_tool(tool: str, trace: Path, scratch: Path) -> dict:
    """One measurement: wall s, peak RSS MB, the (fid, event) sums, and for the parser its own call's seconds."""
    if tool == "awk":
        wall, rss = run_child(["awk", AWK_PROGRAM, str(trace)], scratch / "out")
        rows = {}
        for line in (scratch / "out").read_text().splitlines():
            fid, event, packets, size = line.split()
            rows[int(fid), event] = (int(packets), int(size))
        return {"wall": wall, "rss": rss, "inner": wall, "rows": rows}
    wall, rss = run_child([sys.executable, str(Path(__file__).resolve()), "--child", tool, str(trace)], scratch / "out")
    report = json.loads((scratch / "out").read_text())
    rows = {(fid, event): (packets, size) for fid, event, packets, size in report["rows"] or []}
    return {"wall": wall, "rss": rss, "inner": report["seconds"], "rows": rows}


def make_trace(directory: Path, duration: float) -> Path:
    """Run the long_dumbbell workload for `duration` simulated seconds; returns its packets.tr."""
    script = WORKLOAD.read_text()
    stop = '$ns at 120.0 "$ns flush-trace'
    if stop not in script:
        raise SystemExit(f"{WORKLOAD}: cannot find `{stop}` to set the duration")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "workload.tcl").write_text(script.replace(stop, stop.replace("120.0", f"{duration:.1f}")))
    subprocess.run([str(NS), "workload.tcl"], cwd=directory, check=True, stdout=subprocess.DEVNULL)
    write_run_files(directory)
    return directory / "packets.tr"


def write_run_files(directory: Path) -> None:
    """meta.json (links of long_dumbbell: r1=0, r2=1, s_i=2+2i, d_i=3+2i) and an empty queue monitor, for parse_run."""
    links = [{"name": "core0", "from": 0, "to": 1, "role": "core", "traced": True, "monitored": False}]
    for i in range(70):
        links.append({"name": f"entry{i}", "from": 2 + 2 * i, "to": 0, "role": "entry", "fid": i, "traced": True})
        links.append({"name": f"exit{i}", "from": 1, "to": 3 + 2 * i, "role": "exit", "fid": i, "traced": True})
    (directory / "meta.json").write_text(json.dumps({"schema": "ns2-repro/run-meta/1", "links": links}))
    (directory / "queue_monitor.tsv").write_text(QUEUE_HEADER)


# (tool, trace) pairs measured in every round
PLAN = [("awk", "1x"), *((mode, "1x") for mode in PARSER_MODES), ("awk", "3x"), ("parser", "3x")]


def measure(traces: dict[str, Path], scratch: Path, repeats: int) -> dict[tuple[str, str], list[dict]]:
    samples: dict[tuple[str, str], list[dict]] = {item: [] for item in PLAN}
    for tool, name in PLAN:  # warm-up: page cache, pyc files
        run_tool(tool, traces[name], scratch)
    for rnd in range(repeats):
        for tool, name in PLAN if rnd % 2 == 0 else PLAN[::-1]:
            samples[tool, name].append(run_tool(tool, traces[name], scratch))
        print(f"  round {rnd + 1}/{repeats} done", file=sys.stderr)
    return samples


def check_equal(samples: dict[tuple[str, str], list[dict]]) -> dict[str, int]:
    """Every run's sums equal awk's on the same trace; returns the number of (fid, event) groups per trace."""
    groups = {}
    for name in ("1x", "3x"):
        expected = samples["awk", name][0]["rows"]
        for (tool, trace), runs in samples.items():
            if trace == name and any(run["rows"] and run["rows"] != expected for run in runs):
                raise SystemExit(f"{tool} and awk disagree on the {name} trace: the benchmark is void")
        groups[name] = len(expected)
    return groups


def med(samples: dict, tool: str, name: str, key: str) -> float:
    return statistics.median(run[key] for run in samples[tool, name])


def render(args, mb: dict[str, float], lines: int, groups: dict, samples: dict, full: dict) -> str:
    def m(tool: str, name: str, key: str) -> float:
        return med(samples, tool, name, key)

    awk1, awk3 = m("awk", "1x", "wall"), m("awk", "3x", "wall")
    ours1, ours3 = m("parser", "1x", "wall"), m("parser", "3x", "wall")
    inner1, inner3 = m("parser", "1x", "inner"), m("parser", "3x", "inner")
    marginal_awk = (mb["3x"] - mb["1x"]) / (awk3 - awk1)
    marginal_ours = (mb["3x"] - mb["1x"]) / (ours3 - ours1)
    out = [
        MARK_BEGIN,
        "## Trace parsing: `parsers` vs awk (per-flow sums)",
        "",
        f"Command: `.venv/bin/python bench/parser_vs_awk.py --repeats {args.repeats} --markdown {args.markdown}`",
        f"(machine: {os.cpu_count()} CPUs, Python {platform.python_version()}, awk is "
        f"`{Path('/usr/bin/awk').resolve().name}`). Traces from real runs of `bench/workloads/long_dumbbell.tcl` "
        f"(trace-all): 1x = 120 simulated s, {mb['1x']:.1f} MB, {lines:,} lines; 3x = the same workload run for "
        f"360 s, {mb['3x']:.1f} MB. Both tools compute packets and bytes per (fid, event); their answers are equal "
        f"on both traces ({groups['1x']} and {groups['3x']} groups). awk: `awk '{AWK_PROGRAM}'`.",
        f"{args.repeats} rounds alternating the order, after one warm-up of each (traces in the page cache); every "
        "measurement is a fresh child process, timed and its peak RSS read with wait4; medians.",
        "*Wall* is the child from start to exit; for the parser it includes Python's start and the imports of "
        "pyarrow and pandas (pyarrow imports pandas on first use), a fixed cost. *Inner* is the parser's own call. "
        "*Marginal* is (3x size - 1x size) / (3x wall - 1x wall): throughput without fixed costs.",
        "",
        "| | awk | `parsers.flow_sums` | ratio |",
        "|---|---|---|---|",
        f"| 1x wall s (MB/s) | {awk1:.3f} ({mb['1x'] / awk1:.0f}) | {ours1:.3f} ({mb['1x'] / ours1:.0f}) "
        f"| **{awk1 / ours1:.2f}** |",
        f"| 1x inner s (MB/s) | | {inner1:.3f} ({mb['1x'] / inner1:.0f}) | **{awk1 / inner1:.2f}** |",
        f"| 3x wall s (MB/s) | {awk3:.3f} ({mb['3x'] / awk3:.0f}) | {ours3:.3f} ({mb['3x'] / ours3:.0f}) "
        f"| **{awk3 / ours3:.2f}** |",
        f"| 3x inner s (MB/s) | | {inner3:.3f} ({mb['3x'] / inner3:.0f}) | **{awk3 / inner3:.2f}** |",
        f"| marginal MB/s | {marginal_awk:.0f} | {marginal_ours:.0f} | **{marginal_ours / marginal_awk:.2f}** |",
        f"| peak RSS MB, 1x / 3x | {m('awk', '1x', 'rss'):.0f} / {m('awk', '3x', 'rss'):.0f} "
        f"| **{m('parser', '1x', 'rss'):.0f} / {m('parser', '3x', 'rss'):.0f}** | |",
        "",
        "Where the parser's time goes (1x trace, medians):",
        "",
        "| variant | start-up s | inner s | inner MB/s | peak RSS MB |",
        "|---|---|---|---|---|",
    ]
    for mode, label in PARSER_MODES.items():
        wall, inner = m(mode, "1x", "wall"), m(mode, "1x", "inner")
        out.append(
            f"| {label} | {wall - inner:.3f} | {inner:.3f} | {mb['1x'] / inner:.0f} | {m(mode, '1x', 'rss'):.0f} |"
        )
    csv_only, single = m("csv-only-1thread", "1x", "inner"), m("parser-1thread", "1x", "inner")
    met = "met" if min(awk1 / inner1, marginal_ours / marginal_awk) >= 3 else "not met"
    out += [
        "",
        f"Target, at least 3x awk's throughput: **{met}** for the parsing itself ({awk1 / inner1:.2f}x inner, "
        f"{marginal_ours / marginal_awk:.2f}x marginal). Including the fixed start-up of a Python process "
        f"({ours1 - inner1:.2f} s), one 1x trace is {awk1 / ours1:.2f}x and one 3x trace {awk3 / ours3:.2f}x. "
        f"With one thread, reading and converting the CSV alone takes {csv_only:.3f} s of the {single:.3f} s; "
        "the default reads one line-aligned byte range per core in parallel.",
        f"Peak RSS target (at most 300 MB whatever the trace size): "
        f"**{'met' if max(m('parser', n, 'rss') for n in ('1x', '3x')) <= 300 else 'not met'}**; it does not grow "
        "with the trace: the CSV reader holds up to 32 blocks of 512 KiB ahead per range.",
        f"For comparison, the full CLI `python -m parsers` (journeys, hops, flow_sums in one pass; one run each) "
        "keeps a few numbers per packet: "
        f"{full['1x']['wall']:.1f} s and {full['1x']['rss']:.0f} MB peak RSS on the 1x trace, "
        f"{full['3x']['wall']:.1f} s and {full['3x']['rss']:.0f} MB on the 3x trace: its memory grows with the "
        "result tables, as DESIGN.md section 6 allows.",
        MARK_END,
    ]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", type=Path, help="replace this file's parser-vs-awk section with the results")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "TRACE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    with tempfile.TemporaryDirectory(prefix="parser-vs-awk-") as tmp:
        tmp = Path(tmp)
        print("generating traces (120 s and 360 s of long_dumbbell)...", file=sys.stderr)
        traces = {"1x": make_trace(tmp / "1x", 120.0), "3x": make_trace(tmp / "3x", 360.0)}
        mb = {name: path.stat().st_size / 1e6 for name, path in traces.items()}
        with open(traces["1x"], "rb") as f:
            lines = sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 20), b""))
        samples = measure(traces, tmp, args.repeats)
        groups = check_equal(samples)
        full = {}
        context = json.dumps({"paper": "bench", "experiment": "long_dumbbell", "seed": 1, "run_key": "bench"})
        for name, trace in traces.items():
            cli = [
                sys.executable,
                "-m",
                "parsers",
                str(trace.parent),
                "--out",
                str(tmp / "parquet"),
                "--context",
                context,
            ]
            wall, rss = run_child(cli, tmp / "out", cwd=REPO)
            full[name] = {"wall": wall, "rss": rss}
    section = render(args, mb, lines, groups, samples, full)
    publish(section, args.markdown, MARK_BEGIN, MARK_END)


if __name__ == "__main__":
    main()
