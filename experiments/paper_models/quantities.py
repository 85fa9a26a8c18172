"""The paper-model numbers a file's `model_checks` may name: each a function of numbers only, returning a number.

A model check compares one of them, at the arguments the file gives, with what the paper prints or states
(experiments.verdicts.model_checks judges it). They show, in the report beside the runs' claims, what only unit
tests showed before: that a design rule as coded gives the paper's printed values, or that a model has the shape
the paper says. None reads a run.
"""

from __future__ import annotations

from collections.abc import Callable

from experiments.paper_models import aqm_design, fec_model


def pi_a(capacity: float, n_min: float, rtt_max: float, sampling_hz: float) -> float:
    """PI's a (Eq. 1.22) for C packets/s, N-, R+ s and f_s Hz."""
    return aqm_design.pi_gains(capacity, n_min, rtt_max, sampling_hz)[0]


def pi_b(capacity: float, n_min: float, rtt_max: float, sampling_hz: float) -> float:
    """PI's b (Eq. 1.23)."""
    return aqm_design.pi_gains(capacity, n_min, rtt_max, sampling_hz)[1]


def lred_beta_second_term(capacity: float, n_min: float, rtt_max: float) -> float:
    """Eq. 1.26's second term, sqrt(2 eta) (2 N-)^4 / (R+ C)^3, eta = 3/2."""
    return aqm_design.lred_beta(capacity, n_min, rtt_max)[1]


def lred_beta_bound(capacity: float, n_min: float, rtt_max: float) -> float:
    """Eq. 1.26's bound: the smaller of beta_bar and the second term."""
    return min(aqm_design.lred_beta(capacity, n_min, rtt_max))


def fec_sign_changes(h: int) -> int:
    """How often §5.5's Delta_h(x) (RED/FEC's repair probability minus DT/FEC's) changes sign on the scan of
    fec_model.threshold."""
    return fec_model.threshold(int(h)).sign_changes


def fec_offset_step(h: int) -> float:
    """(x_h - h) - (x_{h-1} - (h - 1)): how much the offset of the crossing x_h from h still moves from h - 1 to h
    (§5.5: x_h ~ h + C, C a constant, 'for h large enough')."""
    h = int(h)
    return (fec_model.threshold(h).x_h - h) - (fec_model.threshold(h - 1).x_h - (h - 1))


QUANTITIES: dict[str, Callable[..., float]] = {
    f.__name__: f for f in (pi_a, pi_b, lred_beta_second_term, lred_beta_bound, fec_sign_changes, fec_offset_step)
}
