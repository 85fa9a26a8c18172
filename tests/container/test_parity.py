"""The container reproduces the host's smoke run byte for byte.

`.ci/container OUT` builds the image from the Dockerfile and runs the smoke profile in
it; `.ci/run` then sets NS2REPRO_CONTAINER_RESULTS=OUT/results-smoke. The host's smoke
run (the CI stage before) is in results-smoke/. Outside CI the parity test is skipped
with that reason; the comparison itself is tested on planted differences. The same
comparison (`results_from_env`, `assert_matches_host`) checks the smoke run made through
Slurm (tests/cluster).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# What must be identical: every parquet table, and each run's parameters, ns-2 knobs
# and binary provenance.
COMPARED = ("**/*.parquet", "**/runs/*/params.json", "**/runs/*/meta.json", "**/runs/*/manifest.json")


def tree_differences(host: Path, other: Path, patterns=COMPARED, where="in the container") -> tuple[int, list[str]]:
    """(files compared, one line per file missing on either side or differing in bytes); `where` names the other
    side in the messages."""

    def listing(root: Path) -> set[str]:
        return {str(p.relative_to(root)) for pattern in patterns for p in root.glob(pattern)}

    ours, theirs = listing(host), listing(other)
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


def assert_matches_host(other: Path, where: str) -> None:
    """Every parquet table and run file of the smoke run in `other` is the host's (results-smoke/) byte for byte,
    and every run there used the host's ns binary."""
    host = REPO / "results-smoke"
    if not host.is_dir():
        pytest.fail(f"{host} is missing: run the smoke profile on the host first (CI's smoke stage)")
    count, problems = tree_differences(host, other, where=where)
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
    assert_matches_host(container_results, "in the container")
