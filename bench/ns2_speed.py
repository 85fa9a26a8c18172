"""Benchmark: our ns binary vs Debian's packaged ns on the same scripts, paired runs.

    .venv/bin/python bench/ns2_speed.py [--repeats 9] [--markdown docs/PERFORMANCE.md]

Workloads: a few of ns-2's own validation-suite tests, the four byte-identity scripts
of the test suite, and one longer run (bench/workloads/long_dumbbell.tcl, ~190 MB of
trace). Each round runs every workload once on each binary, alternating which binary
goes first, so drift in machine load hits both alike. The figure of merit is the
ratio of medians, ours / Debian's, of the child's CPU time (user + sys, from wait4);
wall time is reported beside it. A ratio below 1 means ours is faster.

CPU time of one binary moves by several per cent with code layout alone (relinking the
same objects in another order did that here), so the script also counts instructions
with callgrind on a shortened long run (8 simulated s): deterministic, and independent
of machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "ns2-patches"))
sys.path.insert(0, str(REPO / "tests" / "ns2"))
sys.path.insert(0, str(REPO / "bench"))

import ns2_build  # noqa: E402
from perfdoc import write_section  # noqa: E402
from suites import prepare_tree  # noqa: E402

# (suite script, test name): among the slowest tests of their suites.
SUITE_TESTS = [
    ("test-suite-adaptive-red.tcl", "red2A-Adapt"),
    ("test-suite-adaptive-red.tcl", "longlinkAdapt"),
    ("test-suite-tcpVariants.tcl", "onedrop_SA_tahoe"),
]
SCRIPTS = sorted((REPO / "tests" / "ns2" / "scripts").glob("*.tcl")) + [
    REPO / "bench" / "workloads" / "long_dumbbell.tcl"
]
MARK_BEGIN, MARK_END = "<!-- ns2-speed:begin -->", "<!-- ns2-speed:end -->"


@dataclass
class Workload:
    name: str
    args: list[str]  # after the binary
    cwd: Path | None  # the suite's tcl/test directory, or None for a fresh temp dir


def run_once(binary: Path, work: Workload) -> tuple[float, float]:
    """(cpu seconds, wall seconds) of one run."""
    with tempfile.TemporaryDirectory(prefix="ns2bench-") as tmp:
        cwd = work.cwd or Path(tmp)
        start = time.perf_counter()
        proc = subprocess.Popen([str(binary), *work.args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if proc.returncode != 0:
            raise SystemExit(f"{binary} {' '.join(work.args)} failed ({proc.returncode}): {err[-300:]}")
        return usage.ru_utime + usage.ru_stime, wall


def workloads(tree_test_dir: Path) -> list[Workload]:
    items = [Workload(f"{script.removeprefix('test-suite-')[:-4]}:{test}", [script, test, "QUIET"], tree_test_dir)
             for script, test in SUITE_TESTS]  # fmt: skip
    items += [Workload(p.stem, [str(p)], None) for p in SCRIPTS]
    return items


def measure(binaries: dict[str, Path], items: list[Workload], repeats: int) -> dict[str, dict[str, list]]:
    samples = {w.name: {label: [] for label in binaries} for w in items}
    labels = list(binaries)
    for rnd in range(repeats):
        order = labels if rnd % 2 == 0 else labels[::-1]
        for w in items:
            for label in order:
                samples[w.name][label].append(run_once(binaries[label], w))
        print(f"[bench] round {rnd + 1}/{repeats} done", flush=True)
    return samples


def instruction_counts(binaries: dict[str, Path]) -> dict[str, int]:
    """Instructions executed (callgrind Ir) by each binary on the long run cut to 8 s, in parallel."""
    short = (REPO / "bench" / "workloads" / "long_dumbbell.tcl").read_text().replace("$ns at 120.0", "$ns at 8.0")
    with tempfile.TemporaryDirectory(prefix="ns2bench-cg-") as tmp:
        script = Path(tmp) / "short.tcl"
        script.write_text(short)
        procs = {}
        for label, binary in binaries.items():
            (Path(tmp) / label).mkdir()
            out = Path(tmp) / f"{label}.callgrind"
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary), str(script)]
            procs[label] = (subprocess.Popen(cmd, cwd=Path(tmp) / label, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL), out)  # fmt: skip
        counts = {}
        for label, (proc, out) in procs.items():
            if proc.wait() != 0:
                raise SystemExit(f"callgrind run of {binaries[label]} failed")
            totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
            counts[label] = int(totals[0].split()[1])
        return counts


def summarise(samples: dict[str, dict[str, list]]) -> tuple[list[str], float]:
    rows, ratios = [], []
    for name, by in samples.items():
        ours_cpu = statistics.median(c for c, _ in by["ours"])
        ref_cpu = statistics.median(c for c, _ in by["debian"])
        ours_wall = statistics.median(w for _, w in by["ours"])
        ref_wall = statistics.median(w for _, w in by["debian"])
        ratio = ours_cpu / ref_cpu
        ratios.append(ratio)
        rows.append(f"| {name} | {ours_cpu:.3f} | {ref_cpu:.3f} | **{ratio:.3f}** | {ours_wall:.3f} | {ref_wall:.3f} |")
    geo = statistics.geometric_mean(ratios)
    return rows, geo


def markdown(rows: list[str], geo: float, repeats: int, manifest: dict, ref_version: str, ir: dict) -> str:
    header = [
        MARK_BEGIN,
        "## ns-2 binary: ours vs Debian's packaged ns",
        "",
        f"Command: `.venv/bin/python bench/ns2_speed.py --repeats {repeats} --markdown docs/PERFORMANCE.md`",
        f"(ours: build key `{manifest['key']}`, CCOPT `{manifest['flags']['CCOPT']}`; Debian's: `ns2` {ref_version}).",
        f"Paired runs, {repeats} rounds, alternating which binary goes first; medians of child CPU time",
        "(user + sys) and wall time in seconds. Ratio = ours / Debian's CPU time; below 1 is faster.",
        "",
        "| workload | ours CPU s | Debian CPU s | ratio | ours wall s | Debian wall s |",
        "|---|---|---|---|---|---|",
    ]
    verdict = "not slower (target met)" if geo <= 1.02 else "SLOWER than Debian's ns (target missed)"
    ir_ratio = ir["ours"] / ir["debian"]
    footer = [
        "",
        f"Geometric mean of the CPU-time ratios: **{geo:.3f}**, ours is {verdict}.",
        "",
        f"Instructions executed on the long run cut to 8 simulated s (callgrind): ours {ir['ours']:,}, "
        f"Debian's {ir['debian']:,}, ratio **{ir_ratio:.4f}**. Per-workload CPU-time ratios away from 1 with "
        "equal instruction counts come from code layout (which relinking alone moves by several per cent), "
        "not from work done.",
        MARK_END,
    ]
    return "\n".join(header + rows + footer) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ours", type=Path, default=REPO / "build" / "ns2" / "ns")
    parser.add_argument("--debian", type=Path, default=Path("/usr/bin/ns"))
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--markdown", type=Path, help="update this file's ns2-speed section")
    args = parser.parse_args(argv)
    manifest = json.loads((args.ours.parent / "manifest.json").read_text())
    ref_version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory(prefix="ns2bench-tree-") as tmp:
        test_dir = prepare_tree(ns2_build.ensure_tarball(), Path(tmp))
        samples = measure({"ours": args.ours.resolve(), "debian": args.debian}, workloads(test_dir), args.repeats)
    rows, geo = summarise(samples)
    ir = instruction_counts({"ours": args.ours.resolve(), "debian": args.debian})
    section = markdown(rows, geo, args.repeats, manifest, ref_version, ir)
    print(section)
    if args.markdown:
        write_section(args.markdown, section, MARK_BEGIN, MARK_END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
