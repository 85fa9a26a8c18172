"""The container reproduces the host's smoke run byte for byte.

`.ci/container OUT` builds the image from the Dockerfile and runs the smoke profile's
`reproduce-all` in it; `.ci/run` then sets NS2REPRO_CONTAINER_RESULTS=OUT/results-smoke. The host's smoke
run (the CI stage before) is in results-smoke/. Outside CI the parity test is skipped
with that reason; the comparison itself is tested on planted differences. The same
comparison (`results_from_env`, `assert_matches_host`) checks the smoke run made through
Slurm (tests/cluster).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# What must be identical: every parquet table, and each run's parameters, ns-2 knobs
# and binary provenance.
COMPARED = ("**/*.parquet", "**/runs/*/params.json", "**/runs/*/meta.json", "**/runs/*/manifest.json")
# Not results: the per-run metrics cache (experiments/aggregate.py) holds what each side happened to compute.
NOT_COMPARED = ("metrics-cache",)


def compared_files(root: Path, patterns=COMPARED) -> set[str]:
    """The files under `root` that must match, relative to it."""
    found = {p.relative_to(root) for pattern in patterns for p in root.glob(pattern)}
    return {str(p) for p in found if p.parts[0] not in NOT_COMPARED}


def tree_differences(host: Path, other: Path, patterns=COMPARED, where="in the container") -> tuple[int, list[str]]:
    """(files compared, one line per file missing on either side or differing in bytes); `where` names the other
    side in the messages."""
    ours, theirs = compared_files(host, patterns), compared_files(other, patterns)
    problems = [f"only on the host: {p}" for p in sorted(ours - theirs)]
    problems += [f"only {where}: {p}" for p in sorted(theirs - ours)]
    problems += [
        f"bytes differ: {p}" for p in sorted(ours & theirs) if (host / p).read_bytes() != (other / p).read_bytes()
    ]
    return len(ours | theirs), problems


def test_tree_differences_reports_each_kind_of_difference(tmp_path):
    host, container = tmp_path / "host", tmp_path / "container"
    for root, payload in ((host, b"PAR1 same"), (container, b"PAR1 same")):
        (root / "p" / "e" / "runs" / "k1").mkdir(parents=True)
        (root / "p" / "e" / "metrics.parquet").write_bytes(payload)
        (root / "p" / "e" / "runs" / "k1" / "manifest.json").write_text("{}")
    assert tree_differences(host, container) == (2, [])

    (container / "p" / "e" / "runs" / "k1" / "manifest.json").write_text('{"binary": 1}')
    (host / "p" / "e" / "series.parquet").write_bytes(b"PAR1")
    (container / "p" / "e" / "runs" / "k1" / "notes.txt").write_text("not compared")
    (host / "metrics-cache").mkdir()
    (host / "metrics-cache" / "k1.metrics.parquet").write_bytes(b"PAR1 a cache, not a result")
    count, problems = tree_differences(host, container)
    assert count == 3
    assert problems == [
        "only on the host: p/e/series.parquet",
        "bytes differ: p/e/runs/k1/manifest.json",
    ]


def results_from_env(variable: str, producer: str) -> Path:
    """The results folder a CI stage made and named in `variable`; skipped (with how to make it) when unset."""
    value = os.environ.get(variable)
    if not value:
        pytest.skip(f"{variable} is not set: run {producer} first (CI does)")
    path = Path(value)
    if not path.is_dir():
        pytest.fail(f"{variable}={value} is not a directory: did {producer} finish?")
    return path


def baseline_only(host: Path, other: Path) -> Path:
    """A view of the host's results restricted to what `reproduce-all` of the papers the other side ran makes: no
    readings' tables, no sensitivity table, no other paper's tables, and only the run directories the other side
    has (its runs.parquet files, compared byte for byte, say which runs the baseline has: a baseline run missing
    there shows as a runs.parquet difference). Returned as a directory of symlinks, so that tree_differences
    compares it like any tree."""
    view = other.parent / f".{other.name}.host-baseline"
    if view.exists():
        shutil.rmtree(view)
    ours = compared_files(host)
    theirs_runs = {p.parts[1] for p in (q.relative_to(other) for q in other.glob("runs/*")) if len(p.parts) > 1}
    papers = {p.name for p in other.iterdir() if p.is_dir() and p.name not in ("runs", *NOT_COMPARED)}
    for rel in sorted(ours):
        parts = Path(rel).parts
        if "readings" in parts or parts[-1] == "sensitivity.parquet":
            continue
        if parts[0] != "runs" and parts[0] not in papers:
            continue
        if parts[0] == "runs" and parts[1] not in theirs_runs:
            continue
        target = view / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(host / rel)
    return view


def assert_matches_host(other: Path, where: str, baseline: bool = False) -> None:
    """Every parquet table and run file of the smoke run in `other` is the host's (results-smoke/) byte for byte,
    and every run there used the host's ns binary. `baseline`: the other side ran `reproduce-all` only (no
    readings); it is compared with the host's baseline files (baseline_only)."""
    host = REPO / "results-smoke"
    if not host.is_dir():
        pytest.fail(f"{host} is missing: run the smoke profile on the host first (CI's smoke stage)")
    count, problems = tree_differences(baseline_only(host, other) if baseline else host, other, where=where)
    assert count > 0, f"no parquet tables or run files under {host} or {other}"
    assert not problems, f"{len(problems)} of {count} files differ:\n" + "\n".join(problems[:20])
    # The same binary ran on both sides: its provenance is the host's own build manifest.
    built = json.loads((REPO / "build" / "ns2" / "manifest.json").read_text())
    manifests = sorted(other.glob("**/runs/*/manifest.json"))
    assert manifests, f"no run manifests under {other}"
    for manifest in manifests:
        assert json.loads(manifest.read_text())["binary"] == built["binary"], manifest


@pytest.fixture(scope="module")
def container_results() -> Path:
    return results_from_env("NS2REPRO_CONTAINER_RESULTS", ".ci/container OUT")


def test_container_smoke_run_matches_host_byte_for_byte(container_results):
    # The container runs reproduce-all only (.ci/container): compared with the host's baseline.
    assert_matches_host(container_results, "in the container", baseline=True)


def test_a_baseline_only_run_is_compared_with_the_host_s_baseline_files(tmp_path):
    host, other = tmp_path / "host", tmp_path / "other" / "results-smoke"
    files = {
        "p/exp/metrics.parquet": b"m",
        "p/exp/readings/k=4/metrics.parquet": b"r",
        "sensitivity.parquet": b"s",
        "runs/a/params.json": b"a",
        "runs/b/params.json": b"b",
        "metrics-cache/b.metrics.parquet": b"c",
    }
    for rel, data in files.items():
        (host / rel).parent.mkdir(parents=True, exist_ok=True)
        (host / rel).write_bytes(data)
    for rel in ("p/exp/metrics.parquet", "runs/a/params.json", "metrics-cache/b.metrics.parquet"):
        (other / rel).parent.mkdir(parents=True, exist_ok=True)
        (other / rel).write_bytes(files[rel])
    (other / "metrics-cache/b.metrics.parquet").write_bytes(b"what this side computed")  # a cache: not compared
    (host / "q/exp/metrics.parquet").parent.mkdir(parents=True)
    (host / "q/exp/metrics.parquet").write_bytes(b"another paper")
    assert tree_differences(baseline_only(host, other), other) == (2, [])
    (other / "p/exp/metrics.parquet").unlink()
    _, problems = tree_differences(baseline_only(host, other), other)
    assert problems == ["only on the host: p/exp/metrics.parquet"]
