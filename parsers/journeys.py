"""Per-packet end-to-end journeys: `+` on the flow's entry link to `r` on its exit link, matched by uid."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from parsers.link_events import LinkEvents
from parsers.run_meta import LinkTable
from parsers.tables import SCHEMAS


def require_unique(table: pa.Table, keys: list[str], what: str) -> None:
    """ns-2 gives every packet its own uid; a repeated key would make the joins ambiguous."""
    if table.num_rows and table.group_by(keys).aggregate([]).num_rows != table.num_rows:
        raise ValueError(f"packets.tr: a packet uid occurs twice in {what}; ns-2 uids are unique, is the trace mixed?")


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


def build_journeys(events: LinkEvents, links: LinkTable) -> pa.Table:
    """One row per packet enqueued on an entry link (DESIGN.md section 6, `journeys`), sorted by entry time, uid."""
    enters, exits, drops = events.enters, events.exits, events.drops
    require_unique(enters, ["uid"], "`+` events on entry links")
    require_unique(exits, ["uid"], "`r` events on exit links")
    require_unique(drops, ["uid"], "`d` events")
    enters = enters.rename_columns({"time": "t_enter"}).append_column("flow", links.flow_of(enters["link"]))
    exits = pa.table({"uid": exits["uid"], "flow": links.flow_of(exits["link"]), "t_exit": exits["time"],
                      "marked": ce_marked(exits["flags"])})  # fmt: skip
    drops = pa.table({"uid": drops["uid"], "drop_time": drops["time"], "drop_link": drop_link_names(drops, links)})
    table = (
        enters.drop_columns(["link"])
        .join(exits, keys=["uid", "flow"], join_type="left outer")
        .join(drops, keys="uid", join_type="left outer")
    )
    table = table.append_column("delay", pc.subtract(table["t_exit"], table["t_enter"]))
    table = table.append_column("dropped", pc.is_valid(table["drop_time"]))
    table = table.set_column(table.schema.get_field_index("marked"), "marked", pc.fill_null(table["marked"], False))
    return table.sort_by([("t_enter", "ascending"), ("uid", "ascending")]).select(SCHEMAS["journeys"].names)
