"""Expanding an experiment into runs, each with fully resolved parameters.

A run is one cell of an experiment's matrix (product axes crossed; each zip group's axes advancing together)
times one seed, under a reading (the baseline, or an alternative of the file's open choices). Its parameters are
planning.params': the scenario with the cell's levels (and the reading's values) applied.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import jsonschema

from experiments.common.files import canonical_json
from experiments.config.axes import axes_of, cells, label_text
from experiments.config.errors import ConfigError
from experiments.config.paths import apply_levels
from experiments.config.readings import BASELINE, Reading, reading_axes
from experiments.config.scenario_checks import check_queue, check_scenario
from experiments.config.schema import describe_error, schema
from experiments.planning.params import resolve_params
from experiments.planning.runkey import KEY_LENGTH


@dataclass(frozen=True)
class Run:
    paper: str
    experiment: str
    labels: dict  # axis name -> level label, in axis order
    seed: int
    params: dict  # the run's params.json: what decides its bytes, nothing that names it
    reading: str = BASELINE  # the choices' reading it runs under (experiments.config.readings)

    @property
    def context(self) -> dict:
        """The columns every aggregated row of this run carries (besides run_key); `reading` only off the baseline."""
        return run_context(self.paper, self.experiment, self.labels, self.seed, self.reading)


def run_context(paper: str, experiment: str, labels: dict, seed: int, reading: str = BASELINE) -> dict:
    extra = {} if reading == BASELINE else {"reading": reading}
    return {"paper": paper, "experiment": experiment, **labels, **extra, "seed": seed}


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


def _validate_scenario(scenario: dict, queues: dict, where: str, source: Path, duration: float) -> None:
    """The scenario and named queues after a cell's levels are applied must still be valid."""
    for part, value, definition in [("scenario", scenario, "scenario")] + [
        (f"queues.{name}", queue, "ns_object") for name, queue in queues.items()
    ]:
        error = _schema_error(definition, canonical_json(value).decode())
        if error is not None:
            raise ConfigError(f"{source}: {where}: with this level applied, {part}.{error}")
    check_scenario(scenario, f"{where}: with this level applied, scenario", source, duration)
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


def _cell_key(labels: dict) -> tuple:
    return tuple(sorted((axis, label_text(label)) for axis, label in labels.items()))


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

    def added_seeds(self, cells: list[dict], first: int, count: int) -> Expansion:
        """The runs a seeding round adds (verdicts.seeding): seeds [first, first + count) in the named cells only
        (each {axis: label_text}), in the order of this expansion's cells. ConfigError for a cell it does not hold
        (a schedule written for another file)."""
        wanted = {_cell_key(labels) for labels in cells}
        held = {_cell_key(cell.labels): cell for cell in self.cells}
        unknown = wanted - held.keys()
        if unknown:
            raise ConfigError(f"{self.source}: experiments.{self.experiment} has no cell {dict(min(unknown))}")
        added = copy.copy(self)
        added.cells = [cell for key, cell in held.items() if key in wanted]
        added.first, added.seeds = first, count
        return added

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
        return [
            run_context(self.doc["paper"], self.experiment, cell.labels, seed, self.reading_label)
            for cell, seed in self._positions(start, len(self) if stop is None else stop)
        ]

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
    return [
        run
        for name in doc["experiments"]
        if experiments is None or name in experiments
        for run in Expansion(doc, source, name, reading).runs()
    ]


def _applied(doc: dict, exp: dict, levels: list[dict], where: str, source: Path | str) -> tuple[dict, dict]:
    """The experiment's scenario and the file's named queues with the levels applied, checked."""
    scenario, queues = apply_levels(exp["scenario"], doc["queues"], levels)
    _validate_scenario(scenario, queues, where, Path(source), exp["duration"])
    return scenario, queues
