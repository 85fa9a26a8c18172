"""The benchmarks' shared pairing (bench/perfdoc.py): every side measured once a round, in an order that reverses
each round, and each measure's median per side."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from perfdoc import alternating, medians  # noqa: E402


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
