"""Loading an experiment file: YAML -> schema -> cross-checks -> defaults.

Every problem becomes one ConfigError whose message is a single line naming the file, the key path and what is
allowed. Nothing is written while validating.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from experiments.config.choice_checks import _check_choices
from experiments.config.claim_checks import _check_references
from experiments.config.errors import ConfigError
from experiments.config.experiment_checks import _check_experiment, _check_queue_names
from experiments.config.paths import unshared
from experiments.config.schema import validate_schema

RESERVED_COLUMNS = ("paper", "experiment", "seed", "run_key")


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys (PyYAML silently keeps the last one)."""


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


def read_yaml(path: Path) -> Any:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ConfigError(
                f"{path}: file is {size / 2**20:.1f} MiB; an experiment file may be at most"
                f" {MAX_FILE_BYTES // 2**20} MiB (is it the experiment file?)"
            )
        data = path.read_bytes()
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
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise ConfigError(f"{path}{where}: malformed YAML: {problem}") from None


def _check_finite(value: Any, path: Path, where: str = "") -> None:
    """No NaN or infinity anywhere in an experiment file: YAML reads `.nan` and `.inf` as numbers that the schema's
    `number` admits, and every comparison with NaN is false, so a NaN factor, tolerance or duration would pass checks
    and verdicts silently; a knob value given as the text "nan" would reach ns-2. No key of the schema takes one."""
    if isinstance(value, float) and not math.isfinite(value) or isinstance(value, str) and _non_finite_text(value):
        raise ConfigError(f"{path}: {where or '(top)'}: {value!r} is not a finite number; allowed: a finite number")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, path, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_finite(item, path, f"{where}[{index}]")


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
    _check_finite(doc, path)
    validate_schema(doc, path)
    _check_queue_names(doc, path)
    for name, exp in doc["experiments"].items():
        _check_experiment(name, exp, path, doc.get("queues", {}))
    _check_references(doc, path)
    _check_choices(doc, path)
    return with_defaults(doc)
