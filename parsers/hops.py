"""Per-hop queueing on core links: `+` to `-` of the same packet (uid) on the same link; `d` marks it dropped."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from parsers.link_events import LinkEvents
from parsers.packet_keys import lookup, packet_keys, require_unique, take_rows
from parsers.run_meta import LinkTable
from parsers.tables import SCHEMAS


def build_hops(events: LinkEvents, links: LinkTable) -> pa.Table:
    """One row per packet enqueued on a core link (DESIGN.md section 6, `hops`), sorted by time, link, uid."""
    enqueues, dequeues = events.core_enqueues, events.core_dequeues
    drops = events.drops.filter(links.role_is(events.drops["link"], "core"))
    key, dequeue_key, drop_key = (packet_keys(part["uid"], part["link"]) for part in (enqueues, dequeues, drops))
    require_unique(key, "`+` events of one core link")
    require_unique(dequeue_key, "`-` events of one core link")
    require_unique(drop_key, "`d` events of one core link")
    order = np.lexsort((enqueues["uid"].to_numpy(), enqueues["link"].to_numpy(), enqueues["time"].to_numpy()))
    enqueues, key = enqueues.take(order), key[order]
    t_dequeue = take_rows(dequeues["time"], lookup(key, dequeue_key))
    return pa.table(
        {
            "link": links.name_of(enqueues["link"]),
            "fid": enqueues["fid"],
            "uid": enqueues["uid"],
            "size": enqueues["size"],
            "t_enqueue": enqueues["time"],
            "t_dequeue": t_dequeue,
            "queue_delay": pc.subtract(t_dequeue, enqueues["time"]),
            "dropped": pa.array(lookup(key, drop_key) >= 0),
        }
    ).cast(SCHEMAS["hops"])
