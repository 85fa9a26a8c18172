"""Every command line of README.md's shell blocks, and every command a reader would copy from docs/*.md (inline
code that starts like one), runs as printed or through the substitution stated here.

A reader copies commands from the README; each must work as printed. WAYS maps every command line (continuation
lines joined, the trailing comment cut) to how it is run:

- AS_PRINTED: in a scratch copy of the checkout (its build/ns2 copied, its .venv linked);
- Substituted: a stated replacement run there instead: a dry run where the command is hours long, the smallest
  options of a benchmark, podman with .ci/container's flags for docker, the image CI built for `ns2-repro`;
- InCi: a stage of .ci/run runs it; asserted here by the stage's file holding the command;
- Fragment (docs only): a flag or template named in prose, not a line to copy;
- Unavailable: it needs a package Debian 12's archive lacks; asserted with apt-cache, so that the day the package
  is there this test fails and asks for a real run.

A command line without an entry (WAYS for the README, DOC_WAYS for docs/) fails the test, and so does an entry
no longer printed. Commands that
need the image of CI's container stage or a one-node Slurm run where .ci/run says both are there
(NS2REPRO_CONTAINER_IMAGE, NS2REPRO_SLURM_READY) and are skipped elsewhere.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from sweeps import copy_checkout

from experiments.report.browser_check import CHROMIUM

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
IMAGE_ENV, SLURM_ENV, BROWSER_ENV = "NS2REPRO_CONTAINER_IMAGE", "NS2REPRO_SLURM_READY", "NS2REPRO_BROWSER"
# .ci/container's podman flags: no network, runc, and limits this machine's hard nofile limit allows.
PODMAN = "podman run --runtime runc --network none --ulimit nofile=20000:20000 --ulimit nproc=32768:32768"
TIMEOUT_S = 1800


@dataclass(frozen=True)
class Substituted:
    command: str  # run in the scratch copy instead; {image} is the image CI built
    why: str
    needs: tuple[str, ...] = ()  # "image", "slurm", "browser"


@dataclass(frozen=True)
class InCi:
    stage_file: str  # the .ci file that runs it
    text: str  # what that file holds


@dataclass(frozen=True)
class Unavailable:
    package: str
    why: str


@dataclass(frozen=True)
class Fragment:
    why: str  # a flag or template named in prose, not a line to copy


AS_PRINTED = Substituted("", "as printed")


def docker(command: str, *extra: str) -> Substituted:
    """`docker run --rm -v "$PWD/out:/out" ns2-repro ARGS` as podman with .ci/container's flags, on CI's image."""
    prefix = 'docker run --rm -v "$PWD/out:/out" ns2-repro'
    assert command.startswith(prefix), command
    args = command.removeprefix(prefix)
    return Substituted(
        f'mkdir -p out && {PODMAN} --rm -v "$PWD/out:/out" {{image}}{args} {" ".join(extra)}'.strip(),
        "podman for docker (.ci/container's flags), the image CI built" + (f", {' '.join(extra)}" if extra else ""),
        ("image",),
    )


DRY = "--dry-run: the real command runs for hours"
# Planning every paper takes a minute or two; the container's `--dry-run` line plans all five, the others one.
ONE_PAPER = "--config experiment_files=configs/koo_aqm.yaml"
DRY_ONE = f"{DRY}; {ONE_PAPER} (the container's --dry-run line plans every paper)"


def dry(command: str, why: str = DRY_ONE) -> Substituted:
    return Substituted(f"{command} --dry-run {ONE_PAPER}", why)


SWEEP = "after my_sweep.yaml is written from the README's YAML block"
WAYS: dict[str, Substituted | InCi | Unavailable] = {
    # Set-up
    "make reproduce": Substituted(f"make reproduce SNAKEMAKE_ARGS='--dry-run {ONE_PAPER}'", DRY_ONE),
    "make test": InCi(".ci/run", "make test"),
    # Targets and profiles
    ".venv/bin/snakemake reproduce-all": dry(".venv/bin/snakemake reproduce-all"),
    ".venv/bin/snakemake reproduce-all --profile profiles/smoke": dry(
        ".venv/bin/snakemake reproduce-all --profile profiles/smoke"
    ),
    ".venv/bin/snakemake reproduce-all --profile profiles/paper": dry(
        ".venv/bin/snakemake reproduce-all --profile profiles/paper"
    ),
    ".venv/bin/snakemake reproduce-all sensitivity-all --profile profiles/smoke": InCi(
        ".ci/run", "stage smoke .venv/bin/snakemake reproduce-all sensitivity-all --profile profiles/smoke"
    ),
    ".venv/bin/snakemake sensitivity-all": dry(".venv/bin/snakemake sensitivity-all"),
    (
        ".venv/bin/python -m experiments cut configs/psand.yaml --experiments fec_flows fec_block_size --output "
        "results/psand_ch5.yaml"
    ): AS_PRINTED,
    ".venv/bin/snakemake sensitivity-all --config experiment_files=results/psand_ch5.yaml": Substituted(
        ".venv/bin/python -m experiments cut configs/psand.yaml --experiments fec_flows fec_block_size --output "
        "results/psand_ch5.yaml && .venv/bin/snakemake sensitivity-all "
        "--config experiment_files=results/psand_ch5.yaml --dry-run",
        f"{DRY} (the part of the command above)",
    ),
    ".venv/bin/snakemake reproduce-all --config experiment_files=configs/smooth_tcp.yaml": Substituted(
        ".venv/bin/snakemake reproduce-all --config experiment_files=configs/smooth_tcp.yaml --dry-run",
        f"{DRY} (this one paper)",
    ),
    # Cluster and container
    ".venv/bin/snakemake reproduce-all --profile profiles/slurm": dry(
        ".venv/bin/snakemake reproduce-all --profile profiles/slurm"
    ),
    ".venv/bin/snakemake reproduce-all --profile profiles/slurm --configfile profiles/paper/settings.yaml": dry(
        ".venv/bin/snakemake reproduce-all --profile profiles/slurm --configfile profiles/paper/settings.yaml"
    ),
    ".venv/bin/snakemake reproduce-all --profile profiles/slurm --configfile profiles/smoke/settings.yaml": dry(
        ".venv/bin/snakemake reproduce-all --profile profiles/slurm --configfile profiles/smoke/settings.yaml",
        f"{DRY_ONE}; CI's Slurm stage runs one paper's smoke profile through Slurm (.ci/slurm smoke)",
    ),
    ".ci/slurm start": InCi(".ci/slurm", "start\n    trap stop EXIT\n    smoke"),
    ".ci/slurm stop": InCi(".ci/slurm", "start\n    trap stop EXIT\n    smoke"),
    ".ci/slurm run CMD ...": Substituted(".ci/slurm run sinfo -h", "CMD: sinfo", ("slurm",)),
    ".ci/slurm smoke build/slurm-out": InCi(".ci/run", ".ci/slurm smoke build/slurm-out"),
    "mkdir -p out": AS_PRINTED,
    'sbatch -c 16 --mem 16G -t 4:00:00 --wrap \'podman run --rm --network none -v "$PWD/out:/out" ns2-repro '
    "--cores 16 reproduce-all'": Substituted(
        f'.ci/slurm run sbatch --wait -c 2 --mem 2G -t 30 -o sbatch.log --wrap \'{PODMAN} --rm -v "$PWD/out:/out" '
        "{image} --cores 2 reproduce-all --dry-run " + ONE_PAPER + "' ; status=$? ; cat sbatch.log ; exit $status",
        "the one-node Slurm of .ci/slurm (2 cores), .ci/container's podman flags, CI's image, " + DRY_ONE,
        ("image", "slurm"),
    ),
    "podman save --format docker-archive -o ns2-repro.tar ns2-repro": Substituted(
        "podman save --format docker-archive -o ns2-repro.tar {image}", "the image CI built", ("image",)
    ),
    "apptainer build ns2-repro.sif docker-archive://ns2-repro.tar": Unavailable(
        "apptainer", "Apptainer is not in Debian 12's archive, and CI reaches no other registry"
    ),
    "sbatch -c 16 --mem 16G -t 4:00:00 --wrap 'apptainer run --fakeroot --writable-tmpfs --no-home --pwd /ns2-repro "
    '--bind "$PWD/out:/out" ns2-repro.sif --cores 16 reproduce-all\'': Unavailable(
        "apptainer", "Apptainer is not in Debian 12's archive, and CI reaches no other registry"
    ),
    # Cluster and container: replicate in a container
    "docker build -t ns2-repro .": InCi(".ci/container", "buildah bud"),
    'docker run --rm -v "$PWD/out:/out" ns2-repro': docker(
        'docker run --rm -v "$PWD/out:/out" ns2-repro', "--dry-run", ONE_PAPER
    ),
    'docker run --rm -v "$PWD/out:/out" ns2-repro --profile profiles/smoke reproduce-all': InCi(
        ".ci/container", "--profile profiles/smoke reproduce-all"
    ),
    'docker run --rm -v "$PWD/out:/out" ns2-repro reproduce-all --config experiment_files=configs/koo_aqm.yaml': docker(
        'docker run --rm -v "$PWD/out:/out" ns2-repro reproduce-all --config experiment_files=configs/koo_aqm.yaml',
        "--dry-run",
    ),
    'docker run --rm -v "$PWD/out:/out" ns2-repro --dry-run': docker(
        'docker run --rm -v "$PWD/out:/out" ns2-repro --dry-run'
    ),
    # Add a sweep
    ".venv/bin/python -m experiments validate my_sweep.yaml": Substituted(
        ".venv/bin/python -m experiments validate my_sweep.yaml", SWEEP
    ),
    ".venv/bin/python -m experiments runs my_sweep.yaml": Substituted(
        ".venv/bin/python -m experiments runs my_sweep.yaml", SWEEP
    ),
    ".venv/bin/python -m experiments metrics": AS_PRINTED,
    (
        ".venv/bin/snakemake --config experiment_files=my_sweep.yaml -- results/red_pi_flows/figures/delay_vs_flows.png"
    ): Substituted(
        ".venv/bin/snakemake --config experiment_files=my_sweep.yaml -- "
        "results/red_pi_flows/figures/delay_vs_flows.png",
        SWEEP,
    ),
    # The HTML report
    ".venv/bin/python -m experiments check-report results/report": Substituted(
        ".venv/bin/snakemake --profile profiles/smoke --config experiment_files=my_sweep.yaml -- "
        "results-smoke/report/index.html && .venv/bin/python -m experiments check-report results-smoke/report",
        f"the report of the README's sweep on the smoke profile (results-smoke/), {SWEEP}",
        ("browser",),
    ),
    # Tests, lint, benchmarks (the benchmarks themselves: DOC_WAYS, docs/PERFORMANCE.md)
    "make lint": InCi(".ci/run", "make lint"),
    ".venv/bin/python tests/ns2/suites.py --all --markdown docs/VALIDATION.md": Substituted(
        ".venv/bin/python tests/ns2/suites.py --suite simple --markdown docs/VALIDATION.md",
        "one suite: make test runs all 105 (tests/ns2/test_validation_suites.py)",
    ),
    ".venv/bin/python tests/ns2/mutants.py --markdown docs/VALIDATION.md": Substituted(
        '.venv/bin/python tests/ns2/mutants.py --only "Vq\'s token rate"',
        "one mutant (the script builds ns-2 once in a tree of its own, kept in the build cache, then each mutant)",
    ),
}


BENCH = "its smallest options"
SCHEDULER_WAKEUPS_SMALL = (
    ".venv/bin/python bench/scheduler_wakeups.py --jobs 20 --job-seconds 0.01 --rounds 1 --markdown docs/PERFORMANCE.md"
)
RUN_COST_SMALL = (
    ".venv/bin/python bench/run_cost.py --max-duration 2 --repeats 1 --papers koo_aqm --markdown docs/PERFORMANCE.md"
)
# One small command per benchmark where the list and the section name it differently: each runs once.
NS2_SPEED_SMALL = ".venv/bin/python bench/ns2_speed.py --repeats 1 --no-callgrind --markdown docs/PERFORMANCE.md"
HTTP_CONNECTIONS_SMALL = (
    ".venv/bin/python bench/http_connections.py --repeats 1 --flows 10 --duration 10 --micro-count 100 "
    "--markdown docs/PERFORMANCE.md"
)
SLURM_SHARE_SMALL = (
    ".venv/bin/python bench/slurm_share.py --file tests/configs/minimal.yaml --experiment tiny --batches 1 "
    "--batch-size 2 --count-files tests/configs/minimal.yaml"
)
RUN_SETUP_SMALL = Substituted(
    ".venv/bin/python bench/run_setup.py --baseline-tree . --papers koo_aqm --repeats 1 --max-duration 2",
    f"{BENCH} against this tree itself (the scratch copy has no git history to check a commit out of)",
)
PACKET_HEADERS_SMALL = Substituted(
    ".venv/bin/python bench/packet_headers.py --papers koo_aqm --max-duration 2", f"{BENCH}: one paper's cells"
)
SEEDING_ROUNDS_SMALL = Substituted(
    ".venv/bin/snakemake --profile profiles/smoke --config experiment_files=my_sweep.yaml -- "
    "results-smoke/report/index.html && .venv/bin/python bench/seeding_rounds.py --sweep results-smoke=my_sweep.yaml "
    "--profile smoke",
    f"on the README's sweep on the smoke profile (results-smoke/; no rounds there), {SWEEP}",
)
DOC_WAYS: dict[str, Substituted | Fragment] = {
    # docs/PERFORMANCE.md: the benchmarks' list at its head (moved from the README)
    ".venv/bin/python bench/ns2_speed.py --markdown docs/PERFORMANCE.md": Substituted(
        NS2_SPEED_SMALL, "its smallest options: one round, no valgrind"
    ),
    ".venv/bin/python bench/parser_vs_awk.py --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/parser_vs_awk.py --repeats 1 --markdown docs/PERFORMANCE.md", "one round"
    ),
    ".venv/bin/python bench/snakemake_batching.py --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/snakemake_batching.py --runs 4 --rounds 1 --markdown docs/PERFORMANCE.md",
        "its smallest sweep",
    ),
    ".venv/bin/python bench/http_connections.py --markdown docs/PERFORMANCE.md": Substituted(
        HTTP_CONNECTIONS_SMALL, "its smallest options: one round of a small sweep"
    ),
    ".venv/bin/python bench/plan_scale.py --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/plan_scale.py --sizes 10 --markdown docs/PERFORMANCE.md", "one small sweep"
    ),
    ".venv/bin/python bench/run_disk.py --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/run_disk.py --max-duration 5 --markdown docs/PERFORMANCE.md", "short runs"
    ),
    # docs/PERFORMANCE.md: each section's command
    ".venv/bin/python bench/ns2_speed.py --repeats 5 --markdown docs/PERFORMANCE.md": Substituted(
        NS2_SPEED_SMALL, BENCH
    ),
    ".venv/bin/python bench/parser_vs_awk.py --repeats 5 --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/parser_vs_awk.py --repeats 1 --markdown docs/PERFORMANCE.md", BENCH
    ),
    ".venv/bin/python bench/snakemake_batching.py --runs 200 --rounds 2 --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/snakemake_batching.py --runs 4 --rounds 1 --markdown docs/PERFORMANCE.md", BENCH
    ),
    ".venv/bin/python bench/http_connections.py --repeats 5 --flows 100 --duration 100 --micro-count 2000 "
    "--markdown docs/PERFORMANCE.md": Substituted(HTTP_CONNECTIONS_SMALL, BENCH),
    ".venv/bin/python bench/run_disk.py --max-duration 40 --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/run_disk.py --max-duration 5 --markdown docs/PERFORMANCE.md", BENCH
    ),
    ".venv/bin/python bench/run_cost.py --markdown docs/PERFORMANCE.md": Substituted(
        RUN_COST_SMALL, "one paper's two experiments, 2 simulated s, one round"
    ),
    ".venv/bin/python bench/run_cost.py --max-duration 20 --repeats 5 --markdown docs/PERFORMANCE.md": Substituted(
        RUN_COST_SMALL, BENCH
    ),
    ".venv/bin/python bench/dry_run.py --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/dry_run.py --rounds 1 --markdown docs/PERFORMANCE.md", "one round"
    ),
    ".venv/bin/python bench/dry_run.py --rounds 3 --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/dry_run.py --rounds 1 --markdown docs/PERFORMANCE.md", BENCH
    ),
    ".venv/bin/python bench/plan_scale.py --sizes 33,100,333 --seeds 100 --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/plan_scale.py --sizes 10 --seeds 3 --markdown docs/PERFORMANCE.md", BENCH
    ),
    ".venv/bin/python bench/job_process.py --baseline c5073b4 --rounds 3 --files configs/koo_aqm.yaml --duration 70 "
    "--markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/job_process.py --baseline-tree . --rounds 1 --duration 2",
        f"{BENCH} against this tree itself (the scratch copy has no git history to check a commit out of)",
    ),
    ".venv/bin/python bench/job_process.py --baseline c5073b4 --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/python bench/job_process.py --baseline-tree . --rounds 1 --duration 2",
        f"{BENCH} against this tree itself (the scratch copy has no git history to check a commit out of)",
    ),
    ".venv/bin/python bench/slurm_share.py --file configs/psand.yaml --experiment load --batches 8 "
    "--markdown docs/PERFORMANCE.md": Substituted(
        SLURM_SHARE_SMALL, f"{BENCH}: the minimal test file's two runs, its plan counted", ("slurm",)
    ),
    ".venv/bin/python bench/slurm_share.py --markdown docs/PERFORMANCE.md": Substituted(
        SLURM_SHARE_SMALL, f"{BENCH}: the minimal test file's two runs, its plan counted", ("slurm",)
    ),
    ".venv/bin/python bench/scheduler_wakeups.py --markdown docs/PERFORMANCE.md": Substituted(
        SCHEDULER_WAKEUPS_SMALL, f"{BENCH}: 20 jobs"
    ),
    ".venv/bin/python bench/scheduler_wakeups.py --jobs 1500 --job-seconds 0.2 --rounds 1 "
    "--markdown docs/PERFORMANCE.md": Substituted(SCHEDULER_WAKEUPS_SMALL, f"{BENCH}: 20 jobs"),
    ".venv/bin/python bench/run_setup.py --baseline 806b2f2 --markdown docs/PERFORMANCE.md": RUN_SETUP_SMALL,
    ".venv/bin/python bench/run_setup.py --baseline 160e0b3 --max-duration 20 --repeats 3 "
    "--markdown docs/PERFORMANCE.md": RUN_SETUP_SMALL,
    ".venv/bin/python bench/packet_headers.py --markdown docs/PERFORMANCE.md": PACKET_HEADERS_SMALL,
    ".venv/bin/python bench/packet_headers.py --max-duration 5 --readings --jobs 2 "
    "--markdown docs/PERFORMANCE.md": PACKET_HEADERS_SMALL,
    ".venv/bin/python bench/seeding_rounds.py --markdown docs/PERFORMANCE.md": SEEDING_ROUNDS_SMALL,
    (
        ".venv/bin/python bench/sweep_cost.py --results results --by experiment --planned --files configs/psand.yaml "
        "--markdown docs/PERFORMANCE.md"
    ): Substituted(
        ".venv/bin/snakemake --profile profiles/smoke --config experiment_files=my_sweep.yaml -- reproduce-all "
        "&& .venv/bin/python bench/sweep_cost.py --results results-smoke --by experiment --planned "
        "--files my_sweep.yaml",
        f"on the README's sweep on the smoke profile (results-smoke/), its own file planned, printed only, {SWEEP}",
    ),
    ".venv/bin/python bench/sweep_cost.py --results results --markdown docs/PERFORMANCE.md": Substituted(
        ".venv/bin/snakemake --profile profiles/smoke --config experiment_files=my_sweep.yaml -- reproduce-all "
        "&& .venv/bin/python bench/sweep_cost.py --results results-smoke",
        f"on the README's sweep on the smoke profile (results-smoke/), printed only, {SWEEP}",
    ),
    "/usr/bin/time -v .venv/bin/snakemake sensitivity-all --config experiment_files=configs/psand.yaml "
    "results=<folder>": Fragment(
        "a row of \"Default profile from scratch\": Alemu's whole sensitivity, hours of two cores; the README's part "
        "command runs its dry run"
    ),
    "snakemake reproduce-all sensitivity-all": Fragment(
        'the five papers\' attempt in "sensitivity-all on the default profile", resumed over five invocations; '
        "the README's `.venv/bin/snakemake sensitivity-all` runs its dry run"
    ),
    ".venv/bin/python bench/sweep_cost.py --results <folder> --planned": Fragment(
        "the count of planned runs docs/PERFORMANCE.md names: the five papers' plan, about 80 s of key hashing; "
        "the command above runs the same script"
    ),
    ".venv/bin/python bench/seeding_rounds.py --sweep /work/full5/results --markdown docs/PERFORMANCE.md": (
        SEEDING_ROUNDS_SMALL
    ),
    "/usr/bin/time -v nice -n 19 .venv/bin/snakemake sensitivity-all --config readings=null": Fragment(
        "the null readings' sweep of docs/PERFORMANCE.md: the README's `sensitivity-all --config readings=null`, timed"
    ),
    "/usr/bin/time -v .venv/bin/snakemake reproduce-all": Fragment(
        "the five-paper sweep's command: `make reproduce` (the README's) under /usr/bin/time, timed in a clean clone"
    ),
    "/usr/bin/time -v nice -n 10 .venv/bin/snakemake reproduce-all --config experiment_files=configs/<paper>.yaml "
    "results=<folder>": Fragment("the per-paper sweeps' command, a template with the paper and the folder"),
    "snakemake -n": Fragment("Snakemake's dry-run flag, named in prose"),
    "snakemake -n reproduce-all --quiet": Fragment("the command bench/dry_run.py times, named in its section"),
    "snakemake -n reproduce-all --profile profiles/paper": Substituted(
        f".venv/bin/snakemake -n reproduce-all --profile profiles/paper {ONE_PAPER}",
        f"{ONE_PAPER} (the line counts every paper's jobs)",
    ),
    ".ci/container": Fragment("CI's container stage, named in prose"),
    ".ci/slurm": Fragment("the one-node Slurm script, named in prose"),
    "/usr/bin/time -v": Fragment("the timing tool, named in prose"),
    (
        "git clone . /tmp/full && cd /tmp/full && make setup ns2 && /usr/bin/time -v .venv/bin/snakemake reproduce-all"
    ): Substituted(
        "git clone -q {repo} full && cd full && ln -s {repo}/.venv .venv && .venv/bin/python "
        "ns2-patches/ns2_build.py --out build/ns2 && /usr/bin/time -v .venv/bin/snakemake reproduce-all "
        f"--dry-run {ONE_PAPER}",
        "a clone of this checkout's commit, its .venv linked (make setup there would pip install -e the "
        f"clone into it), ns-2 by the script make ns2 runs; {DRY_ONE}",
    ),
    (
        "time .venv/bin/snakemake reproduce-all --config experiment_files=configs/bqm.yaml results=/tmp/bqm-results"
    ): Substituted(
        "time .venv/bin/snakemake reproduce-all --config experiment_files=configs/bqm.yaml "
        "results=/tmp/bqm-results --dry-run",
        DRY,
    ),
    "time nice .venv/bin/snakemake reproduce-all --cores 2 --config experiment_files=configs/psand.yaml "
    "results=/tmp/psand-results": Substituted(
        "time nice .venv/bin/snakemake reproduce-all --cores 2 --config experiment_files=configs/psand.yaml "
        "results=/tmp/psand-results --dry-run",
        DRY,
    ),
    "/usr/bin/time -v .venv/bin/snakemake reproduce-all --config experiment_files=configs/psand.yaml "
    "results=/tmp/psand-results": Substituted(
        "/usr/bin/time -v .venv/bin/snakemake reproduce-all --config experiment_files=configs/psand.yaml "
        "results=/tmp/psand-results --dry-run",
        DRY,
    ),
    "/usr/bin/time -v .venv/bin/snakemake reproduce-all --config experiment_files=configs/psand.yaml "
    "results=/tmp/psand-full": Substituted(
        "/usr/bin/time -v .venv/bin/snakemake reproduce-all --config experiment_files=configs/psand.yaml "
        "results=/tmp/psand-full --dry-run",
        DRY,
    ),
    "/usr/bin/time -v .venv/bin/snakemake reproduce-all --config experiment_files=configs/psand.yaml "
    "results=/tmp/psand-t": Substituted(
        "/usr/bin/time -v .venv/bin/snakemake reproduce-all --config experiment_files=configs/psand.yaml "
        "results=/tmp/psand-t --dry-run",
        DRY,
    ),
    "/usr/bin/time -v .venv/bin/snakemake --config experiment_files=configs/psand.yaml results=/tmp/ch5-default -- "
    "<the 11 figures and 3 tables of Ch. 5>": Substituted(
        "/usr/bin/time -v .venv/bin/snakemake --dry-run --config experiment_files=configs/psand.yaml "
        "results=/tmp/ch5-default -- /tmp/ch5-default/psand/figures/fig5_4a.png "
        "/tmp/ch5-default/psand/tables/table5_1.md",
        f"{DRY}, two of the targets",
    ),
    "/usr/bin/time -v .venv/bin/snakemake --config experiment_files=configs/psand.yaml results=/tmp/ch3-d2 -- "
    "<the 20 figures of Ch. 3> /tmp/ch3-d2/psand/tables/table3_1.md /tmp/ch3-d2/psand/tables/table3_3.md": Substituted(
        "/usr/bin/time -v .venv/bin/snakemake --dry-run --config experiment_files=configs/psand.yaml "
        "results=/tmp/ch3-d2 -- /tmp/ch3-d2/psand/figures/fig3_13.png /tmp/ch3-d2/psand/tables/table3_3.md",
        f"{DRY}, one figure and one table",
    ),
    "/usr/bin/time -v .venv/bin/snakemake --config experiment_files=configs/psand.yaml results=/tmp/ch3-d2 -- "
    "<the metrics.parquet of Ch. 3's 28 readings>": Substituted(
        "/usr/bin/time -v .venv/bin/snakemake --dry-run --config experiment_files=configs/psand.yaml "
        "results=/tmp/ch3-d2 -- '/tmp/ch3-d2/psand/table3_1/readings/t31_mode=strict/metrics.parquet'",
        f"{DRY}, one reading's table",
    ),
    ".venv/bin/snakemake --config experiment_files=configs/psand.yaml results=/work/scratch/psand-a --keep-going "
    "--prioritize <the 14 baseline metrics tables> -- <those 14 and the 76 readings' metrics.parquet>": Substituted(
        ".venv/bin/snakemake --dry-run --config experiment_files=configs/psand.yaml results=/tmp/psand-a "
        "--keep-going --prioritize /tmp/psand-a/psand/load/metrics.parquet -- /tmp/psand-a/psand/load/metrics.parquet "
        "'/tmp/psand-a/psand/load/readings/wq_packet=500/metrics.parquet'",
        f"{DRY}, one baseline and one reading's table",
    ),
    # docs/STATUS.md
    "make reproduce": WAYS["make reproduce"],
    "snakemake sensitivity-all": dry(".venv/bin/snakemake sensitivity-all"),
    # docs/VALIDATION.md
    ".venv/bin/python tests/ns2/suites.py --ours build/ns2/ns --reference /usr/bin/ns --markdown docs/VALIDATION.md "
    "--all": Substituted(
        ".venv/bin/python tests/ns2/suites.py --ours build/ns2/ns --reference /usr/bin/ns --markdown "
        "docs/VALIDATION.md --suite simple",
        "one suite: make test runs all 105 (tests/ns2/test_validation_suites.py)",
    ),
    "NS=<binary> ./test-all-<suite> quiet": Substituted(
        ".venv/bin/python tests/ns2/suites.py --suite simple --work build/validation > /dev/null && "
        "cd build/validation/ours/ns-2.35/tcl/test && PATH=$PWD/../../../shim:$PATH NS=$OLDPWD/build/ns2/ns "
        "./test-all-simple quiet",
        "<binary> our build, <suite> simple, in the tree suites.py prepares (its sleep shim first on PATH)",
    ),
    ".venv/bin/python tests/ns2/mutants.py --markdown docs/VALIDATION.md": WAYS[
        ".venv/bin/python tests/ns2/mutants.py --markdown docs/VALIDATION.md"
    ],
}
DOCS = sorted((REPO / "docs").glob("*.md"))


def without_comment(line: str) -> str:
    """The line up to a `#` that starts a shell comment (after a blank, outside quotes)."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def shell_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```(?:sh|bash|shell|console)\n(.*?)^```", markdown, flags=re.M | re.S)


def command_lines(markdown: str) -> list[str]:
    """Every command of the shell blocks: continuation lines joined, comments cut, blanks dropped."""
    commands = []
    for block in shell_blocks(markdown):
        pending = ""
        for raw in block.splitlines():
            line = without_comment(raw)
            if line.endswith("\\"):
                pending += line[:-1].strip() + " "
                continue
            command = " ".join((pending + line.strip()).split()) if pending else line.strip()
            pending = ""
            if command:
                commands.append(command)
    return commands


def short(command: str) -> str:
    """A test id: the command without quotes, cut at 70 characters."""
    return re.sub(r"[\"']", "", command)[:70]


# Inline code in docs/*.md that a reader would copy: spans starting like a command line.
COMMAND_START = (
    ".venv/bin/",
    "make ",
    "time .venv/",
    "time nice ",
    "/usr/bin/time ",
    "git clone",
    ".ci/",
    "snakemake ",
    "NS=",
)


def doc_spans(markdown: str) -> list[str]:
    """Inline code spans (a span may wrap over lines) that start like a command line, whitespace collapsed."""
    spans = (" ".join(m.split()) for m in re.findall(r"(?<!`)`([^`]+)`(?!`)", markdown))
    return [s for s in spans if s.startswith(COMMAND_START)]


def yaml_block(markdown: str) -> str:
    """The README's one YAML block: the sweep of "Add a sweep"."""
    (block,) = re.findall(r"^```yaml\n(.*?)^```", markdown, flags=re.M | re.S)
    return block


def test_the_extraction_joins_continuations_and_cuts_comments():
    text = "```sh\nmake x   # a 'quoted' comment\n# only a comment\nsbatch -c 2 \\\n  'a # not a comment'\n```\n"
    assert command_lines(text) == ["make x", "sbatch -c 2 'a # not a comment'"]


def test_every_readme_command_has_a_way_to_run_and_every_way_a_command():
    printed = command_lines(README.read_text())
    missing = [c for c in printed if c not in WAYS]
    stale = [c for c in WAYS if c not in printed]
    assert not missing, f"README commands with no entry in WAYS (add one): {missing}"
    assert not stale, f"WAYS entries the README no longer prints (remove them): {stale}"


def test_every_docs_command_has_a_way_to_run_and_every_way_a_command():
    printed = [c for doc in DOCS for c in doc_spans(doc.read_text())]
    missing = sorted({c for c in printed if c not in DOC_WAYS})
    stale = [c for c in DOC_WAYS if c not in printed]
    assert not missing, f"docs/*.md commands with no entry in DOC_WAYS (add one): {missing}"
    assert not stale, f"DOC_WAYS entries docs/*.md no longer print (remove them): {stale}"


@pytest.mark.parametrize("command", [c for c, w in WAYS.items() if isinstance(w, InCi)], ids=short)
def test_a_ci_stage_runs_it(command):
    way = WAYS[command]
    assert way.text in (REPO / way.stage_file).read_text(), f"{way.stage_file} no longer runs `{way.text}`"


@pytest.mark.parametrize("command", [c for c, w in WAYS.items() if isinstance(w, Unavailable)], ids=short)
def test_what_it_needs_is_still_unavailable(command):
    way = WAYS[command]
    policy = subprocess.run(["apt-cache", "policy", way.package], capture_output=True, text=True).stdout
    candidate = re.search(r"Candidate: (\S+)", policy)
    assert candidate is None or candidate.group(1) == "(none)", (
        f"{way.package} is now installable ({candidate.group(1)}): run `{command}` instead of declaring it "
        f"unavailable ({way.why})"
    )


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A copy of the checkout and its ns-2 build (sweeps.copy_checkout: a workflow there may touch the build), this
    checkout's .venv linked in, and the README's sweep as my_sweep.yaml."""
    if subprocess.run(["make", "-q", "venv"], cwd=REPO).returncode != 0:  # else make there would pip install -e it
        pytest.fail("the virtualenv is older than requirements.txt or pyproject.toml: run `make setup` first")
    root = copy_checkout(tmp_path_factory.mktemp("readme") / "checkout")
    (root / ".venv").symlink_to(REPO / ".venv")
    (root / "my_sweep.yaml").write_text(yaml_block(README.read_text()))
    return root


def run_here(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}  # the copy's packages, not the editable install's checkout
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)


ALL_WAYS = {**WAYS, **DOC_WAYS}
# One test per command actually run: README and docs lines with the same substitution share it.
RUNNABLE = list({w.command or c: c for c, w in reversed(ALL_WAYS.items()) if isinstance(w, Substituted)}.values())


# Under pytest-xdist (tests/conftest.py) the commands are spread over the workers, each worker with its own scratch
# copy; those that start the one-node Slurm run on one worker, one after another.
SPREAD_OVER_WORKERS = True
ONE_SLURM = pytest.mark.xdist_group("slurm")


@pytest.mark.parametrize(
    "command", [pytest.param(c, marks=[ONE_SLURM] if "slurm" in ALL_WAYS[c].needs else []) for c in RUNNABLE], ids=short
)
def test_the_command_runs(command, scratch):
    way = ALL_WAYS[command]
    image = os.environ.get(IMAGE_ENV)
    if "image" in way.needs and not image:
        pytest.skip(f"needs the image of CI's container stage ({IMAGE_ENV})")
    if "slurm" in way.needs and not os.environ.get(SLURM_ENV):
        pytest.skip(f"needs the one-node Slurm of .ci/slurm, as root ({SLURM_ENV})")
    if "browser" in way.needs and not CHROMIUM.is_file() and os.environ.get(BROWSER_ENV) != "1":
        pytest.skip(f"needs {CHROMIUM} (apt-get install chromium; CI's test stage sets {BROWSER_ENV}=1)")
    what = (
        (way.command or command).replace("{image}", shlex.quote(image or "")).replace("{repo}", shlex.quote(str(REPO)))
    )
    proc = run_here(what, scratch)
    assert proc.returncode == 0, (
        f"`{what}` (for the README's `{command}`; {way.why}) exited {proc.returncode}:\n"
        f"{proc.stdout[-1500:]}\n{proc.stderr[-3000:]}"
    )


def test_the_container_names_a_target_swallowed_by_config_in_one_line(scratch):
    image = os.environ.get(IMAGE_ENV)
    if not image:
        pytest.skip(f"needs the image of CI's container stage ({IMAGE_ENV})")
    swallowed = (
        f'mkdir -p out && {PODMAN} --rm -v "$PWD/out:/out" {shlex.quote(image)} '
        "--config experiment_files=configs/koo_aqm.yaml reproduce-all"
    )
    proc = run_here(swallowed, scratch)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]  # one line
    assert "'reproduce-all' after --config is not a name=value pair" in proc.stderr
