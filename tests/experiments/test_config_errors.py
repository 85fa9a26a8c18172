"""Every bad experiment file gives one clear line, exit status 2, no traceback, nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
BAD = sorted((CONFIGS / "bad").glob("*.yaml"))
REPO = Path(__file__).resolve().parents[2]


def expected_fragment(path: Path) -> str:
    first = path.read_bytes().decode("utf-8", errors="replace").splitlines()[0]  # not_utf8.yaml is not
    assert first.startswith("# expect: "), f"{path.name} must start with '# expect: <message fragment>'"
    return first.removeprefix("# expect: ")


def validate(path: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments", "validate", str(path)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )


def test_the_corpus_is_there():
    assert len(BAD) >= 20


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_bad_file_gives_one_clear_line(path, tmp_path):
    result = validate(path, tmp_path)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith(f"error: {path}"), "the line must name the file"
    assert expected_fragment(path) in lines[0]
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == [], "validation must not write anything"


def test_a_50_mb_file_is_refused_before_it_is_read(tmp_path):
    """A trace or a dump named by mistake: refused by its size, with the limit, not parsed for minutes."""
    big = tmp_path / "input" / "sweep.yaml"
    big.parent.mkdir()
    line = "# " + "x" * 97 + "\n"
    with big.open("w") as out:
        out.write("title: big\n")
        out.writelines(line for _ in range(500_000))
    work = tmp_path / "work"
    work.mkdir()
    result = validate(big, work)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"error: {big}: file is 47.7 MiB; an experiment file may be at most 4 MiB (is it the experiment file?)"
    ]
    assert list(work.iterdir()) == []


def test_the_minimal_file_is_valid(tmp_path):
    result = validate(CONFIGS / "minimal.yaml", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ok (1 experiments, 2 runs, 1 claims)" in result.stdout


def test_shipped_configs_are_valid(tmp_path):
    for config in sorted((REPO / "configs").glob("*.yaml")):
        result = validate(config, tmp_path)
        assert result.returncode == 0, result.stderr
