"""Clear errors for malformed run outputs: the file, the line number and what is wrong with it.

The fast readers (pyarrow's CSV reader) say only "Row #n" of a block or byte range, or nothing
at all when a field they read as null (an empty field, `NA`) should have been a number. So when
they fail, or a column that must be full has a null, `bad_line` reads the file once more line by
line, in Python, and names the first line that does not have the expected fields: that slow pass
runs only on the way to an error.

A file that does not end with a newline has a truncated last line (ns was killed while writing
it, or the disk filled up): `require_complete` makes that an error for the whole run, even when
what is left still parses (`... 0 12` cut to `... 0 1` would be a wrong packet uid).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from pathlib import Path

import pyarrow as pa

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_INT32 = (-(2**31), 2**31 - 1)


class MalformedFile(ValueError):
    """A run output that is not in its documented format; the message names the file and line."""


def require_complete(path: str | Path) -> None:
    """Error unless the file is empty or ends with a newline."""
    with open(path, "rb") as f:
        if f.seek(0, 2) == 0:
            return
        f.seek(-1, 2)
        if f.read(1) == b"\n":
            return
    lines, last = _count_lines(path)
    raise MalformedFile(
        f"{path}: line {lines}: incomplete last line (no newline at the end of the file; "
        f"was ns killed while writing it?): {_show(last)}"
    )


def _count_lines(path: str | Path) -> tuple[int, bytes]:
    """The number of lines (the last one counted even without its newline) and the last one."""
    count, tail = 0, b""
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            count += chunk.count(b"\n")
            tail = (tail + chunk)[-512:]
    return count + 1, tail.rsplit(b"\n", 1)[-1]


def _show(text: bytes | str, limit: int = 120) -> str:
    text = text.decode(errors="replace") if isinstance(text, bytes) else text
    return repr(text if len(text) <= limit else text[:limit] + "...")


def field_problem(value: str, dtype: pa.DataType, nullable: bool = False) -> str | None:
    """What is wrong with one field for a column of this type, or None."""
    if nullable and value == "nan":
        return None
    if pa.types.is_integer(dtype):
        if not _INT.fullmatch(value):
            return f"{value!r} is not an integer"
        if dtype == pa.int32() and not _INT32[0] <= int(value) <= _INT32[1]:
            return f"{value!r} is out of range"
    elif pa.types.is_floating(dtype):
        if not _FLOAT.fullmatch(value):
            return f"{value!r} is not a number"
    elif pa.types.is_fixed_size_binary(dtype) and len(value.encode()) != dtype.byte_width:
        width = "one character" if dtype.byte_width == 1 else f"{dtype.byte_width} bytes"
        return f"{value!r} is not {width}"
    return None


def bad_line(
    path: str | Path,
    schema: pa.Schema,
    delimiter: str,
    columns: Collection[str] | None = None,
    nullable: Collection[str] = (),
    skip_lines: int = 0,
) -> tuple[int, str] | None:
    """(line number from 1, problem) of the first line without len(schema) fields of the schema's types
    (only `columns` are type-checked, default all), or None when every line is fine."""
    checked = [
        (i, field.name, field.type) for i, field in enumerate(schema) if columns is None or field.name in columns
    ]
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            if number <= skip_lines:
                continue
            line = raw.decode(errors="replace").rstrip("\n")
            fields = line.split(delimiter)
            if len(fields) != len(schema):
                return number, f"expected {len(schema)} fields, got {len(fields)}: {_show(line)}"
            for i, name, dtype in checked:
                problem = field_problem(fields[i], dtype, name in nullable)
                if problem:
                    return number, f"{name}: {problem}: {_show(line)}"
    return None


def malformed(path: str | Path, cause: Exception | None, **locate) -> MalformedFile:
    """The error to raise for a file the fast reader rejected (`cause`) or read nulls from: the first bad
    line (bad_line's arguments in `locate`), or the reader's own message with the file's name."""
    found = bad_line(path, **locate)
    if found is not None:
        return MalformedFile(f"{path}: line {found[0]}: {found[1]}")
    return MalformedFile(f"{path}: {cause if cause is not None else 'unexpected empty values'}")


def null_columns(batch: pa.RecordBatch | pa.Table, allowed: Sequence[str] = ()) -> list[str]:
    """The columns (other than `allowed`) with a null: a field the reader took for missing."""
    return [name for name, column in zip(batch.schema.names, batch.columns, strict=True)
            if column.null_count and name not in allowed]  # fmt: skip
