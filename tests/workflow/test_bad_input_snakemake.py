"""A bad experiment file named to Snakemake gets what `validate` gives it: one line naming the file and the
key, exit status 2, no stack, nothing under the results folder. Snakemake's own report of an exception in a
Snakefile is a stack of frames, which is what a user saw before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BAD = REPO / "tests" / "configs" / "bad"

CASES = {
    "malformed_yaml": "malformed YAML",
    "not_utf8": "not UTF-8 (byte 0xe9)",
    "queue_knob_unknown": "unknown knob",
    "typo_top_level_key": "unknown key 'experiment'",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_file_through_snakemake_gives_one_line(name, tmp_path, ns_binary):
    path = BAD / f"{name}.yaml"
    results = tmp_path / "results"
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--dry-run", "--config", f"experiment_files={path}", f"results={results}"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    ours = [line for line in done.stderr.splitlines() if not line.startswith("Using workflow specific profile")]
    assert len(ours) == 1, done.stderr
    assert ours[0].startswith(f"error: {path}"), ours[0]
    assert CASES[name] in ours[0]
    assert "Traceback" not in done.stderr and 'File "' not in done.stderr
    assert not results.exists()
