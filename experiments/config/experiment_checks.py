"""What the schema cannot say about the experiments of a file: named queues, reserved names, warm-up and stops,
the matrix's zip groups, level subsets and the paths its axes set.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from experiments.config.axes import axes_of, label_text, level_labels
from experiments.config.errors import ConfigError
from experiments.config.paths import existing_parent, get_path
from experiments.config.scenario_checks import check_scenario


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


# Subsets of an axis' levels that a profile runs instead of all of them (experiments.planning.profiles.load): the
# default profile its default_levels (the paper profile every level), the smoke profile its smoke_levels.
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


# results/<paper>/<experiment>/ sits beside these directories of the paper's outputs (DESIGN.md).
RESERVED_EXPERIMENT_NAMES = ("figures", "tables")


# ns-2's RNG takes its seed with atoi and refuses it unless 0 < seed < MAXINT (2^31 - 1): 0 means a clock-based seed,
# and atoi wraps a larger number (2^32 becomes 0, 2^32 + 1 becomes 1), so one run key would give other numbers.
NS2_SEED_MAX = 2**31 - 2


def seeds_text(first: int, last: int) -> str:
    return f"seeds {first}..{last} reach beyond ns-2's seed range 1..{NS2_SEED_MAX}"


def _check_seeds(exp: dict, base: str, path: Path) -> None:
    """Every seed an experiment runs (its count, or the paper's) within what ns-2's RNG accepts."""
    seeds = exp["seeds"]
    first = seeds.get("first", 1)
    last = first + max(seeds["count"], seeds.get("paper", 0)) - 1
    if last > NS2_SEED_MAX:
        raise ConfigError(
            f"{path}: {base}.seeds: {seeds_text(first, last)} (its RNG reads a C int and refuses 0 and 2^31 - 1); "
            f"allowed: first + count - 1 (and first + paper - 1) at most {NS2_SEED_MAX}"
        )


def _check_experiment(name: str, exp: dict, path: Path, queues: dict | None = None) -> None:
    base = f"experiments.{name}"
    _check_seeds(exp, base, path)
    if name in RESERVED_EXPERIMENT_NAMES:
        raise ConfigError(
            f"{path}: {base}: the name '{name}' is the directory of the paper's {name}; "
            f"allowed: any other name (reserved: {', '.join(RESERVED_EXPERIMENT_NAMES)})"
        )
    check_scenario(exp["scenario"], f"{base}.scenario", path, exp["duration"])
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
        _check_label_kinds(labels, where, path)
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


def _label_kind(label: Any) -> str:
    if isinstance(label, bool):
        return "true/false"
    if isinstance(label, int | float):
        return "number"
    if isinstance(label, str):
        return "text"
    return "mapping" if isinstance(label, dict) else type(label).__name__


def _check_label_kinds(labels: list, where: str, path: Path) -> None:
    """An axis' labels are one column of every results table: all numbers, all text, all true/false or all mappings.
    Mixed ([true, 1], [3, "4"]) they validate, run, and then no parquet column holds them."""
    kinds: dict[str, Any] = {}
    for label in labels:
        kinds.setdefault(_label_kind(label), label)
    if len(kinds) > 1:
        mixed = ", ".join(f"{kind} {label!r}" for kind, label in kinds.items())
        raise ConfigError(
            f"{path}: {where}.levels: labels of more than one type ({mixed}); allowed: labels of one type, all "
            "numbers, all text, all true/false or all mappings (quote a number to make it text)"
        )


def _check_target(scenario: dict, dotted: str, where: str, path: Path, queues: dict | None = None) -> None:
    """A matrix path's parent must exist in the scenario (a named queue's path: the queue must exist); the leaf
    may be new (a knob, say).

    A misspelt leaf is caught later, when the scenario with the level applied is
    validated against the schema (experiments.planning.expansion.expand).
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
