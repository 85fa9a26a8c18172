"""What the metric families share: time bins, metric rows, and the scopes a run's rows fall in (all, each flow
group, each flow).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from experiments.config.units import bandwidth_bps, seconds

INTERVAL_S = 1.0


TCP_HEADER_BYTES = 40  # ns-2's tcpip_base_hdr_size_: a TCP packet this small carries no data


def time_bins(times: pd.Series, start: float, interval: float) -> pd.Series:
    return start + np.floor((times - start) / interval) * interval


def metric_rows(scope: str, values: dict[str, float]) -> list[dict]:
    return [{"scope": scope, "metric": metric, "value": float(value)} for metric, value in values.items()]


def named_groups(params: dict) -> dict[int, str]:
    """fid -> group name of every flow in params.json's flows that names one."""
    return {int(flow["fid"]): flow["group"] for flow in params.get("flows", []) if "group" in flow}


def flow_groups(params: dict, fids) -> dict[int, str] | None:
    """fid -> group name from params.json's flows, or None when a flow of `fids` has no group (older runs)."""
    groups = named_groups(params)
    return groups if all(int(fid) in groups for fid in fids) else None


def group_masks(fids: np.ndarray, groups: dict[int, str] | None) -> list[tuple[str, np.ndarray]]:
    """("all", every row), then ("group:<name>", its rows) per group present, by name; a row whose fid has no group
    is only in all."""
    masks = [("all", np.ones(len(fids), dtype=bool))]
    present = {int(fid) for fid in np.unique(fids)}
    for name in sorted({name for fid, name in (groups or {}).items() if fid in present}):
        masks.append((f"group:{name}", np.isin(fids, [fid for fid, group in groups.items() if group == name])))
    return masks


def group_scopes(frame: pd.DataFrame, groups: dict[int, str] | None) -> list[tuple[str, pd.DataFrame]]:
    """group_masks' scopes of a frame with a fid column: (scope, its rows, in frame order)."""
    return [(scope, frame[mask]) for scope, mask in group_masks(frame["fid"].to_numpy(), groups)]


def nearest_rows(index: pd.Index, times, tolerance: float | None = None) -> np.ndarray:
    """Positions in a sorted time index of the samples nearest `times` (-1 where none is within tolerance)."""
    return index.get_indexer(np.asarray(times, dtype=float), method="nearest", tolerance=tolerance)


def in_window(frame: pd.DataFrame, warmup: float, end: float) -> pd.DataFrame:
    return frame[(frame["time"] >= warmup) & (frame["time"] < end)]


def core_link_specs(params: dict) -> list[tuple[float, float]]:
    """(bandwidth bit/s, propagation s) of each core link C0->C1, C1->C2, ..., `core_links` overrides applied;
    none in a wireless topology."""
    topology = params["topology"]
    if topology["kind"] == "wireless":
        return []
    n_links = int(topology.get("core_nodes", 2)) - 1
    overrides = topology.get("core_links") or [{}] * n_links
    links = [{**topology["core_link"], **override} for override in overrides]
    return [(bandwidth_bps(link["bandwidth"]), seconds(link["delay"])) for link in links]


class RunTables:
    """A run's tables by kind (parsers/tables.py): those a job just parsed, held in memory, or else its parquet
    files in `folder`. Held tables are the ones parse_run writes (parsers.run_tables), so either way the metrics
    see the same values; the batch job measures a run it just parsed without reading its tables back."""

    def __init__(self, folder: Path, held: Mapping[str, pa.Table] | None = None):
        self.folder, self.held = Path(folder), held

    def read(self, kind: str, columns: list[str] | None = None) -> pd.DataFrame | None:
        """The table of one kind, or None when the run has none."""
        if self.held is not None:  # a run just parsed: every table it has is here
            table = self.held.get(kind)
            return None if table is None else table.select(columns or table.column_names).to_pandas()
        path = self.folder / f"{kind}.parquet"
        return pd.read_parquet(path, columns=columns) if path.is_file() else None
