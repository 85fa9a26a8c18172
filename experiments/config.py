"""Loading and validating experiment files: YAML -> schema -> cross-checks -> defaults.

Every problem becomes one ConfigError whose message is a single line naming the file,
the key path and what is allowed. Nothing is written while validating.
"""

from __future__ import annotations

import difflib
import itertools
import json
import math
import numbers
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from experiments.units import seconds

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "configs" / "experiment.schema.json"
RESERVED_COLUMNS = ("paper", "experiment", "seed", "run_key")


class ConfigError(Exception):
    """A bad experiment file; str() is the one line shown to the user."""


@cache
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


# --- YAML --------------------------------------------------------------------


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


# --- schema ------------------------------------------------------------------


def key_path(parts) -> str:
    """experiments.exp1.seeds.count / claims[3].expected"""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _subschema_properties(error: jsonschema.ValidationError) -> list[str]:
    return sorted(error.schema.get("properties", {}))


def describe_error(error: jsonschema.ValidationError) -> str:
    """The message part of one schema error, with what is allowed."""
    where = key_path(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = _subschema_properties(error)
        extras = sorted(set(error.instance) - set(allowed))
        if allowed and extras:
            key = extras[0]
            near = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
            hint = f"did you mean '{near[0]}'? " if near else ""
            return f"{key_path([*error.absolute_path, key])}: unknown key '{key}'; {hint}allowed: {', '.join(allowed)}"
    if error.validator == "required":
        return f"{where}: {error.message}"
    if error.validator == "enum":
        allowed = ", ".join(map(str, error.validator_value))
        return f"{where}: {error.instance!r} is not allowed; allowed: {allowed}"
    if "propertyNames" in error.schema_path:
        return f"{where}: invalid name {error.instance!r}; names must match {error.validator_value}"
    if error.validator == "pattern":
        return f"{where}: {error.instance!r} does not match the required form {error.validator_value}"
    if error.validator == "type":
        return f"{where}: {error.instance!r} has the wrong type; expected {error.validator_value}"
    return f"{where}: {error.message}"


def _best_error(errors: list[jsonschema.ValidationError]) -> jsonschema.ValidationError:
    """The deepest, most specific error (oneOf/anyOf are opened up to their causes)."""
    return jsonschema.exceptions.best_match(errors)


def validate_schema(doc: Any, path: Path) -> None:
    validator = jsonschema.Draft202012Validator(schema())
    errors = list(validator.iter_errors(doc))
    if errors:
        raise ConfigError(f"{path}: {describe_error(_best_error(errors))}")


# --- cross-checks the schema cannot express ----------------------------------


def get_path(tree: dict, dotted: str) -> Any:
    """The value at a dotted path; a numeric part indexes a list (topology.core_links.0.bandwidth)."""
    node: Any = tree
    for part in dotted.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(part)
    return node


# Optional mappings a path may create where a file leaves them out: an ns object's knobs, a scenario's monitors and
# their core_log, a flow group's http model.
CREATABLE = ("knobs", "monitors", "core_log", "http")


def existing_parent(dotted: str) -> str:
    """The part of a path's parent that must exist: the parent without trailing optional mappings."""
    parent = dotted.rpartition(".")[0]
    while parent.rpartition(".")[2] in CREATABLE:
        parent = parent.rpartition(".")[0]
    return parent


def axes_of(experiment: dict) -> dict[str, dict]:
    """All axes of an experiment by name, product and zipped."""
    matrix = experiment.get("matrix", {})
    axes = dict(matrix.get("product", {}))
    for group in matrix.get("zip", []):
        axes.update(group)
    return axes


# Subsets of an axis' levels that a profile runs instead of all of them (experiments.workflow.load): the default
# profile its default_levels (the paper profile every level), the smoke profile its smoke_levels.
SUBSET_KEYS = ("default_levels", "smoke_levels")


def check_level_subsets(axis: dict, where: str, path: str) -> None:
    """Each subset names levels of the axis; smoke_levels lie within default_levels, as the smoke profile cuts the
    default profile's grid further."""
    labels = [label_text(label) for label in level_labels(axis)]
    for key in SUBSET_KEYS:
        unknown = [str(x) for x in axis.get(key, []) if label_text(x) not in labels]
        if unknown:
            raise ConfigError(
                f"{path}: {where}.{key}: no level {', '.join(unknown)}; allowed: the axis' levels ({', '.join(labels)})"
            )
    if "default_levels" in axis:
        within = [label_text(x) for x in axis["default_levels"]]
        outside = [str(x) for x in axis.get("smoke_levels", []) if label_text(x) not in within]
        if outside:
            raise ConfigError(
                f"{path}: {where}.smoke_levels: level {', '.join(outside)} is not in default_levels; allowed: "
                f"levels of default_levels ({', '.join(within)})"
            )


def level_labels(axis: dict) -> list:
    levels = axis["levels"]
    return list(levels) if isinstance(levels, dict) else list(levels)


# A number as YAML or a results table writes it: an integer, a decimal fraction, an exponent.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")


def label_text(value: Any) -> str:
    """The one text of a level label wherever labels are compared: a number's value, not how it was written.

    20, 20.0, "20.0" and numpy's 20.0 all give "20" (a parquet column mixing ints and floats reads back as float,
    and YAML keeps 20 and 20.0 apart); 10.5 and "10.5" give "10.5". A bool is str(value) ("True", never "1");
    an integer (or integer text) is exact; any other number (or text that reads as a finite number, YAML-style:
    no spaces or underscores) is str(int(f)) when integral, else repr(float(f)). Anything else is str(value):
    "1/6", "RED", and NaN as "nan". Run keys and params.json keep the labels as written: this is for comparing.
    """
    if _is_bool(value):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
    elif isinstance(value, str) and _NUMBER.fullmatch(value):
        if _INTEGER.fullmatch(value):
            return str(int(value))
        number = float(value)
        if not math.isfinite(number):  # "1e999"
            return value
    else:
        return str(value)
    return str(int(number)) if number.is_integer() else repr(number)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"  # numpy's bool is no numbers.Number


def _is_missing(value: Any) -> bool:
    try:
        return value is None or bool(value != value)  # NaN, NaT
    except TypeError:  # pandas.NA
        return True


def label_column(column):
    """A pandas Series of labels as their label_text, computed once per distinct value; missing values (NaN,
    None) stay missing, as pandas' astype(str) leaves them, so they equal no label."""

    def per_row():
        return column.map(lambda v: v if _is_missing(v) else label_text(v))

    try:
        distinct = column.unique()
    except TypeError:  # unhashable values (a level that is a mapping)
        return per_row()
    if column.dtype == object and any(_is_bool(v) or (isinstance(v, numbers.Number) and v in (0, 1)) for v in distinct):
        return per_row()  # True == 1 == 1.0: one key of a dict, one value of unique()
    return column.map({v: label_text(v) for v in distinct if not _is_missing(v)})


def _check_queue_names(doc: dict, path: Path) -> None:
    known = sorted(doc.get("queues", {}))

    def check(value: Any, where: str) -> None:
        if isinstance(value, str) and value not in known:
            near = difflib.get_close_matches(value, known, n=1)
            hint = f"did you mean '{near[0]}'? " if near else ""
            raise ConfigError(
                f"{path}: {where}: unknown queue '{value}'; {hint}known queues (top-level 'queues'): "
                f"{', '.join(known) or 'none defined'}"
            )

    for name, exp in doc["experiments"].items():
        base = f"experiments.{name}"
        check(exp["scenario"]["core_queue"], f"{base}.scenario.core_queue")
        check(exp["scenario"].get("core_reverse_queue"), f"{base}.scenario.core_reverse_queue")
        topology = exp["scenario"]["topology"]
        check(topology.get("edge_link", {}).get("queue"), f"{base}.scenario.topology.edge_link.queue")
        for index, link in enumerate(topology.get("core_links", [])):
            check(link.get("queue"), f"{base}.scenario.topology.core_links[{index}].queue")
        for group_name, group in exp["scenario"]["flows"].items():
            check(group.get("edge_link", {}).get("queue"), f"{base}.scenario.flows.{group_name}.edge_link.queue")
        for axis_name, axis in axes_of(exp).items():
            if axis.get("path") in ("core_queue", "core_reverse_queue") or str(axis.get("path")).endswith(".queue"):
                levels = axis["levels"]
                values = levels.values() if isinstance(levels, dict) else levels
                for value in values:
                    check(value, f"{base}.matrix.{axis_name}.levels")


GAIMD_KNOBS = ("increase_num_", "decrease_num_", "gaimd_strict_")
WIRELESS_ONLY = ("nodes", "area", "placement", "routing", "mac", "radio_range")
WIRED_ONLY = ("core_link", "edge_link", "core_nodes", "core_links", "sink_loss")


def check_wireless(scenario: dict, where: str, path: Path) -> None:
    """A wireless scenario: no wired fields, nodes inside the area, flows between existing nodes."""
    topo = scenario["topology"]
    wired = [key for key in WIRED_ONLY if key in topo]
    if wired:
        raise ConfigError(
            f"{path}: {where}.topology.{wired[0]}: a field of wired topologies only; "
            f"a wireless topology has {', '.join(WIRELESS_ONLY)}"
        )
    if "core_reverse_queue" in scenario:
        raise ConfigError(f"{path}: {where}.core_reverse_queue: a wireless node has one interface queue (core_queue)")
    if scenario.get("monitors", {}).get("packet_trace", True):
        raise ConfigError(
            f"{path}: {where}.monitors.packet_trace: a wireless run has no wired packet trace; "
            "allowed: false (its drops go to drops.tr, its TCP flows to flows.tsv)"
        )
    nodes, (max_x, max_y) = topo["nodes"], topo["area"]
    line = topo["placement"].get("line")
    if line is not None:
        last_x = line.get("x0", 0) + (nodes - 1) * line["spacing"]
        y = line.get("y", max_y / 2)
        if last_x > max_x or y > max_y:
            raise ConfigError(
                f"{path}: {where}.topology.placement.line: node {nodes - 1} at ({last_x:g}, {y:g}) lies "
                f"outside the area {max_x:g} x {max_y:g}; allowed: x0 + (nodes - 1) spacing <= x, y <= y"
            )
    waypoint = topo["placement"].get("random_waypoint")
    if waypoint is not None and waypoint.get("min_speed", 0) > waypoint["max_speed"]:
        raise ConfigError(
            f"{path}: {where}.topology.placement.random_waypoint.min_speed: "
            f"{waypoint['min_speed']} exceeds max_speed {waypoint['max_speed']}"
        )
    for name, group in scenario["flows"].items():
        at = f"{where}.flows.{name}"
        fixed = [key for key in ("enter", "leave", "edge_link") if key in group]
        if fixed or "endpoints" not in group:
            field = fixed[0] if fixed else "endpoints"
            raise ConfigError(
                f"{path}: {at}.{field}: flows on a wireless topology run between two nodes; "
                "allowed: endpoints ([source, sink] node numbers, -1 the last, or random)"
            )
        if group["kind"] == "http":
            raise ConfigError(
                f"{path}: {at}.kind: http flows need wired edge links; allowed: ftp, pareto, cbr, exponential"
            )
        ends = group["endpoints"]
        if ends != "random":
            resolved = [end % nodes if end == -1 else end for end in ends]
            if max(resolved) >= nodes or resolved[0] == resolved[1]:
                raise ConfigError(
                    f"{path}: {at}.endpoints: {ends} with {nodes} nodes; allowed: two different "
                    f"nodes in 0..{nodes - 1} (-1 the last)"
                )
        check_flow_group(group, at, path)


def check_queue(queue: dict, where: str, path: Path) -> None:
    """Values no queue can have: a buffer of no packets, RED's Min_th above its Max_th."""
    knobs = queue.get("knobs", {})
    limit = knobs.get("limit_")
    if isinstance(limit, int | float) and limit < 1:
        raise ConfigError(f"{path}: {where}.knobs.limit_: {limit} packets holds nothing; allowed: at least 1")
    low, high = knobs.get("thresh_"), knobs.get("maxthresh_")
    red = queue["class"] == "Queue/RED" or queue["class"].startswith("Queue/RED/")
    if red and isinstance(low, int | float) and isinstance(high, int | float) and 0 < high < low:
        raise ConfigError(
            f"{path}: {where}.knobs: thresh_ {low} is above maxthresh_ {high}; allowed: thresh_ <= maxthresh_ "
            "(or maxthresh_ 0, which ns-2 sets to 3 thresh_)"
        )


def check_scenario(scenario: dict, where: str, path: Path) -> None:
    """What the schema cannot say about a scenario; `where` is e.g. 'experiments.x.scenario'."""
    topo = scenario["topology"]
    if topo["kind"] == "wireless":
        check_wireless(scenario, where, path)
        return
    wireless_only = [key for key in WIRELESS_ONLY if key in topo]
    if wireless_only:
        raise ConfigError(
            f"{path}: {where}.topology.{wireless_only[0]}: a field of wireless topologies only; "
            f"a {topo['kind']} has core_link, edge_link, core_nodes, core_links, sink_loss"
        )
    links = {"core_link": topo.get("core_link"), "edge_link": topo.get("edge_link")}
    links |= {f"core_links[{i}]": link for i, link in enumerate(topo.get("core_links", []))}
    for name, link in links.items():
        bandwidth = (link or {}).get("bandwidth")  # a core_links entry may leave it to core_link
        if bandwidth is not None and float(re.match(r"[0-9.]+(e[0-9]+)?", bandwidth).group()) == 0:
            raise ConfigError(
                f"{path}: {where}.topology.{name}.bandwidth: {bandwidth!r} carries nothing; allowed: a positive "
                "bandwidth"
            )
    core_nodes = topo.get("core_nodes", 2)
    if topo["kind"] == "dumbbell" and core_nodes != 2:
        raise ConfigError(f"{path}: {where}.topology.core_nodes: a dumbbell has 2 core nodes; use kind chain")
    if "core_links" in topo and len(topo["core_links"]) != core_nodes - 1:
        raise ConfigError(
            f"{path}: {where}.topology.core_links: {len(topo['core_links'])} entries for {core_nodes - 1} core "
            f"links; give one per link between adjacent core routers (core_nodes - 1)"
        )
    for name, group in scenario["flows"].items():
        at = f"{where}.flows.{name}"
        enter, leave = group.get("enter", 0), group.get("leave", core_nodes - 1)
        if "endpoints" in group:
            raise ConfigError(
                f"{path}: {at}.endpoints: flows on a wired topology enter and leave at core routers; "
                "allowed: enter, leave (endpoints is for wireless topologies)"
            )
        if enter == leave or not 0 <= min(enter, leave) <= max(enter, leave) <= core_nodes - 1:
            raise ConfigError(
                f"{path}: {at}: enters at core router {enter} and leaves at {leave}; "
                f"allowed: enter != leave, both in 0..{core_nodes - 1} (enter > leave: a reverse flow)"
            )
        if ("http" in group and group["kind"] != "http") or ("app" in group and group["kind"] == "http"):
            field = "http" if "http" in group and group["kind"] != "http" else "app"
            raise ConfigError(
                f"{path}: {at}.{field}: not a field of a {group['kind']} flow group; "
                "allowed: http only with kind http, app only with the other kinds"
            )
        check_flow_group(group, at, path)


def check_flow_group(group: dict, at: str, path: Path) -> None:
    """What the schema cannot say about a flow group on any topology."""
    start = group.get("start", 0)
    if isinstance(start, dict) and "uniform" in start and not start["uniform"][0] < start["uniform"][1]:
        raise ConfigError(f"{path}: {at}.start.uniform: {start['uniform']} is not an interval [a, b] with a < b")
    delays = group.get("edge_delays", {}).get("uniform")
    if delays and not seconds(delays[0]) < seconds(delays[1]):
        raise ConfigError(f"{path}: {at}.edge_delays.uniform: {delays} is not an interval [a, b] with a < b")
    if "stop" in group:
        if group["kind"] == "http":
            raise ConfigError(
                f"{path}: {at}.stop: http flows run until the run ends; allowed: stop on ftp, pareto, cbr, exponential"
            )
        if group["stop"] <= last_start(start, group.get("count", 1)):
            raise ConfigError(
                f"{path}: {at}.stop: {group['stop']} is not after the group's last start "
                f"({last_start(start, group.get('count', 1))}); allowed: stop > every start of the group"
            )

    if "gaimd" in group:
        if group["kind"] != "ftp":
            raise ConfigError(f"{path}: {at}.gaimd: only TCP flows (kind ftp) have a window to adjust")
        typed = sorted(set(group["agent"].get("knobs", {})) & set(GAIMD_KNOBS))
        if typed:
            raise ConfigError(
                f"{path}: {at}.agent.knobs.{typed[0]}: set by gaimd (alpha = 4(1 - beta^2)/3 is computed "
                f"from gaimd.beta); remove it from the knobs"
            )


def last_start(start: Any, count: int) -> float:
    """The latest start a flow of the group can have (count flows; a uniform start's upper end)."""
    if isinstance(start, dict) and "uniform" in start:
        return start["uniform"][1]
    if isinstance(start, dict):
        return start["first"] + max(count - 1, 0) * start["every"]
    return start


# results/<paper>/<experiment>/ sits beside these directories of the paper's outputs (DESIGN.md).
RESERVED_EXPERIMENT_NAMES = ("figures", "tables")


def _check_experiment(name: str, exp: dict, path: Path, queues: dict | None = None) -> None:
    base = f"experiments.{name}"
    if name in RESERVED_EXPERIMENT_NAMES:
        raise ConfigError(
            f"{path}: {base}: the name '{name}' is the directory of the paper's {name}; "
            f"allowed: any other name (reserved: {', '.join(RESERVED_EXPERIMENT_NAMES)})"
        )
    check_scenario(exp["scenario"], f"{base}.scenario", path)
    if exp.get("warmup", 0) >= exp["duration"]:
        raise ConfigError(f"{path}: {base}.warmup: {exp['warmup']} must be less than duration {exp['duration']}")
    for name, group in exp["scenario"]["flows"].items():
        if group.get("stop", 0) > exp["duration"]:
            raise ConfigError(
                f"{path}: {base}.scenario.flows.{name}.stop: {group['stop']} is after the run's end; "
                f"allowed: at most duration ({exp['duration']})"
            )
    seen: set[str] = set()
    set_by: dict[str, str] = {}
    for group_index, group in enumerate(exp.get("matrix", {}).get("zip", [])):
        sizes = {axis: len(level_labels(spec)) for axis, spec in group.items()}
        if len(set(sizes.values())) > 1:
            detail = ", ".join(f"{a}: {n}" for a, n in sizes.items())
            raise ConfigError(
                f"{path}: {base}.matrix.zip[{group_index}]: zipped axes need equally many levels ({detail})"
            )
    for group_index, group in enumerate(exp.get("matrix", {}).get("zip", [])):
        for key in SUBSET_KEYS:
            declaring = [axis for axis, spec in group.items() if key in spec]
            if len(declaring) > 1:
                raise ConfigError(
                    f"{path}: {base}.matrix.zip[{group_index}]: {key} on {', '.join(declaring)}; allowed: on at "
                    "most one axis of a zip group (the group advances together)"
                )
    for axis_name, axis in axes_of(exp).items():
        where = f"{base}.matrix.{axis_name}"
        check_level_subsets(axis, where, path)
        if axis_name in seen:
            raise ConfigError(f"{path}: {where}: axis name used twice in one experiment")
        seen.add(axis_name)
        labels = level_labels(axis)
        if len({label_text(label) for label in labels}) != len(labels):
            raise ConfigError(f"{path}: {where}.levels: two levels have the same label")
        targets = [axis["path"]] if "path" in axis else []
        if "path" not in axis:
            if not isinstance(axis["levels"], dict) or not all(isinstance(v, dict) for v in axis["levels"].values()):
                raise ConfigError(
                    f"{path}: {where}: without 'path', levels must map labels to {{dotted.path: value}} mappings"
                )
            targets = sorted({p for level in axis["levels"].values() for p in level})
        for target in targets:
            _check_target(exp["scenario"], target, f"{where}", path, queues)
            if target in set_by:  # the later axis would silently overwrite the earlier one's level in every cell
                raise ConfigError(
                    f"{path}: {where}: sets {target}, which axis {set_by[target]} sets too; allowed: one axis per "
                    "path (to move two values together, zip their axes or give one axis both paths per level)"
                )
            set_by[target] = axis_name


def _check_target(scenario: dict, dotted: str, where: str, path: Path, queues: dict | None = None) -> None:
    """A matrix path's parent must exist in the scenario (a named queue's path: the queue must exist); the leaf
    may be new (a knob, say).

    A misspelt leaf is caught later, when the scenario with the level applied is
    validated against the schema (experiments.matrix.expand).
    """
    if dotted.startswith("queues."):
        name = dotted.split(".")[1]
        known = sorted(queues or {})
        if name not in known or dotted.count(".") < 2:
            raise ConfigError(
                f"{path}: {where}: path '{dotted}' names no queue of the file; known queues: "
                f"{', '.join(known) or 'none defined'} (form: queues.<name>.knobs.<knob>)"
            )
        return
    parent = existing_parent(dotted)  # flows.tcp.agent.knobs.window_ with no knobs yet
    try:
        node = get_path(scenario, parent) if parent else scenario
    except KeyError as missing:
        raise ConfigError(
            f"{path}: {where}: path '{dotted}' does not exist in the scenario (no '{missing.args[0]}')"
        ) from None
    leaf = dotted.rpartition(".")[2]
    if isinstance(node, list) and not (leaf.isdigit() and int(leaf) < len(node)):
        raise ConfigError(f"{path}: {where}: path '{dotted}': '{leaf}' is not an index of a list of {len(node)}")
    if not isinstance(node, dict | list):
        raise ConfigError(f"{path}: {where}: path '{dotted}' goes through a value, not a mapping")


def _check_where(where: dict, axes: dict, exp_name: str, at: str, path: Path) -> None:
    """A `where` ({axis: label or [labels]}) names axes of the experiment and their levels."""
    for axis, chosen in where.items():
        if axis not in axes:
            raise ConfigError(f"{path}: {at}: '{axis}' is not an axis of {exp_name}; axes: {', '.join(axes)}")
        labels = level_labels(axes[axis])
        texts = {label_text(x) for x in labels}
        for label in chosen if isinstance(chosen, list) else [chosen]:
            if label_text(label) not in texts:
                raise ConfigError(
                    f"{path}: {at}.{axis}: '{label}' is not a level; levels: {', '.join(map(str, labels))}"
                )


def _check_references(doc: dict, path: Path) -> None:
    experiments = doc["experiments"]
    for section in ("figures", "tables", "claims"):
        for index, item in enumerate(doc.get(section, [])):
            where = f"{section}[{index}]"
            exp_name = item["experiment"]
            if exp_name not in experiments:
                raise ConfigError(
                    f"{path}: {where}.experiment: unknown experiment '{exp_name}'; known: {', '.join(experiments)}"
                )
            axes = axes_of(experiments[exp_name])
            _check_where(item.get("where", {}), axes, exp_name, f"{where}.where", path)
            for axis, chosen in item.get("where", {}).items():
                if isinstance(chosen, list) and item.get("axis") == axis:
                    raise ConfigError(
                        f"{path}: {where}.where.{axis}: the claim compares the levels of '{axis}' (its `axis`); "
                        "a list of labels keeps an axis the claim leaves free"
                    )
            if section == "claims" and "axis" in item:
                _check_claim_levels(item, axes, exp_name, where, path)
            if section == "claims":
                _check_claim_scope(item, experiments[exp_name], exp_name, where, path)
                _check_claim_combine(item, axes, exp_name, where, path)
                _check_claim_tolerances(item, where, path)
                if "per" in item and item["kind"] != "slope":
                    raise ConfigError(f"{path}: {where}.per: only a claim of kind slope reads a second metric")
    ids = [c["id"] for c in doc.get("claims", [])]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ConfigError(f"{path}: claims: duplicate id {duplicates[0]}")


def _check_claim_levels(claim: dict, axes: dict, exp_name: str, where: str, path: Path) -> None:
    """The claim's axis belongs to its experiment, and every level it names is a level of that axis."""
    if claim["axis"] not in axes:
        raise ConfigError(
            f"{path}: {where}.axis: '{claim['axis']}' is not an axis of {exp_name}; axes: {', '.join(axes)}"
        )
    labels = level_labels(axes[claim["axis"]])
    texts = {label_text(x) for x in labels}
    named = [("level", claim.get("level")), ("nearest", claim.get("nearest")), ("baseline", claim.get("baseline"))]
    named += [(f"{key}[{i}]", v) for key in ("than", "among") for i, v in enumerate(claim.get(key, []))]
    for key, label in named:
        if label is not None and label_text(label) not in texts:
            raise ConfigError(
                f"{path}: {where}.{key}: '{label}' is not a level of {claim['axis']}; "
                f"levels: {', '.join(map(str, labels))}"
            )
    if "baseline" in claim and label_text(claim["baseline"]) == label_text(claim.get("level")):
        raise ConfigError(
            f"{path}: {where}.baseline: '{claim['baseline']}' is also the level; a ratio needs two levels"
        )


def _check_claim_scope(claim: dict, experiment: dict, exp_name: str, where: str, path: Path) -> None:
    """A claim's `group:<name>` scope names a flow group of its experiment's scenario."""
    group = claim.get("scope", "all").removeprefix("group:")
    groups = experiment["scenario"]["flows"]
    if claim.get("scope", "").startswith("group:") and group not in groups:
        raise ConfigError(
            f"{path}: {where}.scope: '{group}' is not a flow group of {exp_name}; groups: {', '.join(groups)}"
        )


def _allowed(tolerance: dict, expected: float) -> float:
    return tolerance["abs"] if "abs" in tolerance else tolerance["rel"] * abs(expected)


def _check_claim_tolerances(claim: dict, where: str, path: Path) -> None:
    """A drift band wider than the pass band, a relative tolerance against a non-zero expectation, and a bound's
    drift threshold beyond (looser than) its threshold: otherwise a verdict could never be drift, or pass."""
    if "expected" in claim and "pass" in claim and "drift" in claim:
        expected = claim["expected"]
        for key in ("pass", "drift"):
            if "rel" in claim[key] and expected == 0:
                raise ConfigError(
                    f"{path}: {where}.{key}: a relative tolerance of an expected 0 allows nothing; use abs"
                )
        if _allowed(claim["drift"], expected) <= _allowed(claim["pass"], expected):
            raise ConfigError(
                f"{path}: {where}.drift: {claim['drift']} is not wider than pass {claim['pass']} at expected "
                f"{expected:g}; drift must allow more than pass"
            )
    if claim["kind"] == "bound":
        below = claim["bound"] == "below"
        looser = (
            claim["drift_threshold"] > claim["threshold"] if below else claim["drift_threshold"] < claim["threshold"]
        )
        if not looser:
            side = "above" if below else "below"
            raise ConfigError(
                f"{path}: {where}.drift_threshold: {claim['drift_threshold']:g} must lie {side} threshold "
                f"{claim['threshold']:g} for a bound {claim['bound']} (the drift band is looser than the pass band)"
            )


def _check_claim_combine(claim: dict, axes: dict, exp_name: str, where: str, path: Path) -> None:
    """combine min:<axis> / max:<axis>: kinds value and bound, over an axis the claim leaves free."""
    rule, _, axis = claim.get("combine", "all").partition(":")
    if not axis:
        return
    if claim["kind"] not in ("value", "bound"):
        raise ConfigError(
            f"{path}: {where}.combine: {rule}:<axis> judges one level's value; allowed with kinds value and bound, "
            f"not {claim['kind']} (use all, any or each)"
        )
    fixed = {a for a, label in claim.get("where", {}).items() if not isinstance(label, list)} | {claim.get("axis")}
    if axis not in axes or axis in fixed:
        free = [a for a in axes if a not in fixed]
        raise ConfigError(
            f"{path}: {where}.combine: '{axis}' is not an axis the claim leaves free in {exp_name}; "
            f"free axes: {', '.join(free) or 'none'}"
        )


def _check_choices(doc: dict, path: Path) -> None:
    """Choices with alternatives: unique ids, paths that exist where they apply and that no matrix axis also
    sets, axis choices naming a real axis and level; interactions and claims' suspects naming such choices."""
    choices = doc.get("choices", [])
    experiments = doc["experiments"]
    ids = [c["id"] for c in choices if "id" in c]
    for cid in sorted({i for i in ids if ids.count(i) > 1}):
        raise ConfigError(f"{path}: choices: duplicate id {cid}")
    for index, choice in enumerate(choices):
        where = f"choices[{index}]"
        for name in choice.get("experiments", []):
            if name not in experiments:
                raise ConfigError(
                    f"{path}: {where}.experiments: unknown experiment '{name}'; known: {', '.join(experiments)}"
                )
        if "alternatives" in choice:
            _check_alternatives(doc, choice, where, path)
        if "axis" in choice:
            named = choice.get("experiments", list(experiments))
            lacking = [n for n in named if n in experiments and choice["axis"] not in axes_of(experiments[n])]
            if "experiments" in choice and lacking:
                raise ConfigError(
                    f"{path}: {where}.experiments: '{lacking[0]}' has no axis '{choice['axis']}'; an axis choice "
                    "names only experiments with that axis"
                )
            having = [n for n in named if choice["axis"] in axes_of(experiments[n])]
            if not having:
                raise ConfigError(f"{path}: {where}.axis: '{choice['axis']}' is not an axis of any experiment")
            labels = {label_text(x) for n in having for x in level_labels(axes_of(experiments[n])[choice["axis"]])}
            if label_text(choice["baseline"]) not in labels:
                raise ConfigError(
                    f"{path}: {where}.baseline: '{choice['baseline']}' is not a level of {choice['axis']}; "
                    f"levels: {', '.join(sorted(labels))}"
                )
    with_alternatives = {c["id"] for c in choices if "alternatives" in c}
    for index, group in enumerate(doc.get("interactions", [])):
        for cid in group:
            if cid not in with_alternatives:
                raise ConfigError(
                    f"{path}: interactions[{index}]: '{cid}' is not a choice with alternatives; "
                    f"those are: {', '.join(sorted(with_alternatives)) or 'none'}"
                )
    known = set(ids)
    for index, claim in enumerate(doc.get("claims", [])):
        for cid in claim.get("suspects", []):
            if cid not in known:
                raise ConfigError(
                    f"{path}: claims[{index}].suspects: '{cid}' is not a choice id; ids: {', '.join(sorted(known))}"
                )
        _check_claim_reading_axes(doc, claim, index, path)


def _check_claim_reading_axes(doc: dict, claim: dict, index: int, path: Path) -> None:
    """A claim's `where` may not name an axis whose levels are readings of its experiment: the where would win
    over every reading level (claims.claim_rows), so the readings could never change its verdict."""
    from experiments import readings  # readings imports this module

    if claim.get("experiment") not in doc["experiments"]:
        return  # references.py names the unknown experiment
    for cid, choice in readings.axis_choices(doc, claim["experiment"]).items():
        axis = choice["axis"]
        if (
            axis in claim.get("where", {})
            and axis != claim.get("axis")
            and axis in axes_of(doc["experiments"][claim["experiment"]])
        ):
            raise ConfigError(
                f"{path}: claims[{index}].where.{axis}: '{axis}' is a reading axis of {claim['experiment']} "
                f"(choice {cid}): the claim is judged at its baseline {choice['baseline']} and at each other level "
                "as a reading; leave the axis out of where"
            )


def _check_alternatives(doc: dict, choice: dict, where: str, path: Path) -> None:
    from experiments import readings  # readings imports this module

    experiments = doc["experiments"]
    labels = [alt["label"] for alt in choice["alternatives"]]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{path}: {where}.alternatives: two alternatives have the same label")
    if readings.is_measure_choice(choice):
        # How a number is computed from the same runs: no path, nothing set (references.py checks the metrics).
        for i, alt in enumerate(choice["alternatives"]):
            if "metrics" not in alt or "path" in choice or "experiments" in choice:
                raise ConfigError(
                    f"{path}: {where}.alternatives[{i}]: a choice whose alternatives give 'metrics' has no path nor "
                    "experiments, and every alternative gives 'metrics' (split run and measure alternatives into "
                    "two choices)"
                )
        return
    for i, alt in enumerate(choice["alternatives"]):
        scope = [key for key in ("path", "where") if key in choice]
        if "cases" in alt and scope:
            raise ConfigError(
                f"{path}: {where}.alternatives[{i}].cases: not allowed on a choice with '{scope[0]}'; allowed: cases "
                "on a choice without path and where (each case gives its own where and set), or value/set here"
            )
        if ("value" in alt) != ("path" in choice):
            raise ConfigError(
                f"{path}: {where}.alternatives[{i}]: give 'value' when the choice has a path, 'set' when it has none"
            )
    paths = sorted({p for alt in choice["alternatives"] for p in readings.alternative_assignments(choice, alt)})
    for p in paths:
        if p.startswith("queues."):
            _check_target({}, p, f"{where}.path", path, doc.get("queues", {}))
    named = choice.get("experiments")
    targets = named or [n for n in experiments if readings.paths_apply(doc, n, paths)]
    if not targets:
        raise ConfigError(
            f"{path}: {where}.path: '{paths[0]}' does not exist in any experiment's scenario (nor names a queue "
            f"an experiment uses)"
        )
    _check_cells_where(choice.get("where", {}), experiments, targets, f"{where}.where", path)
    for name in targets:
        if not readings.paths_apply(doc, name, paths):
            missing = [p for p in paths if not readings.path_exists(doc, name, p)]
            raise ConfigError(
                f"{path}: {where}: path '{(missing or paths)[0]}' does not exist in experiment {name}'s scenario "
                "(nor names a queue it uses)"
            )
    # An axis the choice's `where` names may set the path in its levels: the alternative is then a reading of
    # what those levels mean (pattern 16's layout in the BQM levels), in those cells only.
    plain = {p for alt in choice["alternatives"] if "cases" not in alt
             for p in readings.alternative_assignments(choice, alt)}  # fmt: skip
    _check_axis_paths(sorted(plain), set(choice.get("where", {})), experiments, targets, where, path)
    for i, alt in enumerate(choice["alternatives"]):
        at = f"{where}.alternatives[{i}].cases"
        for j, case in enumerate(alt.get("cases", [])):
            _check_cells_where(case["where"], experiments, targets, f"{at}[{j}].where", path)
            _check_axis_paths(sorted(case["set"]), set(case["where"]), experiments, targets, f"{at}[{j}]", path)
        if "cases" in alt:
            _check_cases_overlap(alt["cases"], experiments, targets, at, path)


def _check_cells_where(cells: dict, experiments: dict, targets: list[str], at: str, path: Path) -> None:
    """A choice's or a case's `where` names axes of every experiment it changes, and labels that are a level of
    their axis in at least one of them: a cell without it keeps the baseline's run."""
    known: dict[str, list] = {}
    for name in targets:
        axes = axes_of(experiments[name])
        _check_where({axis: [] for axis in cells}, axes, name, at, path)
        for axis in cells:
            seen = {label_text(x) for x in known.setdefault(axis, [])}
            known[axis].extend(x for x in level_labels(axes[axis]) if label_text(x) not in seen)
    _check_where(cells, {a: {"levels": x} for a, x in known.items()}, ", ".join(targets), at, path)


def _check_axis_paths(paths: list, scoped: set, experiments: dict, targets: list[str], at: str, path: Path) -> None:
    """No path an alternative (or one of its cases) sets is set by a matrix axis, unless its `where` names that
    axis: the alternative is then a reading of what those levels mean, in those cells only."""
    for name in targets:
        axis_paths = {
            p for axis_name, axis in axes_of(experiments[name]).items() if axis_name not in scoped
            for p in ([axis["path"]] if "path" in axis else [q for lvl in axis["levels"].values() for q in lvl])
        }  # fmt: skip
        for p in paths:
            if p in axis_paths:
                raise ConfigError(
                    f"{path}: {at}: path '{p}' is also a matrix axis of {name}; an alternative cannot override "
                    "an axis (make the axis the choice: axis + baseline, or name the axis in the `where`)"
                )


def _check_cases_overlap(cases: list[dict], experiments: dict, targets: list[str], at: str, path: Path) -> None:
    """No two cases of an alternative set the same path in one matrix cell: which value it runs would be moot."""
    from experiments.matrix import cells as matrix_cells  # matrix imports this module
    from experiments.readings import in_cells

    if len(cases) < 2:
        return
    for name in targets:
        experiment = experiments[name]
        matrix = {"product": {}, "zip": [], **experiment.get("matrix", {})}
        for cell in matrix_cells({**experiment, "matrix": matrix}):
            labels = {axis: label for axis, label, _ in cell}
            matching = [j for j, case in enumerate(cases) if in_cells(case["where"], labels)]
            for a, b in itertools.combinations(matching, 2):
                shared = sorted(set(cases[a]["set"]) & set(cases[b]["set"]))
                if shared:
                    cell_text = ", ".join(f"{axis}={label}" for axis, label in labels.items())
                    raise ConfigError(
                        f"{path}: {at}: cases[{a}] and cases[{b}] both set '{shared[0]}' in {name} at {cell_text}; "
                        "allowed: at most one case setting a path in each cell (make their where disjoint)"
                    )


# A measured value a note needs: {{metric}} or {{metric scope=group:http queue=PI}} (the report fills it).
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_@.<>-]+)((?:\s+[A-Za-z0-9_:]+=[^\s}]+)*)\s*\}\}")


def note_placeholders(note: str) -> list[tuple[str, dict[str, str]]]:
    """(metric, {key: value}) of each {{metric key=value ...}} placeholder in a note, in order."""
    return [(m.group(1), dict(kv.split("=", 1) for kv in m.group(2).split())) for m in _PLACEHOLDER.finditer(note)]


def fill_placeholders(note: str, value_of) -> str:
    """The note with each placeholder replaced by value_of(metric, {key: value})."""
    return _PLACEHOLDER.sub(lambda m: value_of(m.group(1), dict(kv.split("=", 1) for kv in m.group(2).split())), note)


# --- defaults ----------------------------------------------------------------


def unshared(node: Any) -> Any:
    """A copy in which no two places share an object. YAML aliases (`<<: *tcp` in two flow
    groups) load as one shared dict, and copy.deepcopy keeps such sharing, so a matrix level
    setting flows.main.gaimd.beta would also change flows.cross.gaimd.beta."""
    if isinstance(node, dict):
        return {key: unshared(value) for key, value in node.items()}
    if isinstance(node, list):
        return [unshared(value) for value in node]
    return node


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
    validate_schema(doc, path)
    _check_queue_names(doc, path)
    for name, exp in doc["experiments"].items():
        _check_experiment(name, exp, path, doc.get("queues", {}))
    _check_references(doc, path)
    _check_choices(doc, path)
    return with_defaults(doc)
