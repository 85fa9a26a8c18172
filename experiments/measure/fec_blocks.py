"""Block FEC over a UDP flow's received sequence numbers (Alemu's thesis, Ch. 5), measured after the run.

The source sends blocks of n = k + h packets (k data, then h redundancy); a block is repaired when at most h of
its n packets are lost (§5.2). Which packets are data and which redundancy changes nothing in the network: the
source's rate already includes the redundancy (Eq. 5.1), and the sink does not answer. So a run needs only the
flow's sequence of losses, from stock ns-2's Agent/LossMonitor (sinks.tsv, sink_gaps.tsv: tcl/lib/monitors.tcl),
and any (k, h) is counted here from the same run.

UDP agents number their packets 0, 1, 2, ...; block j holds sequence numbers [j n, (j + 1) n). A packet's fate
is known up to the sink's last `expected` (one past the highest received): anything above may still be in
flight, so only blocks that end by then count.

"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Blocks:
    """Per counted block of one flow: losses in all n packets, and in its k data packets."""

    lost: np.ndarray
    lost_data: np.ndarray

    @classmethod
    def concat(cls, parts: list[Blocks]) -> Blocks:
        empty = np.zeros(0, dtype=np.int64)
        return cls(
            np.concatenate([p.lost for p in parts] or [empty]), np.concatenate([p.lost_data for p in parts] or [empty])
        )


def lost_seqnos(gaps: pd.DataFrame) -> np.ndarray:
    """The sequence numbers in one flow's gaps (rows first, count), sorted."""
    if gaps.empty:
        return np.zeros(0, dtype=np.int64)
    first = gaps["first"].to_numpy(np.int64)
    count = gaps["count"].to_numpy(np.int64)
    return np.sort(np.repeat(first - np.cumsum(np.r_[0, count[:-1]]), count) + np.arange(count.sum()))


def blocks(lost: np.ndarray, begin: int, end: int, k: int, h: int) -> Blocks:
    """The blocks of n = k + h that lie within sequence numbers [begin, end), with their losses."""
    n = k + h
    first_block, last_block = -(-begin // n), end // n  # blocks first_block .. last_block - 1
    if last_block <= first_block:
        return Blocks(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    lost = lost[(lost >= first_block * n) & (lost < last_block * n)]
    index = lost // n - first_block
    count = last_block - first_block
    return Blocks(
        np.bincount(index, minlength=count).astype(np.int64),
        np.bincount(index[lost % n < k], minlength=count).astype(np.int64),
    )


def fec_values(b: Blocks, k: int, h: int) -> dict[str, float]:
    """PLRBC, PLR and PLR of data packets (%) over counted blocks, and how many were counted (§5.3.2):

    - plrbc: mean lost packets per block / n (before correction);
    - plr: mean lost packets per block after correction / n, a repaired block (at most h lost) counting none and
      an unrepaired one all it lost, data and redundancy (the thesis's definition read literally);
    - plr_data: the same counting only the lost data packets, over k (what the application misses).
    """
    n = k + h
    if not len(b.lost):
        return {"plrbc": np.nan, "plr": np.nan, "plr_data": np.nan, "blocks": 0.0}
    failed = b.lost > h
    return {
        "plrbc": b.lost.mean() / n * 100,
        "plr": np.where(failed, b.lost, 0).mean() / n * 100,
        "plr_data": np.where(failed, b.lost_data, 0).mean() / k * 100,
        "blocks": float(len(b.lost)),
    }
