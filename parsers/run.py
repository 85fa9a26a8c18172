"""Parse one run directory (DESIGN.md section 1) into its parquet tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from parsers.flow_sums import FlowSumCollector, combine_flow_sums
from parsers.flows import read_flows
from parsers.hops import build_hops
from parsers.journeys import build_journeys
from parsers.link_events import LinkEventCollector, LinkEvents
from parsers.ns2_trace import DEFAULT_BLOCK_SIZE, scan_trace
from parsers.packet_log import packet_log_events
from parsers.queue_monitor import read_queue_monitor
from parsers.run_meta import LinkTable
from parsers.tables import PACKET_LOG, PACKET_TRACE, TSV_KINDS, conformed, write_table
from parsers.tsv import read_tsv
from parsers.wireless_drops import read_wireless_drops


def read_params(run_dir: Path) -> dict[str, Any]:
    """The run's params.json, or {} when it has none (a run made outside the pipeline)."""
    path = run_dir / "params.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def context_from_params(run_dir: Path) -> dict[str, Any]:
    """The seed from the run's params.json (and, from a version 1 params.json, its paper, experiment and labels),
    run_key from the directory name."""
    params = read_params(run_dir)
    context = {key: params[key] for key in ("paper", "experiment", "labels", "seed") if key in params}
    return {**context, "run_key": run_dir.name}


def packet_events_expected(run_dir: Path) -> str | None:
    """The file of packet events the run should have: packets.log (`monitors.packet_trace` true, the default),
    packets.tr (`text`) or none (false)."""
    packet_trace = (read_params(run_dir).get("monitors") or {}).get("packet_trace", True)
    return {True: PACKET_LOG, "text": PACKET_TRACE}.get(packet_trace)


def _require(run_dir: Path, names: list[str]) -> None:
    for name in names:
        if not (run_dir / name).is_file():
            raise FileNotFoundError(f"{run_dir / name}: missing (is this a complete run directory?)")


def trace_tables(run_dir: Path, workers: int | None, block_size: int) -> dict[str, pa.Table]:
    """journeys, hops and flow_sums of the run's packets.tr, in one pass over the trace."""
    links = LinkTable.from_meta(run_dir / "meta.json")
    ranges = scan_trace(
        run_dir / PACKET_TRACE, lambda: [FlowSumCollector(), LinkEventCollector(links)], workers, block_size
    )
    events = LinkEvents.combine(collector for _, collector in ranges)
    return {
        "journeys": build_journeys(events, links),
        "hops": build_hops(events, links),
        "flow_sums": combine_flow_sums(sums for sums, _ in ranges),
    }


def packet_log_tables(run_dir: Path) -> dict[str, pa.Table]:
    """journeys and hops of the run's packets.log (it holds only their events: no flow_sums)."""
    links = LinkTable.from_meta(run_dir / "meta.json")
    events = packet_log_events(run_dir / PACKET_LOG, links)
    return {"journeys": build_journeys(events, links), "hops": build_hops(events, links)}


def run_tables(
    run_dir: str | Path, workers: int | None = None, block_size: int = DEFAULT_BLOCK_SIZE
) -> dict[str, pa.Table]:
    """The run's tables by kind, in memory, each cast to its schema (parsers/tables.py) as parse_run writes it,
    without the context columns.

    Always `queue`; `journeys` and `hops` from packets.log (`monitors.packet_trace` true, the default), or those and
    `flow_sums` from packets.tr (one pass; `packet_trace: text`), neither when params.json says false; `flows` when
    the run has a flows.tsv; `objects` when it has an objects.tsv (http flows); `core_bins`, `core_drops` and
    `core_delays` when it has those files (monitors.core_log, DESIGN.md section 5.4); `wireless_drops` when it has a
    drops.tr (a wireless run)."""
    run_dir = Path(run_dir)
    events = next((name for name in (PACKET_LOG, PACKET_TRACE) if (run_dir / name).is_file()), None)
    events = events or packet_events_expected(run_dir)
    _require(run_dir, ["meta.json", *([events] if events else []), "queue_monitor.tsv"])
    if events == PACKET_LOG:
        tables = packet_log_tables(run_dir)
    elif events == PACKET_TRACE:
        tables = trace_tables(run_dir, workers, block_size)
    else:
        tables = {}
    tables["queue"] = read_queue_monitor(run_dir / "queue_monitor.tsv")
    if (run_dir / "flows.tsv").is_file():
        tables["flows"] = read_flows(run_dir / "flows.tsv")
    if (run_dir / "drops.tr").is_file():
        tables["wireless_drops"] = read_wireless_drops(run_dir / "drops.tr")
    for kind in TSV_KINDS:
        if (run_dir / f"{kind}.tsv").is_file():
            tables[kind] = read_tsv(run_dir / f"{kind}.tsv", kind)
    return {kind: conformed(table, kind) for kind, table in tables.items()}


def write_tables(tables: dict[str, pa.Table], out_dir: str | Path, context: dict[str, Any]) -> dict[str, Path]:
    """Write run_tables' tables into `out_dir` with their context columns; returns {kind: path}."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return {kind: write_table(table, kind, context, out_dir / f"{kind}.parquet") for kind, table in tables.items()}


def run_context(run_dir: str | Path, context: dict[str, Any] | None = None) -> dict[str, Any]:
    """`context_from_params(run_dir)`, keys of `context` overriding it."""
    return {**context_from_params(Path(run_dir)), **(context or {})}


def parse_run(
    run_dir: str | Path,
    out_dir: str | Path,
    context: dict[str, Any] | None = None,
    workers: int | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> dict[str, Path]:
    """Write the run's parquet tables (run_tables) into `out_dir`; returns {kind: path} of those written. The
    context defaults to `context_from_params(run_dir)`; keys of `context` override it."""
    return write_tables(run_tables(run_dir, workers, block_size), out_dir, run_context(run_dir, context))
