"""What the schema cannot say about a scenario, a queue or a flow group: one ConfigError naming the key path."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from experiments.config.bounds import check_run_size
from experiments.config.errors import ConfigError
from experiments.config.units import seconds

GAIMD_KNOBS = ("increase_num_", "decrease_num_", "gaimd_strict_")


WIRELESS_ONLY = ("nodes", "area", "placement", "routing", "mac", "phy", "loss", "radio_range")


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


def check_scenario(scenario: dict, where: str, path: Path, duration: float | None = None) -> None:
    """What the schema cannot say about a scenario; `where` is e.g. 'experiments.x.scenario'. With the run's
    `duration`, its waypoint moves are bounded too (config.bounds)."""
    check_run_size(scenario, where, path, duration)
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
