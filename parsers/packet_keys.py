"""Matching a packet's events by key (its uid, or its link and uid) with sorted numpy arrays.

journeys and hops pair each packet's first event with its later ones. A hash join of pyarrow tables did this
before, with a group-by per table to check that no key repeats; for the few hundred thousand rows of a run both
cost more than the metrics that read the result. A key here is one int64 per row, so one sort serves the check
and the lookup.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

# ns-2's Packet::uid_ is a C int; a link index is a small int (meta.json's links): link << 32 | (uid + 2**31).
_UID_RANGE = (-(2**31), 2**31)


def packet_keys(uid: pa.ChunkedArray | pa.Array, link: pa.ChunkedArray | pa.Array | None = None) -> np.ndarray:
    """One int64 per row: the uid, or the (link, uid) pair packed into one number."""
    uids = np.asarray(uid.to_numpy(), dtype=np.int64)
    if link is None:
        return uids
    if uids.size and (uids.min() < _UID_RANGE[0] or uids.max() >= _UID_RANGE[1]):
        raise ValueError(f"a packet uid outside ns-2's int range {_UID_RANGE}: is this an ns-2 trace?")
    links = np.asarray(link.to_numpy(), dtype=np.int64)
    return (links << 32) | (uids - _UID_RANGE[0])


def require_unique(keys: np.ndarray, what: str) -> None:
    """ns-2 gives every packet its own uid; a repeated key would make the pairing ambiguous."""
    ordered = np.sort(keys)
    if np.any(ordered[1:] == ordered[:-1]):
        raise ValueError(f"packets.tr: a packet uid occurs twice in {what}; ns-2 uids are unique, is the trace mixed?")


def lookup(keys: np.ndarray, table_keys: np.ndarray) -> np.ndarray:
    """For each key, the row of `table_keys` (unique) holding it, or -1 where none does."""
    if not table_keys.size:
        return np.full(keys.shape, -1, dtype=np.int64)
    order = np.argsort(table_keys, kind="stable")
    found = np.minimum(np.searchsorted(table_keys[order], keys), table_keys.size - 1)
    return np.where(table_keys[order][found] == keys, order[found], -1)


def take_rows(column: pa.ChunkedArray | pa.Array, rows: np.ndarray) -> pa.Array:
    """column[rows], null where a row is -1 (a left outer join's unmatched rows)."""
    return column.take(pa.array(rows, mask=rows < 0))
