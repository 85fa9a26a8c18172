"""Paired statistics where the compared levels ran the same seeds (experiments/verdicts/stats.py).

Hand-built cells: two levels whose values vary a lot from seed to seed but move together (as common random numbers
make them), so that their per-seed differences are tight while their own intervals overlap. Judged as independent
samples they would drift; paired, they are decided. Where the seeds differ, or a level lacks one, the unpaired test
stands, and each verdict says which test it used. Student t quantiles come from scipy for any number of seeds.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiments.verdicts.claims import evaluate
from experiments.verdicts.stats import ci95, t975

BASE = [100.0, 140.0, 180.0, 220.0, 260.0]  # a seed-to-seed spread far wider than the effect
EFFECT = [3.0, 3.4, 2.6, 3.2, 2.8]  # the effect at each seed: mean 3, tight


def cell(levels: dict[str, list[float]], seeds: dict[str, list[int]] | None = None) -> pd.DataFrame:
    rows = []
    for level, values in levels.items():
        for seed, value in zip((seeds or {}).get(level, range(1, len(values) + 1)), values, strict=True):
            rows.append(
                {
                    "queue": level,
                    "seed": seed,
                    "run_key": f"{level}{seed}",
                    "scope": "all",
                    "metric": "m",
                    "value": value,
                }
            )
    return pd.DataFrame(rows)


def claim(kind: str, **rest) -> dict:
    return {"id": "c", "source": "T", "experiment": "e", "metric": "m", "kind": kind, "axis": "queue", **rest}


def one(claim_: dict, table: pd.DataFrame):
    (verdict,) = evaluate(claim_, table, ["queue"])
    return verdict


HIGHER = [b + e for b, e in zip(BASE, EFFECT, strict=True)]


def test_a_difference_the_seeds_share_is_decided_where_independent_intervals_overlap():
    table = cell({"A": HIGHER, "B": BASE})
    verdict = one(claim("compare", level="A", relation="greater"), table)
    assert (verdict.verdict, verdict.test) == ("pass", "paired")
    assert "paired" in verdict.tolerance
    # the same values on other seeds of B: nothing to pair, the two wide intervals overlap
    shuffled = cell({"A": HIGHER, "B": BASE}, seeds={"A": [1, 2, 3, 4, 5], "B": [6, 7, 8, 9, 10]})
    unpaired = one(claim("compare", level="A", relation="greater"), shuffled)
    assert (unpaired.verdict, unpaired.test) == ("drift", "unpaired")


def test_a_level_lacking_a_seed_is_judged_unpaired():
    table = cell({"A": HIGHER, "B": BASE[:4]})  # B's fifth run failed or measured nothing
    verdict = one(claim("compare", level="A", relation="greater"), table)
    assert verdict.test == "unpaired" and verdict.verdict == "drift"


def test_a_paired_difference_whose_interval_holds_zero_still_drifts():
    noisy = [b + e for b, e in zip(BASE, [5.0, -4.0, 6.0, -3.0, 1.0], strict=True)]  # mean +1, spread 4.6
    verdict = one(claim("compare", level="A", relation="greater"), cell({"A": noisy, "B": BASE}))
    assert (verdict.verdict, verdict.test) == ("drift", "paired")


def test_compare_against_several_levels_names_a_mix_of_tests():
    table = cell({"A": HIGHER, "B": BASE, "C": [b - 50 for b in BASE[:4]]})
    verdict = one(claim("compare", level="A", relation="greater"), table)
    assert verdict.test == "partly paired"


def test_an_extreme_is_decided_on_the_paired_difference_to_the_runner_up():
    table = cell({"A": HIGHER, "B": BASE, "C": [b - 40 for b in BASE]})
    verdict = one(claim("extreme", level="A", extreme="max"), table)
    assert (verdict.verdict, verdict.test) == ("pass", "paired")


def test_nearest_is_decided_per_seed():
    target = [b + 1 for b in BASE]
    rival = [b + 8 for b in BASE]
    verdict = one(
        claim("nearest", level="A", nearest="T", among=["T", "R"]), cell({"A": BASE, "T": target, "R": rival})
    )
    assert (verdict.verdict, verdict.test) == ("pass", "paired")


def test_a_ratio_carries_a_paired_interval_narrower_than_the_unpaired_one():
    ratio = claim("ratio", level="A", baseline="B", expected=0.02, **{"pass": {"abs": 0.05}, "drift": {"abs": 0.1}})
    paired = one(ratio, cell({"A": HIGHER, "B": BASE}))
    unpaired = one(ratio, cell({"A": HIGHER, "B": BASE}, seeds={"A": [1, 2, 3, 4, 5], "B": [6, 7, 8, 9, 10]}))
    width = {v.test: float(v.measured.split("±")[1].split()[0]) for v in (paired, unpaired)}
    assert width["paired"] < width["unpaired"] / 10
    assert paired.value == pytest.approx(sum(HIGHER) / sum(BASE) - 1)


def test_a_slope_whose_change_only_pairing_tells_from_zero_is_judged():
    per = cell({"A": HIGHER, "B": BASE}).assign(metric="p")
    metric = cell({"A": [2 * v for v in HIGHER], "B": [2 * v for v in BASE]})
    slope = claim(
        "slope", level="A", baseline="B", per="p", expected=2.0, **{"pass": {"rel": 0.1}, "drift": {"rel": 0.3}}
    )
    verdict = one(slope, pd.concat([per, metric], ignore_index=True))
    assert (verdict.verdict, verdict.test) == ("pass", "paired")
    assert verdict.value == pytest.approx(2.0)


def test_student_t_for_any_number_of_seeds():
    assert t975(1) == pytest.approx(12.7062047) and t975(9) == pytest.approx(2.2621572)
    assert t975(49) == pytest.approx(2.0095752) and t975(99) == pytest.approx(1.9842169)
    values = pd.Series(range(50), dtype=float)
    assert ci95(values) == pytest.approx(2.0095752 * values.std(ddof=1) / math.sqrt(50))
