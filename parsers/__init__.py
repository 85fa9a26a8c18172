"""Streaming parsers: one ns-2 run's outputs (packets.tr, queue_monitor.tsv, meta.json) to tidy parquet tables.

Each trace is read in blocks by pyarrow's streaming CSV reader, optionally in a few line-aligned byte ranges in
parallel; nothing holds a whole trace in memory. See docs/DESIGN.md, sections 3 to 6.
"""

from parsers.flow_sums import flow_sums
from parsers.run import parse_run
from parsers.tables import KINDS, SCHEMAS

__all__ = ["KINDS", "SCHEMAS", "flow_sums", "parse_run"]
