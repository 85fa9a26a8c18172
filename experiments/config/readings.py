"""Readings: the alternatives of a file's open choices, for the sensitivity stage.

A choice names what the paper leaves open and the value we run (the baseline). Its
alternatives are the other values a careful reader could defend. A *reading* is the
baseline with one choice set to one alternative (one at a time), or with every choice
of an `interactions` entry set together (a small factorial). Claims are judged under
each reading exactly as under the baseline, so the sensitivity table can say which
verdicts any defensible reading flips.

Four sources of alternatives:
- path choices (`path` + `alternatives`, or alternatives with `set`): the sensitivity
  stage makes runs with the value put at the path; they are ordinary runs with their
  own keys, so the baseline is never run twice. An alternative with `cases` (a list of
  `{where: {axis: label or [labels]}, set: {dotted.path: value}}`, on a choice without
  `path` or `where`) sets its paths to different values in different matrix cells: each
  cell takes the `set` of every case whose `where` matches its labels (as `in_cells`),
  and a cell no case matches keeps the baseline's params, hence its run. A case's `where`
  may name an axis whose levels set the same path: the case is then a reading of what
  those levels mean. It is still one alternative, hence one reading;
- axis choices (`axis` + `baseline`, optionally `experiments`): a matrix axis already runs
  every reading (for the figures); claims are judged at the baseline level, each other
  level is a reading, and no extra run is made. Without `experiments` it concerns every
  experiment with an axis of that name;
- null choices (a path choice with `null_reading: true`): each alternative switches the paper's mechanism off while
  everything else stays; a claim that holds under it as under the baseline does not tell the mechanism apart from
  its absence (verdicts.sensitivity: non-discriminating);
- measure choices (alternatives with `metrics: {baseline metric: alternative metric}`):
  where the paper leaves open how a published number is computed from the same runs
  (e.g. a standard deviation across time bins or across flows). The reading judges the
  claims reading those metrics with the alternative metric instead, on the runs of the
  baseline, or, in an interaction with path choices, on the runs of their reading.

"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from experiments.config.axes import axes_of, label_text, level_labels
from experiments.config.paths import QUEUES, existing_parent, get_path

BASELINE = "baseline"


@dataclass(frozen=True)
class Reading:
    label: str  # baseline, syn=false, syn=false+bound=clip, variant=as_script
    choices: tuple[tuple[str, str], ...] = ()  # (choice id, alternative label)
    assignments: dict = field(default_factory=dict)  # dotted path -> value (path choices)
    axis_levels: dict = field(default_factory=dict)  # axis -> level label (axis choices)
    metrics: dict = field(default_factory=dict)  # claim metric -> metric read instead (measure choices)
    runs: str = BASELINE  # a measure reading: the label of the reading whose runs it reads
    where: dict = field(default_factory=dict)  # dotted path -> {axis: label(s)}: the cells it changes (default all)
    cases: tuple = ()  # ({axis: label(s)}, {dotted path: value}) of each case of a `cases` alternative, in order
    null: bool = False  # a null reading: the paper's mechanism switched off (a choice with `null_reading: true`)

    @property
    def is_baseline(self) -> bool:
        return not self.choices

    def assignments_at(self, labels: dict) -> dict:
        """The assignments that apply in a matrix cell with these axis labels (a choice's `where`), then the `set`
        of each case whose `where` matches them."""
        out = {p: v for p, v in self.assignments.items() if in_cells(self.where.get(p, {}), labels)}
        for where, sets in self.cases:
            if in_cells(where, labels):
                out.update(sets)
        return out

    @property
    def runs_anew(self) -> bool:
        """True when the reading needs runs of its own (a path choice); axis readings reuse the matrix's runs."""
        return bool(self.assignments or self.cases)


def in_cells(where: dict, labels: dict) -> bool:
    """Whether a cell's labels match a `where` ({axis: label or [labels]}); labels compare as their label_text. An
    axis the cell's experiment lacks does not narrow (one choice's where may name the axes of each experiment it
    changes: N for a sweep over N, only the scheme for runs at one N)."""
    for axis, wanted in where.items():
        allowed = {label_text(w) for w in wanted} if isinstance(wanted, list) else {label_text(wanted)}
        if axis in labels and label_text(labels[axis]) not in allowed:
            return False
    return True


def reading_label(pairs) -> str:
    return "+".join(f"{choice}={alt}" for choice, alt in pairs) or BASELINE


def alternative_assignments(choice: dict, alternative: dict) -> dict:
    """{dotted path: value} that an alternative of a path choice sets. Of a `cases` alternative: every path its
    cases set (each with the value of the last case setting it), for listing the paths a choice touches."""
    if "cases" in alternative:
        return {p: v for case in alternative["cases"] for p, v in case["set"].items()}
    if "set" in alternative:
        return dict(alternative["set"])
    return {choice["path"]: alternative["value"]}


def is_measure_choice(choice: dict) -> bool:
    return any("metrics" in alt for alt in choice.get("alternatives", []))


def path_choices(doc: dict) -> dict[str, dict]:
    return {c["id"]: c for c in doc.get("choices", []) if "alternatives" in c and not is_measure_choice(c)}


def null_choices(doc: dict) -> dict[str, dict]:
    """The choices whose alternatives switch the paper's mechanism off (`null_reading: true`)."""
    return {c["id"]: c for c in doc.get("choices", []) if c.get("null_reading")}


def measure_choices(doc: dict) -> dict[str, dict]:
    return {c["id"]: c for c in doc.get("choices", []) if is_measure_choice(c)}


def axis_choices(doc: dict, experiment: str | None = None) -> dict[str, dict]:
    """The axis choices (of one experiment: those whose `experiments`, if given, name it)."""
    return {
        c["id"]: c
        for c in doc.get("choices", [])
        if "axis" in c and (experiment is None or experiment in c.get("experiments", [experiment]))
    }


def run_readings(doc: dict) -> list[Reading]:
    """Every reading that needs runs: each alternative alone, then each interaction's combinations (of an
    interaction with measure choices, the combinations of its path choices)."""
    choices = path_choices(doc)
    readings = []
    for cid, choice in choices.items():
        for alt in choice["alternatives"]:
            readings.append(_run_reading(choices, [(cid, alt)]))
    for ids in doc.get("interactions", []):
        for combo in _combinations(choices, [cid for cid in ids if cid in choices]):
            readings.append(_run_reading(choices, combo))
    unique = {r.label: r for r in readings if r.choices}
    return list(unique.values())


def measure_readings(doc: dict) -> list[Reading]:
    """Every reading of a measure choice: each alternative alone (on the baseline's runs), then the combinations
    of each interaction that names one (on the runs of its path choices' reading)."""
    measures, paths = measure_choices(doc), path_choices(doc)
    combos = [[(cid, alt)] for cid, choice in measures.items() for alt in choice["alternatives"]]
    for ids in doc.get("interactions", []):
        if any(cid in measures for cid in ids):
            combos += _combinations({**paths, **measures}, ids)
    readings = []
    for combo in combos:
        runs = [(cid, alt) for cid, alt in combo if cid in paths]
        metrics = {}
        for cid, alt in combo:
            if cid in measures:
                metrics.update(alt["metrics"])
        pairs = tuple((cid, alt["label"]) for cid, alt in combo)
        readings.append(
            Reading(
                reading_label(pairs),
                pairs,
                metrics=metrics,
                runs=reading_label((cid, alt["label"]) for cid, alt in runs),
            )
        )
    return readings


def _combinations(choices: dict[str, dict], ids: list[str]) -> list[list[tuple[str, dict]]]:
    if len(ids) < 2:
        return []
    options = [[(cid, alt) for alt in choices[cid]["alternatives"]] for cid in ids]
    return [list(combo) for combo in itertools.product(*options)]


def _run_reading(choices: dict[str, dict], combo: list[tuple[str, dict]]) -> Reading:
    assignments, where, cases = {}, {}, []
    for cid, alt in combo:
        if "cases" in alt:
            cases += [(dict(case["where"]), dict(case["set"])) for case in alt["cases"]]
            continue
        sets = alternative_assignments(choices[cid], alt)
        assignments.update(sets)
        if "where" in choices[cid]:
            where.update(dict.fromkeys(sets, choices[cid]["where"]))
    pairs = tuple((cid, alt["label"]) for cid, alt in combo)
    null = len(combo) == 1 and choices[combo[0][0]].get("null_reading", False)
    return Reading(reading_label(pairs), pairs, assignments, where=where, cases=tuple(cases), null=null)


def axis_readings(doc: dict, experiment: str) -> list[Reading]:
    """The readings an axis choice gives in one experiment: its baseline level first, then each other level."""
    axes = axes_of(doc["experiments"][experiment])
    readings = []
    for cid, choice in axis_choices(doc, experiment).items():
        if choice["axis"] not in axes:
            continue
        labels = [str(x) for x in level_labels(axes[choice["axis"]])]
        for level in labels:
            if label_text(level) != label_text(choice["baseline"]):
                readings.append(Reading(reading_label([(cid, level)]), ((cid, level),), {}, {choice["axis"]: level}))
    return readings


def reading_axes(doc: dict, experiment: str) -> dict[str, str]:
    """axis -> baseline level of the axis choices present in an experiment (claims are judged there)."""
    axes = axes_of(doc["experiments"][experiment])
    return {c["axis"]: str(c["baseline"]) for c in axis_choices(doc, experiment).values() if c["axis"] in axes}


def path_exists(doc: dict, experiment: str, dotted: str) -> bool:
    """Whether a choice's path can be set in an experiment: its parent exists (a named queue's path: the queue is
    used by the experiment)."""
    if dotted.startswith(QUEUES):
        name = dotted.removeprefix(QUEUES).split(".")[0]
        return name in doc.get("queues", {}) and name in queues_used(doc["experiments"][experiment])
    parent = existing_parent(dotted)
    try:
        node = get_path(doc["experiments"][experiment]["scenario"], parent) if parent else {}
    except KeyError:
        return False
    return isinstance(node, dict | list)


def queues_used(experiment: dict) -> set[str]:
    """Names of the named queues an experiment refers to (scenario or matrix levels)."""
    names = set()

    def visit(node) -> None:
        if isinstance(node, str):
            names.add(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key.endswith("queue") or isinstance(value, dict | list):  # queue, core_queue, ... or deeper
                    visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(experiment["scenario"])
    for axis in axes_of(experiment).values():
        path = axis.get("path", "")
        levels = axis["levels"]
        values = list(levels.values()) if isinstance(levels, dict) else list(levels)
        if path.endswith("queue"):
            names.update(v for v in values if isinstance(v, str))
        elif not path:
            for level in values:
                names.update(v for p, v in level.items() if p.endswith("queue") and isinstance(v, str))
    return names


def experiments_of(doc: dict, reading: Reading) -> list[str]:
    """The experiments a run reading changes: those its choices name (default: every experiment where each of its
    alternatives' paths exists), and only those with a claim to judge."""
    choices = path_choices(doc)
    out = []
    for name in doc["experiments"]:
        if not any(c["experiment"] == name for c in doc.get("claims", [])):
            continue
        if all(_applies(doc, choices[cid], label, name) for cid, label in reading.choices if cid in choices):
            out.append(name)
    return out


def _applies(doc: dict, choice: dict, label: str, experiment: str) -> bool:
    """Whether one alternative can change an experiment: by the choice's `experiments`, or by the alternative's
    own paths (another alternative of the choice may set queues this experiment does not use: psand's
    gentle_segment=eq13_all sets the AREDs' knobs only, and would judge Ch. 3's PSAND claims on the baseline's
    runs as if it were a reading)."""
    if "experiments" in choice:
        return experiment in choice["experiments"]
    (alternative,) = [alt for alt in choice["alternatives"] if alt["label"] == label]
    return paths_apply(doc, experiment, alternative_assignments(choice, alternative))


def paths_apply(doc: dict, experiment: str, paths) -> bool:
    """Whether an alternative's paths can be set in an experiment: every scenario path exists there, every named
    queue a path names is defined, and (when it sets queues) the experiment uses at least one of them. One
    alternative may so set a knob of several queues (e.g. every RED variant of a file) whichever the experiment
    uses: a queue it does not use leaves its runs, and their keys, as they are."""
    queue_paths = [p for p in paths if p.startswith(QUEUES)]
    if not all(path_exists(doc, experiment, p) for p in paths if not p.startswith(QUEUES)):
        return False
    names = {p.removeprefix(QUEUES).split(".")[0] for p in queue_paths}
    if not names <= set(doc.get("queues", {})):
        return False
    return not names or bool(names & queues_used(doc["experiments"][experiment]))
