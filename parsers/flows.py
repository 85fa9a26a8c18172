"""flows.tsv (DESIGN.md section 5.2): each TCP flow's delivered bytes, cwnd, ssthresh and retransmissions, sampled."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from parsers.tsv import read_tsv


def read_flows(path: str | Path, block_size: int = 1 << 20) -> pa.Table:
    """The samples as a typed table (SCHEMAS['flows']); a header other than section 5.2's is an error."""
    return read_tsv(path, "flows", block_size)
