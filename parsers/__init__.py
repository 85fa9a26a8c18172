"""Streaming parsers: one ns-2 run's outputs (packets.tr, queue_monitor.tsv, flows.tsv, meta.json) to parquet tables.

Each trace is read in blocks by pyarrow's streaming CSV reader, optionally in a few line-aligned byte ranges in
parallel; nothing holds a whole trace in memory. See docs/DESIGN.md, sections 3 to 6.

Malformed input is one ValueError naming the file and the line (parsers/lines.py): a line with the wrong number of
fields or a field not of its column's type, a meta.json link without its fields or with an unknown role, and a
truncated last line (no final newline: ns was killed while writing). The last is an error for the whole run, not a
line dropped with a warning: what is left of a cut line can still parse, with a wrong value.
"""

from parsers.flow_sums import flow_sums
from parsers.flows import read_flows
from parsers.queue_monitor import read_queue_monitor
from parsers.run import parse_run, run_context, run_tables, write_tables
from parsers.tables import KINDS, RAW_OUTPUTS, SCHEMAS, TRACE_KINDS

__all__ = [
    "KINDS",
    "RAW_OUTPUTS",
    "SCHEMAS",
    "TRACE_KINDS",
    "flow_sums",
    "parse_run",
    "read_flows",
    "read_queue_monitor",
    "run_context",
    "run_tables",
    "write_tables",
]
