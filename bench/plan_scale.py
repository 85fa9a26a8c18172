"""Benchmark: planning a big matrix, as a new user would: `python -m experiments validate` and `snakemake -n`.

    .venv/bin/python bench/plan_scale.py [--sizes 33,100,333] [--seeds 100] [--markdown docs/PERFORMANCE.md]

The sweep has the README's shape: 3 queues x N flow counts (levels 1..N, so a run of the
last cell has N flows) x 100 seeds, i.e. 300 N runs: N = 33, 100, 333 give 9,900, 30,000
and 99,900 runs. Each measurement is a fresh child process, timed, its peak RSS read with
wait4. `snakemake -n` plans reproduce-all of that one file (every batch job, its aggregate,
figure and report) in a scratch results folder; nothing is run.

The figure of merit is growth: time and memory at each size as a ratio to the smallest,
measured in the same run, beside the run-count ratio (linear growth: equal ratios). The
issue's absolute targets are printed beside: validate a 100,000-run file in < 10 s and
< 1 GB; `snakemake -n` of it in < 30 s and < 2 GB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from perfdoc import publish  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- plan-scale:begin -->", "<!-- plan-scale:end -->"
TARGETS = {"validate": (10.0, 1024.0), "snakemake -n": (30.0, 2048.0)}  # at ~100,000 runs: seconds, MB

SWEEP = """\
paper: big_sweep
queues:
  RED: {{class: Queue/RED, knobs: {{thresh_: 5, maxthresh_: 15, q_weight_: 0.002}}}}
  PI:  {{class: Queue/PI,  knobs: {{qref_: 10}}}}
  DT:  {{class: Queue/DropTail}}
experiments:
  flows:
    scenario:
      topology:
        kind: dumbbell
        core_link: {{bandwidth: 2Mb, delay: 10ms}}
        edge_link: {{bandwidth: 10Mb, delay: 1ms}}
      core_queue: RED
      flows:
        tcp: {{kind: ftp, agent: {{class: Agent/TCP/Newreno}}, sink: {{class: Agent/TCPSink}}}}
    duration: 20
    warmup: 1
    seeds: {{count: {seeds}}}
    matrix:
      product:
        queue: {{path: core_queue, levels: [RED, PI, DT]}}
        flows_n: {{path: flows.tcp.count, levels: [{levels}]}}
figures:
  - {{id: delay_vs_flows, experiment: flows, module: figures.generic, function: metric_vs_axis,
     metric: bottleneck_queue_delay_ms_mean, x: flows_n, hue: queue}}
claims:
  - {{id: pi_lowest_delay, kind: extreme, source: bench, experiment: flows, metric: bottleneck_queue_delay_ms_mean,
     axis: queue, level: PI, extreme: min}}
"""


def sweep_file(directory: Path, flow_counts: int, seeds: int) -> Path:
    path = directory / f"big_sweep_{flow_counts}.yaml"
    levels = ", ".join(str(n) for n in range(1, flow_counts + 1))
    path.write_text(SWEEP.format(seeds=seeds, levels=levels))
    return path


def measure(cmd: list[str]) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds (user + sys), peak RSS MB, stdout) of a child process; fails loudly if it
    fails. CPU time is the figure to trust on a loaded machine, wall time what a user waits."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def commands(sweep: Path, results: Path) -> dict[str, list[str]]:
    bin_dir = REPO / ".venv" / "bin"
    return {
        "validate": [str(bin_dir / "python"), "-m", "experiments", "validate", str(sweep)],
        "snakemake -n": [
            str(bin_dir / "snakemake"),
            "-n",
            "--quiet",
            "all",
            "--cores",
            "2",
            "--config",
            f"experiment_files={sweep}",
            f"results={results}",
            "--",
            "reproduce-all",
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="33,100,333", help="flow-count levels N per file (runs = 3 N seeds)")
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--markdown", type=Path, help="write the results into this file's plan-scale section")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    args.load = os.getloadavg()[0]  # wall times mean little on a loaded machine: say how loaded it was
    rows = []
    with tempfile.TemporaryDirectory(prefix="plan-scale-") as scratch:
        for n in sizes:
            sweep = sweep_file(Path(scratch), n, args.seeds)
            runs = 3 * n * args.seeds
            for tool, cmd in commands(sweep, Path(scratch) / f"results-{n}").items():
                wall, cpu, rss, _ = measure(cmd)
                rows.append({"tool": tool, "runs": runs, "wall": wall, "cpu": cpu, "rss": rss})
                print(
                    f"{tool:13s} {runs:7,d} runs: {wall:6.2f} s wall, {cpu:6.2f} s CPU, {rss:7.0f} MB peak RSS",
                    flush=True,
                )
    section = markdown(rows, args)
    publish(section, args.markdown, MARK_BEGIN, MARK_END)
    return 0


def markdown(rows: list[dict], args: argparse.Namespace) -> str:
    smallest = {tool: next(r for r in rows if r["tool"] == tool) for tool in TARGETS}
    lines = [
        MARK_BEGIN,
        "## Planning a big matrix",
        "",
        f"Command: `.venv/bin/python bench/plan_scale.py --sizes {args.sizes} --seeds {args.seeds} "
        f"--markdown docs/PERFORMANCE.md` (1-minute load average {args.load:.1f} on {os.cpu_count()} cores when it "
        "started). The README's sweep shape: 3 queues x N flow counts (levels 1..N) x "
        f"{args.seeds} seeds; each figure one fresh child process (wall time, peak RSS from wait4). Ratios are to "
        "the smallest file, measured in the same run: linear growth keeps the CPU and memory ratios at or below "
        "the run-count ratio (CPU time, user + sys, is the figure that does not depend on the machine's load).",
        "",
        "| command | runs | wall s | CPU s | peak RSS MB | runs ratio | CPU ratio | RSS ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        base = smallest[row["tool"]]
        lines.append(
            f"| `{row['tool']}` | {row['runs']:,} | {row['wall']:.2f} | {row['cpu']:.2f} | {row['rss']:.0f} | "
            f"{row['runs'] / base['runs']:.1f} | {row['cpu'] / base['cpu']:.2f} | {row['rss'] / base['rss']:.2f} |"
        )
    lines.append("")
    for tool, (seconds, megabytes) in TARGETS.items():
        largest = max((r for r in rows if r["tool"] == tool), key=lambda r: r["runs"])
        met = largest["wall"] < seconds and largest["rss"] < megabytes
        lines.append(
            f"- `{tool}` at {largest['runs']:,} runs: {largest['wall']:.1f} s and {largest['rss']:.0f} MB "
            f"(target < {seconds:.0f} s and < {megabytes / 1024:.0f} GB): **{'met' if met else 'not met'}**."
        )
    lines.append(MARK_END)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
