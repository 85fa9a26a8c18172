"""drops.tr (DESIGN.md section 4.1): the CMU drop lines of a wireless run's nodes, one row per dropped packet.

With agent, router, MAC and movement tracing off, ns-2's wireless trace channel carries only the lines of the
nodes' drop targets, in the old CMU format:

    D 12.345678901 _7_ IFQ  --- 1234 tcp 1060 [...] ------- [7:0 3:0 32 3] [45 0] 0 0
    D 0.417809511 _3_ RTR  CBK 26 ack 40 [...] ------- [3:0 0:0 30 2] [11 0] 0 0

event, time, node (_n_), layer (IFQ, RTR, MAC, ...), reason (an interface queue's overflow "---", ARP's
buffer ARP, no route NRTE, link-layer failure CBK, TTL, ...), uid, packet type and size are read; the bracketed
MAC and IP fields are not. The node movement lines ns-2 logs when a `setdest` starts (`M time node (x, y, z),
(dest), speed`) are skipped. The file is read line by line (a few thousand lines per run), never held whole.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from parsers.lines import MalformedFile, require_complete
from parsers.tables import SCHEMAS

_FIELDS = 8  # D time _node_ layer reason uid ptype size


def read_wireless_drops(path: str | Path) -> pa.Table:
    """The drop lines as a typed table (SCHEMAS['wireless_drops'])."""
    require_complete(path)
    columns: dict[str, list] = {name: [] for name in SCHEMAS["wireless_drops"].names}
    with open(path, encoding="ascii", errors="replace") as f:
        for number, line in enumerate(f, start=1):
            fields = line.split()
            if fields[:1] == ["M"]:  # a node's position, logged when a setdest starts: not a drop
                continue
            try:
                if len(fields) < _FIELDS or fields[0] != "D" or not fields[2].startswith("_"):
                    raise ValueError("not a CMU drop line (D time _node_ layer reason uid type size ...)")
                row = (float(fields[1]), int(fields[2].strip("_")), fields[3], fields[4], int(fields[5]), fields[6],
                       int(fields[7]))  # fmt: skip
            except ValueError as exc:
                raise MalformedFile(f"{path}: line {number}: {exc}: {line.rstrip()[:120]!r}") from None
            for name, value in zip(columns, row, strict=True):
                columns[name].append(value)
    return pa.Table.from_pydict(columns, schema=SCHEMAS["wireless_drops"])
