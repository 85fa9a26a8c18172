"""Expanding an experiment file into runs, each with fully resolved parameters.

A run is one cell of an experiment's matrix (product axes crossed; each zip group's
axes advancing together) times one seed. Its parameters are the `params.json` of
docs/DESIGN.md §2: the scenario with the cell's levels applied, named queues resolved,
flow groups expanded into numbered flows.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from experiments.config import ConfigError, axes_of, describe_error, schema

PARAMS_SCHEMA = "ns2-repro/run-params/1"
DEFAULT_APPS = {"ftp": "Application/FTP", "pareto": "Application/Traffic/Pareto", "cbr": "Application/Traffic/CBR"}


@dataclass(frozen=True)
class Run:
    paper: str
    experiment: str
    labels: dict  # axis name -> level label, in axis order
    seed: int
    params: dict  # the run's params.json

    @property
    def context(self) -> dict:
        """The columns every result row of this run carries (besides run_key)."""
        return {"paper": self.paper, "experiment": self.experiment, **self.labels, "seed": self.seed}


def axis_levels(axis: dict) -> list[tuple[Any, dict]]:
    """[(label, {dotted path: value}), ...] for one axis."""
    levels = axis["levels"]
    pairs = list(levels.items()) if isinstance(levels, dict) else [(value, value) for value in levels]
    if "path" in axis:
        return [(label, {axis["path"]: value}) for label, value in pairs]
    return [(label, dict(value)) for label, value in pairs]


def cells(experiment: dict) -> list[list[tuple[str, Any, dict]]]:
    """Every matrix cell: a list of (axis, label, assignments)."""
    dimensions: list[list[list[tuple[str, Any, dict]]]] = []
    for name, axis in experiment["matrix"]["product"].items():
        dimensions.append([[(name, label, sets)] for label, sets in axis_levels(axis)])
    for group in experiment["matrix"]["zip"]:
        columns = [[(name, label, sets) for label, sets in axis_levels(axis)] for name, axis in group.items()]
        dimensions.append([list(row) for row in zip(*columns, strict=True)])
    return [[entry for part in combo for entry in part] for combo in itertools.product(*dimensions)]


def set_path(tree: dict, dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    node = tree
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = copy.deepcopy(value)


def resolve_queue(ref: Any, queues: dict) -> dict:
    queue = queues[ref] if isinstance(ref, str) else ref
    return {"class": queue["class"], "knobs": dict(queue.get("knobs", {}))}


def _ns_object(spec: dict) -> dict:
    return {"class": spec["class"], "knobs": dict(spec.get("knobs", {}))}


def resolve_flows(groups: dict) -> list[dict]:
    flows = []
    for group in groups.values():
        app = group.get("app") or {"class": DEFAULT_APPS[group["kind"]]}
        for _ in range(group["count"]):
            flows.append(
                {
                    "fid": len(flows) + 1,
                    "kind": group["kind"],
                    "start": group["start"],
                    "agent": _ns_object(group["agent"]),
                    "sink": _ns_object(group["sink"]),
                    "app": _ns_object(app),
                }
            )
    return flows


def _validate_scenario(scenario: dict, where: str, source: Path) -> None:
    """The scenario after a cell's levels are applied must still be a valid scenario."""
    full = schema()
    validator = jsonschema.Draft202012Validator({**full["$defs"]["scenario"], "$defs": full["$defs"]})
    error = jsonschema.exceptions.best_match(validator.iter_errors(scenario))
    if error is not None:
        raise ConfigError(f"{source}: {where}: with this level applied, scenario.{describe_error(error)}")


def resolve_params(doc: dict, exp_name: str, labels: dict, seed: int, scenario: dict) -> dict:
    exp = doc["experiments"][exp_name]
    topology = copy.deepcopy(scenario["topology"])
    edge_queue = topology["edge_link"].get("queue", {"class": "Queue/DropTail"})
    topology["edge_link"]["queue"] = resolve_queue(edge_queue, doc["queues"])
    return {
        "schema": PARAMS_SCHEMA,
        "paper": doc["paper"],
        "experiment": exp_name,
        "labels": labels,
        "seed": seed,
        "duration": float(exp["duration"]),
        "topology": topology,
        "core_queue": resolve_queue(scenario["core_queue"], doc["queues"]),
        "flows": resolve_flows(scenario["flows"]),
        "monitors": dict(scenario["monitors"]),
    }


def expand(doc: dict, source: Path | str = "<config>", experiments: list[str] | None = None) -> list[Run]:
    """All runs of the (validated, defaulted) experiment file, in a stable order."""
    runs = []
    for exp_name, exp in doc["experiments"].items():
        if experiments is not None and exp_name not in experiments:
            continue
        axes = list(axes_of(exp))
        for cell in cells(exp):
            scenario = copy.deepcopy(exp["scenario"])
            for _, _, assignments in cell:
                for dotted, value in assignments.items():
                    set_path(scenario, dotted, value)
            labels = {name: label for name, label, _ in sorted(cell, key=lambda entry: axes.index(entry[0]))}
            where = f"experiments.{exp_name} at " + ", ".join(f"{k}={v}" for k, v in labels.items())
            _validate_scenario(scenario, where, Path(source))
            first = exp["seeds"]["first"]
            for seed in range(first, first + exp["seeds"]["count"]):
                params = resolve_params(doc, exp_name, labels, seed, scenario)
                runs.append(Run(doc["paper"], exp_name, labels, seed, params))
    return runs
