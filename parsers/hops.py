"""Per-hop queueing on core links: `+` to `-` of the same packet (uid) on the same link; `d` marks it dropped."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from parsers.journeys import require_unique
from parsers.link_events import LinkEvents
from parsers.run_meta import LinkTable
from parsers.tables import SCHEMAS


def build_hops(events: LinkEvents, links: LinkTable) -> pa.Table:
    """One row per packet enqueued on a core link (DESIGN.md section 6, `hops`), sorted by time, link, uid."""
    enqueues, dequeues = events.core_enqueues, events.core_dequeues
    drops = events.drops.filter(links.role_is(events.drops["link"], "core"))
    require_unique(enqueues, ["link", "uid"], "`+` events of one core link")
    require_unique(dequeues, ["link", "uid"], "`-` events of one core link")
    require_unique(drops, ["link", "uid"], "`d` events of one core link")
    enqueues = enqueues.rename_columns({"time": "t_enqueue"})
    dequeues = dequeues.rename_columns({"time": "t_dequeue"})
    drops = pa.table({"link": drops["link"], "uid": drops["uid"], "dropped": pa.repeat(True, drops.num_rows)})
    table = enqueues.join(dequeues, keys=["link", "uid"], join_type="left outer").join(
        drops, keys=["link", "uid"], join_type="left outer"
    )
    table = table.set_column(table.schema.get_field_index("dropped"), "dropped", pc.fill_null(table["dropped"], False))
    table = table.append_column("queue_delay", pc.subtract(table["t_dequeue"], table["t_enqueue"]))
    table = table.sort_by([("t_enqueue", "ascending"), ("link", "ascending"), ("uid", "ascending")])
    table = table.set_column(table.schema.get_field_index("link"), "link", links.name_of(table["link"]))
    return table.select(SCHEMAS["hops"].names)
