"""A run's params.json (docs/DESIGN.md §2): the scenario with a cell's levels applied, named queues resolved, flow
groups expanded into numbered flows, a wireless placement into node tracks.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from experiments.config.units import seconds
from experiments.planning import mobility as mobility_mod
from experiments.planning.mobility import random_waypoint

PARAMS_SCHEMA = "ns2-repro/run-params/2"


DEFAULT_APPS = {
    "ftp": "Application/FTP",
    "pareto": "Application/Traffic/Pareto",
    "cbr": "Application/Traffic/CBR",
    "exponential": "Application/Traffic/Exponential",
}


# The HTTP object model's defaults: the PISA/PIMC thesis' values (§3.1, §4.7).
HTTP_DEFAULTS = {
    "mean_bytes": 10000,
    "shape": 1.2,
    "min_bytes": 1000,
    "max_bytes": 2000000,
    "bound": "resample",
    "idle": 0.5,
}


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
        return mobility_mod.line(nodes, line["spacing"], y=line.get("y", max_y / 2), x0=line.get("x0", 0))
    model = placement["random_waypoint"]
    return random_waypoint(
        nodes,
        (max_x, max_y),
        model["max_speed"],
        duration,
        f"mobility:{seed}",
        pause=model.get("pause", 0),
        min_speed=model.get("min_speed", 0),
    )


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
