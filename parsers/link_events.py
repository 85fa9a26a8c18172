"""Collects, batch by batch, the few trace rows journeys and hops are built from.

Kept per row (a handful of numbers): `+` on entry links, `r` on exit links, every `d`, and `+` / `-` on core
links. Memory grows with the number of packets, never with the rest of the trace (acks, other links, `-`/`r`
elsewhere).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from parsers.ns2_trace import TRACE_SCHEMA
from parsers.run_meta import LinkTable

_LINK = pa.field("link", pa.int32())  # index into LinkTable, null for a link meta.json does not name
PARTS = {
    "enters": ["uid", "fid", "seq", "ptype", "size", "time", "link"],  # `+` on an entry link
    "exits": ["uid", "time", "flags", "link"],  # `r` on an exit link (flags: the CE mark)
    "drops": ["uid", "time", "from", "to", "link"],  # `d` on any link
    "core_enqueues": ["uid", "fid", "size", "time", "link"],  # `+` on a core link
    "core_dequeues": ["uid", "time", "link"],  # `-` on a core link
}


def part_schema(names: list[str]) -> pa.Schema:
    return pa.schema([_LINK if n == "link" else TRACE_SCHEMA.field(n) for n in names])


@dataclass
class LinkEvents:
    enters: pa.Table
    exits: pa.Table
    drops: pa.Table
    core_enqueues: pa.Table
    core_dequeues: pa.Table

    @classmethod
    def combine(cls, collectors: Iterable[LinkEventCollector]) -> LinkEvents:
        collectors = list(collectors)
        return cls(
            **{
                part: pa.Table.from_batches([b for c in collectors for b in c.parts[part]], schema=part_schema(names))
                for part, names in PARTS.items()
            }
        )


class LinkEventCollector:
    columns = ("event", "time", "from", "to", "ptype", "size", "flags", "fid", "seq", "uid")

    def __init__(self, links: LinkTable):
        self.links = links
        self.parts: dict[str, list[pa.RecordBatch]] = {part: [] for part in PARTS}

    def add(self, batch: pa.RecordBatch) -> None:
        link = self.links.index(batch["from"], batch["to"])
        batch = batch.append_column(_LINK, link)
        event = batch["event"]
        entry, exit_, core = (self.links.role_is(link, role) for role in ("entry", "exit", "core"))
        enqueue, dequeue, receive, drop = (pc.equal(event, e) for e in (b"+", b"-", b"r", b"d"))
        masks = {
            "enters": pc.and_(enqueue, entry),
            "exits": pc.and_(receive, exit_),
            "drops": drop,
            "core_enqueues": pc.and_(enqueue, core),
            "core_dequeues": pc.and_(dequeue, core),
        }
        for part, mask in masks.items():
            rows = batch.filter(mask).select(PARTS[part])  # null mask entries (unnamed links) drop the row
            if rows.num_rows:
                self.parts[part].append(rows)
