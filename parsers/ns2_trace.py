"""Block-wise reading of ns-2's 12-field wired trace (`event time from to ptype size flags fid src dst seq uid`).

`scan_trace` splits the file into a few line-aligned byte ranges, streams each range with pyarrow's CSV reader in its
own thread (the parsing runs without the GIL) and feeds every record batch to that range's collectors. Collectors
only see batches; how their partial results combine is up to them (all we need is commutative: sums and
concatenations that are joined or sorted afterwards).

A malformed trace is an error naming the file and the line (parsers/lines.py): a truncated last line (ns killed
while writing), a line without 12 fields, or a field that is not of its column's type (an empty or `NA` field, which
the CSV reader would take for null, included). Collectors never see a null in a trace column.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import pyarrow as pa
import pyarrow.csv as pacsv

from parsers.lines import malformed, null_columns, require_complete

TRACE_SCHEMA = pa.schema(
    [
        ("event", pa.binary(1)),  # one ASCII character: + - r d (a longer value is a conversion error)
        ("time", pa.float64()),
        ("from", pa.int32()),
        ("to", pa.int32()),
        ("ptype", pa.string()),
        ("size", pa.int32()),
        ("flags", pa.string()),
        ("fid", pa.int32()),
        ("src", pa.string()),
        ("dst", pa.string()),
        ("seq", pa.int64()),
        ("uid", pa.int64()),
    ]
)
DEFAULT_BLOCK_SIZE = 512 << 10  # the CSV reader reads up to 32 blocks ahead: RSS grows with this
MIN_RANGE_BYTES = 16 << 20  # below this, a second thread costs more than it saves


class Collector(Protocol):
    columns: Sequence[str]  # the trace columns it reads

    def add(self, batch: pa.RecordBatch) -> None: ...


class _ByteRange(io.RawIOBase):
    """Read-only view of bytes [start, end) of a file, so one CSV reader sees only its share."""

    def __init__(self, path: Path, start: int, end: int):
        super().__init__()
        self._file = open(path, "rb", buffering=0)  # noqa: SIM115 (closed by close())
        self._file.seek(start)
        self._left = end - start

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        want = min(len(buffer), self._left)
        if want <= 0:
            return 0
        got = self._file.readinto(memoryview(buffer)[:want])
        self._left -= got
        return got

    def close(self) -> None:
        self._file.close()
        super().close()


def line_aligned_ranges(path: str | Path, parts: int) -> list[tuple[int, int]]:
    """Split a file into at most `parts` non-empty byte ranges, each starting at the beginning of a line."""
    size = Path(path).stat().st_size
    cuts = [0]
    with open(path, "rb") as f:
        for i in range(1, parts):
            f.seek(max(size * i // parts - 1, cuts[-1]))
            f.readline()  # to the end of the line the cut falls in (the -1 keeps a cut already on a line start)
            cuts.append(max(f.tell(), cuts[-1]))
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def default_workers(path: str | Path) -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cpus, Path(path).stat().st_size // MIN_RANGE_BYTES))


def read_trace(
    path: str | Path,
    columns: Sequence[str] | None = None,
    byte_range: tuple[int, int] | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> Iterator[pa.RecordBatch]:
    """Typed record batches of the trace (or of one line-aligned byte range of it), `columns` only."""
    path = Path(path)
    start, end = byte_range or (0, path.stat().st_size)
    if end <= start:
        return
    names = list(columns or TRACE_SCHEMA.names)
    source = _ByteRange(path, start, end)
    reader = pacsv.open_csv(
        source,
        read_options=pacsv.ReadOptions(column_names=TRACE_SCHEMA.names, block_size=block_size, use_threads=False),
        parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
        convert_options=pacsv.ConvertOptions(
            column_types={name: TRACE_SCHEMA.field(name).type for name in names},
            include_columns=names,
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )
    try:
        yield from reader
    finally:
        reader.close()
        source.close()


def scan_trace(
    path: str | Path,
    make_collectors: Callable[[], list[Collector]],
    workers: int | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> list[list[Collector]]:
    """One pass over the trace; returns, per byte range, the collectors `make_collectors()` made for it."""
    require_complete(path)
    ranges = line_aligned_ranges(path, workers or default_workers(path))
    read: set[str] = set()

    def scan(byte_range: tuple[int, int] | None) -> list[Collector]:
        collectors = make_collectors()
        columns = [c for c in TRACE_SCHEMA.names if any(c in k.columns for k in collectors)]
        read.update(columns)
        for batch in read_trace(path, columns, byte_range, block_size):
            if null_columns(batch):
                raise _NullField
            for collector in collectors:
                collector.add(batch)
        return collectors

    try:
        if len(ranges) <= 1:
            return [scan(ranges[0] if ranges else None)]
        with ThreadPoolExecutor(len(ranges), thread_name_prefix="ns2-trace") as pool:
            return list(pool.map(scan, ranges))
    except (pa.ArrowInvalid, _NullField) as exc:  # the reader's "Row #n" counts within one byte range
        cause = exc if isinstance(exc, pa.ArrowInvalid) else None
        raise malformed(path, cause, schema=TRACE_SCHEMA, delimiter=" ", columns=read) from exc


class _NullField(Exception):
    """A batch with a null: a field the reader took for missing (empty, `NA`), found again by bad_line."""
