"""What the schema cannot say about the open choices: unique ids, alternatives whose paths exist where they apply
and that no matrix axis also sets, axis choices naming a real axis and level, cases that do not overlap, and
interactions and claims' suspects naming such choices.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from experiments.config import readings
from experiments.config.axes import axes_of, cells, label_text, level_labels
from experiments.config.claim_checks import _check_where
from experiments.config.errors import ConfigError
from experiments.config.experiment_checks import _check_target
from experiments.config.readings import in_cells


def _check_choices(doc: dict, path: Path) -> None:
    """Choices with alternatives: unique ids, paths that exist where they apply and that no matrix axis also
    sets, axis choices naming a real axis and level; interactions and claims' suspects naming such choices."""
    choices = doc.get("choices", [])
    experiments = doc["experiments"]
    ids = [c["id"] for c in choices if "id" in c]
    for cid in sorted({i for i in ids if ids.count(i) > 1}):
        raise ConfigError(f"{path}: choices: duplicate id {cid}")
    for index, choice in enumerate(choices):
        where = f"choices[{index}]"
        for name in choice.get("experiments", []):
            if name not in experiments:
                raise ConfigError(
                    f"{path}: {where}.experiments: unknown experiment '{name}'; known: {', '.join(experiments)}"
                )
        if "alternatives" in choice:
            _check_alternatives(doc, choice, where, path)
        if "axis" in choice:
            named = choice.get("experiments", list(experiments))
            lacking = [n for n in named if n in experiments and choice["axis"] not in axes_of(experiments[n])]
            if "experiments" in choice and lacking:
                raise ConfigError(
                    f"{path}: {where}.experiments: '{lacking[0]}' has no axis '{choice['axis']}'; an axis choice "
                    "names only experiments with that axis"
                )
            having = [n for n in named if choice["axis"] in axes_of(experiments[n])]
            if not having:
                raise ConfigError(f"{path}: {where}.axis: '{choice['axis']}' is not an axis of any experiment")
            labels = {label_text(x) for n in having for x in level_labels(axes_of(experiments[n])[choice["axis"]])}
            if label_text(choice["baseline"]) not in labels:
                raise ConfigError(
                    f"{path}: {where}.baseline: '{choice['baseline']}' is not a level of {choice['axis']}; "
                    f"levels: {', '.join(sorted(labels))}"
                )
    for index, choice in enumerate(choices):
        if choice.get("null_reading") and readings.is_measure_choice(choice):
            raise ConfigError(
                f"{path}: choices[{index}].null_reading: a null reading switches the mechanism off in the runs; "
                "allowed: alternatives with value, set or cases (not metrics)"
            )
    nulls = {c["id"] for c in choices if c.get("null_reading")}
    for index, group in enumerate(doc.get("interactions", [])):
        if nulls & set(group):
            raise ConfigError(
                f"{path}: interactions[{index}]: '{sorted(nulls & set(group))[0]}' is a null choice; allowed: a null "
                "reading alone (the mechanism off, everything else as chosen)"
            )
    with_alternatives = {c["id"] for c in choices if "alternatives" in c}
    for index, group in enumerate(doc.get("interactions", [])):
        for cid in group:
            if cid not in with_alternatives:
                raise ConfigError(
                    f"{path}: interactions[{index}]: '{cid}' is not a choice with alternatives; "
                    f"those are: {', '.join(sorted(with_alternatives)) or 'none'}"
                )
    known = set(ids)
    for index, claim in enumerate(doc.get("claims", [])):
        for cid in claim.get("suspects", []):
            if cid not in known:
                raise ConfigError(
                    f"{path}: claims[{index}].suspects: '{cid}' is not a choice id; ids: {', '.join(sorted(known))}"
                )
        _check_claim_reading_axes(doc, claim, index, path)


def _check_claim_reading_axes(doc: dict, claim: dict, index: int, path: Path) -> None:
    """A claim's `where` may not name an axis whose levels are readings of its experiment: the where would win
    over every reading level (verdicts.claims.claim_rows), so the readings could never change its verdict."""
    if claim.get("experiment") not in doc["experiments"]:
        return  # references.check names the unknown experiment
    for cid, choice in readings.axis_choices(doc, claim["experiment"]).items():
        axis = choice["axis"]
        if (
            axis in claim.get("where", {})
            and axis != claim.get("axis")
            and axis in axes_of(doc["experiments"][claim["experiment"]])
        ):
            raise ConfigError(
                f"{path}: claims[{index}].where.{axis}: '{axis}' is a reading axis of {claim['experiment']} "
                f"(choice {cid}): the claim is judged at its baseline {choice['baseline']} and at each other level "
                "as a reading; leave the axis out of where"
            )


def _check_alternatives(doc: dict, choice: dict, where: str, path: Path) -> None:
    experiments = doc["experiments"]
    labels = [alt["label"] for alt in choice["alternatives"]]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{path}: {where}.alternatives: two alternatives have the same label")
    if readings.is_measure_choice(choice):
        # How a number is computed from the same runs: no path, nothing set (references.check checks the metrics).
        for i, alt in enumerate(choice["alternatives"]):
            if "metrics" not in alt or "path" in choice or "experiments" in choice:
                raise ConfigError(
                    f"{path}: {where}.alternatives[{i}]: a choice whose alternatives give 'metrics' has no path nor "
                    "experiments, and every alternative gives 'metrics' (split run and measure alternatives into "
                    "two choices)"
                )
        return
    for i, alt in enumerate(choice["alternatives"]):
        scope = [key for key in ("path", "where") if key in choice]
        if "cases" in alt and scope:
            raise ConfigError(
                f"{path}: {where}.alternatives[{i}].cases: not allowed on a choice with '{scope[0]}'; allowed: cases "
                "on a choice without path and where (each case gives its own where and set), or value/set here"
            )
        if ("value" in alt) != ("path" in choice):
            raise ConfigError(
                f"{path}: {where}.alternatives[{i}]: give 'value' when the choice has a path, 'set' when it has none"
            )
    paths = sorted({p for alt in choice["alternatives"] for p in readings.alternative_assignments(choice, alt)})
    for p in paths:
        if p.startswith("queues."):
            _check_target({}, p, f"{where}.path", path, doc.get("queues", {}))
    named = choice.get("experiments")
    targets = named or [n for n in experiments if readings.paths_apply(doc, n, paths)]
    if not targets:
        raise ConfigError(
            f"{path}: {where}.path: '{paths[0]}' does not exist in any experiment's scenario (nor names a queue "
            f"an experiment uses)"
        )
    _check_cells_where(choice.get("where", {}), experiments, targets, f"{where}.where", path)
    for name in targets:
        if not readings.paths_apply(doc, name, paths):
            missing = [p for p in paths if not readings.path_exists(doc, name, p)]
            raise ConfigError(
                f"{path}: {where}: path '{(missing or paths)[0]}' does not exist in experiment {name}'s scenario "
                "(nor names a queue it uses)"
            )
    # An axis the choice's `where` names may set the path in its levels: the alternative is then a reading of
    # what those levels mean (pattern 16's layout in the BQM levels), in those cells only.
    plain = {
        p for alt in choice["alternatives"] if "cases" not in alt for p in readings.alternative_assignments(choice, alt)
    }
    _check_axis_paths(sorted(plain), set(choice.get("where", {})), experiments, targets, where, path)
    for i, alt in enumerate(choice["alternatives"]):
        at = f"{where}.alternatives[{i}].cases"
        for j, case in enumerate(alt.get("cases", [])):
            _check_cells_where(case["where"], experiments, targets, f"{at}[{j}].where", path)
            _check_axis_paths(sorted(case["set"]), set(case["where"]), experiments, targets, f"{at}[{j}]", path)
        if "cases" in alt:
            _check_cases_overlap(alt["cases"], experiments, targets, at, path)


def _check_cells_where(cells: dict, experiments: dict, targets: list[str], at: str, path: Path) -> None:
    """A choice's or a case's `where` names axes of the experiments it changes, each an axis of at least one of them
    (an experiment without it is not narrowed by it: config.readings.in_cells), and labels that are a level of their
    axis in at least one of them: a cell without it keeps the baseline's run."""
    known: dict[str, list] = {}
    for name in targets:
        axes = axes_of(experiments[name])
        for axis in cells:
            if axis in axes:
                seen = {label_text(x) for x in known.setdefault(axis, [])}
                known[axis].extend(x for x in level_labels(axes[axis]) if label_text(x) not in seen)
    for axis in cells:
        if axis not in known:
            axes = sorted({a for name in targets for a in axes_of(experiments[name])})
            raise ConfigError(f"{path}: {at}: '{axis}' is not an axis of {', '.join(targets)}; axes: {', '.join(axes)}")
    _check_where(cells, {a: {"levels": x} for a, x in known.items()}, ", ".join(targets), at, path)


def _check_axis_paths(paths: list, scoped: set, experiments: dict, targets: list[str], at: str, path: Path) -> None:
    """No path an alternative (or one of its cases) sets is set by a matrix axis, unless its `where` names that
    axis: the alternative is then a reading of what those levels mean, in those cells only."""
    for name in targets:
        axis_paths = {
            p
            for axis_name, axis in axes_of(experiments[name]).items()
            if axis_name not in scoped
            for p in ([axis["path"]] if "path" in axis else [q for lvl in axis["levels"].values() for q in lvl])
        }
        for p in paths:
            if p in axis_paths:
                raise ConfigError(
                    f"{path}: {at}: path '{p}' is also a matrix axis of {name}; an alternative cannot override "
                    "an axis (make the axis the choice: axis + baseline, or name the axis in the `where`)"
                )


def _check_cases_overlap(cases: list[dict], experiments: dict, targets: list[str], at: str, path: Path) -> None:
    """No two cases of an alternative set the same path in one matrix cell: which value it runs would be moot."""
    if len(cases) < 2:
        return
    for name in targets:
        experiment = experiments[name]
        matrix = {"product": {}, "zip": [], **experiment.get("matrix", {})}
        for cell in cells({**experiment, "matrix": matrix}):
            labels = {axis: label for axis, label, _ in cell}
            matching = [j for j, case in enumerate(cases) if in_cells(case["where"], labels)]
            for a, b in itertools.combinations(matching, 2):
                shared = sorted(set(cases[a]["set"]) & set(cases[b]["set"]))
                if shared:
                    cell_text = ", ".join(f"{axis}={label}" for axis, label in labels.items())
                    raise ConfigError(
                        f"{path}: {at}: cases[{a}] and cases[{b}] both set '{shared[0]}' in {name} at {cell_text}; "
                        "allowed: at most one case setting a path in each cell (make their where disjoint)"
                    )
