"""Debian's suite results kept by key (suites.reference_cache): a suite runs once per reference binary, our binary
runs every time, another binary gets another key, and a suite that timed out is not kept."""

from __future__ import annotations

import tarfile

import pytest
import suites
from suites import reference_cache, run_side_by_side

SUITE = "fake"


def fake_tree(where, outcome="Test output agrees with reference output"):
    """A tcl/test folder whose test-all-fake counts its runs (one line per run in runs.txt) and prints one test."""
    test_dir = where / "ns-2.35" / "tcl" / "test"
    test_dir.mkdir(parents=True)
    (where / "shim").mkdir()
    script = test_dir / f"test-all-{SUITE}"
    script.write_text(f'#!/bin/sh\necho "$NS" >> runs.txt\necho "Running test one:"\necho "{outcome}"\n')
    script.chmod(0o755)
    return test_dir


def runs_of(test_dir):
    log = test_dir / "runs.txt"
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def setting(tmp_path):
    tarball = tmp_path / "tree.tar"
    with tarfile.open(tarball, "w"):
        pass
    binary = tmp_path / "ref-ns"
    binary.write_bytes(b"reference binary")
    trees = {
        "ours": (fake_tree(tmp_path / "ours"), tmp_path / "our-ns"),
        "reference": (fake_tree(tmp_path / "ref"), binary),
    }
    return tmp_path, tarball, binary, trees


def test_the_reference_runs_once_per_key_and_ours_every_time(setting):
    root, tarball, binary, trees = setting
    caches = {"reference": reference_cache(binary, tarball, root / "cache")}
    first = run_side_by_side(SUITE, trees, root / "logs", caches)
    second = run_side_by_side(SUITE, trees, root / "logs", caches)
    assert len(runs_of(trees["reference"][0])) == 1
    assert len(runs_of(trees["ours"][0])) == 2
    assert second["reference"] == first["reference"]
    assert second["reference"].passed == {"one"}


def test_another_binary_or_tarball_is_another_key(setting):
    root, tarball, binary, _ = setting
    key = reference_cache(binary, tarball, root / "cache")
    assert reference_cache(binary, tarball, root / "cache") == key
    other = root / "other-ns"
    other.write_bytes(b"another reference binary")
    assert reference_cache(other, tarball, root / "cache") != key
    other_tarball = root / "other.tar"
    other_tarball.write_bytes(tarball.read_bytes() + b"\0")
    assert reference_cache(binary, other_tarball, root / "cache") != key


def test_a_suite_that_timed_out_is_not_kept(setting, monkeypatch):
    root, tarball, binary, trees = setting
    script = trees["reference"][0] / f"test-all-{SUITE}"
    script.write_text('#!/bin/sh\necho "$NS" >> runs.txt\nexec sleep 30\n')
    monkeypatch.setattr(suites, "SUITE_TIMEOUT_S", 0.5)
    caches = {"reference": reference_cache(binary, tarball, root / "cache")}
    run_side_by_side(SUITE, trees, root / "logs", caches)
    assert not (caches["reference"] / f"{SUITE}.json").exists()
    run_side_by_side(SUITE, trees, root / "logs", caches)
    assert len(runs_of(trees["reference"][0])) == 2
