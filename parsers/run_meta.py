"""The links of a run (meta.json, DESIGN.md section 3) as lookup arrays for vectorised trace filtering."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

ROLES = ("core", "entry", "exit")
_NODE_SPACE = 1 << 32  # link key = from * 2**32 + to


@dataclass(frozen=True)
class Link:
    name: str
    src: int
    dst: int
    role: str
    fid: int | None = None  # the flow of an entry or exit link


def _node(entry: dict, key: str, where: str) -> int:
    value = entry[key]
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise ValueError(f"{where}: {key!r} is not a node id: {value!r}")
    return int(value)


def _link(entry: dict, where: str) -> Link:
    """One entry of meta.json's `links`; `where` names it in errors (file, index and, once known, name)."""
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: not an object: {entry!r}")
    where = f"{where} ({entry.get('name', '?')})"
    missing = [key for key in ("name", "from", "to", "role") if key not in entry]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(map(repr, missing))}")
    if entry["role"] not in ROLES:
        raise ValueError(f"{where}: unknown link role {entry['role']!r}; known: {list(ROLES)}")
    fid = entry.get("fid")
    if fid is not None and (isinstance(fid, bool) or not isinstance(fid, int)):
        raise ValueError(f"{where}: 'fid' is not a flow id: {fid!r}")
    return Link(str(entry["name"]), _node(entry, "from", where), _node(entry, "to", where), entry["role"], fid)


class LinkTable:
    """Maps a trace row's (from, to) to the index of a named link, its role and its flow."""

    def __init__(self, links: list[Link]):
        unknown = {link.role for link in links} - set(ROLES)
        if unknown:
            raise ValueError(f"meta.json: unknown link role(s) {sorted(unknown)}; known: {list(ROLES)}")
        keys = [link.src * _NODE_SPACE + link.dst for link in links]
        if len(set(keys)) != len(keys):
            raise ValueError("meta.json: two links share the same (from, to) nodes")
        self.links = links
        self.keys = pa.array(keys, pa.int64())
        self.names = pa.array([link.name for link in links], pa.string())
        self.roles = pa.array([ROLES.index(link.role) for link in links], pa.int8())
        self.fids = pa.array([link.fid for link in links], pa.int32())

    @classmethod
    def from_meta(cls, meta_path: str | Path) -> LinkTable:
        """The links of a meta.json; a malformed one is an error naming the file and the link."""
        try:
            meta = json.loads(Path(meta_path).read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{meta_path}: not valid JSON: {exc}") from exc
        if not isinstance(meta, dict) or not isinstance(meta.get("links"), list):
            raise ValueError(f"{meta_path}: no 'links' list (DESIGN.md section 3)")
        return cls([_link(entry, f"{meta_path}: links[{i}]") for i, entry in enumerate(meta["links"])])

    def index(self, src: pa.Array, dst: pa.Array) -> pa.Array:
        """Index of each (src, dst) pair among the links (int32), null where it is no named link."""
        key = pc.add(pc.multiply(src.cast(pa.int64()), _NODE_SPACE), dst.cast(pa.int64()))
        return pc.index_in(key, value_set=self.keys)

    def role_is(self, link_index: pa.Array, role: str) -> pa.Array:
        """Boolean mask (null where no named link) of the rows whose link has `role`."""
        return pc.equal(self.roles.take(link_index), ROLES.index(role))

    def name_of(self, link_index: pa.Array) -> pa.Array:
        return self.names.take(link_index)

    def flow_of(self, link_index: pa.Array) -> pa.Array:
        return self.fids.take(link_index)
