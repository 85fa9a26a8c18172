"""Benchmark: a sweep of short runs through Snakemake vs the same ns runs in a plain parallel loop.

    .venv/bin/python bench/snakemake_batching.py [--runs 200] [--rounds 2] [--markdown docs/PERFORMANCE.md]

The sweep: one dumbbell cell (2 FTP/NewReno flows and a Pareto source over RED),
`--runs` seeds, each run about one second of ns. Measured side by side, alternating:

- snakemake: `snakemake --cores 2` on the simulate stage of that sweep, with
  `batch_size` runs per job (the default profile's), parse=false so that both sides do
  exactly the ns runs: this measures what orchestration adds;
- loop: the same run directories (same params.json) prepared beforehand, then
  `xargs -P 2` running `ns tcl/driver.tcl <dir>` for each: the plain baseline.

The figure of merit is the wall-time ratio snakemake / loop (target <= 1.10). One
extra round with batch_size=1 (a job per run) shows what batching saves.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO))

from perfdoc import publish  # noqa: E402

from experiments.config.load import load  # noqa: E402
from experiments.planning.expansion import expand  # noqa: E402

# noqa: E402
from experiments.planning.profiles import Settings  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- snakemake-batching:begin -->", "<!-- snakemake-batching:end -->"

SWEEP = """
paper: bench_batching
experiments:
  short:
    scenario:
      topology:
        kind: dumbbell
        core_link: {bandwidth: 10Mb, delay: 10ms}
        edge_link: {bandwidth: 100Mb, delay: 1ms}
      core_queue: {class: Queue/RED, knobs: {thresh_: 20, maxthresh_: 60, q_weight_: 0.002}}
      flows:
        tcp:
          kind: ftp
          count: 2
          agent: {class: Agent/TCP/Newreno, knobs: {packetSize_: 500, window_: 50}}
          sink: {class: Agent/TCPSink}
        udp:
          kind: pareto
          agent: {class: Agent/UDP}
          sink: {class: Agent/LossMonitor}
          app: {class: Application/Traffic/Pareto, knobs: {rate_: 2Mb}}
    duration: DURATION
    seeds: {count: RUNS}
"""


def sweep_file(directory: Path, runs: int, duration: float) -> Path:
    path = directory / "bench_batching.yaml"
    path.write_text(SWEEP.replace("RUNS", str(runs)).replace("DURATION", str(duration)))
    return path


def time_snakemake(sweep: Path, results: Path, batch_size: int) -> float:
    runs = len(expand(load(sweep), str(sweep)))
    targets = [
        str(results / "bench_batching" / "short" / "batches" / f"{i}.json") for i in range(-(-runs // batch_size))
    ]
    cmd = [
        str(REPO / ".venv" / "bin" / "snakemake"),
        "--cores",
        "2",
        "--quiet",
        "all",
        "--config",
        f"experiment_files={sweep}",
        f"results={results}",
        f"batch_size={batch_size}",
        "parse=false",
        "--",
        *targets,
    ]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"snakemake failed:\n{proc.stderr[-2000:]}")
    return elapsed


def time_loop(sweep: Path, work: Path) -> float:
    """Prepare the same params.json directories, then time only the parallel ns loop."""
    doc = load(sweep)
    dirs = []
    for run in expand(doc, str(sweep)):
        directory = work / f"seed{run.seed}"
        directory.mkdir(parents=True)
        (directory / "params.json").write_text(json.dumps(run.params))
        dirs.append(str(directory))
    ns, driver = REPO / "build" / "ns2" / "ns", REPO / "tcl" / "driver.tcl"
    start = time.perf_counter()
    proc = subprocess.run(["xargs", "-P", "2", "-n", "1", str(ns), str(driver)], input="\n".join(dirs), text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit("the plain loop failed")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--duration", type=float, default=30.0, help="simulated seconds per run (about 1 s of ns)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=Settings.from_config({}).batch_size)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)

    samples: dict[str, list[float]] = {"snakemake": [], "loop": []}
    with tempfile.TemporaryDirectory(prefix="bench-batching-") as tmp:
        sweep = sweep_file(Path(tmp), args.runs, args.duration)
        for rnd in range(args.rounds):
            order = ["snakemake", "loop"] if rnd % 2 == 0 else ["loop", "snakemake"]
            for mode in order:
                where = Path(tmp) / f"{mode}{rnd}"
                took = time_snakemake(sweep, where, args.batch_size) if mode == "snakemake" else time_loop(sweep, where)
                samples[mode].append(took)
                print(f"[bench] round {rnd + 1}: {mode} {took:.1f} s", flush=True)
        unbatched = time_snakemake(sweep, Path(tmp) / "unbatched", 1)
        print(f"[bench] snakemake with batch_size=1: {unbatched:.1f} s", flush=True)
    snake, loop = statistics.median(samples["snakemake"]), statistics.median(samples["loop"])
    rounds = {mode: ", ".join(f"{x:.1f}" for x in values) for mode, values in samples.items()}
    ratio = snake / loop
    verdict = "target met" if ratio <= 1.10 else "target MISSED"
    section = "\n".join(
        [
            MARK_BEGIN,
            "## Snakemake batching vs a plain parallel loop",
            "",
            f"Command: `.venv/bin/python bench/snakemake_batching.py --runs {args.runs} --rounds {args.rounds} "
            f"--markdown docs/PERFORMANCE.md`. {args.runs} runs of one dumbbell cell ({args.duration:g} simulated s, "
            f"~{loop * 2 / args.runs:.2f} s of ns each), 2 cores, rounds alternating which side goes first.",
            "",
            "| side | wall s (median) | all rounds |",
            "|---|---|---|",
            f"| snakemake, batch_size={args.batch_size} | {snake:.1f} | {rounds['snakemake']} |",
            f"| xargs -P 2 loop of ns | {loop:.1f} | {rounds['loop']} |",
            f"| snakemake, batch_size=1 (one job per run) | {unbatched:.1f} | 1 round |",
            "",
            f"Ratio snakemake / loop: **{ratio:.3f}** ({verdict}: <= 1.10). One job per run instead: "
            f"{unbatched / loop:.2f} x the loop.",
            MARK_END,
        ]
    )
    publish(section, args.markdown, MARK_BEGIN, MARK_END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
