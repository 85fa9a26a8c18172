"""ns-2's notations for bandwidth and time, as params.json and the experiment files write them."""

from __future__ import annotations

_UNITS = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}


def bandwidth_bps(text: str) -> float:
    """ns-2's bandwidth notation: '10Mb' = 1e7 bit/s, '1MB' = 8e6 bit/s."""
    number = text.rstrip("bB")
    unit = ""
    if number and number[-1] in _UNITS:
        number, unit = number[:-1], number[-1]
    scale = 8.0 if text.endswith("B") else 1.0
    return float(number) * _UNITS[unit] * scale


_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def seconds(text: str | float) -> float:
    """ns-2's time notation: '10ms' = 0.01; a bare number is seconds."""
    if isinstance(text, int | float):
        return float(text)
    for unit in ("ms", "us", "ns", "s"):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * _TIME_UNITS[unit]
    return float(text)
