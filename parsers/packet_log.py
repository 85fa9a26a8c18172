"""packets.log (ns2-patches/0019, DESIGN.md section 4): the packet events the metrics read, as binary records.

The driver puts a PacketLog where ns-2's trace-queue puts each Trace object, but only for the events journeys and
hops are built from (parsers/link_events.py's parts): enqueues on entry and core links, dequeues on core links,
receives on exit links, drops on every link. A record holds what that event's trace line would hold, its time
rounded to the microsecond as the trace prints it, so the tables built from it are the text trace's (a test
compares them on a real run). The file: `NS2PLOG1`, a little-endian uint32 n, n bytes of the packet type names in
code order separated by spaces, then 40-byte records (RECORD). There is no line to cut: a file whose records do
not fill it exactly was cut short (ns killed while writing) and is an error for the whole run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from parsers.lines import MalformedFile
from parsers.link_events import PARTS, LinkEvents, part_schema
from parsers.run_meta import ROLES, LinkTable

MAGIC = b"NS2PLOG1"
RECORD = np.dtype(
    [
        ("time", "<f8"),
        ("uid", "<i8"),
        ("seq", "<i4"),
        ("fid", "<i4"),
        ("size", "<i4"),
        ("link", "<i2"),
        ("event", "u1"),
        ("ptype", "u1"),
        ("flags", "u1"),
        ("pad", "V7"),
    ]
)
# Trace::format's seven flag characters, flag i when bit i is set (bit 2 is always '-').
_FLAG_CHARS = ("C", "P", "-", "A", "E", "F", "N")
_FLAG_TEXT = pa.array(
    ["".join(c if code >> i & 1 else "-" for i, c in enumerate(_FLAG_CHARS)) for code in range(128)], pa.string()
)
# Which events of which link role each part of LinkEvents holds (the PacketLogs the driver installs).
_PART_EVENTS = {
    "enters": (b"+", "entry"),
    "exits": (b"r", "exit"),
    "drops": (b"d", None),
    "core_enqueues": (b"+", "core"),
    "core_dequeues": (b"-", "core"),
}


def read_packet_log(path: str | Path) -> tuple[np.ndarray, list[str]]:
    """The records of a packets.log and its packet type names; an error naming the file if it is not one."""
    path = Path(path)
    with open(path, "rb") as f:
        magic = f.read(len(MAGIC))
        length = f.read(4)
        if magic != MAGIC or len(length) != 4:
            raise MalformedFile(f"{path}: not a packet log (no {MAGIC.decode()} header)")
        names = f.read(int.from_bytes(length, "little"))
        start = f.tell()
        size = f.seek(0, 2)
        if (size - start) % RECORD.itemsize:
            raise MalformedFile(
                f"{path}: the last record is cut short ({(size - start) % RECORD.itemsize} of "
                f"{RECORD.itemsize} bytes): ns was killed while writing, or the disk filled up"
            )
    # mapped, not read: the parts take a few fields of some records, and a copy of the whole file would cost
    # more than that (a run's log is tens of MB, each page of a fresh copy faulted in and zeroed)
    records = np.memmap(path, RECORD, "r", offset=start) if size > start else np.empty(0, RECORD)
    return records, names.decode().split(" ")


def packet_log_events(path: str | Path, links: LinkTable) -> LinkEvents:
    """The LinkEvents of a packets.log: the tables the text trace's collectors would have gathered."""
    records, ptypes = read_packet_log(path)
    link_of, event = np.array(records["link"]), np.array(records["event"])  # contiguous: each mask reads them
    if len(records) and (link_of.min() < 0 or link_of.max() >= len(links.links)):
        raise MalformedFile(f"{path}: a record names link {link_of.max()}; meta.json has {len(links.links)}")
    if len(records) and records["ptype"].max() >= len(ptypes):
        raise MalformedFile(f"{path}: a record's packet type {records['ptype'].max()} has no name in its header")
    roles = links.roles.to_numpy(zero_copy_only=False)[link_of]
    nodes = {
        "from": np.array([link.src for link in links.links], np.int32),
        "to": np.array([link.dst for link in links.links], np.int32),
    }
    names = pa.array(ptypes, pa.string())
    columns = {  # each built only for the parts that hold it, from that field of their records alone
        "uid": lambda rows: pa.array(records["uid"][rows]),
        "fid": lambda rows: pa.array(records["fid"][rows]),
        "seq": lambda rows: pa.array(records["seq"][rows].astype(np.int64)),
        "ptype": lambda rows: names.take(pa.array(records["ptype"][rows])),
        "size": lambda rows: pa.array(records["size"][rows]),
        "time": lambda rows: pa.array(records["time"][rows]),
        "flags": lambda rows: _FLAG_TEXT.take(pa.array(records["flags"][rows] & 127)),
        "link": lambda rows: pa.array(link_of[rows].astype(np.int32)),
        "from": lambda rows: pa.array(nodes["from"][link_of[rows]]),
        "to": lambda rows: pa.array(nodes["to"][link_of[rows]]),
    }
    parts = {}
    for part, (code, role) in _PART_EVENTS.items():
        mask = event == code[0]
        if role is not None:
            mask &= roles == ROLES.index(role)
        rows = np.flatnonzero(mask)
        names_of_part = PARTS[part]
        parts[part] = pa.table([columns[n](rows) for n in names_of_part], schema=part_schema(names_of_part))
    return LinkEvents(**parts)
