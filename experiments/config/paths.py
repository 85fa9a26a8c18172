"""Dotted paths into a scenario or the file's named queues (topology.core_links.0.bandwidth,
queues.RED.knobs.thresh_): reading, creating and setting values.
"""

from __future__ import annotations

import copy
from typing import Any

QUEUES = "queues."  # paths into the file's named queues start with this


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


def unshared(node: Any) -> Any:
    """A copy in which no two places share an object. YAML aliases (`<<: *tcp` in two flow
    groups) load as one shared dict, and copy.deepcopy keeps such sharing, so a matrix level
    setting flows.main.gaimd.beta would also change flows.cross.gaimd.beta."""
    if isinstance(node, dict):
        return {key: unshared(value) for key, value in node.items()}
    if isinstance(node, list):
        return [unshared(value) for value in node]
    return node


def set_path(tree: dict, dotted: str, value: Any) -> None:
    """Put a copy of `value` at a dotted path, creating missing mappings; a numeric part indexes a list."""
    *parents, leaf = dotted.split(".")
    node: Any = tree
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    if isinstance(node, list):
        node[int(leaf)] = copy.deepcopy(value)
    else:
        node[leaf] = copy.deepcopy(value)


def assign(scenario: dict, queues: dict, dotted: str, value: Any) -> None:
    """Put a matrix level's or an alternative's value at its path: into the file's named queues for
    `queues.<name>...`, into the scenario otherwise."""
    if dotted.startswith(QUEUES):
        set_path(queues, dotted.removeprefix(QUEUES), value)
    else:
        set_path(scenario, dotted, value)


def apply_levels(scenario: dict, queues: dict, levels: list[dict]) -> tuple[dict, dict]:
    """Copies of a scenario and the named queues with the levels' {dotted path: value} put in place."""
    scenario, queues = unshared(scenario), unshared(queues)
    for assignments in levels:
        for dotted, value in assignments.items():
            assign(scenario, queues, dotted, value)
    return scenario, queues
