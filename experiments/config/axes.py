"""A matrix's axes, their levels and labels, and its cells; labels compared as their one text (label_text)."""

from __future__ import annotations

import itertools
import math
import numbers
import re
from typing import Any


def axes_of(experiment: dict) -> dict[str, dict]:
    """All axes of an experiment by name, product and zipped."""
    matrix = experiment.get("matrix", {})
    axes = dict(matrix.get("product", {}))
    for group in matrix.get("zip", []):
        axes.update(group)
    return axes


def level_labels(axis: dict) -> list:
    levels = axis["levels"]
    return list(levels) if isinstance(levels, dict) else list(levels)


# A number as YAML or a results table writes it: an integer, a decimal fraction, an exponent.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


_INTEGER = re.compile(r"[+-]?\d+")


def label_text(value: Any) -> str:
    """The one text of a level label wherever labels are compared: a number's value, not how it was written.

    20, 20.0, "20.0" and numpy's 20.0 all give "20" (a parquet column mixing ints and floats reads back as float,
    and YAML keeps 20 and 20.0 apart); 10.5 and "10.5" give "10.5". A bool is str(value) ("True", never "1");
    an integer (or integer text) is exact; any other number (or text that reads as a finite number, YAML-style:
    no spaces or underscores) is str(int(f)) when integral, else repr(float(f)). Anything else is str(value):
    "1/6", "RED", and NaN as "nan". Run keys and params.json keep the labels as written: this is for comparing.
    """
    if _is_bool(value):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
    elif isinstance(value, str) and _NUMBER.fullmatch(value):
        if _INTEGER.fullmatch(value):
            return str(int(value))
        number = float(value)
        if not math.isfinite(number):  # "1e999"
            return value
    else:
        return str(value)
    return str(int(number)) if number.is_integer() else repr(number)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"  # numpy's bool is no numbers.Number


def _is_missing(value: Any) -> bool:
    try:
        return value is None or bool(value != value)  # NaN, NaT
    except TypeError:  # pandas.NA
        return True


def label_column(column):
    """A pandas Series of labels as their label_text, computed once per distinct value; missing values (NaN,
    None) stay missing, as pandas' astype(str) leaves them, so they equal no label."""

    def per_row():
        return column.map(lambda v: v if _is_missing(v) else label_text(v))

    try:
        distinct = column.unique()
    except TypeError:  # unhashable values (a level that is a mapping)
        return per_row()
    if column.dtype == object and any(_is_bool(v) or (isinstance(v, numbers.Number) and v in (0, 1)) for v in distinct):
        return per_row()  # True == 1 == 1.0: one key of a dict, one value of unique()
    return column.map({v: label_text(v) for v in distinct if not _is_missing(v)})


def axis_levels(axis: dict) -> list[tuple[Any, dict]]:
    """[(label, {dotted path: value}), ...] for one axis."""
    levels = axis["levels"]
    pairs = list(levels.items()) if isinstance(levels, dict) else [(value, value) for value in levels]
    if "path" in axis:
        return [(label, {axis["path"]: value}) for label, value in pairs]
    return [(label, dict(value)) for label, value in pairs]


def cells(experiment: dict) -> list[list[tuple[str, Any, dict]]]:
    """Every matrix cell: a list of (axis, label, assignments)."""
    dimensions: list[list[list[tuple[str, Any, dict]]]] = []
    for name, axis in experiment["matrix"]["product"].items():
        dimensions.append([[(name, label, sets)] for label, sets in axis_levels(axis)])
    for group in experiment["matrix"]["zip"]:
        columns = [[(name, label, sets) for label, sets in axis_levels(axis)] for name, axis in group.items()]
        dimensions.append([list(row) for row in zip(*columns, strict=True)])
    return [[entry for part in combo for entry in part] for combo in itertools.product(*dimensions)]
