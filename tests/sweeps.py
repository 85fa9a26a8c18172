"""What the tests that run Snakemake share: a scratch copy of the checkout, and the jobs a dry run lists.

The copy is also what bench/slurm_share.py and .ci/slurm's smoke stage run in (`python tests/sweeps.py DEST
--link-venv`): one way to copy the checkout."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


# Outside a git checkout (a copy this module made), what copy_checkout leaves out: git's data, the virtualenv, builds,
# results and caches (the copy's build is copied apart).
_NOT_SOURCES = {".git", ".venv", "build", "logs", ".snakemake", "__pycache__", ".pytest_cache", ".ruff_cache"}


def checkout_files() -> list[str]:
    """The checkout's files, relative: those git tracks and the new ones it does not ignore; in a copy that is not a
    git checkout (the tests' scratch copy, where bench/slurm_share.py makes a copy of its own), every file but
    _NOT_SOURCES and results folders."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True
    )
    if listed.returncode == 0:
        return [name for name in listed.stdout.decode().split("\0") if name]
    names = []
    for folder, subfolders, files in os.walk(REPO):
        subfolders[:] = [d for d in subfolders if d not in _NOT_SOURCES and not d.startswith("results")]
        names += [str((Path(folder) / f).relative_to(REPO)) for f in files]
    return names


def copy_checkout(root: Path, link_venv: bool = False) -> Path:
    """The checkout's files (checkout_files; times kept, so make sees its set-up done) under `root`, and its ns-2
    build copied after them (newer than the sources: the build rule stays done); with `link_venv`, a link to the
    checkout's .venv (for commands that run the copy's own .venv/bin/snakemake, as Slurm jobs do)."""
    for name in checkout_files():
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name, follow_symlinks=False)
    shutil.copytree(REPO / "build" / "ns2", root / "build" / "ns2", copy_function=shutil.copy)
    if link_venv:
        (root / ".venv").symlink_to(REPO / ".venv")
    return root


def dry_run_jobs(output: str) -> dict[str, int]:
    """Jobs per rule in the output of `snakemake --dry-run` ({} when nothing is to be done)."""
    if "Nothing to be done" in output:
        return {}
    counts = dict(re.findall(r"^([a-z_]+)\s+(\d+)$", output.split("Job stats:", 1)[1], flags=re.M))
    counts.pop("total", None)
    return {rule: int(n) for rule, n in counts.items()}


# A sweep whose compare claim drifts on its 2 starting seeds (three flows keep a longer queue than two at every
# seed, by an amount an interval of one degree of freedom cannot tell from 0) and is decided by a seeding round;
# the bound claim is decided from the start. 4-s runs of up to 8 flows: seconds each.
SEED_DEMO = """
paper: seed_demo
queues:
  DT:
    class: Queue/DropTail
    knobs: {limit_: 30}
experiments:
  fill:
    scenario:
      topology:
        kind: dumbbell
        core_link: {bandwidth: 1Mb, delay: 10ms}
        edge_link: {bandwidth: 10Mb, delay: 1ms}
      core_queue: DT
      flows:
        tcp:
          kind: ftp
          count: 2
          start: {uniform: [0, 1]}
          agent: {class: Agent/TCP/Newreno}
          sink: {class: Agent/TCPSink}
      monitors: {packet_trace: false}
    duration: 4
    seeds: {count: 2}
    matrix:
      product:
        flows_n: {path: flows.tcp.count, levels: [2, 3, 8]}
claims:
  - {id: more_flows_longer_queue, kind: compare, source: this test, experiment: fill,
     metric: bottleneck_queue_pkts_mean, axis: flows_n, level: 3, relation: greater, than: [2]}
  - {id: queue_below_100, kind: bound, source: this test, experiment: fill, metric: bottleneck_queue_pkts_max,
     bound: below, threshold: 100, drift_threshold: 120}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description="Copy this checkout for a sweep (copy_checkout).")
    parser.add_argument("dest", type=Path, help="a folder that does not exist yet")
    parser.add_argument("--link-venv", action="store_true", help="link the checkout's .venv into the copy")
    args = parser.parse_args()
    if args.dest.exists():
        parser.error(f"{args.dest}: exists; copy_checkout fills a new folder")
    copy_checkout(args.dest, args.link_venv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
