"""experiments/paper_models/aqm_design.py against the numbers Alemu's thesis prints, and configs/psand.yaml against
the rules."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from experiments.config.load import load
from experiments.paper_models import aqm_design

C = 187.5  # 1.5 Mb/s in 1000-B packets/s (Table 4.1)
DESIGN_RTT = {"aqm_same": 0.252, "aqm_diff": 0.634}  # choice design_rtt
PSAND = Path(__file__).resolve().parents[2] / "configs" / "psand.yaml"


def sig(x: float, digits: int = 6) -> float:
    return float(f"{x:.{digits - 1}e}")


def test_pi_gains_at_252_ms_are_the_thesis_values_to_six_digits():
    # §4.3 prints a = 0.000344519, b = 0.000343499: Eqs. 1.22-1.23 at R+ = 0.252 s, not Table 4.1's 0.241 s.
    a, b = aqm_design.pi_gains(C, 3, 0.252, 170)
    assert (math.floor(a * 1e9), math.floor(b * 1e9)) == (344519, 343499)  # printed to 9 decimals, truncated
    a_241, _ = aqm_design.pi_gains(C, 3, 0.241, 170)
    assert abs(a_241 - 0.000344519) > 4e-5  # the printed R+ does not give them


def test_pi_gains_differ_by_k_over_fs():
    a, b = aqm_design.pi_gains(C, 10, 0.3, 100)
    omega_g = 2 * 10 / (0.3**2 * C)
    k_pi = (a + b) / 2 * omega_g  # (a + b)/2 = K_PI / omega_g
    assert a - b == pytest.approx(k_pi / 100)


def test_lred_bounds_give_the_thesis_betas():
    beta_bar_3, second_3 = aqm_design.lred_beta(C, 3, 0.252)
    assert round(second_3, 3) == 0.021  # §4.3's beta for N- = 3
    assert beta_bar_3 < second_3  # ... which is not the min of Eq. 1.26 (choice lred_star)
    beta_bar_103, second_103 = aqm_design.lred_beta(C, 103, 0.252)
    assert round(min(beta_bar_103, second_103), 3) == 0.151  # Fig. 4.4's "beta = 0.151"


def test_lred_beta_bar_solves_its_crossover():
    rtt, n = 0.4, 20
    beta_bar, _ = aqm_design.lred_beta(C, n, rtt)
    k11, k_c = 2 * n / (C * rtt**2), C**2 / (1.5 * n)
    h_c = beta_bar * math.sqrt(1.5 * n**2 / (C**2 * rtt**2))
    omega = math.sqrt((math.sqrt(k11**4 + 4 * k_c**2 * h_c**2) - k11**2) / 2)
    assert rtt * omega + math.atan(omega / k11) == pytest.approx(math.pi / 2, abs=1e-9)


def test_avq_alpha_is_unbounded_for_few_flows_and_grows_with_n():
    assert math.isinf(aqm_design.avq_alpha(C, 3, 0.252))
    alphas = [aqm_design.avq_alpha(C, n, 0.252) for n in (53, 78, 103)]
    assert all(math.isfinite(a) for a in alphas) and alphas == sorted(alphas)
    n, rtt, alpha = 103, 0.252, alphas[-1]
    k11, k12 = n / (C * rtt**2), 1.5 * C / n
    gap = k12**2 - k11**2
    omega = math.sqrt((gap + math.sqrt(gap**2 + 4 * k12**2 * alpha**2)) / 2)
    assert omega * rtt + math.atan(omega / k11) == pytest.approx(math.pi / 2, abs=1e-9)


@pytest.fixture(scope="module")
def psand() -> dict:
    return load(PSAND)


def test_config_pi_and_fixed_lred_values_follow_the_rules(psand):
    queues = psand["queues"]
    for name, rtt in (("PI", 0.252), ("PI_diff", 0.634)):
        a, b = aqm_design.pi_gains(C, 3, rtt, queues[name]["knobs"]["w_"])
        knobs = queues[name]["knobs"]
        assert (knobs["a_"], knobs["b_"]) == (pytest.approx(a, abs=1e-9), pytest.approx(b, abs=1e-9)), name
    assert queues["LRED_diff"]["knobs"]["beta_"] == sig(aqm_design.lred_beta(C, 3, 0.634)[1], 4)
    assert queues["LRED_fig44"]["knobs"]["beta_"] == round(min(aqm_design.lred_beta(C, 103, 0.252)), 3)


@pytest.mark.parametrize("experiment", sorted(DESIGN_RTT))
def test_config_per_n_values_follow_the_rules(psand, experiment):
    rtt = DESIGN_RTT[experiment]
    levels = psand["experiments"][experiment]["matrix"]["product"]["flows"]["levels"]
    lred_at_3 = psand["queues"]["LRED" if experiment == "aqm_same" else "LRED_diff"]["knobs"]["beta_"]
    for n, sets in levels.items():
        assert sets["flows.additional.count"] == n - 3
        alpha = aqm_design.avq_alpha(C, n, rtt)
        expected_alpha = psand["queues"]["AVQ"]["knobs"]["alpha_"] if math.isinf(alpha) else round(alpha, 4)
        assert sets["queues.AVQ_star.knobs.alpha_"] == expected_alpha, n
        expected_beta = lred_at_3 if n == 3 else sig(min(aqm_design.lred_beta(C, n, rtt)), 4)
        assert sets["queues.LRED_star.knobs.beta_"] == expected_beta, n


def test_constant_103_uses_the_n_103_values(psand):
    schemes = psand["experiments"]["constant_103"]["matrix"]["product"]["scheme"]["levels"]
    same = psand["experiments"]["aqm_same"]["matrix"]["product"]["flows"]["levels"][103]
    assert schemes["AVQ_star"]["queues.AVQ_star.knobs.alpha_"] == same["queues.AVQ_star.knobs.alpha_"]
    assert schemes["LRED_star"]["queues.LRED_star.knobs.beta_"] == same["queues.LRED_star.knobs.beta_"]
