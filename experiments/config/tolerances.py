"""What a claim's tolerance means: {abs: x} or {rel: r} around its expected value, an edge within it."""

from __future__ import annotations

# A distance exactly at the tolerance is within it; binary floating point must not decide that
# (0.4 - 0.3 is 0.10000000000000003), so the comparison allows this relative slack.
_ROUNDING = 1e-9


def allowed(tolerance: dict, expected: float) -> float:
    """The distance from `expected` a tolerance allows."""
    return tolerance["abs"] if "abs" in tolerance else tolerance["rel"] * abs(expected)


def within(measured: float, expected: float, tolerance: dict) -> bool:
    limit = allowed(tolerance, expected)
    scale = max(abs(measured), abs(expected), limit)
    return abs(measured - expected) <= limit + _ROUNDING * scale


def describe_tolerance(tolerance: dict) -> str:
    return f"±{tolerance['abs']}" if "abs" in tolerance else f"±{tolerance['rel'] * 100:g} %"


def tolerance_verdict(measured: float, entry: dict) -> str:
    """pass, drift or fail: `measured` against an entry's (a claim's, a model check's) expected value and its pass
    and drift tolerances; without a drift band, beyond pass is fail."""
    expected = entry["expected"]
    if within(measured, expected, entry["pass"]):
        return "pass"
    return "drift" if "drift" in entry and within(measured, expected, entry["drift"]) else "fail"
