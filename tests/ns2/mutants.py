"""Deliberately broken builds: each must make the tests of its patch fail.

    .venv/bin/python tests/ns2/mutants.py [--work DIR] [--markdown docs/VALIDATION.md | --only TEXT]

A test that passes on a broken binary proves nothing. This builds our ns-2 once in a
work tree (the pinned tarball plus ns2-patches/series, as ns2_build.py does), then for
each mutant below changes one line of a patch's C++, rebuilds incrementally, runs that
patch's test module against the broken binary (NS2REPRO_NS_BINARY) and restores the
line. A mutant the tests do not catch is reported as survived, and the exit status is 1.
The work tree is kept in the build cache, one per patch series (a build of its own takes
minutes; the next invocation rebuilds only what a mutant changed), unless `--work` names
another. Not run whole by CI; its last result is in docs/VALIDATION.md.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "ns2-patches"))
sys.path.insert(0, str(REPO / "bench"))

import ns2_build  # noqa: E402
from perfdoc import write_section  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- mutants:begin -->", "<!-- mutants:end -->"


@dataclass(frozen=True)
class Mutant:
    name: str
    source: str  # file in the ns-2 tree
    old: str  # text to replace (must occur exactly once)
    new: str
    tests: str  # test module that must fail


BQM_TESTS = "tests/ns2/test_bqm.py"
PSAND_TESTS = "tests/ns2/test_psand.py"
THRESH_TESTS = "tests/ns2/test_psand_thresholds.py"
MUTANTS = [
    Mutant(
        "queue drops the arrival, not the lowest level",
        "queue/bqm-queue.cc",
        "if (v == 0 || v == p)\n\t\treturn false;",
        "if (v != 0)\n\t\treturn false;",
        BQM_TESTS,
    ),
    Mutant(
        "interface queue's routing arrival pushes out the tail",
        "queue/bqm-queue.cc",
        "return (v != 0 ? v : PriQueue::high_priority_victim());",
        "return PriQueue::high_priority_victim();",
        BQM_TESTS,
    ),
    Mutant(
        "queue scans newest first",
        "queue/bqm-queue.cc",
        "(scan_from_tail_ && l == best_level",
        "(!scan_from_tail_ && l == best_level",
        BQM_TESTS,
    ),
    Mutant(
        "sender ignores the resend count", "tcp/tcp-bqm.cc", "+ rexmit_raise_ * earlier;", "+ 0 * earlier;", BQM_TESTS
    ),
    Mutant(
        "sender halves whatever the measure",
        "tcp/tcp-bqm.cc",
        "double w = beta_[ack_measure_] * window;",
        "double w = 0.5 * window;",
        BQM_TESTS,
    ),
    Mutant(
        "sender's wireless response halves too",
        "tcp/tcp-bqm.cc",
        "double w = window - wireless_decrease_;",
        "double w = window / 2;",
        BQM_TESTS,
    ),
    Mutant(
        "receiver's F uses floor",
        "tcp/tcp-sink-bqm.cc",
        "int rounded = floor_ ? kx / d.r : (kx + d.r - 1) / d.r;",
        "int rounded = kx / d.r;",
        BQM_TESTS,
    ),
    Mutant(
        "receiver without the burst rule",
        "tcp/tcp-sink-bqm.cc",
        "(burst_ > 0 && d.burst >= burst_)",
        "(false && d.burst >= burst_)",
        BQM_TESTS,
    ),
    Mutant(
        "Modified BQM reports the highest level", "tcp/tcp-sink-bqm.cc", "if (!modified_) {", "if (true) {", BQM_TESTS
    ),
    Mutant(
        "receiver misses the first hole",
        "tcp/tcp-sink-bqm.cc",
        "for (int s = next_; s <= maxseen_; ++s)",
        "for (int s = next_ + 1; s <= maxseen_; ++s)",
        BQM_TESTS,
    ),
    Mutant(
        "RED's gentle segment keeps the initial max_p",
        "queue/red.cc",
        "if (edp_.gentle && edp_.gentle_follows_max_p) {",
        "if (edp_.gentle && 0) {",
        PSAND_TESTS,
    ),
    Mutant(
        "RED's thresh_ 0 always automatic",
        "queue/red.cc",
        "if (edp_.th_min_pkts == 0 && thresh_auto_) {",
        "if (edp_.th_min_pkts == 0) {",
        PSAND_TESTS,
    ),
    Mutant(
        "PSAND without gamma",
        "queue/psand.cc",
        "beta = coef_ * pow((k / ktarget_) * (k / kprev_), gamma_);",
        "beta = coef_ * pow((k / ktarget_) * (k / kprev_), 1.0);",
        PSAND_TESTS,
    ),
    Mutant("PSAND clamps at 1, not top_", "queue/psand.cc", "if (p > edp_.top)", "if (p > 1.0)", PSAND_TESTS),
    Mutant("PSAND without the lower bound", "queue/psand.cc", "if (p < edp_.bottom)", "if (p < 0.0)", PSAND_TESTS),
    Mutant("PSAND's K_prev stays the target", "queue/psand.cc", "kprev_ = k;", "kprev_ = ktarget_;", PSAND_TESTS),
    Mutant(
        "PSAND's zero rules swapped",
        "queue/psand.cc",
        "} else if (zero_rule_ == 1) {",
        "} else if (zero_rule_ != 1) {",
        PSAND_TESTS,
    ),
    Mutant(
        "PSAND reads a byte average as packets", "queue/psand.cc", "k /= edp_.mean_pktsize;", "k /= 1.0;", PSAND_TESTS
    ),
    Mutant(
        "PSAND adapts every other interval",
        "queue/psand.cc",
        "adapt();\n\ttimer_.resched(edp_.interval);",
        "adapt();\n\ttimer_.resched(2 * edp_.interval);",
        PSAND_TESTS,
    ),
    Mutant(
        "PSAND thresholds: RED's linear segment not recomputed after a move",
        "queue/psand.cc",
        "edv_.v_a = 1.0 / th_diff;\n\tedv_.v_b = - edp_.th_min / th_diff;",
        "(void)th_diff;",
        THRESH_TESTS,
    ),
    Mutant(
        "PSAND thresholds: Pseudo Drop Tail's forced drop left to use_mark_p_",
        "queue/red.cc",
        "if ((!edp_.use_mark_p || force_at_max_) && ",
        "if ((!edp_.use_mark_p) && ",
        THRESH_TESTS,
    ),
    Mutant(
        "PSAND thresholds: the first step told by K_prev = 0, not by the flag",
        "queue/psand.cc",
        "double delta = has_prev_ ? k - kprev_ : 0.0;\n\tconst char* trule;\n\tif (!has_prev_) {",
        "double delta = kprev_ > 0 ? k - kprev_ : 0.0;\n\tconst char* trule;\n\tif (!(kprev_ > 0)) {",
        THRESH_TESTS,
    ),
    Mutant(
        "BLUE ignores freeze_time",
        "queue/blue.cc",
        "if (now - last_update_ > freeze_time_) {",
        "if (true) {",
        "tests/ns2/test_blue.py",
    ),
    Mutant(
        "LRED without the square root of lbar",
        "queue/lred.cc",
        "beta_ * sqrt(lbar_) * ((double)qlen - ktarget_)",
        "beta_ * lbar_ * ((double)qlen - ktarget_)",
        "tests/ns2/test_lred.py",
    ),
    Mutant(
        "Vq's token rate ignores alpha_",
        "queue/vq.cc",
        "ctilde = ctilde + alpha2*gamma_*c_*(curr_time - prev_time) - ",
        "ctilde = ctilde + 0.15*gamma_*c_*(curr_time - prev_time) - ",
        "tests/ns2/test_vq_alpha.py",
    ),
    Mutant(
        "Vq's adapt_dropped_ 1 ignored (stock adaptation only)",
        "queue/vq.cc",
        "if(Pktdrp == 0 || adapt_dropped_ == 1){",
        "if(Pktdrp == 0){",
        "tests/ns2/test_vq_alpha.py",
    ),
    Mutant(
        "Vq's adapt_dropped_ 2 removes the dropped packet's tokens too",
        "queue/vq.cc",
        "ctilde = ctilde + alpha2*gamma_*c_*(curr_time - prev_time);\n",
        "ctilde = ctilde + alpha2*gamma_*c_*(curr_time - prev_time) - alpha2*arrived_size;\n",
        "tests/ns2/test_vq_alpha.py",
    ),
    Mutant(
        "Vq adapts a dropped arrival with the freed packet's size",
        "queue/vq.cc",
        "alpha2*qib_*arrived_size;",
        "alpha2*qib_*ch->size();",
        "tests/ns2/test_vq_alpha.py",
    ),
    Mutant(
        "early retransmit whatever the hole's level",
        "tcp/tcp-bqm.cc",
        "return it != sends_.end() && it->second.level == 0;",
        "return it != sends_.end();",
        "tests/ns2/test_bqm_early.py",
    ),
    Mutant(
        "early retransmit inflates the window by numdupacks_",
        "tcp/tcp-bqm.cc",
        "\tdupwnd_ = 1;\n",
        "\tdupwnd_ = numdupacks_;\n",
        "tests/ns2/test_bqm_early.py",
    ),
    Mutant(
        "wireless_ssthresh_ 0 keeps NewReno's halved ssthresh",
        "tcp/tcp-bqm.cc",
        "\t\t\tssthresh_ = ssthresh;",
        "\t\t\tssthresh_ = int(ssthresh_);",
        "tests/ns2/test_bqm_early.py",
    ),
    Mutant(
        "nfastrexmit_ counts every retransmission",
        "tcp/tcp.cc",
        "if (reason == TCP_REASON_DUPACK)\n\t\t\t++nfastrexmit_;",
        "if (1)\n\t\t\t++nfastrexmit_;",
        "tests/ns2/test_tcp_counters.py",
    ),
    Mutant(
        "AODV's purged packets keep CBK",
        "aodv/aodv.cc",
        "return purge_filter_ ? DROP_IFQ_FILTER : DROP_RTR_MAC_CALLBACK;",
        "return DROP_RTR_MAC_CALLBACK;",
        "tests/ns2/test_aodv_purge.py",
    ),
]


def build_tree(work: Path) -> Path:
    """The pinned tree with the series applied, configured and built (ns2_build.py's steps)."""
    tree = work / ns2_build.TREE_NAME
    stamp, series = work / "series.sha256", series_hash()
    if (tree / "ns").is_file():
        if not stamp.is_file() or stamp.read_text().strip() != series:
            raise SystemExit(
                f"{work}: built from another patch series than ns2-patches/series; "
                f"remove it (or pass another --work) to build afresh"
            )
        make(tree)  # the tree may hold an interrupted mutant's restore: rebuild what changed
        return tree
    shutil.rmtree(tree, ignore_errors=True)  # a build interrupted before its binary: start afresh
    subprocess.run(["tar", "-xf", str(ns2_build.ensure_tarball()), "-C", str(work)], check=True)
    for patch in ns2_build.read_series():
        subprocess.run(["patch", "-p1", "--forward", "--batch", "-s", "-i", str(patch)], cwd=tree, check=True)
    prefix = work / "debian-prefix"
    ns2_build.make_prefix(prefix)
    with_dirs = [f"--with-{p}={prefix}" for p in ("tcl", "otcl", "tclcl")]
    configure = ["./configure", *with_dirs, *ns2_build.CONFIGURE_ARGS]
    subprocess.run(configure, cwd=tree, check=True, stdout=subprocess.DEVNULL)
    make(tree)
    stamp.write_text(series)
    return tree


def cached_work() -> Path:
    """The build cache's work tree for this patch series; those of other series are removed (each is a whole ns-2
    build tree, and only the current series' is ever reused)."""
    root = ns2_build.cache_root() / "mutants"
    work = root / series_hash()[:20]
    if not work.exists() and root.is_dir():
        for old in root.iterdir():
            shutil.rmtree(old, ignore_errors=True)
    return work


def series_hash() -> str:
    """The ordered series' names and contents, as the build cache keys them."""
    return ns2_build.series_sha256(ns2_build.key_inputs()["patches"])


def make(tree: Path) -> None:
    cmd = ["make", f"-j{os.cpu_count() or 1}", f"CCOPT={ns2_build.CCOPT}", ns2_build.MAKE_TARGET]
    subprocess.run(cmd, cwd=tree, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def tests_fail(binary: Path, module: str) -> tuple[bool, str]:
    env = {**os.environ, "NS2REPRO_NS_BINARY": str(binary)}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", module],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    summary = next((line for line in reversed(proc.stdout.splitlines()) if " in " in line), proc.stdout[-200:])
    return proc.returncode != 0, summary.strip("= ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, help="build tree to (re)use (default: a temporary directory)")
    parser.add_argument("--markdown", type=Path, help="write the results into this file's mutants section")
    parser.add_argument("--only", metavar="TEXT", help="only the mutants whose name contains TEXT (no --markdown)")
    args = parser.parse_args()
    mutants = [m for m in MUTANTS if args.only is None or args.only in m.name]
    if not mutants or (args.only and args.markdown):
        parser.error(
            f"--only {args.only!r}: no mutant's name contains it"
            if not mutants
            else "--only writes no table: the table lists every mutant"
        )
    work = args.work or cached_work()
    work.mkdir(parents=True, exist_ok=True)
    # One invocation at a time per work tree: each mutant rewrites a source file of it.
    lock = open(work.parent / f"{work.name}.lock", "w")  # noqa: SIM115 -- held until the process exits
    fcntl.flock(lock, fcntl.LOCK_EX)
    tree = build_tree(work)
    for module in sorted({m.tests for m in mutants}):
        intact, summary = tests_fail(tree / "ns", module)
        if intact:
            print(f"the unbroken build already fails {module}: {summary}")
            return 1
    rows = []
    for m in mutants:
        path = tree / m.source
        original = path.read_text()
        if original.count(m.old) != 1:
            raise SystemExit(f"{m.source}: the text of mutant '{m.name}' is not there exactly once")
        try:
            path.write_text(original.replace(m.old, m.new))
            make(tree)
            caught, summary = tests_fail(tree / "ns", m.tests)
        finally:
            path.write_text(original)
        rows.append((m, caught, summary))
        print(f"{'caught  ' if caught else 'SURVIVED'} {m.name}: {summary}", flush=True)
    make(tree)
    if args.markdown:
        lines = [
            MARK_BEGIN,
            "## Broken builds: each patch's tests fail on each",
            "",
            "Command: `.venv/bin/python tests/ns2/mutants.py --markdown docs/VALIDATION.md` (one line of "
            "C++ changed per build, then `pytest` of the named test module against it; the unbroken "
            "build passes them all).",
            "",
            "| mutant | file | test module | result |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {m.name} | `{m.source}` | `{m.tests}` | {'fail: ' if caught else '**pass (survived)**: '}{s} |"
            for m, caught, s in rows
        ]
        write_section(args.markdown, "\n".join([*lines, MARK_END]), MARK_BEGIN, MARK_END)
    return 0 if all(caught for _, caught, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
