"""queue_monitor.tsv (DESIGN.md section 5.1): tab-separated sampled QueueMonitor counters, one header line."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from parsers.tsv import read_tsv


def read_queue_monitor(path: str | Path, block_size: int = 1 << 20) -> pa.Table:
    """The samples as a typed table (SCHEMAS['queue']); a header other than section 5.1's is an error."""
    return read_tsv(path, "queue", block_size)
