"""A results folder through Snakemake (issue 51, §§1 and 3): a link planted in it is refused in one line before
anything is written, a copy of it reads its own runs after the original is gone, each folder keeps its own stamp
listing and logs, and a deleted run directory, a truncated run table, a deleted experiment table and a truncated
metrics-cache entry are each noticed and made again by the same command, with a line saying so.

The sweep is test_unshipped_sweep's (6 runs of 5 simulated s on the smoke profile, one seed), in a working
directory of links to this checkout, so that its stamp, logs and .snakemake/ are its own."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_unshipped_sweep import SWEEP

REPO = Path(__file__).resolve().parents[2]
LINKED = ("Snakefile", "workflows", "experiments", "parsers", "figures", "tcl", "profiles", "ns2-patches", "build")
OUTCOME = re.compile(r"key=([0-9a-f]+): (ran|cached|failed)")


@pytest.fixture(scope="module")
def work(tmp_path_factory, ns_binary) -> Path:
    root = tmp_path_factory.mktemp("folders")
    work = root / "checkout"
    work.mkdir()
    for name in LINKED:
        (work / name).symlink_to(REPO / name)
    doc = yaml.safe_load(SWEEP)
    doc["experiments"]["flows"]["seeds"] = {"count": 1}
    (root / "sweep.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return work


def snakemake(work: Path, results: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--profile", "profiles/smoke", "--cores", "2", "--config"]
    cmd += [f"experiment_files={work.parent / 'sweep.yaml'}", f"results={results}", *extra, "--", "reproduce-all"]
    return subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=1200)


def outcomes(proc: subprocess.CompletedProcess) -> dict[str, str]:
    return dict(OUTCOME.findall(proc.stdout + proc.stderr))


@pytest.fixture(scope="module")
def made(work) -> Path:
    """The sweep made once into a folder the tests copy."""
    results = work.parent / "made"
    proc = snakemake(work, results)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(outcomes(proc)) == 6
    return results


def copy_of(made: Path, name: str) -> Path:
    copy = made.parent / name
    shutil.copytree(made, copy, symlinks=True)
    return copy


EXP = Path("red_pi_flows") / "flows"


def test_paths_in_a_folder_are_relative_and_a_copy_reads_its_own_runs(work, made):
    record = json.loads((made / EXP / "batches" / "0.json").read_text())
    assert all(entry["directory"].startswith("runs/") for entry in record["runs"]), "before: absolute paths"
    assert not any(Path(d).is_absolute() for d in pd.read_parquet(made / EXP / "runs.parquet")["directory"])
    copy = copy_of(made, "copied")
    moved = made.parent / "original-gone"
    made.rename(moved)  # the original is gone while the copy runs
    try:
        proc = snakemake(work, copy, "--forcerun", "aggregate_experiment")
    finally:
        moved.rename(made)
    assert proc.returncode == 0, proc.stderr[-3000:]  # before: FileNotFoundError of the original's run directories
    assert set(outcomes(proc).values()) <= {"cached"}, "the copy's own runs, reused"
    runs = pd.read_parquet(copy / EXP / "runs.parquet")["directory"]
    assert all((copy / EXP / d / "params.json").is_file() for d in runs)


def test_each_folder_keeps_its_own_stamp_listing_and_logs(work, made):
    other = work.parent / "other"
    proc = snakemake(work, other)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for results in (made, other):
        listing = results / "reproduce-all.sha256"
        names = [line.split("  ", 1)[1] for line in listing.read_text().splitlines()]
        assert "REPORT.md" in names and f"{EXP}/metrics.parquet" in names, "every table, relative to the folder"
        check = subprocess.run(["sha256sum", "--quiet", "-c", listing.name], cwd=results, capture_output=True)
        assert check.returncode == 0, check.stdout
        assert (results / "logs" / "red_pi_flows" / "flows" / "aggregate_experiment.log").is_file()
    assert not (work / "logs").exists(), "before: every folder's logs in the working directory's logs/"
    assert str(other / "reproduce-all.sha256") in (work / "reproduce-all").read_text()


@pytest.mark.parametrize("plant", ["runs", ".locks", ".workflow.lock", "red_pi_flows"])
def test_a_planted_link_is_refused_in_one_line_and_nothing_is_written_through_it(work, made, plant):
    results = copy_of(made, f"planted-{plant.strip('.')}")
    outside = work.parent / f"outside-{plant.strip('.')}"
    target = results / plant
    if target.is_dir():
        shutil.move(target, outside)  # the link points at what was there: a write through it would land outside
    else:
        target.rename(outside)
    target.symlink_to(outside)
    shutil.rmtree(
        results / "runs" / next(iter(sorted(p.name for p in made.joinpath("runs").iterdir()))), ignore_errors=True
    )  # a run to make: without the check, it would be written
    before = (
        sorted((p.relative_to(outside), p.stat().st_mtime_ns) for p in outside.rglob("*"))
        if outside.is_dir()
        else outside.read_bytes()
    )
    proc = snakemake(work, results)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"{target}: a symbolic link" in errors[0] and "Traceback" not in proc.stderr
    after = (
        sorted((p.relative_to(outside), p.stat().st_mtime_ns) for p in outside.rglob("*"))
        if outside.is_dir()
        else outside.read_bytes()
    )
    assert after == before, "nothing written through the link"


def test_damage_is_noticed_and_made_again_with_a_line_each(work, made):
    results = copy_of(made, "damaged")
    runs = sorted(p for p in (results / "runs").iterdir())
    deleted, truncated = runs[0], runs[1]
    shutil.rmtree(deleted)
    table = next((truncated / "tables").glob("*.parquet"))
    table.write_bytes(table.read_bytes()[:10])
    (results / EXP / "metrics.parquet").unlink()
    for entry in (results / "metrics-cache").glob("*.metrics.parquet"):
        entry.write_bytes(entry.read_bytes()[:10])
    proc = snakemake(work, results)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]  # before: ArrowInvalid
    made_again = {key for key, status in outcomes(proc).items() if status == "ran"}
    assert made_again == {deleted.name, truncated.name}, "exactly the damaged runs, the others reused"
    assert f"made again: tables/{table.name} has 10 bytes" in output
    assert "its directory is missing" in output
    assert (results / EXP / "metrics.parquet").is_file(), "before: a deleted table was not made again"
    assert "cannot be read (ArrowInvalid): computed again" in output
    check = subprocess.run(["sha256sum", "--quiet", "-c", "reproduce-all.sha256"], cwd=results, capture_output=True)
    assert check.returncode == 0
    again = snakemake(work, results)
    assert again.returncode == 0 and "ran" not in outcomes(again).values(), "repaired once, then left alone"
