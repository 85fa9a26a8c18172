"""Expanding an experiment file into runs, each with fully resolved parameters.

A run is one cell of an experiment's matrix (product axes crossed; each zip group's
axes advancing together) times one seed. Its parameters are the `params.json` of
docs/DESIGN.md §2: the scenario with the cell's levels applied, named queues resolved,
flow groups expanded into numbered flows.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from experiments import mobility
from experiments.config import (
    ConfigError,
    axes_of,
    check_queue,
    check_scenario,
    describe_error,
    label_text,
    schema,
    unshared,
)
from experiments.readings import BASELINE, QUEUES, Reading, reading_axes
from experiments.runkey import KEY_LENGTH, canonical_json
from experiments.units import seconds

PARAMS_SCHEMA = "ns2-repro/run-params/2"
DEFAULT_APPS = {
    "ftp": "Application/FTP",
    "pareto": "Application/Traffic/Pareto",
    "cbr": "Application/Traffic/CBR",
    "exponential": "Application/Traffic/Exponential",
}
# The HTTP object model's defaults: the PISA/PIMC thesis' values (§3.1, §4.7).
HTTP_DEFAULTS = {"mean_bytes": 10000, "shape": 1.2, "min_bytes": 1000, "max_bytes": 2000000, "bound": "resample",
                 "idle": 0.5}  # fmt: skip


@dataclass(frozen=True)
class Run:
    paper: str
    experiment: str
    labels: dict  # axis name -> level label, in axis order
    seed: int
    params: dict  # the run's params.json: what decides its bytes, nothing that names it
    reading: str = BASELINE  # the choices' reading it runs under (experiments.readings)

    @property
    def context(self) -> dict:
        """The columns every aggregated row of this run carries (besides run_key); `reading` only off the baseline."""
        return run_context(self.paper, self.experiment, self.labels, self.seed, self.reading)


def run_context(paper: str, experiment: str, labels: dict, seed: int, reading: str = BASELINE) -> dict:
    extra = {} if reading == BASELINE else {"reading": reading}
    return {"paper": paper, "experiment": experiment, **labels, **extra, "seed": seed}


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
    """Each flow's start: a fixed number, drawn from {uniform: [a, b]} (rounded to the microsecond), or staggered
    {first: t, every: s}: t + i s for the i-th flow (rounded to the nanosecond, so 0.1 x 3 is 0.3)."""
    if isinstance(start, dict) and "uniform" in start:
        low, high = start["uniform"]
        return [round(rng.uniform(low, high), 6) for _ in range(count)]
    if isinstance(start, dict):
        return [round(start["first"] + i * start["every"], 9) for i in range(count)]
    return [start] * count


def edge_delays(spread: dict, count: int, rng: random.Random) -> list[str]:
    """Each flow's access-link delay (ns-2 notation, in ms to the ns): linear from spread's first to its last, or
    uniform in spread's [a, b] drawn from `rng`."""
    if "uniform" in spread:
        low, high = map(seconds, spread["uniform"])
        return [f"{round(rng.uniform(low, high) * 1e3, 6)!r}ms" for _ in range(count)]
    first, last = seconds(spread["first"]), seconds(spread["last"])
    steps = max(count - 1, 1)
    return [f"{round((first + (last - first) * i / steps) * 1e3, 6)!r}ms" for i in range(count)]


def flow_endpoints(endpoints: Any, count: int, nodes: int, rng: random.Random) -> list[dict]:
    """Each wireless flow's source_node and sink_node: fixed ([s, d], -1 the last node) or random (ordered pairs of
    two different nodes, uniform)."""
    if endpoints == "random":
        pairs = []
        for _ in range(count):
            source = int(rng.random() * nodes)
            sink = int(rng.random() * (nodes - 1))
            pairs.append((source, sink + (sink >= source)))  # uniform over the other nodes
    else:
        pairs = [tuple(nodes - 1 if end == -1 else end for end in endpoints)] * count
    return [{"source_node": source, "sink_node": sink} for source, sink in pairs]


def resolve_tracks(topology: dict, duration: float, seed: int) -> list[dict]:
    """A wireless topology's node tracks (initial positions and setdest moves), from its placement."""
    placement, nodes, (max_x, max_y) = topology["placement"], topology["nodes"], topology["area"]
    if "line" in placement:
        line = placement["line"]
        return mobility.line(nodes, line["spacing"], y=line.get("y", max_y / 2), x0=line.get("x0", 0))
    model = placement["random_waypoint"]
    return mobility.random_waypoint(nodes, (max_x, max_y), model["max_speed"], duration, f"mobility:{seed}",
                                    pause=model.get("pause", 0), min_speed=model.get("min_speed", 0))  # fmt: skip


def resolve_wireless(topology: dict, duration: float, seed: int) -> dict:
    """params.json's wireless topology: the placement resolved into tracks."""
    resolved = {key: copy.deepcopy(value) for key, value in topology.items() if key not in ("nodes", "placement")}
    resolved["mac"] = _ns_object(topology.get("mac", {"class": "Mac/802_11"}))
    resolved["tracks"] = resolve_tracks(topology, duration, seed)
    return resolved


def resolve_flows(groups: dict, seed: int, edge_link: dict | None, queues: dict, nodes: int = 0) -> list[dict]:
    """Flow groups to numbered flows. Random start times come from the run's seed, group by group in file order;
    random wireless endpoints and random access-link delays each from a stream of their own, so that they leave
    the start times unchanged."""
    rng = random.Random(seed)
    ends_rng = random.Random(f"endpoints:{seed}")
    delays_rng = random.Random(f"edge_delays:{seed}")
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
        shared = {key: group[key] for key in ("enter", "leave", "stop") if key in group}  # every flow of the group
        if "edge_link" in group or "edge_delays" in group:
            link = {**edge_link, **group.get("edge_link", {})}
            link["queue"] = resolve_queue(link["queue"], queues)
            shared["edge_link"] = link
        starts = start_times(group["start"], group["count"], rng)
        ends = [{}] * len(starts)
        if "endpoints" in group:
            ends = flow_endpoints(group["endpoints"], group["count"], nodes, ends_rng)
        if "edge_delays" in group:
            delays = edge_delays(group["edge_delays"], group["count"], delays_rng)
            link = shared["edge_link"]
            ends = [{**end, "edge_link": {**link, "delay": d}} for end, d in zip(ends, delays, strict=True)]
        for start, end in zip(starts, ends, strict=True):
            flows.append(
                {
                    "fid": len(flows) + 1,
                    "group": name,
                    "kind": group["kind"],
                    "start": start,
                    **copy.deepcopy({**roles, "agent": agent}),
                    **copy.deepcopy(shared),
                    **end,
                }
            )
    return flows


@functools.cache
def _definition_validator(definition: str) -> jsonschema.Draft202012Validator:
    full = schema()
    return jsonschema.Draft202012Validator({**full["$defs"][definition], "$defs": full["$defs"]})


@functools.lru_cache(maxsize=1 << 16)
def _schema_error(definition: str, text: str) -> str | None:
    """describe_error of the best-matching schema error of a value (given as its canonical JSON), None if valid.
    Cached: the cells of a sweep repeat the same queues and, across readings and seeds, the same scenarios, and
    validating each copy anew took most of a large file's planning time."""
    error = jsonschema.exceptions.best_match(_definition_validator(definition).iter_errors(json.loads(text)))
    return None if error is None else describe_error(error)


def _validate_scenario(scenario: dict, queues: dict, where: str, source: Path) -> None:
    """The scenario and named queues after a cell's levels are applied must still be valid."""
    for part, value, definition in [("scenario", scenario, "scenario")] + [
        (f"queues.{name}", queue, "ns_object") for name, queue in queues.items()
    ]:
        error = _schema_error(definition, canonical_json(value).decode())
        if error is not None:
            raise ConfigError(f"{source}: {where}: with this level applied, {part}.{error}")
    check_scenario(scenario, f"{where}: with this level applied, scenario", source)
    for name, queue in queues.items():
        check_queue(queue, f"{where}: with this level applied, queues.{name}", source)
    topology = scenario["topology"]
    inline = {
        "core_queue": scenario.get("core_queue"),
        "topology.edge_link.queue": topology.get("edge_link", {}).get("queue"),
    }
    inline |= {
        f"topology.core_links[{i}].queue": link.get("queue") for i, link in enumerate(topology.get("core_links", []))
    }
    for at, ref in inline.items():
        if isinstance(ref, dict):  # a class with knobs written in place (a name is one of `queues`, checked above)
            check_queue(ref, f"{where}: with this level applied, scenario.{at}", source)


def resolve_params(exp: dict, seed: int, scenario: dict, queues: dict) -> dict:
    """A run's params.json. It names nothing (no paper, experiment, level label or reading): a run's key hashes
    what changes its bytes, so renaming a level or moving an experiment to another file re-simulates nothing."""
    nodes = 0
    if scenario["topology"]["kind"] == "wireless":
        topology = resolve_wireless(scenario["topology"], float(exp["duration"]), seed)
        nodes = len(topology["tracks"])
    else:
        topology = copy.deepcopy(scenario["topology"])
        edge_queue = topology["edge_link"].get("queue", {"class": "Queue/DropTail"})
        topology["edge_link"]["queue"] = resolve_queue(edge_queue, queues)
        for link in topology.get("core_links", []):
            if "queue" in link:
                link["queue"] = resolve_queue(link["queue"], queues)
    return {
        "schema": PARAMS_SCHEMA,
        "seed": seed,
        "duration": float(exp["duration"]),
        "topology": topology,
        "core_queue": resolve_queue(scenario["core_queue"], queues),
        "flows": resolve_flows(scenario["flows"], seed, topology.get("edge_link"), queues, nodes),
        "monitors": copy.deepcopy(scenario["monitors"]),
        **(
            {"core_reverse_queue": resolve_queue(scenario["core_reverse_queue"], queues)}
            if "core_reverse_queue" in scenario
            else {}
        ),
    }


@dataclass(frozen=True)
class Cell:
    labels: dict  # axis name -> level label, in axis order
    levels: tuple  # each level's {dotted path: value}, in the matrix's order


def covering_cells(cells: list[Cell]) -> list[Cell]:
    """A subset of `cells`, in their order, holding every level of every axis at least once: greedily the cell with
    the most levels not yet held (the earliest on a tie) until none is left. For a product of axes that is about as
    many cells as its longest axis has levels instead of their product: enough to check a reading's wiring at every
    level, not to judge its claims."""

    def levels(cell: Cell) -> set[tuple[str, str]]:
        return {(axis, label_text(label)) for axis, label in cell.labels.items()}

    unheld = set().union(*map(levels, cells))
    chosen: set[int] = set()
    while cells and (unheld or not chosen):  # an experiment without axes: its one cell
        best = max(range(len(cells)), key=lambda i: (len(levels(cells[i]) & unheld), -i))
        chosen.add(best)
        unheld -= levels(cells[best])
    return [cells[i] for i in sorted(chosen)]


class Expansion:
    """The runs of one experiment under one reading, in a stable order (cell by cell, seeds within a cell), without
    resolving them all: counting and checking cost one step per matrix cell, and a slice (a batch) resolves only its
    own runs. A 100,000-run sweep of a few hundred cells plans in seconds (bench/plan_scale.py).

    Under a `reading` (an alternative of the open choices), its values are applied after each cell's levels, in the
    cells where claims are judged (an axis that is itself a reading stays at its baseline level). A cell the
    reading does not change (e.g. a queue knob in a cell with another queue) keeps the baseline's params, hence its
    key and its run: a reading never re-runs what the baseline ran.

    `each_level` (a reading only; the smoke profile's `reading_cells: each_level`): run only a subset of the cells
    in which every level of every axis appears (covering_cells); check() still checks every cell.
    """

    def __init__(
        self, doc: dict, source: Path | str, experiment: str, reading: Reading | None = None, each_level: bool = False
    ):
        self.doc, self.source, self.experiment = doc, source, experiment
        self.exp = doc["experiments"][experiment]
        self.reading = reading if reading is not None and not reading.is_baseline else None
        self.reading_label = reading.label if reading is not None else BASELINE
        axes = list(axes_of(self.exp))
        judged_at = reading_axes(doc, experiment) if self.reading else {}
        self.cells = []
        for cell in cells(self.exp):
            labels = {name: label for name, label, _ in sorted(cell, key=lambda entry: axes.index(entry[0]))}
            if all(label_text(labels[axis]) == label_text(level) for axis, level in judged_at.items()):
                self.cells.append(Cell(labels, tuple(sets for _, _, sets in cell)))
        self.checked = self.cells
        if self.reading and each_level:
            self.cells = covering_cells(self.cells)
        self.first, self.seeds = self.exp["seeds"]["first"], self.exp["seeds"]["count"]

    def __len__(self) -> int:
        return len(self.cells) * self.seeds

    def _where(self, cell: Cell) -> str:
        return f"experiments.{self.experiment} at " + ", ".join(f"{k}={v}" for k, v in cell.labels.items())

    def applied(self, cell: Cell) -> tuple[dict, dict]:
        """The cell's (scenario, queues) with its levels and then the reading's values applied, checked. A cell
        the reading does not change resolves to the baseline's params, hence the baseline's key and run."""
        levels = [*cell.levels, self.reading.assignments_at(cell.labels)] if self.reading else list(cell.levels)
        under = f" under reading {self.reading_label}" if self.reading else ""
        return _applied(self.doc, self.exp, levels, self._where(cell) + under, self.source)

    def check(self) -> None:
        """Every cell's scenario valid with its levels (and the reading) applied; ConfigError on the first that is
        not."""
        for cell in self.checked:
            if self.reading:  # the levels alone first, so that an error names the reading only when it is the cause
                _applied(self.doc, self.exp, list(cell.levels), self._where(cell), self.source)
            self.applied(cell)

    def _positions(self, start: int, stop: int):
        for index in range(max(start, 0), min(stop, len(self))):
            yield self.cells[index // self.seeds], self.first + index % self.seeds

    def runs(self, start: int = 0, stop: int | None = None) -> list[Run]:
        """The runs at positions [start, stop), their params resolved."""
        out, current, applied = [], None, None
        for cell, seed in self._positions(start, len(self) if stop is None else stop):
            if cell is not current:
                current, applied = cell, self.applied(cell)
            params = resolve_params(self.exp, seed, *applied)
            out.append(Run(self.doc["paper"], self.experiment, cell.labels, seed, params, self.reading_label))
        return out

    def contexts(self, start: int = 0, stop: int | None = None) -> list[dict]:
        """The aggregated columns of the runs at positions [start, stop), without resolving them."""
        return [run_context(self.doc["paper"], self.experiment, cell.labels, seed, self.reading_label)
                for cell, seed in self._positions(start, len(self) if stop is None else stop)]  # fmt: skip

    def identity(self, start: int, stop: int) -> str:
        """A digest of what decides the params of the runs at [start, stop): the experiment's scenario and
        duration, the file's named queues, the reading's values and each run's levels and seed. Names (paper,
        experiment, labels) stay out, so renaming them does not touch a batch; code changes reach the batch
        through its rule's inputs."""
        material = {
            "scenario": self.exp["scenario"],
            "duration": self.exp["duration"],
            "queues": self.doc["queues"],
            "reading": reading_material(self.reading) if self.reading else None,
            "runs": [[cell.levels, seed] for cell, seed in self._positions(start, stop)],
        }
        return hashlib.sha256(canonical_json(material)).hexdigest()[:KEY_LENGTH]


def reading_material(reading: Reading) -> list:
    """What a reading puts in a batch's identity: its assignments and their `where`, then its cases only when it
    has some (so that the identity of every reading without cases stays as it was)."""
    return [reading.assignments, reading.where, *([list(reading.cases)] if reading.cases else [])]


def expand(
    doc: dict, source: Path | str = "<config>", experiments: list[str] | None = None, reading: Reading | None = None
) -> list[Run]:
    """All runs of the (validated, defaulted) experiment file, in a stable order, params resolved (see Expansion)."""
    return [run for name in doc["experiments"] if experiments is None or name in experiments
            for run in Expansion(doc, source, name, reading).runs()]  # fmt: skip


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
