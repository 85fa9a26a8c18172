"""UDP flows whose sink is an Agent/LossMonitor (sinks.tsv: its counters at flows.tsv's ticks; sink_gaps.tsv:
each gap in the received sequence numbers), per flow, per flow group and all (pooled).

A packet's fate is known from the sequence number the sink expected at the last sample at or before warmup (begin)
up to the one it expected at the end (end_seq). With the experiment's fec_blocks ([k, h] pairs, measure.fec_blocks)
the blocks of n = k + h sequence numbers (block j: [j n, (j + 1) n)) that lie in [begin, end_seq) are counted.
Which packets are redundancy changes nothing in the network, so any (k, h) can be counted from one run; it
measures FEC only where the source's rate includes that redundancy (Eq. 5.1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from experiments.measure.fec_blocks import Blocks, blocks, fec_values, lost_seqnos
from experiments.measure.registry import LOSS_RUN_LENGTHS
from experiments.measure.scopes import flow_groups, group_scopes, metric_rows


def _sink_window(sinks: pd.DataFrame, warmup: float) -> pd.DataFrame:
    """Per fid: begin (expected at the last sample at or before warmup), end_seq (expected at the last sample) and
    the bytes received between the two samples."""
    ordered = sinks.sort_values(["fid", "time"], kind="stable")
    start = ordered[ordered["time"] <= warmup + 1e-9].groupby("fid").last()
    last = ordered.groupby("fid").last()
    return (
        pd.DataFrame({"begin": start["expected"], "end_seq": last["expected"], "bytes": last["bytes"] - start["bytes"]})
        .dropna()
        .astype("int64")
    )


def sink_values(flows: pd.DataFrame, gaps: pd.DataFrame, seconds: float, blocks_of: Sequence) -> dict[str, float]:
    """The sink metrics of one scope: `flows` its rows of _sink_window, `gaps` its rows of sink_gaps."""
    lost, runs, by_block = 0, [], {(k, h): [] for k, h in blocks_of}
    for fid, window in flows.iterrows():
        seqnos = lost_seqnos(gaps[gaps["fid"] == fid].sort_values("first", kind="stable"))
        lost += int(((seqnos >= window["begin"]) & (seqnos < window["end_seq"])).sum())
        runs.append(gaps.loc[(gaps["fid"] == fid) & (gaps["first"] >= window["begin"]), "count"])
        for k, h in blocks_of:
            by_block[(k, h)].append(blocks(seqnos, window["begin"], window["end_seq"], k, h))
    sent = int((flows["end_seq"] - flows["begin"]).sum())
    lengths = pd.concat(runs) if runs else pd.Series(dtype="int64")
    shares = lengths.value_counts(normalize=True) * 100
    values = {
        "sink_loss_pct": lost / sent * 100 if sent else math.nan,
        "sink_goodput_Bps": flows["bytes"].sum() / seconds,
        **{f"sink_loss_run_{k}_pct": float(shares.get(k, 0.0)) if len(lengths) else math.nan for k in LOSS_RUN_LENGTHS},
        "sink_loss_run_mean": float(lengths.mean()) if len(lengths) else math.nan,
    }
    for (k, h), parts in by_block.items():
        fec = fec_values(Blocks.concat(parts), k, h)
        values |= {f"fec_{name}_{k}_{h}_pct": fec[name] for name in ("plrbc", "plr", "plr_data")}
        values[f"fec_blocks_{k}_{h}"] = fec["blocks"]
    return values


def sink_metrics(
    sinks: pd.DataFrame, gaps: pd.DataFrame, params: dict, warmup: float, end: float, blocks_of: Sequence = ()
) -> list[dict]:
    """The metrics of the LossMonitor sinks (see the module docstring): per flow, per group and all."""
    windows = _sink_window(sinks, warmup)
    if windows.empty:
        return []
    groups = flow_groups(params, windows.index)
    scopes = group_scopes(windows.reset_index(), groups)
    scopes += [(f"flow{fid}", windows.loc[[fid]].reset_index()) for fid in windows.index]
    rows = []
    for scope, part in scopes:
        rows += metric_rows(scope, sink_values(part.set_index("fid"), gaps, end - warmup, blocks_of))
    return rows
