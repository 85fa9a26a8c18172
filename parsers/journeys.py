"""Per-packet end-to-end journeys: `+` on the flow's entry link to `r` on its exit link, matched by uid."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from parsers.link_events import LinkEvents
from parsers.packet_keys import lookup, packet_keys, require_unique, take_rows
from parsers.run_meta import LinkTable
from parsers.tables import SCHEMAS


def drop_link_names(drops: pa.Table, links: LinkTable) -> pa.Array:
    """The meta.json name of the link of each drop, or `<from>-><to>` for a link it does not name."""
    unnamed = pc.binary_join_element_wise(drops["from"].cast(pa.string()), drops["to"].cast(pa.string()), "->")
    return pc.coalesce(links.name_of(drops["link"]), unnamed)


# ns-2's trace.cc writes 7 flag characters; the fifth is `E` when the packet carries Congestion Experienced
# (hdr_flags::ecn_to_echo_, set by a marking RED or PI queue).
_CE_FLAG = 4


def ce_marked(flags: pa.ChunkedArray) -> pa.ChunkedArray:
    """Whether each trace line's flags carry the CE mark."""
    return pc.equal(pc.utf8_slice_codeunits(flags, _CE_FLAG, _CE_FLAG + 1), "E")


def _flows(links: LinkTable, link: pa.ChunkedArray) -> np.ndarray:
    """The flow of each row's link as floats, NaN where the link has none (so that it matches nothing)."""
    return np.asarray(links.flow_of(link).to_numpy(zero_copy_only=False), dtype=float)


def build_journeys(events: LinkEvents, links: LinkTable) -> pa.Table:
    """One row per packet enqueued on an entry link (DESIGN.md section 6, `journeys`), sorted by entry time, uid.

    Its exit is the `r` of the same uid on an exit link of the same flow; its drop, the `d` of the same uid."""
    enters, exits, drops = events.enters, events.exits, events.drops
    uid, exit_uid, drop_uid = (packet_keys(part["uid"]) for part in (enters, exits, drops))
    require_unique(uid, "`+` events on entry links")
    require_unique(exit_uid, "`r` events on exit links")
    require_unique(drop_uid, "`d` events")
    exit_row = lookup(uid, exit_uid)
    matched = exit_row >= 0
    matched[matched] = _flows(links, enters["link"])[matched] == _flows(links, exits["link"])[exit_row[matched]]
    exit_row = np.where(matched, exit_row, -1)
    drop_row = lookup(uid, drop_uid)
    order = np.lexsort((uid, enters["time"].to_numpy()))
    enters, exit_row, drop_row = enters.take(order), exit_row[order], drop_row[order]
    t_exit = take_rows(exits["time"], exit_row)
    return pa.table(
        {
            "fid": enters["fid"],
            "uid": enters["uid"],
            "seq": enters["seq"],
            "ptype": enters["ptype"],
            "size": enters["size"],
            "t_enter": enters["time"],
            "t_exit": t_exit,
            "delay": pc.subtract(t_exit, enters["time"]),
            "dropped": pa.array(drop_row >= 0),
            "drop_time": take_rows(drops["time"], drop_row),
            "drop_link": take_rows(drop_link_names(drops, links), drop_row),
            "marked": pc.fill_null(take_rows(ce_marked(exits["flags"]), exit_row), False),
        }
    ).cast(SCHEMAS["journeys"])
