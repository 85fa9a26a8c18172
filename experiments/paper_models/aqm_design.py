"""Stability design rules of PI, LRED and AVQ, as Alemu's thesis prints them (Ch. 1, Eqs. 1.18-1.26).

Each rule turns the capacity C (packets/s), the smallest number of TCP flows N- and the largest
round trip R+ (s) into the control parameter the thesis sets in Ch. 4 (§4.3). configs/psand.yaml
holds the values these functions give; tests/experiments/test_aqm_design.py checks that they agree.

"""

from __future__ import annotations

import math
from collections.abc import Callable


def _root(f: Callable[[float], float], low: float, high: float) -> float:
    """The x in [low, high] where the increasing function f crosses 0 (bisection to float precision)."""
    for _ in range(200):
        mid = (low + high) / 2
        if f(mid) < 0:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def pi_gains(capacity: float, n_min: float, rtt_max: float, sampling_hz: float) -> tuple[float, float]:
    """PI's a and b (Eqs. 1.22-1.23): K_PI (1/(2 f_s) +- 1/omega_g), omega_g = 2N-/(R+^2 C)."""
    omega_g = 2 * n_min / (rtt_max**2 * capacity)
    k_pi = omega_g * abs(complex(1, omega_g * rtt_max)) / ((rtt_max * capacity) ** 3 / (2 * n_min) ** 2)
    return k_pi * (1 / (2 * sampling_hz) + 1 / omega_g), k_pi * (-1 / (2 * sampling_hz) + 1 / omega_g)


def _phase_condition(rtt_max: float, k11: float, omega: Callable[[float], float]) -> Callable[[float], float]:
    """x -> R+ omega(x) + arctan(omega(x) / K11) - pi/2: Eq. 1.18's crossover (also LRED's beta_bar)."""
    return lambda x: rtt_max * omega(x) + math.atan(omega(x) / k11) - math.pi / 2


def lred_beta(capacity: float, n_min: float, rtt_max: float, eta: float = 1.5) -> tuple[float, float]:
    """LRED's bound (Eq. 1.26) as (beta_bar, second term): beta < min of the two.

    beta_bar solves R+ omega + arctan(omega / K11) = pi/2 with omega = sqrt((sqrt(K11^4 + 4 Kc^2 Hc^2) - K11^2) / 2),
    K11 = 2N-/(C R+^2), Kc = C^2/(eta N-), Hc = beta_bar sqrt(eta N-^2 / (C^2 R+^2)); the second term is
    sqrt(2 eta) (2N-)^4 / (R+ C)^3.
    """
    k11 = 2 * n_min / (capacity * rtt_max**2)
    k_c = capacity**2 / (eta * n_min)
    h_per_beta = math.sqrt(eta * n_min**2 / (capacity**2 * rtt_max**2))

    def omega(beta: float) -> float:
        return math.sqrt((math.sqrt(k11**4 + 4 * (k_c * h_per_beta * beta) ** 2) - k11**2) / 2)

    condition = _phase_condition(rtt_max, k11, omega)
    high = 1.0
    while condition(high) < 0:
        high *= 2
    beta_bar = _root(condition, 0.0, high)
    return beta_bar, math.sqrt(2 * eta) * (2 * n_min) ** 4 / (rtt_max * capacity) ** 3


def avq_alpha(capacity: float, n_min: float, rtt_max: float, utilization: float = 1.0) -> float:
    """AVQ's alpha* of Theorem 1 (Eqs. 1.18-1.19); math.inf when the condition holds for no alpha (every alpha stable).

    omega(alpha) = sqrt(((K12^2 - K11^2) + sqrt((K12^2 - K11^2)^2 + 4 K2^2 alpha^2)) / 2),
    K11 = N-/(gamma C R+^2), K12 = K2 = 3 gamma C / (2 N-).
    """
    k11 = n_min / (utilization * capacity * rtt_max**2)
    k12 = k2 = 1.5 * utilization * capacity / n_min
    gap = k12**2 - k11**2

    def omega(alpha: float) -> float:
        return math.sqrt((gap + math.sqrt(gap**2 + 4 * k2**2 * alpha**2)) / 2)

    condition = _phase_condition(rtt_max, k11, omega)
    if condition(0.0) >= 0:  # past the crossover already at alpha = 0: the rule bounds nothing
        return math.inf
    high = 1.0
    while condition(high) < 0:
        high *= 2
    return _root(condition, 0.0, high)
