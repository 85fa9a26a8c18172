"""Expanding an experiment file into runs, each with fully resolved parameters.

A run is one cell of an experiment's matrix (product axes crossed; each zip group's
axes advancing together) times one seed. Its parameters are the `params.json` of
docs/DESIGN.md §2: the scenario with the cell's levels applied, named queues resolved,
flow groups expanded into numbered flows.
"""

from __future__ import annotations

import copy
import itertools
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from experiments.config import ConfigError, axes_of, check_scenario, describe_error, schema, unshared
from experiments.readings import BASELINE, QUEUES, Reading, reading_axes

PARAMS_SCHEMA = "ns2-repro/run-params/1"
DEFAULT_APPS = {"ftp": "Application/FTP", "pareto": "Application/Traffic/Pareto", "cbr": "Application/Traffic/CBR"}
# The HTTP object model's defaults: the PISA/PIMC thesis' values (§3.1, §4.7).
HTTP_DEFAULTS = {"mean_bytes": 10000, "shape": 1.2, "min_bytes": 1000, "max_bytes": 2000000, "bound": "resample",
                 "idle": 0.5}  # fmt: skip


@dataclass(frozen=True)
class Run:
    paper: str
    experiment: str
    labels: dict  # axis name -> level label, in axis order
    seed: int
    params: dict  # the run's params.json
    reading: str = BASELINE  # the choices' reading it runs under (experiments.readings)

    @property
    def context(self) -> dict:
        """The columns every aggregated row of this run carries (besides run_key); `reading` only off the baseline."""
        reading = {} if self.reading == BASELINE else {"reading": self.reading}
        return {"paper": self.paper, "experiment": self.experiment, **self.labels, **reading, "seed": self.seed}

    @property
    def own_context(self) -> dict:
        """The context written into the run directory's own tables: the run's identity, so `reading` only when its
        params carry one. A reading's cell that reuses the baseline's run is that run: whichever batch runs it
        first, its bytes are the same."""
        reading = {"reading": self.reading} if "reading" in self.params else {}
        return {"paper": self.paper, "experiment": self.experiment, **self.labels, **reading, "seed": self.seed}


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


def resolve_queue(ref: Any, queues: dict) -> dict:
    queue = queues[ref] if isinstance(ref, str) else ref
    return {"class": queue["class"], "knobs": dict(queue.get("knobs", {}))}


def _ns_object(spec: dict) -> dict:
    return {"class": spec["class"], "knobs": dict(spec.get("knobs", {}))}


def gaimd_alpha(beta: float) -> float:
    """The TCP-friendly additive increase for a decrease factor beta (Yang & Lam): 4(1 - beta^2)/3."""
    return 4 * (1 - beta * beta) / 3


def gaimd_knobs(gaimd: dict) -> dict:
    """The TCP agent knobs that make it TCP(alpha, beta)."""
    knobs = {"increase_num_": gaimd_alpha(gaimd["beta"]), "decrease_num_": gaimd["beta"]}
    if gaimd.get("strict", False):
        knobs["gaimd_strict_"] = 1
    return knobs


def start_times(start: Any, count: int, rng: random.Random) -> list[float]:
    """Each flow's start: a fixed number, or drawn from {uniform: [a, b]} (rounded to the microsecond)."""
    if isinstance(start, dict):
        low, high = start["uniform"]
        return [round(rng.uniform(low, high), 6) for _ in range(count)]
    return [start] * count


def resolve_flows(groups: dict, seed: int, edge_link: dict, queues: dict) -> list[dict]:
    """Flow groups to numbered flows. Random start times come from the run's seed, group by group in file order."""
    rng = random.Random(seed)
    flows = []
    for name, group in groups.items():
        roles = {"agent": None, "sink": _ns_object(group["sink"])}
        if group["kind"] == "http":
            roles["http"] = {**HTTP_DEFAULTS, **group.get("http", {})}
        else:
            roles["app"] = _ns_object(group.get("app") or {"class": DEFAULT_APPS[group["kind"]]})
        agent = _ns_object(group["agent"])
        if "gaimd" in group:
            agent["knobs"].update(gaimd_knobs(group["gaimd"]))
        placement = {key: group[key] for key in ("enter", "leave") if key in group}
        if "edge_link" in group:
            link = {**edge_link, **group["edge_link"]}
            link["queue"] = resolve_queue(link["queue"], queues)
            placement["edge_link"] = link
        for start in start_times(group["start"], group["count"], rng):
            flows.append(
                {
                    "fid": len(flows) + 1,
                    "group": name,
                    "kind": group["kind"],
                    "start": start,
                    **copy.deepcopy({**roles, "agent": agent}),
                    **copy.deepcopy(placement),
                }
            )
    return flows


def _validate_scenario(scenario: dict, queues: dict, where: str, source: Path) -> None:
    """The scenario and named queues after a cell's levels are applied must still be valid."""
    full = schema()
    for part, value, definition in [("scenario", scenario, "scenario")] + [
        (f"queues.{name}", queue, "ns_object") for name, queue in queues.items()
    ]:
        validator = jsonschema.Draft202012Validator({**full["$defs"][definition], "$defs": full["$defs"]})
        error = jsonschema.exceptions.best_match(validator.iter_errors(value))
        if error is not None:
            raise ConfigError(f"{source}: {where}: with this level applied, {part}.{describe_error(error)}")
    check_scenario(scenario, f"{where}: with this level applied, scenario", source)


def resolve_params(
    doc: dict, exp_name: str, labels: dict, seed: int, scenario: dict, queues: dict, reading: Reading | None = None
) -> dict:
    exp = doc["experiments"][exp_name]
    topology = copy.deepcopy(scenario["topology"])
    edge_queue = topology["edge_link"].get("queue", {"class": "Queue/DropTail"})
    topology["edge_link"]["queue"] = resolve_queue(edge_queue, queues)
    for link in topology.get("core_links", []):
        if "queue" in link:
            link["queue"] = resolve_queue(link["queue"], queues)
    return {
        "schema": PARAMS_SCHEMA,
        "paper": doc["paper"],
        "experiment": exp_name,
        "labels": labels,
        "seed": seed,
        "duration": float(exp["duration"]),
        "topology": topology,
        "core_queue": resolve_queue(scenario["core_queue"], queues),
        "flows": resolve_flows(scenario["flows"], seed, topology["edge_link"], queues),
        "monitors": copy.deepcopy(scenario["monitors"]),
        **(
            {"core_reverse_queue": resolve_queue(scenario["core_reverse_queue"], queues)}
            if "core_reverse_queue" in scenario
            else {}
        ),
        # Only off the baseline, so that a baseline run's params (and key) do not depend on the choices' names.
        **({"reading": dict(reading.choices)} if reading is not None and not reading.is_baseline else {}),
    }


def expand(
    doc: dict, source: Path | str = "<config>", experiments: list[str] | None = None, reading: Reading | None = None
) -> list[Run]:
    """All runs of the (validated, defaulted) experiment file, in a stable order.

    Under a `reading` (an alternative of the open choices), its values are applied after each cell's levels, in the
    cells where claims are judged (an axis that is itself a reading stays at its baseline level). A cell the
    reading does not change (e.g. a queue knob in a cell with another queue) keeps the baseline's params, hence its
    key and its run: a reading never re-runs what the baseline ran.
    """
    alternative = reading is not None and not reading.is_baseline
    reading_name = reading.label if reading is not None else BASELINE
    runs = []
    for exp_name, exp in doc["experiments"].items():
        if experiments is not None and exp_name not in experiments:
            continue
        axes = list(axes_of(exp))
        judged_at = reading_axes(doc, exp_name) if alternative else {}
        for cell in cells(exp):
            labels = {name: label for name, label, _ in sorted(cell, key=lambda entry: axes.index(entry[0]))}
            if any(str(labels[axis]) != level for axis, level in judged_at.items()):
                continue
            where = f"experiments.{exp_name} at " + ", ".join(f"{k}={v}" for k, v in labels.items())
            levels = [sets for _, _, sets in cell]
            scenario, queues = _applied(doc, exp, levels, where, source)
            if alternative:
                changed = _applied(doc, exp, [*levels, reading.assignments], f"{where} under reading {reading_name}",
                                   source)  # fmt: skip
            first = exp["seeds"]["first"]
            for seed in range(first, first + exp["seeds"]["count"]):
                params = resolve_params(doc, exp_name, labels, seed, scenario, queues)
                if alternative:
                    other = resolve_params(doc, exp_name, labels, seed, *changed, reading)
                    if {k: v for k, v in other.items() if k != "reading"} != params:
                        params = other
                runs.append(Run(doc["paper"], exp_name, labels, seed, params, reading_name))
    return runs


def apply_levels(scenario: dict, queues: dict, levels: list[dict]) -> tuple[dict, dict]:
    """Copies of a scenario and the named queues with the levels' {dotted path: value} put in place."""
    scenario, queues = unshared(scenario), unshared(queues)
    for assignments in levels:
        for dotted, value in assignments.items():
            assign(scenario, queues, dotted, value)
    return scenario, queues


def _applied(doc: dict, exp: dict, levels: list[dict], where: str, source: Path | str) -> tuple[dict, dict]:
    """The experiment's scenario and the file's named queues with the levels applied, checked."""
    scenario, queues = apply_levels(exp["scenario"], doc["queues"], levels)
    _validate_scenario(scenario, queues, where, Path(source))
    return scenario, queues
