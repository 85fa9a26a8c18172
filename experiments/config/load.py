"""Loading an experiment file: YAML -> schema -> cross-checks -> defaults.

Every problem becomes one ConfigError whose message is a single line naming the file, the key path and what is
allowed. Nothing is written while validating.
"""

from __future__ import annotations

import datetime
import math
import os
from pathlib import Path
from typing import Any

import yaml

from experiments.config import preconditions
from experiments.config.bounds import check_file_size
from experiments.config.choice_checks import _check_choices
from experiments.config.claim_checks import _check_references
from experiments.config.errors import ConfigError
from experiments.config.experiment_checks import _check_experiment, _check_queue_names
from experiments.config.paths import unshared
from experiments.config.schema import validate_schema

RESERVED_COLUMNS = ("paper", "experiment", "seed", "run_key")


# Bounds on what a file's YAML may expand into, checked while it is composed, before anything is built: a few
# aliases of aliases (a "billion laughs" file of a kilobyte) expand to billions of nodes, which every later walk
# (the schema, the checks, the copies) visits; and nesting deeper than Python's recursion limit fails with a stack.
# The shipped files expand to at most tens of thousands of nodes, nested about ten levels deep.
MAX_YAML_NODES = 500_000
MAX_YAML_DEPTH = 50


class YamlTooLarge(yaml.MarkedYAMLError):
    """A file whose YAML expands beyond MAX_YAML_NODES or MAX_YAML_DEPTH, or refers to itself."""


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys (PyYAML silently keeps the last one) and bounds what the document
    expands into (nodes counted with each alias expanded, nesting depth, recursive aliases)."""

    def __init__(self, stream):
        super().__init__(stream)
        self._nodes = 0  # nodes composed so far, each alias counted as the nodes it stands for
        self._heights: list[int] = []  # per open node: the height of its tallest child so far
        self._extent: dict[int, tuple[int, int]] = {}  # id(node) -> (nodes, height) once composed

    def _grow(self, nodes: int, height: int, mark) -> None:
        self._nodes += nodes
        if self._nodes > MAX_YAML_NODES:
            raise YamlTooLarge(
                problem=f"expands to more than {MAX_YAML_NODES:,} values (aliases counted as what they repeat); "
                f"allowed: at most {MAX_YAML_NODES:,}",
                problem_mark=mark,
            )
        if len(self._heights) + height > MAX_YAML_DEPTH:
            raise YamlTooLarge(
                problem=f"nested more than {MAX_YAML_DEPTH} levels deep; allowed: at most {MAX_YAML_DEPTH}",
                problem_mark=mark,
            )
        if self._heights:
            self._heights[-1] = max(self._heights[-1], height)

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            target = self.anchors.get(event.anchor)
            if target is not None:  # an undefined alias is PyYAML's to report
                if id(target) not in self._extent:
                    raise YamlTooLarge(
                        problem=f"alias *{event.anchor} lies inside the block it names (a recursive alias); "
                        "allowed: aliases of complete blocks",
                        problem_mark=event.start_mark,
                    )
                self._grow(*self._extent[id(target)], event.start_mark)
            return super().compose_node(parent, index)
        self._grow(0, 1, self.peek_event().start_mark)  # refuses a level too deep before descending into it
        before = self._nodes
        self._heights.append(0)
        node = super().compose_node(parent, index)
        height = self._heights.pop() + 1
        self._grow(1, height, node.start_mark)
        self._extent[id(node)] = (self._nodes - before, height)
        return node


def _mapping_without_duplicates(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *anchor` may be overridden by explicit keys
            continue
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key '{key}' (first at line {seen[key].start_mark.line + 1})", mark
            )
        seen[key] = key_node
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


# The largest shipped experiment file is about 240 kB; a file 16 times that is a mistake (a trace or a
# generated dump named by accident), refused before it is read.
MAX_FILE_BYTES = 4 * 1024 * 1024


def _read_bounded(path: Path) -> bytes:
    """At most MAX_FILE_BYTES of the file: its size is what is read, not what stat says (a pipe, /dev/zero and
    /proc files have size 0)."""
    with path.open("rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise ConfigError(
                f"{path}: file is {size / 2**20:.1f} MiB; an experiment file may be at most"
                f" {MAX_FILE_BYTES // 2**20} MiB (is it the experiment file?)"
            )
        data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(
            f"{path}: more than {MAX_FILE_BYTES // 2**20} MiB to read; an experiment file may be at most"
            f" {MAX_FILE_BYTES // 2**20} MiB (is it the experiment file?)"
        )
    return data


def read_yaml(path: Path) -> Any:
    try:
        data = _read_bounded(path)
    except OSError as err:
        raise ConfigError(f"{path}: cannot read: {err.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise ConfigError(
            f"{path}:{line}:{column}: not UTF-8 (byte 0x{data[err.start]:02x}); experiment files are UTF-8 text"
        ) from None
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 -- a SafeLoader subclass
    except YamlTooLarge as err:
        mark = err.problem_mark
        raise ConfigError(f"{path}:{mark.line + 1}:{mark.column + 1}: {err.problem}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise ConfigError(f"{path}{where}: malformed YAML: {problem}") from None


def _yaml_kind(value: Any) -> str | None:
    """What a value that JSON cannot hold is, as YAML wrote it (None for a JSON value)."""
    if isinstance(value, datetime.date):  # datetime.datetime too
        return "date or time (YAML reads an unquoted 2024-01-01 so)"
    if isinstance(value, set | frozenset):
        return "set (!!set)"
    if isinstance(value, bytes):
        return "binary value (!!binary)"
    if isinstance(value, tuple):
        return "pair (!!omap or !!pairs)"
    if value is None or isinstance(value, str | int | float | dict | list):
        return None
    return type(value).__name__


def _check_values(value: Any, path: Path, where: str = "") -> None:
    """Every key and value of an experiment file is one JSON holds, and no number is NaN or infinite.

    The schema describes JSON: a YAML date, set, binary or pair list (constructed by any YAML loader) is a type no key
    takes, and left alone it passes where the schema admits any value (`shared`, an alternative's value) and breaks
    what writes params.json or a table later. NaN and infinity: YAML reads `.nan` and `.inf` as numbers that the
    schema's `number` admits, and every comparison with NaN is false, so a NaN factor, tolerance or duration would
    pass checks and verdicts silently; a knob value given as the text "nan" would reach ns-2. No key takes one."""
    at = where or "(top level)"
    kind = _yaml_kind(value)
    if kind is not None:
        shown = str(value) if isinstance(value, datetime.date) else repr(value)
        raise ConfigError(
            f"{path}: {at}: {shown} is a YAML {kind}; allowed: text, numbers, true/false, null, lists and mappings"
            " (quote it to mean text)"
        )
    if isinstance(value, float) and not math.isfinite(value) or isinstance(value, str) and _non_finite_text(value):
        raise ConfigError(f"{path}: {at}: {value!r} is not a finite number; allowed: a finite number")
    if isinstance(value, dict):
        for key, item in value.items():
            inner = f"{where}.{key}" if where else str(key)
            if _yaml_kind(key) is not None:
                raise ConfigError(
                    f"{path}: {inner}: the key {key!s} is a YAML {_yaml_kind(key)}; allowed: a text key (quote it)"
                )
            _check_values(item, path, inner)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_values(item, path, f"{where}[{index}]")


def _non_finite_text(text: str) -> bool:
    """A string that reads as NaN or infinity ("nan", "-Infinity"): as a knob value it would reach ns-2, whose
    TclCL reads a number with strtod."""
    try:
        return not math.isfinite(float(text))
    except ValueError:
        return False


# The experiment fields that change what the aggregate stage computes from the same runs (not the runs).
ANALYSIS_KEYS = ("queue_thresholds", "queue_ranges", "settle", "fec_blocks", "series")


def analysis_settings(experiment: dict) -> dict:
    """The experiment's analysis settings that are set (an unset one keeps its default, and its identity)."""
    return {key: experiment[key] for key in ANALYSIS_KEYS if key in experiment}


def with_defaults(doc: dict) -> dict:
    """A copy with every schema default filled in (the values the runs will use)."""
    doc = unshared(doc)
    for exp in doc["experiments"].values():
        exp.setdefault("warmup", 0)
        exp["seeds"].setdefault("first", 1)
        exp.setdefault("matrix", {})
        exp["matrix"].setdefault("product", {})
        exp["matrix"].setdefault("zip", [])
        scenario = exp["scenario"]
        if scenario["topology"]["kind"] == "wireless":
            scenario["topology"].setdefault("routing", "AODV")
            scenario["topology"].setdefault("mac", {"class": "Mac/802_11"})
            scenario["topology"].setdefault("radio_range", 250)
        else:
            scenario["topology"].setdefault("core_nodes", 2)
        scenario.setdefault("monitors", {}).setdefault("queue_sample_interval", 0.1)
        scenario["monitors"].setdefault("packet_trace", True)
        for group in scenario["flows"].values():
            group.setdefault("count", 1)
            group.setdefault("start", 0)
    for section in ("queues",):
        doc.setdefault(section, {})
    for section in ("figures", "tables", "claims", "choices", "interactions"):
        doc.setdefault(section, [])
    for claim in doc["claims"]:
        claim.setdefault("class", "reproduction")
        claim.setdefault("combine", "all")
    return doc


def load(path: str | Path) -> dict:
    """The validated experiment file with defaults applied; ConfigError on any problem."""
    path = Path(path)
    doc = read_yaml(path)
    if doc is None:
        raise ConfigError(f"{path}: empty file; an experiment file needs at least 'paper' and 'experiments'")
    _check_values(doc, path)
    validate_schema(doc, path)
    preconditions.expand(doc, path)  # its claims are checked below as written ones
    _check_queue_names(doc, path)
    for name, exp in doc["experiments"].items():
        _check_experiment(name, exp, path, doc.get("queues", {}))
    check_file_size(doc, path)  # before anything builds a cell
    _check_references(doc, path)
    _check_choices(doc, path)
    return with_defaults(doc)
