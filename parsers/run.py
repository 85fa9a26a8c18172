"""Parse one run directory (DESIGN.md section 1) into its four parquet tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from parsers.flow_sums import FlowSumCollector, combine_flow_sums
from parsers.hops import build_hops
from parsers.journeys import build_journeys
from parsers.link_events import LinkEventCollector, LinkEvents
from parsers.ns2_trace import DEFAULT_BLOCK_SIZE, scan_trace
from parsers.queue_monitor import read_queue_monitor
from parsers.run_meta import LinkTable
from parsers.tables import write_table


def context_from_params(run_dir: Path) -> dict[str, Any]:
    """paper, experiment, labels and seed from the run's params.json (if any), run_key from the directory name."""
    params_path = run_dir / "params.json"
    params = json.loads(params_path.read_text()) if params_path.is_file() else {}
    context = {key: params[key] for key in ("paper", "experiment", "labels", "seed") if key in params}
    return {**context, "run_key": run_dir.name}


def parse_run(
    run_dir: str | Path,
    out_dir: str | Path,
    context: dict[str, Any] | None = None,
    workers: int | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> dict[str, Path]:
    """Write journeys, hops, queue and flow_sums parquet files of `run_dir` into `out_dir`; one pass over the trace.

    The context defaults to `context_from_params(run_dir)`; keys of `context` override it.
    """
    run_dir, out_dir = Path(run_dir), Path(out_dir)
    context = {**context_from_params(run_dir), **(context or {})}
    for name in ("meta.json", "packets.tr", "queue_monitor.tsv"):
        if not (run_dir / name).is_file():
            raise FileNotFoundError(f"{run_dir / name}: missing (is this a complete run directory?)")
    links = LinkTable.from_meta(run_dir / "meta.json")
    ranges = scan_trace(
        run_dir / "packets.tr", lambda: [FlowSumCollector(), LinkEventCollector(links)], workers, block_size
    )
    events = LinkEvents.combine(collector for _, collector in ranges)
    tables = {
        "journeys": build_journeys(events, links),
        "hops": build_hops(events, links),
        "queue": read_queue_monitor(run_dir / "queue_monitor.tsv"),
        "flow_sums": combine_flow_sums(sums for sums, _ in ranges),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    return {kind: write_table(table, kind, context, out_dir / f"{kind}.parquet") for kind, table in tables.items()}
