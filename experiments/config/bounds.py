"""How much work a file may ask for, counted from its numbers before anything is built: the matrix cells validation
and planning check (each reading's too), the runs, and one run's flows, wireless nodes and waypoint moves.

Each limit is ten times or more what the largest shipped file asks (tests/experiments/test_bounded_input.py
measures them, docs/RELIABILITY.md lists them), and far below what exhausts a machine's memory or an afternoon: a
file of a kilobyte can name millions of cells or flows, which were built in Python before anything refused them.
"""

from __future__ import annotations

import math
from pathlib import Path

from experiments.config.axes import level_labels
from experiments.config.errors import ConfigError

# Matrix cells checked by validation and planning, every reading's included (each check applies the cell's levels
# and validates the scenario).
MAX_CELL_CHECKS = 200_000
# Readings (alternatives and interactions' combinations): an interaction multiplies its choices' alternatives.
MAX_READINGS = 2_000
# Runs of a file on the profile that runs the most (seeds.count or seeds.paper): each is a params.json, a run
# directory and a share of a Snakemake job.
MAX_RUNS = 2_000_000
# Flows of one run (every group's count): each is a list entry of params.json built in Python, then ns-2 nodes.
MAX_FLOWS = 10_000
# Nodes of one wireless run: ns-2's wireless channel and the hop counts are quadratic in nodes.
MAX_WIRELESS_NODES = 1_000
# Waypoint moves of one run, as expected from its speed, pause, area and duration: each is drawn in Python, a
# list in params.json and a Tcl event.
MAX_WAYPOINT_MOVES = 100_000


def matrix_cells(experiment: dict) -> int:
    """The experiment's cells: the product of its product axes' level counts and of its zip groups' (the longest
    axis of a group, so that an unequal group is counted before it is refused)."""
    matrix = experiment.get("matrix", {})
    count = math.prod(len(level_labels(axis)) for axis in matrix.get("product", {}).values())
    for group in matrix.get("zip", []):
        count *= max((len(level_labels(axis)) for axis in group.values()), default=1)
    return count


def reading_count(doc: dict) -> int:
    """An upper bound of the readings that need runs (config.readings.run_readings), counted without building any:
    each path choice's alternatives, and the product of them over each interaction of two or more path choices."""
    alternatives = {
        c["id"]: len(c["alternatives"])
        for c in doc.get("choices", [])
        if "alternatives" in c and not any("metrics" in alt for alt in c["alternatives"])
    }
    count = sum(alternatives.values())
    for ids in doc.get("interactions", []):
        named = [alternatives[cid] for cid in ids if cid in alternatives]
        if len(named) >= 2:
            count += math.prod(named)
    return count


def check_file_size(doc: dict, path: Path) -> None:
    """The file's cells, readings, cell checks and runs within the limits; run before anything builds a cell."""
    cells = {name: matrix_cells(exp) for name, exp in doc["experiments"].items()}
    readings = reading_count(doc)
    if readings > MAX_READINGS:
        raise ConfigError(
            f"{path}: choices: {readings:,} readings to run (alternatives, and the products of the interactions' "
            f"alternatives); allowed: at most {MAX_READINGS:,}"
        )
    judged = sum(count for name, count in cells.items() if any(c["experiment"] == name for c in doc.get("claims", [])))
    checks = sum(cells.values()) + readings * judged
    if checks > MAX_CELL_CHECKS:
        largest = max(cells, key=cells.get)
        raise ConfigError(
            f"{path}: experiments: {checks:,} matrix cells to check ({sum(cells.values()):,} cells, the most "
            f"{cells[largest]:,} in experiments.{largest}.matrix, and {readings:,} readings of the judged ones); "
            f"allowed: at most {MAX_CELL_CHECKS:,}"
        )
    runs = {
        name: cells[name] * max(exp["seeds"]["count"], exp["seeds"].get("paper", 0))
        for name, exp in doc["experiments"].items()
    }
    if sum(runs.values()) > MAX_RUNS:
        largest = max(runs, key=runs.get)
        raise ConfigError(
            f"{path}: experiments: {sum(runs.values()):,} runs (cells times seeds.count or seeds.paper; the most "
            f"{runs[largest]:,} in experiments.{largest}); allowed: at most {MAX_RUNS:,}"
        )


def check_run_size(scenario: dict, where: str, path: Path, duration: float | None) -> None:
    """One run's flows, wireless nodes and expected waypoint moves within the limits; `where` is the scenario's
    key path."""
    flows = sum(group.get("count", 1) for group in scenario["flows"].values())
    if flows > MAX_FLOWS:
        raise ConfigError(
            f"{path}: {where}.flows: {flows:,} flows in one run (the groups' counts); allowed: at most {MAX_FLOWS:,}"
        )
    topology = scenario["topology"]
    if topology["kind"] != "wireless":
        return
    nodes = topology["nodes"]
    if nodes > MAX_WIRELESS_NODES:
        raise ConfigError(
            f"{path}: {where}.topology.nodes: {nodes:,} nodes; allowed: at most {MAX_WIRELESS_NODES:,} per run"
        )
    waypoint = topology["placement"].get("random_waypoint")
    if waypoint is not None and duration is not None:
        moves = waypoint_moves(nodes, topology["area"], waypoint, duration)
        if moves > MAX_WAYPOINT_MOVES:
            raise ConfigError(
                f"{path}: {where}.topology.placement.random_waypoint: about {moves:,.0f} moves in {duration:g} s "
                f"(nodes x duration / (pause + a trip at max_speed)); allowed: at most {MAX_WAYPOINT_MOVES:,} "
                "(a lower max_speed, a longer pause or fewer nodes)"
            )


def waypoint_moves(nodes: int, area: list, waypoint: dict, duration: float) -> float:
    """About the most moves random waypoint makes (planning.mobility): a trip between uniform points of the area
    is on average at least a third of its longer side (the mean distance along it), at most max_speed fast."""
    trip = max(area) / 3 / waypoint["max_speed"] + waypoint.get("pause", 0)
    return nodes * (duration / trip + 1)
