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
from parsers.queue_monitor import read_queue_monitor
from parsers.run_meta import LinkTable
from parsers.tables import TSV_KINDS, write_table
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


def trace_expected(run_dir: Path) -> bool:
    """Whether the run should have a packets.tr: unless params.json says `monitors.packet_trace: false`."""
    return (read_params(run_dir).get("monitors") or {}).get("packet_trace", True) is not False


def _require(run_dir: Path, names: list[str]) -> None:
    for name in names:
        if not (run_dir / name).is_file():
            raise FileNotFoundError(f"{run_dir / name}: missing (is this a complete run directory?)")


def trace_tables(run_dir: Path, workers: int | None, block_size: int) -> dict[str, pa.Table]:
    """journeys, hops and flow_sums of the run's packets.tr, in one pass over the trace."""
    links = LinkTable.from_meta(run_dir / "meta.json")
    ranges = scan_trace(
        run_dir / "packets.tr", lambda: [FlowSumCollector(), LinkEventCollector(links)], workers, block_size
    )
    events = LinkEvents.combine(collector for _, collector in ranges)
    return {
        "journeys": build_journeys(events, links),
        "hops": build_hops(events, links),
        "flow_sums": combine_flow_sums(sums for sums, _ in ranges),
    }


def parse_run(
    run_dir: str | Path,
    out_dir: str | Path,
    context: dict[str, Any] | None = None,
    workers: int | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> dict[str, Path]:
    """Write the run's parquet tables into `out_dir`; returns {kind: path} of those written.

    Always `queue`; `journeys`, `hops` and `flow_sums` from packets.tr (one pass), which may be absent only when
    params.json says `monitors.packet_trace: false`; `flows` when the run has a flows.tsv; `objects` when it has an
    objects.tsv (http flows); `core_bins`, `core_drops` and `core_delays` when it has those files (monitors.core_log,
    DESIGN.md section 5.4); `wireless_drops` when it has a drops.tr (a wireless run). The context defaults
    to `context_from_params(run_dir)`; keys of `context` override it.
    """
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    context = {**context_from_params(run_dir), **(context or {})}
    with_trace = (run_dir / "packets.tr").is_file() or trace_expected(run_dir)
    _require(run_dir, ["meta.json", *(["packets.tr"] if with_trace else []), "queue_monitor.tsv"])
    tables = trace_tables(run_dir, workers, block_size) if with_trace else {}
    tables["queue"] = read_queue_monitor(run_dir / "queue_monitor.tsv")
    if (run_dir / "flows.tsv").is_file():
        tables["flows"] = read_flows(run_dir / "flows.tsv")
    if (run_dir / "drops.tr").is_file():
        tables["wireless_drops"] = read_wireless_drops(run_dir / "drops.tr")
    for kind in TSV_KINDS:
        if (run_dir / f"{kind}.tsv").is_file():
            tables[kind] = read_tsv(run_dir / f"{kind}.tsv", kind)
    out_dir.mkdir(parents=True, exist_ok=True)
    return {kind: write_table(table, kind, context, out_dir / f"{kind}.parquet") for kind, table in tables.items()}
