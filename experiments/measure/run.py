"""The metrics of one run directory, computed from its parquet tables (docs/DESIGN.md §6).

The metric names, with their scopes, units, meaning and what a run needs to have each, are measure.registry's
(`python -m experiments metrics` prints them; a test checks that a run gives exactly those); each family's module
says how its metrics are computed. Everything is measured over [warmup, duration] unless said otherwise. Two tidy
long tables come out: `metrics` (scope, metric, value), one value per run, and `series` (scope, metric, t, value)
per `interval` seconds (or per sample, where said), for time-series figures. `scope` is a link name (core0,
core1, ...), a flow (flow1, ...), a flow group (`group:<name>`) or `all` (every flow together). A run made without
a packet trace (no hops, no journeys) has no delay and no e2e metrics; a run without flows.tsv has no goodput,
cwnd or fairness metrics. Percentiles (_p<q>, _median) are pandas' Series.quantile with its default linear
interpolation (numpy's "linear" method: between the two nearest order statistics).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa

from experiments.measure.core_log import core_log_metrics
from experiments.measure.e2e import e2e_metrics
from experiments.measure.http_objects import object_metrics, per_object_metrics
from experiments.measure.links import link_metrics, queue_pkts_series, queue_var_metrics, settle_metrics
from experiments.measure.per_hop import bound_metrics, link_curves, node_metrics
from experiments.measure.scopes import INTERVAL_S, RunTables, core_link_specs, flow_groups
from experiments.measure.sinks import sink_metrics
from experiments.measure.tcp_counters import tcp_counter_metrics
from experiments.measure.tcp_flows import flow_metrics
from experiments.measure.wireless import wireless_drop_metrics


def run_metrics(
    run_dir: Path,
    warmup: float,
    interval: float = INTERVAL_S,
    queue_thresholds: Sequence[int] = (),
    queue_ranges: Sequence[Sequence[int]] = (),
    settle: Sequence[Sequence[float]] = (),
    fec_blocks: Sequence[Sequence[int]] = (),
    held: Mapping[str, pa.Table] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The (metrics, series) tables of one run directory, without context columns.

    hops and journeys (from the packet trace), flows (from flows.tsv), objects and the core_log tables are used
    when the run has them; `queue_thresholds` (bytes) are the experiment's, for queue_above_<b>B_pct, and
    `queue_ranges` ([a, b] packets) for queue_pkts_in_<a>_<b>_pct, `settle` ([t0, level]) for
    queue_ave_settle_<level>_s@<t0>, `fec_blocks` ([k, h]) for the fec_<...>_<k>_<h> metrics of LossMonitor sinks.
    `held`: the run's tables as parsers.run_tables just made them, instead of reading them back from its parquet.
    """
    params = json.loads((run_dir / "params.json").read_text())
    tables, end = RunTables(run_dir / "tables", held), float(params["duration"])
    specs = core_link_specs(params)
    capacity = specs[0][0] if specs else math.nan
    queue = tables.read("queue")
    hops = tables.read("hops", ["link", "size", "t_enqueue", "t_dequeue", "queue_delay", "dropped"])
    journeys = tables.read("journeys", ["fid", "ptype", "size", "t_enter", "t_exit", "delay", "dropped", "marked"])
    flows = tables.read("flows", ["time", "fid", "delivered_bytes", "cwnd", "retransmits"])
    rows, series = link_metrics(queue, hops, [bandwidth for bandwidth, _ in specs], warmup, interval, end, queue_ranges)
    by_link = link_curves(hops, specs) if hops is not None else {}
    node_rows, node_series = node_metrics(by_link, warmup, end, interval, queue_thresholds)
    rows, series = rows + node_rows, series + node_series
    queue_vars = tables.read("queue_vars", ["time", "var", "value"])
    var_series = None
    if queue_vars is not None:
        var_rows, var_series = queue_var_metrics(queue_vars, warmup, end)
        rows += var_rows + settle_metrics(queue_vars, settle, end)
    rows += [
        {"scope": "all", "metric": f"bottleneck_{r['metric']}", "value": r["value"]}
        for r in rows
        if r["scope"] == "core0"
    ]
    if journeys is not None:
        e2e_rows, e2e_series = e2e_metrics(journeys, params, warmup, end, interval)
        bound_rows, bound_series = bound_metrics(journeys, params, by_link, warmup, end, interval)
        rows, series = rows + e2e_rows + bound_rows, series + e2e_series + bound_series
    if flows is not None:
        groups = flow_groups(params, flows["fid"].unique())
        starts = {f["fid"]: float(f["start"]) for f in params["flows"] if f.get("kind") == "ftp" and "start" in f}
        tcp_rows, tcp_series = flow_metrics(flows, groups, warmup, end, interval, starts)
        rows, series = rows + tcp_rows, series + tcp_series
    counters = tables.read("tcp_counters")
    if counters is not None:
        rows += tcp_counter_metrics(counters)
    objects = tables.read("objects")  # all columns: tables of runs before ns2-patches/0008 have no `delivered`
    if objects is not None:
        rows += object_metrics(objects, flow_groups(params, objects["fid"].unique()), warmup, end)
    sinks = tables.read("sinks", ["time", "fid", "bytes", "expected"])
    if sinks is not None:
        rows += sink_metrics(
            sinks, tables.read("sink_gaps", ["fid", "first", "count"]), params, warmup, end, fec_blocks
        )
    wireless_drops = tables.read("wireless_drops", ["time", "layer", "reason", "ptype"])
    if wireless_drops is not None:
        rows += wireless_drop_metrics(wireless_drops, warmup, end)
    core_rows, core_series = core_log_metrics(tables, params, capacity, warmup, end)
    rows += core_rows
    rows += per_object_metrics(rows)
    columns = ["scope", "metric", "t", "value"]
    frames = [pd.DataFrame(series, columns=columns), queue_pkts_series(queue, end), *core_series, var_series]
    frames = [frame for frame in frames if frame is not None]
    frames = [frame for frame in frames if len(frame)]
    series = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    return pd.DataFrame(rows, columns=["scope", "metric", "value"]), series
