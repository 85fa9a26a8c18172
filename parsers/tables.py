"""The parquet tables (DESIGN.md section 6): their schemas, the run-context columns and parquet writing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

SCHEMAS: dict[str, pa.Schema] = {
    "journeys": pa.schema(
        [
            ("fid", pa.int32()),
            ("uid", pa.int64()),
            ("seq", pa.int64()),
            ("ptype", pa.string()),
            ("size", pa.int32()),
            ("t_enter", pa.float64()),
            ("t_exit", pa.float64()),
            ("delay", pa.float64()),
            ("dropped", pa.bool_()),
            ("drop_time", pa.float64()),
            ("drop_link", pa.string()),
            ("marked", pa.bool_()),
        ]
    ),
    "hops": pa.schema(
        [
            ("link", pa.string()),
            ("fid", pa.int32()),
            ("uid", pa.int64()),
            ("size", pa.int32()),
            ("t_enqueue", pa.float64()),
            ("t_dequeue", pa.float64()),
            ("queue_delay", pa.float64()),
            ("dropped", pa.bool_()),
        ]
    ),
    "queue": pa.schema(
        [("time", pa.float64()), ("link", pa.string())]
        + [
            (name, pa.int64())
            for name in (
                "size_bytes",
                "size_packets",
                "arrivals_packets",
                "arrivals_bytes",
                "departures_packets",
                "departures_bytes",
                "drops_packets",
                "drops_bytes",
            )
        ]
    ),
    "flow_sums": pa.schema(
        [("fid", pa.int32()), ("event", pa.string()), ("packets", pa.int64()), ("bytes", pa.int64())]
    ),
    "flows": pa.schema(
        [
            ("time", pa.float64()),
            ("fid", pa.int32()),
            ("delivered_bytes", pa.int64()),
            ("cwnd", pa.float64()),
            ("ssthresh", pa.int64()),
            ("retransmits", pa.int64()),
        ]
    ),
    # objects.tsv (DESIGN.md section 5.3): one row per object of an http flow; end and delivered are null if
    # unfinished.
    "objects": pa.schema(
        [
            ("fid", pa.int32()),
            ("object", pa.int64()),
            ("start", pa.float64()),
            ("end", pa.float64()),
            ("bytes", pa.int64()),
            ("delivered", pa.float64()),
        ]
    ),
    # The core_log files (DESIGN.md section 5.4), from monitors.core_log on the first core link.
    # core_bins.tsv: per-fid packets, bytes and cwnd hints per bin and event (arrival, departure, drop).
    "core_bins": pa.schema(
        [
            ("bin", pa.float64()),
            ("event", pa.string()),
            ("fid", pa.int32()),
            ("packets", pa.int64()),
            ("bytes", pa.int64()),
            ("hint_sum", pa.float64()),
            ("hinted", pa.int64()),
        ]
    ),
    # core_drops.tsv: one row per packet dropped there, with its cwnd hint and the queue length it found.
    "core_drops": pa.schema(
        [
            ("time", pa.float64()),
            ("fid", pa.int32()),
            ("seqno", pa.int64()),
            ("size", pa.int32()),
            ("hint", pa.float64()),
            ("qlen", pa.int64()),
        ]
    ),
    # core_delays.tsv: per packet of the first flow of each group leaving the link, its delay since creation.
    "core_delays": pa.schema(
        [
            ("time", pa.float64()),
            ("fid", pa.int32()),
            ("seqno", pa.int64()),
            ("delay", pa.float64()),
        ]
    ),
    # sinks.tsv (DESIGN.md section 5.6): each Agent/LossMonitor sink's counters at flows.tsv's ticks; expected is
    # one past the highest sequence number received.
    "sinks": pa.schema(
        [
            ("time", pa.float64()),
            ("fid", pa.int32()),
            ("packets", pa.int64()),
            ("bytes", pa.int64()),
            ("expected", pa.int64()),
        ]
    ),
    # sink_gaps.tsv: one row per gap in a LossMonitor sink's sequence numbers, at the arrival that revealed it.
    "sink_gaps": pa.schema([("time", pa.float64()), ("fid", pa.int32()), ("first", pa.int64()), ("count", pa.int64())]),
    # queue_vars.tsv (DESIGN.md section 5.5): variables of the first core link's queue object per sample.
    "queue_vars": pa.schema([("time", pa.float64()), ("var", pa.string()), ("value", pa.float64())]),
    # tcp_counters.tsv: each one-way TCP agent's loss-recovery counters at the end of the run (ns2-patches/0022,
    # 0011); the BQM sender's three are null (`nan`) for other agents.
    "tcp_counters": pa.schema(
        [
            ("fid", pa.int32()),
            ("timeouts", pa.int64()),
            ("fast_retransmits", pa.int64()),
            ("retransmitted_packets", pa.int64()),
            ("congestion_responses", pa.int64()),
            ("wireless_responses", pa.int64()),
            ("early_retransmits", pa.int64()),
        ]
    ),
    "wireless_drops": pa.schema(
        [
            ("time", pa.float64()),
            ("node", pa.int32()),
            ("layer", pa.string()),
            ("reason", pa.string()),
            ("uid", pa.int64()),
            ("ptype", pa.string()),
            ("size", pa.int32()),
        ]
    ),
}
# Columns of the TSV files that may be missing: `nan` there is read as null (DESIGN.md section 6).
NULLABLE: dict[str, tuple[str, ...]] = {
    "objects": ("end", "delivered"),
    "tcp_counters": ("congestion_responses", "wireless_responses", "early_retransmits"),
}
TRACE_KINDS = ("journeys", "hops", "flow_sums")  # the tables read from packets.tr (packets.log: all but flow_sums)
PACKET_LOG = "packets.log"  # monitors.packet_trace true: the events the metrics read, binary (parsers/packet_log.py)
PACKET_TRACE = "packets.tr"  # monitors.packet_trace text: ns-2's text trace of every event
# read from <kind>.tsv when the run has one
TSV_KINDS = (
    "objects",
    "core_bins",
    "core_drops",
    "core_delays",
    "queue_vars",
    "sinks",
    "sink_gaps",
    "tcp_counters",
)
# The raw outputs a run's tables hold all of: deleted once parsed unless the workflow keeps them (DESIGN.md §1).
RAW_OUTPUTS = (
    PACKET_LOG,
    PACKET_TRACE,
    "queue_monitor.tsv",
    "flows.tsv",
    "drops.tr",
    *(f"{kind}.tsv" for kind in TSV_KINDS),
)
# zstd with the float columns byte-stream-split: a third smaller than snappy on the per-packet tables
# (bench/run_disk.py), read back identically. Dictionary pages only for the text columns (link and packet type
# names, the context's): on the per-packet times and uids, nearly all distinct, parquet built a dictionary only to
# give it up, which made writing the per-packet tables slower and their files larger.
COMPRESSION = "zstd"
KINDS = tuple(SCHEMAS)
REQUIRED_CONTEXT = ("seed", "run_key")
NAME_CONTEXT = ("paper", "experiment")  # optional: the pipeline's run tables carry no names (DESIGN.md section 6)


def schema_version(kind: str) -> str:
    return f"ns2-repro/table/{kind}/1"


def normalize_context(context: dict[str, Any]) -> dict[str, Any]:
    """`{[paper], [experiment], [labels: {...}], seed, run_key}`; other top-level keys count as labels."""
    missing = [key for key in REQUIRED_CONTEXT if key not in context]
    if missing:
        raise ValueError(f"context: missing {missing}; required: {list(REQUIRED_CONTEXT)} (and optional labels)")
    labels = dict(context.get("labels") or {})
    labels.update({k: v for k, v in context.items() if k not in (*REQUIRED_CONTEXT, *NAME_CONTEXT, "labels")})
    if not isinstance(context["seed"], int) or isinstance(context["seed"], bool):
        raise ValueError(f"context: seed must be an integer, got {context['seed']!r}")
    for name, value in labels.items():
        if name in (*REQUIRED_CONTEXT, *NAME_CONTEXT) or any(name in schema.names for schema in SCHEMAS.values()):
            raise ValueError(f"context: label {name!r} would clash with a column of the same name")
        if value is not None and not isinstance(value, str | int | float | bool):
            raise ValueError(f"context: label {name!r} must be a string, number or boolean, got {value!r}")
    return {
        **{key: str(context[key]) for key in NAME_CONTEXT if key in context},
        "labels": labels,
        "seed": context["seed"],
        "run_key": str(context["run_key"]),
    }


def _constant_column(value: Any, rows: int) -> pa.Array:
    """`value` repeated: strings as a one-entry dictionary (no copies), other scalars with their own type."""
    if isinstance(value, str) or value is None:
        indices = pa.nulls(rows, pa.int32()) if value is None else pa.repeat(pa.scalar(0, pa.int32()), rows)
        return pa.DictionaryArray.from_arrays(indices, pa.array([value or ""], pa.string()))
    scalar_type = pa.bool_() if isinstance(value, bool) else pa.int64() if isinstance(value, int) else pa.float64()
    return pa.repeat(pa.scalar(value, scalar_type), rows)


def conformed(table: pa.Table, kind: str) -> pa.Table:
    """The kind's columns, in its schema's order and types."""
    return table.select(SCHEMAS[kind].names).cast(SCHEMAS[kind])


def with_context(table: pa.Table, kind: str, context: dict[str, Any]) -> pa.Table:
    """The context columns ([paper, experiment, labels...,] seed, run_key) then the kind's columns, with metadata."""
    context = normalize_context(context)
    table = conformed(table, kind)
    columns = {**{key: context[key] for key in NAME_CONTEXT if key in context}, **context["labels"]}
    columns |= {"seed": context["seed"], "run_key": context["run_key"]}
    arrays = [_constant_column(value, table.num_rows) for value in columns.values()] + table.columns
    out = pa.Table.from_arrays(arrays, names=list(columns) + table.column_names)
    return out.replace_schema_metadata(
        {
            "ns2repro.kind": kind,
            "ns2repro.schema_version": schema_version(kind),
            "ns2repro.context": json.dumps(context, sort_keys=True),
        }
    )


def write_table(table: pa.Table, kind: str, context: dict[str, Any], path: str | Path) -> Path:
    """Write `table` with its context columns and metadata to `path`, atomically (temp file, then rename)."""
    import pyarrow.parquet as pq  # here, not at the top: reading a trace needs no parquet (import time, RSS)

    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    table = with_context(table, kind, context)
    floats = [field.name for field in table.schema if pa.types.is_floating(field.type)]
    texts = [f.name for f in table.schema if pa.types.is_string(f.type) or pa.types.is_dictionary(f.type)]
    pq.write_table(table, tmp, compression=COMPRESSION, use_byte_stream_split=floats, use_dictionary=texts)
    tmp.replace(path)
    return path
