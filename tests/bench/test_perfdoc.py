"""The benchmarks' shared pairing (bench/perfdoc.py): every side measured once a round, in an order that reverses
each round, and each measure's median per side."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

from perfdoc import alternating, medians, process_recorder, recorded_processes  # noqa: E402


def test_sides_alternate_their_order_each_round():
    assert list(alternating(["stock", "patched"], 3)) == [
        (0, "stock"),
        (0, "patched"),
        (1, "patched"),
        (1, "stock"),
        (2, "stock"),
        (2, "patched"),
    ]
    assert list(alternating({"a": 1, "b": 2}, 0)) == []


def test_medians_are_per_side_and_per_measure():
    samples = {
        "a": [{"wall": 3.0, "cpu": 1.0}, {"wall": 1.0, "cpu": 5.0}, {"wall": 2.0, "cpu": 2.0}],
        "b": [{"wall": 7.0, "cpu": 0.5}],
    }
    assert medians(samples) == {"a": {"wall": 2.0, "cpu": 2.0}, "b": {"wall": 7.0, "cpu": 0.5}}


def test_a_spawned_process_is_recorded_apart_from_the_one_whose_argv_it_carries(tmp_path):
    """A job's pieces in spawned processes (experiments/common/processes.py) carry their parent's argv: the records
    tell them apart, as bench/job_process.py picks Snakemake's own process by its argv."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import math\n"
        "from experiments.common.processes import in_processes\n"
        "if __name__ == '__main__':\n"
        "    assert in_processes(math.isqrt, [4, 9, 16], 2) == [2, 3, 4]\n"
    )
    env, log = process_recorder(tmp_path / "recorder", str(REPO))
    subprocess.run([sys.executable, str(script)], env={**os.environ, **env}, check=True, cwd=REPO)
    carrying = [p for p in recorded_processes(log) if p["argv"][0] == str(script)]
    assert [p["spawned"] for p in carrying].count(False) == 1
    assert any(p["spawned"] for p in carrying), "the pool's workers carry the parent's argv"
