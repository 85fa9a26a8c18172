"""The statistics every verdict uses: the 95 % confidence interval of a mean, and a tolerance."""

from __future__ import annotations

import math

import pandas as pd

# Two-sided 95 % Student t quantiles t(0.975, df) for df = 1..30, ten to a row; 1.96 beyond.
_T975 = (
    *(12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228),
    *(2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086),
    *(2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042),
)


MIN_VALUES_FOR_INTERVAL = 2


def ci95(values: pd.Series) -> float:
    """Half-width of the 95 % confidence interval of the mean of the measured (non-NaN) values; nan for fewer
    than two."""
    values = values.dropna()
    n = len(values)
    if n < MIN_VALUES_FOR_INTERVAL:
        return math.nan
    t = _T975[n - 2] if n - 1 <= len(_T975) else 1.96
    return t * values.std(ddof=1) / math.sqrt(n)


# A distance exactly at the tolerance is within it; binary floating point must not decide that
# (0.4 - 0.3 is 0.10000000000000003), so the comparison allows this relative slack.
_ROUNDING = 1e-9


def within(measured: float, expected: float, tolerance: dict) -> bool:
    allowed = tolerance["abs"] if "abs" in tolerance else tolerance["rel"] * abs(expected)
    scale = max(abs(measured), abs(expected), allowed)
    return abs(measured - expected) <= allowed + _ROUNDING * scale


def describe_tolerance(tolerance: dict) -> str:
    return f"±{tolerance['abs']}" if "abs" in tolerance else f"±{tolerance['rel'] * 100:g} %"
