"""experiments/paper_models/fec_model.py (Alemu §5.5) against an independent closed form, a Monte Carlo of the compound
Poisson process, and the limits and shape the thesis states."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.paper_models import fec_model as fm


def closed_form(h: int, x: float, beta: float) -> float:
    """Eq. 5.3 for A in {1, 2}: A_1 + ... + A_m = m + J, J ~ Binomial(m, 1 - beta) (the size-2 batches)."""
    lam = x / (2 - beta)
    total = 0.0
    for m in range(h + 1):
        poisson = lam**m * math.exp(-lam) / math.factorial(m)
        binomial_cdf = sum(math.comb(m, j) * (1 - beta) ** j * beta ** (m - j) for j in range(min(m, h - m) + 1))
        total += poisson * binomial_cdf
    return total


@pytest.mark.parametrize("h", [0, 1, 2, 4, 8])
@pytest.mark.parametrize("x", [0.0, 0.3, 1.7, 5.0, 20.0])
def test_convolution_matches_binomial_closed_form(h, x):
    for beta in (fm.RED_BETA, fm.DT_BETA):
        got = fm.repair_probability(h, x, fm.BatchLaw.two_point(beta))
        assert got == pytest.approx(closed_form(h, x, beta), rel=1e-12, abs=1e-300)


def test_monte_carlo_of_the_compound_poisson_process():
    """Draw the process itself: Poisson(x / E(A)) blocks of losses, each of a size drawn from the law."""
    rng = np.random.default_rng(5)
    law = fm.BatchLaw((0.0, 0.5, 0.3, 0.2))  # a three-point law, so the generic path is exercised
    x, h, draws = 2.5, 3, 200_000
    blocks = rng.poisson(x / law.mean, size=draws)
    sizes = rng.choice(len(law.pmf), p=law.pmf, size=(draws, blocks.max()))
    losses = np.where(np.arange(blocks.max()) < blocks[:, None], sizes, 0).sum(axis=1)
    estimate = np.mean(losses <= h)
    sigma = math.sqrt(estimate * (1 - estimate) / draws)
    assert abs(fm.repair_probability(h, x, law) - estimate) < 4 * sigma
    assert np.mean(losses) == pytest.approx(x, rel=0.01)  # x = pT is the mean number of losses


def test_h_zero_favours_dt_for_every_positive_x():
    """With no redundancy a block is repaired only without loss: e^(-x/1.1) < e^(-x/1.4), so x_0 = 0."""
    x = np.linspace(0.01, 30, 50)
    assert fm.delta(0, x) == pytest.approx(np.exp(-x / 1.1) - np.exp(-x / 1.4), rel=1e-12)
    assert np.all(fm.delta(0, x) < 0)
    assert fm.threshold(0).x_h == 0


def test_limits_in_x():
    for h in range(1, 9):
        assert fm.delta(h, 0.0) == 0
        assert fm.delta(h, 0.05) > 0  # small x: RED's smaller blocks of losses win
        assert abs(fm.delta(h, 400.0)) < 1e-100  # large x: both repair probabilities vanish


@pytest.mark.parametrize("h", range(1, 9))
def test_one_sign_change_per_h_as_fig_5_12_shows(h):
    t = fm.threshold(h)
    assert t.sign_changes == 1
    left = np.linspace(1e-3, t.x_h - 1e-6, 200)
    right = np.linspace(t.x_h + 1e-6, 4 * h + 40, 200)
    assert np.all(fm.delta(h, left) >= 0)
    assert np.all(fm.delta(h, right) < 0)
    assert t.x_h > h  # RED/FEC keeps the advantage up to more than h losses per block on average


def test_h1_threshold_solves_the_explicit_equation():
    x = fm.threshold(1).x_h
    red = math.exp(-x / 1.1) * (1 + 0.9 * x / 1.1)
    dt = math.exp(-x / 1.4) * (1 + 0.6 * x / 1.4)
    assert red == pytest.approx(dt, abs=1e-12)


def test_offset_tends_to_a_positive_constant():
    """§5.5: x_h ~ h + C for h large enough, C > 0."""
    offsets = [fm.threshold(h).offset for h in (8, 16, 32)]
    assert all(c > 0 for c in offsets)
    assert abs(offsets[2] - offsets[1]) < 0.01
    assert abs(offsets[1] - offsets[0]) < 0.02


def test_equal_laws_give_no_difference():
    law = fm.BatchLaw.two_point(0.75)
    assert np.all(fm.delta(3, np.linspace(0, 20, 30), law, law) == 0)
    assert fm.threshold(3, law, law).x_h == math.inf


def test_batch_law_from_measured_run_lengths():
    law = fm.BatchLaw.from_run_lengths({1: 90, 2: 8, 3: 2})
    assert law.pmf == pytest.approx((0, 0.9, 0.08, 0.02))
    assert law.mean == pytest.approx(1.12)


@pytest.mark.parametrize(
    "make",
    [
        lambda: fm.BatchLaw((0.5, 0.5)),  # P(A = 0) > 0
        lambda: fm.BatchLaw((0.0, 0.7)),  # does not sum to 1
        lambda: fm.BatchLaw.two_point(1.5),
        lambda: fm.BatchLaw.from_run_lengths({0: 3}),
        lambda: fm.repair_probability(-1, 1.0, fm.RED_LAW),
        lambda: fm.repair_probability(2, -1.0, fm.RED_LAW),
    ],
)
def test_bad_input_is_refused(make):
    with pytest.raises(ValueError):
        make()


def test_crossover_rule():
    # p (k + h) <= h + C
    assert fm.red_fec_better(p=0.05, k=16, h=1, c=0.3)  # 0.85 <= 1.3
    assert not fm.red_fec_better(p=0.1, k=16, h=1, c=0.3)  # 1.7 > 1.3


@pytest.mark.parametrize("h", [0, 1, 5, 16])
def test_repair_and_loss_add_up_to_one(h):
    x = np.linspace(0, 60, 61)
    for law in (fm.RED_LAW, fm.DT_LAW, fm.BatchLaw((0.0, 0.5, 0.3, 0.2))):
        total = fm.repair_probability(h, x, law) + fm.loss_probability(h, x, law)
        assert total == pytest.approx(np.ones_like(x), abs=1e-12)


def test_sign_survives_where_both_probabilities_are_near_one():
    """At h = 32 and x = 1 both repair probabilities differ from 1 by ~1e-30: Delta must still be positive."""
    assert 0 < fm.delta(32, 1.0) < 1e-20
