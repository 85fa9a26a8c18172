"""Every reference of an experiment file checked before any run: metrics, figure and table entries, ns-2 classes
and knobs. `check` raises one ConfigError (one line: the file, the key path, what is allowed) for the first problem.

config.load has already checked the schema, named queues, matrix paths and the `where` of claims, figures and
tables; this module adds what needs the metric registry, the figure modules' source or the ns binary.

"""

from __future__ import annotations

import ast
import difflib
import inspect
import json
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

from experiments.config.axes import axes_of, axis_levels, cells, label_text, level_labels
from experiments.config.errors import ConfigError
from experiments.config.notes import note_placeholders
from experiments.config.paths import apply_levels
from experiments.config.preconditions import claim_where
from experiments.config.readings import Reading, experiments_of, is_measure_choice, run_readings
from experiments.config.tolerances import describe_tolerance, within
from experiments.measure.registry import (
    ALL,
    CORE_LOG,
    CORE_VAR_WINDOWS_S,
    HTTP_FLOWS,
    LINK,
    LOSS_MONITOR,
    NEEDS,
    PACKET_TRACE,
    QUEUE_VARS,
    TCP_FLOWS,
    TEXT_TRACE,
    WIRELESS,
    can_be_zero,
    lookup,
    names,
    scope_kind,
)
from experiments.paper_models.quantities import QUANTITIES
from experiments.planning.params import DEFAULT_APPS, gaimd_knobs
from experiments.references.ns_knobs import KnobCatalog, KnobQueryError

REPO = Path(__file__).resolve().parents[2]


DEFAULT_NS = REPO / "build" / "ns2" / "ns"


# Per-run tables a distribution figure may read (`table:`) and what the run needs to have each.
RUN_TABLES = {
    "queue": (),
    "hops": (PACKET_TRACE,),
    "journeys": (PACKET_TRACE,),
    "flow_sums": (TEXT_TRACE,),
    "flows": (TCP_FLOWS,),
    "objects": (HTTP_FLOWS,),
    "core_bins": (CORE_LOG,),
    "core_drops": (CORE_LOG,),
    "core_delays": (CORE_LOG,),
}


# The base class of each role of a flow group, per kind: tcl/lib/traffic.tcl's FLOW_KINDS.
FLOW_BASES = {
    "ftp": {"agent": "Agent/TCP", "sink": "Agent/TCPSink", "app": "Application/FTP"},
    "pareto": {"agent": "Agent/UDP", "sink": "Agent", "app": "Application/Traffic/Pareto"},
    "cbr": {"agent": "Agent/UDP", "sink": "Agent", "app": "Application/Traffic/CBR"},
    "exponential": {"agent": "Agent/UDP", "sink": "Agent", "app": "Application/Traffic/Exponential"},
    "http": {"agent": "Agent/TCP", "sink": "Agent/TCPSink"},
}


_FLOW_KIND_OF_NEED = {TCP_FLOWS: "ftp", HTTP_FLOWS: "http"}


def check(doc: dict, path: str | Path, ns_binary: Path | None) -> None:
    """Check a loaded experiment file (config.load's result); ConfigError for the first bad reference.

    Without an ns binary (None, or not built yet) the knob names are not checked; one line on stderr says so.
    """
    path = Path(path)
    experiments = doc["experiments"]
    for index, claim in enumerate(doc.get("claims", [])):
        where = claim_where(doc, index)
        exp = experiments[claim["experiment"]]
        scenario = scenario_at(exp, claim.get("where", {}))
        check_metric(claim["metric"], claim.get("scope", "all"), scenario, exp, f"{where}.metric", path)
        if claim["kind"] == "slope":
            check_metric(claim["per"], claim.get("scope", "all"), scenario, exp, f"{where}.per", path)
        for metric, narrow in note_placeholders(claim.get("note", "")):
            check_placeholder(metric, narrow, claim, exp, f"{where}.note: {{{{{metric}}}}}", path)
        check_claim_default_levels(claim, exp, where, path)
        check_zero_passes(claim, where, path)
    check_measure_alternatives(doc, path)
    check_path_alternatives(doc, path)
    check_model_checks(doc, path)
    for section in ("figures", "tables"):
        for index, artifact in enumerate(doc.get(section, [])):
            check_artifact(artifact, doc, f"{section}[{index}]", path)
    if ns_binary is None or not Path(ns_binary).is_file():
        missing = ns_binary or DEFAULT_NS
        print(
            f"note: {path}: no ns binary at {missing} (`make ns2`); class and knob names not checked", file=sys.stderr
        )
        return
    check_knobs(doc, path, Path(ns_binary))


def check_model_checks(doc: dict, path: Path) -> None:
    """Each model check names a quantity of paper_models.quantities and gives exactly its arguments; its id is no
    claim's (the report links both by id)."""
    claims = {c["id"] for c in doc.get("claims", [])}
    seen: set[str] = set()
    for index, check in enumerate(doc.get("model_checks", [])):
        where = f"model_checks[{index}]"
        if check["id"] in claims or check["id"] in seen:
            raise ConfigError(f"{path}: {where}.id: '{check['id']}' is already a claim's or a model check's id")
        seen.add(check["id"])
        function = QUANTITIES.get(check["quantity"])
        if function is None:
            raise ConfigError(
                f"{path}: {where}.quantity: unknown quantity '{check['quantity']}'; allowed: {', '.join(QUANTITIES)}"
            )
        wanted = list(inspect.signature(function).parameters)
        if sorted(check["args"]) != sorted(wanted):
            raise ConfigError(
                f"{path}: {where}.args: {', '.join(sorted(check['args'])) or 'none'} given; "
                f"{check['quantity']} takes {', '.join(wanted)}"
            )


def check_zero_passes(claim: dict, where: str, path: Path) -> None:
    """A value claim whose pass band holds 0, on a metric that can be 0, would pass a run where nothing happened (a
    link that carried nothing, a mechanism that never acted): refused unless the claim says why a 0 agrees with the
    paper (`zero_passes`)."""
    if claim["kind"] != "value" or "zero_passes" in claim or not can_be_zero(claim["metric"]):
        return
    if within(0.0, claim["expected"], claim["pass"]):
        raise ConfigError(
            f"{path}: {where}.pass: {describe_tolerance(claim['pass'])} around {claim['expected']:g} passes a measured "
            f"0 of {claim['metric']}; allowed: a pass band that leaves 0 out, or zero_passes: why a 0 agrees with "
            "the paper"
        )


def check_measure_alternatives(doc: dict, path: Path) -> None:
    """Each `metrics` entry of a measure choice's alternative replaces a metric some claim reads, by a metric
    that exists in that claim's scope and whose needs its runs meet."""
    for index, choice in enumerate(doc.get("choices", [])):
        if not is_measure_choice(choice):
            continue
        for a, alt in enumerate(choice["alternatives"]):
            where = f"choices[{index}].alternatives[{a}].metrics"
            for old, new in alt["metrics"].items():
                claims = [c for c in doc.get("claims", []) if c["metric"] == old]
                if not claims:
                    read = sorted({c["metric"] for c in doc.get("claims", [])})
                    raise ConfigError(f"{path}: {where}: no claim reads '{old}'; claims read: {', '.join(read)}")
                for claim in claims:
                    exp = doc["experiments"][claim["experiment"]]
                    scenario = scenario_at(exp, claim.get("where", {}))
                    check_metric(new, claim.get("scope", "all"), scenario, exp, f"{where}.{old}", path)


def check_path_alternatives(doc: dict, path: Path) -> None:
    """Each alternative that makes runs changes some experiment a claim reads: one that changes none would leave
    the sensitivity table silent about it (e.g. a choice naming only experiments whose claims read a twin)."""
    for index, choice in enumerate(doc.get("choices", [])):
        if "alternatives" not in choice or "axis" in choice or is_measure_choice(choice):
            continue
        for alternative in choice["alternatives"]:
            reading = Reading(label=choice["id"], choices=((choice["id"], alternative["label"]),))
            if not experiments_of(doc, reading):
                named = choice.get("experiments", "every experiment whose scenario has its paths")
                raise ConfigError(
                    f"{path}: choices[{index}] ({choice['id']}): its alternatives change no experiment a claim reads "
                    f"('{alternative['label']}' none; experiments: {named}); allowed: name, in `experiments`, those "
                    "whose claims it should test"
                )


def scenario_at(experiment: dict, where: dict) -> dict:
    """The scenario a claim or figure reads: the baseline with the levels its `where` fixes to one label applied.

    A metric's needs (packet trace, core_log, flow kinds) are judged on it. A matrix level may turn a
    need on or off; an axis the entry leaves free is judged by the baseline scenario, since its levels
    differ from run to run.
    """
    axes = axes_of(experiment)
    levels = [
        sets
        for name, label in where.items()
        if not isinstance(label, list)  # a list of labels leaves the axis free among them
        for level, sets in axis_levels(axes[name])
        if label_text(level) == label_text(label)
    ]
    return apply_levels(experiment["scenario"], {}, levels)[0]


def check_metric(name: str, scope: str, scenario: dict, experiment: dict, where: str, path: Path) -> None:
    """The metric exists, has the scope, and the scenario gives the runs what it needs."""
    metric = lookup(name)
    if metric is None:
        near = difflib.get_close_matches(name, names(), n=1, cutoff=0.6)
        hint = f"did you mean '{near[0]}'? " if near else ""
        raise ConfigError(
            f"{path}: {where}: unknown metric '{name}'; {hint}known: the metrics of `python -m experiments metrics`"
        )
    kind = scope_kind(scope)
    if kind not in metric.scopes:
        copy = f"bottleneck_{name}"
        hint = f" (core0's as scope all: '{copy}')" if kind == ALL and lookup(copy) else ""
        raise ConfigError(
            f"{path}: {where}: {name} has no scope '{scope}'{hint}; its scopes: {', '.join(metric.scopes)}"
        )
    if kind == LINK:
        _check_link(scope, scenario, name, where, path)
    if metric.name == "core_drops_per_s_var@<a>-<b>":
        _check_variance_window(name, experiment["duration"], where, path)
    # a link metric's family and its bottleneck_ copy (scope all) are measured alike
    family, link_name = metric.name.removeprefix("bottleneck_"), name.removeprefix("bottleneck_")
    if family == "queue_pkts_in_<a>_<b>_pct":
        _check_queue_range(name, link_name, experiment.get("queue_ranges", []), where, path)
    if family == "qvar_<name>_mean":
        _check_queue_var(name, link_name, scenario, where, path)
    if family == "queue_ave_settle_<level>_s@<t0>":
        _check_queue_var(name, "qvar_ave_mean", scenario, where, path)
        _check_settle(name, link_name, experiment.get("settle", []), where, path)
    if family.startswith("fec_"):
        _check_fec_block(name, experiment.get("fec_blocks", []), where, path)
    for need in metric.needs:
        _check_need(need, scope, scenario, f"{where}: {name}", path)


def check_placeholder(metric: str, narrow: dict, claim: dict, experiment: dict, where: str, path: Path) -> None:
    """A note's {{metric key=value}}: the metric exists in its scope, each other key is an axis and value a level."""
    narrow = dict(narrow)
    scope = narrow.pop("scope", claim.get("scope", "all"))
    axes = axes_of(experiment)
    for axis, label in narrow.items():
        if axis not in axes:
            raise ConfigError(f"{path}: {where}: '{axis}' is not an axis; axes: {', '.join(axes) or 'none'} (or scope)")
        labels = [str(x) for x in level_labels(axes[axis])]
        if label_text(label) not in map(label_text, level_labels(axes[axis])):
            raise ConfigError(f"{path}: {where}: '{label}' is not a level of {axis}; levels: {', '.join(labels)}")
    scenario = scenario_at(experiment, {**claim.get("where", {}), **narrow})
    check_metric(metric, scope, scenario, experiment, where, path)


def _check_link(scope: str, scenario: dict, name: str, where: str, path: Path) -> None:
    links = scenario["topology"].get("core_nodes", 2) - 1
    if int(scope.removeprefix("core")) >= links:
        raise ConfigError(f"{path}: {where}: {name} of '{scope}': the scenario's core links are core0..core{links - 1}")


def _check_variance_window(name: str, duration: float, where: str, path: Path) -> None:
    start, end = map(int, re.fullmatch(r"core_drops_per_s_var@(\d+)-(\d+)", name).groups())
    length = end - start
    if length not in CORE_VAR_WINDOWS_S or start % length or end > duration:
        raise ConfigError(
            f"{path}: {where}: {name} is not a measured window; allowed: @<a>-<b> with b - a in "
            f"{', '.join(map(str, CORE_VAR_WINDOWS_S))} s, a a multiple of b - a and b <= duration "
            f"({duration:g} s)"
        )


def _check_queue_range(name: str, link_name: str, ranges: list, where: str, path: Path) -> None:
    low, high = map(int, re.fullmatch(r"queue_pkts_in_(\d+)_(\d+)_pct", link_name).groups())
    if [low, high] not in ranges:
        listed = ", ".join(f"queue_pkts_in_{a}_{b}_pct" for a, b in ranges) or "none (no queue_ranges)"
        raise ConfigError(
            f"{path}: {where}: {name}: [{low}, {high}] is not in the experiment's queue_ranges; measured: {listed}"
        )


def _check_fec_block(name: str, codes: list, where: str, path: Path) -> None:
    k, h = map(int, re.fullmatch(r"fec_\D+_(\d+)_(\d+)(_pct)?", name).groups()[:2])
    if [k, h] not in codes:
        listed = ", ".join(f"[{a}, {b}]" for a, b in codes) or "none (no fec_blocks)"
        raise ConfigError(
            f"{path}: {where}: {name}: [{k}, {h}] is not in the experiment's fec_blocks; measured: {listed}"
        )


def _is_loss_monitor(group: dict) -> bool:
    sink = group["sink"]["class"] if isinstance(group["sink"], dict) else group["sink"]
    return sink == "Agent/LossMonitor" or sink.startswith("Agent/LossMonitor/")


def _check_settle(name: str, link_name: str, settle: list, where: str, path: Path) -> None:
    level, t0 = map(float, re.fullmatch(r"queue_ave_settle_([\d.]+)_s@([\d.]+)", link_name).groups())
    if not any(float(a) == t0 and float(b) == level for a, b in settle):
        listed = ", ".join(f"queue_ave_settle_{b:g}_s@{a:g}" for a, b in settle) or "none (no settle)"
        raise ConfigError(
            f"{path}: {where}: {name}: [{t0:g}, {level:g}] is not in the experiment's settle; measured: {listed}"
        )


def _check_queue_var(name: str, link_name: str, scenario: dict, where: str, path: Path) -> None:
    sampled = scenario.get("monitors", {}).get("queue_vars", [])
    stems = {f"qvar_{var.rstrip('_')}_mean": var for var in sampled}  # as measure.links.queue_var_name
    if link_name not in stems:
        raise ConfigError(
            f"{path}: {where}: {name} needs {NEEDS[QUEUE_VARS]}; measured: "
            f"{', '.join(sorted(stems)) or 'none (the scenario has no monitors.queue_vars)'}"
        )


def _check_need(need: str, scope: str, scenario: dict, what: str, path: Path) -> None:
    monitors = scenario.get("monitors", {})
    if need == PACKET_TRACE and not monitors.get("packet_trace", True):
        raise ConfigError(f"{path}: {what} needs {NEEDS[need]}; the scenario has monitors.packet_trace false")
    if need == TEXT_TRACE and monitors.get("packet_trace", True) != "text":
        packet_trace = json.dumps(monitors.get("packet_trace", True))
        raise ConfigError(f"{path}: {what} needs {NEEDS[need]}; the scenario has monitors.packet_trace {packet_trace}")
    if need == WIRELESS and scenario["topology"]["kind"] != "wireless":
        kind = scenario["topology"]["kind"]
        raise ConfigError(f"{path}: {what} needs {NEEDS[need]}; the topology is {kind}")
    if need == CORE_LOG and "core_log" not in monitors:
        raise ConfigError(f"{path}: {what} needs {NEEDS[need]}; the scenario's monitors have no core_log")
    if need == LOSS_MONITOR:
        groups = scenario["flows"]
        if scope.startswith("group:"):
            group = scope.removeprefix("group:")
            if group in groups and not _is_loss_monitor(groups[group]):
                raise ConfigError(f"{path}: {what} of {scope} needs its sink to be an Agent/LossMonitor")
        elif not any(_is_loss_monitor(group) for group in groups.values()):
            raise ConfigError(f"{path}: {what} needs {NEEDS[need]}; no flow group's sink is one")
    if need in _FLOW_KIND_OF_NEED:
        kind, groups = _FLOW_KIND_OF_NEED[need], scenario["flows"]
        if scope.startswith("group:"):
            group = scope.removeprefix("group:")
            if group in groups and groups[group]["kind"] != kind:
                raise ConfigError(
                    f"{path}: {what} of {scope} needs a flow group of kind {kind}; '{group}' is {groups[group]['kind']}"
                )
        elif not any(group["kind"] == kind for group in groups.values()):
            raise ConfigError(f"{path}: {what} needs {NEEDS[need]}; the scenario has no flow group of kind {kind}")


def check_artifact(artifact: dict, doc: dict, where: str, path: Path) -> None:
    exp_name = artifact["experiment"]
    reference = artifact.get("reference")
    if reference is not None and (reference not in doc["experiments"] or reference == exp_name):
        raise ConfigError(
            f"{path}: {where}.reference: '{reference}' is not another experiment of the file; "
            f"known: {', '.join(e for e in doc['experiments'] if e != exp_name)}"
        )
    experiment = doc["experiments"][exp_name]
    axes = axes_of(experiment)
    for key in ("x", "hue", "panels", "rows", "columns"):
        if key in artifact and artifact[key] not in axes:
            raise ConfigError(
                f"{path}: {where}.{key}: '{artifact[key]}' is not an axis of {exp_name}; "
                f"axes: {', '.join(axes) or 'none'}"
            )
    _check_levels(artifact, axes, exp_name, where, path)
    _check_function(artifact, doc["paper"], where, path)
    groups = experiment["scenario"]["flows"]
    scope = artifact.get("scope", "all")
    if scope != "all" and scope not in groups:
        raise ConfigError(
            f"{path}: {where}.scope: '{scope}' is not a flow group of {exp_name}; allowed: all, {', '.join(groups)}"
        )
    scenario = scenario_at(experiment, artifact.get("where", {}))
    metric_scope = "all" if scope == "all" else f"group:{scope}"
    if "metric" in artifact:
        check_metric(artifact["metric"], metric_scope, scenario, experiment, f"{where}.metric", path)
    for index, (metric, _, _) in enumerate(artifact.get("metrics", [])):
        check_metric(metric, metric_scope, scenario, experiment, f"{where}.metrics[{index}]", path)
    for index, var in enumerate(artifact.get("overlay", [])):
        sampled = scenario.get("monitors", {}).get("queue_vars", [])
        if var not in sampled:
            raise ConfigError(
                f"{path}: {where}.overlay[{index}]: '{var}' is not sampled by {exp_name}'s monitors.queue_vars; "
                f"sampled: {', '.join(sampled) or 'none'}"
            )
    if "time_window" in artifact:
        start, end = artifact["time_window"]
        if not start < end <= experiment["duration"]:
            raise ConfigError(
                f"{path}: {where}.time_window: [{start}, {end}] is not a span of {exp_name}'s run; "
                f"allowed: start < end <= its duration, {experiment['duration']:g} s"
            )
    if "table" in artifact:
        table = artifact["table"]
        if table not in RUN_TABLES:
            raise ConfigError(f"{path}: {where}.table: unknown table '{table}'; known: {', '.join(RUN_TABLES)}")
        for need in RUN_TABLES[table]:
            _check_need(need, metric_scope, scenario, f"{where}.table: {table}", path)


def _check_levels(artifact: dict, axes: dict, exp_name: str, where: str, path: Path) -> None:
    """`levels` are levels of the hue axis; without `hue` (the module picks the axis), of some axis."""
    named = [artifact[key] for key in ("hue", "columns", "panels") if key in artifact]
    candidates = named or list(axes)
    for index, level in enumerate(artifact.get("levels", [])):
        owners = [axis for axis in candidates if label_text(level) in map(label_text, level_labels(axes[axis]))]
        if not owners:
            allowed = "; ".join(f"{axis}: {', '.join(map(str, level_labels(axes[axis])))}" for axis in candidates)
            owner = f"the {'/'.join(named)} axis" if named else f"any axis of {exp_name}"
            raise ConfigError(
                f"{path}: {where}.levels[{index}]: '{level}' is not a level of {owner}; levels: {allowed or 'none'}"
            )
        _require_default_run([level], axes[owners[0]], owners[0], f"{where}.levels[{index}]", path)


# The keys of a claim that name levels of its `axis` (experiments.verdicts.claims).
CLAIM_LEVEL_KEYS = ("level", "than", "among", "nearest", "baseline")


def check_claim_default_levels(claim: dict, experiment: dict, where: str, path: Path) -> None:
    """A claim judged on levels the default profile does not run would be `missing` there by construction: each
    level it names, and at least one of each `where` list, must lie within its axis' default_levels."""
    axes = axes_of(experiment)
    for axis, fixed in claim.get("where", {}).items():
        if axis in axes:
            _require_default_run(
                fixed if isinstance(fixed, list) else [fixed],
                axes[axis],
                axis,
                f"{where}.where.{axis}",
                path,
                any_of=isinstance(fixed, list),
            )
    if claim.get("axis") in axes:
        for key in [k for k in CLAIM_LEVEL_KEYS if k in claim]:
            named = claim[key] if isinstance(claim[key], list) else [claim[key]]
            _require_default_run(named, axes[claim["axis"]], claim["axis"], f"{where}.{key}", path)


def _require_default_run(levels: list, spec: dict, axis: str, where: str, path: Path, any_of: bool = False) -> None:
    if "default_levels" not in spec:
        return
    runs = [str(x) for x in spec["default_levels"]]
    outside = [str(x) for x in levels if label_text(x) not in map(label_text, spec["default_levels"])]
    if outside and (not any_of or len(outside) == len(levels)):
        raise ConfigError(
            f"{path}: {where}: {', '.join(outside)} not among {axis}'s default_levels, so the default profile never "
            f"runs {'them' if len(outside) > 1 else 'it'}; allowed: {', '.join(runs)}"
        )


def _check_function(artifact: dict, paper: str, where: str, path: Path) -> None:
    module = artifact.get("module", f"figures.{paper}")
    source = REPO / Path(*module.split(".")).with_suffix(".py")
    key = "module" if "module" in artifact else "experiment"  # the default module comes from `paper`
    if not source.is_file():
        known = sorted(
            f"figures.{p.stem}" for p in (REPO / "figures").glob("*.py") if p.stem not in ("__init__", "common")
        )
        raise ConfigError(
            f"{path}: {where}.{key}: no module {module} ({source.relative_to(REPO)}); modules: {', '.join(known)}"
        )
    functions = top_level_functions(source)
    if artifact["function"] not in functions:
        near = difflib.get_close_matches(artifact["function"], functions, n=1)
        hint = f"did you mean '{near[0]}'? " if near else ""
        public = [f for f in functions if not f.startswith("_")]
        raise ConfigError(
            f"{path}: {where}.function: {module} has no function '{artifact['function']}'; {hint}"
            f"functions: {', '.join(public)}"
        )


@cache
def top_level_functions(source: Path) -> list[str]:
    """Names of the top-level `def`s of a Python file, read with ast (nothing is imported: no matplotlib)."""
    tree = ast.parse(source.read_text(), filename=str(source))
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]


WIRELESS_QUEUE = "Queue/DropTail/PriQueue"  # a wireless node's interface queue (AODV and DSDV call its filter())


def ns_objects(scenario: dict, queues: dict | None = None) -> list[tuple[str, dict, str, bool]]:
    """(key path within the scenario, {class, knobs}, base class, base is abstract) of every inline ns object, and
    on a wireless topology the named queue its core_queue names (`queues`: the file's), which must be an interface
    queue there."""
    objects = []

    def queue(ref: Any, at: str) -> None:
        if isinstance(ref, dict):  # a name of the top-level `queues` is checked there
            objects.append((at, ref, "Queue", True))

    topology = scenario["topology"]
    if topology["kind"] == "wireless":
        ref = scenario["core_queue"]
        spec = ref if isinstance(ref, dict) else (queues or {}).get(ref)
        if spec is not None:
            objects.append(("core_queue", spec, WIRELESS_QUEUE, False))
    else:
        queue(scenario["core_queue"], "core_queue")
    queue(scenario.get("core_reverse_queue"), "core_reverse_queue")
    queue(topology.get("edge_link", {}).get("queue"), "topology.edge_link.queue")
    if "mac" in topology:
        objects.append(("topology.mac", topology["mac"], "Mac/802_11", False))
    for index, link in enumerate(topology.get("core_links", [])):
        queue(link.get("queue"), f"topology.core_links.{index}.queue")
    for key, base in (("sink_loss", "ErrorModel"), ("phy", "Phy/WirelessPhy"), ("loss", "ErrorModel")):
        if key in topology:
            objects.append((f"topology.{key}", topology[key], base, False))
    for name, group in scenario["flows"].items():
        at = f"flows.{name}"
        queue(group.get("edge_link", {}).get("queue"), f"{at}.edge_link.queue")
        for role, base in FLOW_BASES.get(group["kind"], {}).items():
            spec = group.get(role) or {"class": DEFAULT_APPS[group["kind"]]}
            if role == "agent" and "gaimd" in group:  # the knobs gaimd sets must exist too
                spec = {**spec, "knobs": {**spec.get("knobs", {}), **gaimd_knobs(group["gaimd"])}}
            objects.append((f"{at}.{role}", spec, base, False))
    return objects


def check_knobs(doc: dict, path: Path, ns_binary: Path) -> None:
    """Every class is one ns-2 knows under its role's base class, and every knob one it binds.

    The named queues and each experiment's baseline scenario, then, in each matrix cell, the objects its levels
    change (a level may set a class or a knob: a path ending in `.knobs.<name>`, a `.knobs` mapping, a whole
    object, `queues.<name>.knobs.<knob>`). Cells, not levels alone: a knob one axis sets may exist only in the
    class another axis sets.
    """
    checked = [(f"queues.{name}", spec, "Queue", True) for name, spec in doc.get("queues", {}).items()]
    for exp_name, experiment in doc["experiments"].items():
        base = f"experiments.{exp_name}"
        checked += [
            (f"{base}.scenario.{at}", *rest) for at, *rest in ns_objects(experiment["scenario"], doc.get("queues", {}))
        ]
        matrix = {"product": {}, "zip": [], **experiment.get("matrix", {})}
        for cell in cells({**experiment, "matrix": matrix}):
            scenario, queues = apply_levels(experiment["scenario"], doc.get("queues", {}), [sets for *_, sets in cell])
            objects = [(f"scenario.{at}", *rest) for at, *rest in ns_objects(scenario, queues)]
            objects += [(f"queues.{name}", spec, "Queue", True) for name, spec in queues.items()]
            for at, *rest in objects:
                changing = [(axis, label) for axis, label, sets in cell if any(_touches(p, at) for p in sets)]
                if len(changing) == 1:
                    axis, label = changing[0]
                    checked.append((f"{base}.matrix.{axis}.levels.{label}: with this level, {at}", *rest))
                elif changing:
                    levels = ", ".join(f"{axis}={label}" for axis, label in changing)
                    checked.append((f"{base}.matrix at {levels}: with these levels, {at}", *rest))
    checked += _alternative_objects(doc)
    catalog = KnobCatalog(ns_binary)
    try:
        catalog.ensure({spec["class"] for _, spec, _, _ in checked})
    except KnobQueryError as err:
        raise ConfigError(f"{path}: {err}") from None
    for where, spec, base_class, abstract in checked:
        check_ns_object(spec, base_class, abstract, catalog, where, path)


def _alternative_objects(doc: dict) -> list[tuple]:
    """The ns objects each reading of the open choices changes, in every matrix cell of the experiments it runs."""
    checked = []
    for reading in run_readings(doc):
        for exp_name in experiments_of(doc, reading):
            experiment = doc["experiments"][exp_name]
            matrix = {"product": {}, "zip": [], **experiment.get("matrix", {})}
            for cell in cells({**experiment, "matrix": matrix}):
                assigned = reading.assignments_at({axis: label for axis, label, _ in cell})
                levels = [sets for *_, sets in cell] + [assigned]
                scenario, queues = apply_levels(experiment["scenario"], doc.get("queues", {}), levels)
                objects = [(f"scenario.{at}", *rest) for at, *rest in ns_objects(scenario, queues)]
                objects += [(f"queues.{name}", spec, "Queue", True) for name, spec in queues.items()]
                for at, *rest in objects:
                    if any(_touches(p, at) for p in assigned):
                        checked.append((f"choices: reading {reading.label} in {exp_name}: with it, {at}", *rest))
    return checked


def _touches(assigned: str, at: str) -> bool:
    """Whether a level's dotted path changes the ns object at `at` (scenario.<path> or queues.<name>)."""
    target = at.removeprefix("scenario.")
    if assigned == target or assigned.startswith(target + ".") or target.startswith(assigned + "."):
        return True
    parts = target.split(".")
    # A flow group's kind picks the base classes and default app; its gaimd adds agent knobs.
    return parts[0] == "flows" and assigned.split(".")[:3] in ([*parts[:2], "kind"], [*parts[:2], "gaimd"])


def check_ns_object(spec: dict, base: str, abstract: bool, catalog: KnobCatalog, where: str, path: Path) -> None:
    cls = spec["class"]
    allowed = [c for c in catalog.descendants(base) if not (abstract and c == base)]
    if cls not in allowed:
        kind = f"a subclass of {base}" if abstract else f"{base} or a subclass"
        raise ConfigError(
            f"{path}: {where}.class: unknown class '{cls}' (must be {kind}); known: {_known(cls, allowed)}"
        )
    knobs = catalog.knobs(cls)
    if "error" in knobs:
        raise ConfigError(f"{path}: {where}.class: ns-2 cannot create a {cls} ({knobs['error']})")
    for knob in spec.get("knobs", {}):
        if knob not in knobs["knobs"]:
            unbound = " (a class default ns-2 never binds, so it has no effect)" if knob in knobs["unbound"] else ""
            raise ConfigError(
                f"{path}: {where}.knobs.{knob}: unknown knob of {cls}{unbound}; known: {_known(knob, knobs['knobs'])}"
            )


def _known(word: str, candidates: list[str]) -> str:
    """All candidates when there are few, else the closest ones first (as tcl/lib/params.tcl's repro::known)."""
    if len(candidates) <= 10:
        return ", ".join(candidates) or "none"
    near = difflib.get_close_matches(word, candidates, n=5, cutoff=0)
    return f"{', '.join(near)} (the {len(near)} closest of {len(candidates)})"
