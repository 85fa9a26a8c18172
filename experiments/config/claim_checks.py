"""What the schema cannot say about the entries that name an experiment (figures, tables, claims): their `where`,
a claim's levels, scope, tolerances and combine rule, the figures and tables a claim names, unique ids, and the
headlines' claims.
"""

from __future__ import annotations

from pathlib import Path

from experiments.config.axes import axes_of, label_text, level_labels
from experiments.config.errors import ConfigError
from experiments.config.preconditions import claim_where
from experiments.config.tolerances import allowed


def _check_where(where: dict, axes: dict, exp_name: str, at: str, path: Path) -> None:
    """A `where` ({axis: label or [labels]}) names axes of the experiment and their levels."""
    for axis, chosen in where.items():
        if axis not in axes:
            raise ConfigError(f"{path}: {at}: '{axis}' is not an axis of {exp_name}; axes: {', '.join(axes)}")
        labels = level_labels(axes[axis])
        texts = {label_text(x) for x in labels}
        for label in chosen if isinstance(chosen, list) else [chosen]:
            if label_text(label) not in texts:
                raise ConfigError(
                    f"{path}: {at}.{axis}: '{label}' is not a level; levels: {', '.join(map(str, labels))}"
                )


def _check_references(doc: dict, path: Path) -> None:
    experiments = doc["experiments"]
    for section in ("figures", "tables", "claims"):
        for index, item in enumerate(doc.get(section, [])):
            where = claim_where(doc, index) if section == "claims" else f"{section}[{index}]"
            exp_name = item["experiment"]
            if exp_name not in experiments:
                raise ConfigError(
                    f"{path}: {where}.experiment: unknown experiment '{exp_name}'; known: {', '.join(experiments)}"
                )
            axes = axes_of(experiments[exp_name])
            _check_where(item.get("where", {}), axes, exp_name, f"{where}.where", path)
            for axis, chosen in item.get("where", {}).items():
                if isinstance(chosen, list) and item.get("axis") == axis:
                    raise ConfigError(
                        f"{path}: {where}.where.{axis}: the claim compares the levels of '{axis}' (its `axis`); "
                        "a list of labels keeps an axis the claim leaves free"
                    )
            if section == "claims" and "axis" in item:
                _check_claim_levels(item, axes, exp_name, where, path)
            if section == "claims":
                _check_claim_scope(item, experiments[exp_name], exp_name, where, path)
                _check_claim_combine(item, axes, exp_name, where, path)
                _check_claim_tolerances(item, where, path)
                if "per" in item and item["kind"] != "slope":
                    raise ConfigError(f"{path}: {where}.per: only a claim of kind slope reads a second metric")
    ids = [c["id"] for c in doc.get("claims", [])]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ConfigError(f"{path}: claims: duplicate id {duplicates[0]}")
    _check_claim_figures(doc, path)
    _check_headlines(doc, path)


def _check_claim_figures(doc: dict, path: Path) -> None:
    """A claim's `figures` name this file's figures and tables."""
    drawn = [a["id"] for section in ("figures", "tables") for a in doc.get(section, [])]
    for index, claim in enumerate(doc.get("claims", [])):
        for artifact in claim.get("figures", []):
            if artifact not in drawn:
                raise ConfigError(
                    f"{path}: claims[{index}].figures: '{artifact}' is not a figure or table of this file; "
                    f"known: {', '.join(drawn) or 'none'}"
                )


def _check_headlines(doc: dict, path: Path) -> None:
    """A headline names claims of this file, of class reproduction (the only class that counts as agreement: a
    context or diagnostic claim cannot stand for what the paper says it shows), or of class no_effect beside at least
    one reproduction claim (a gain here and none there: the contrast, not the evidence); headline ids are unique."""
    classes = {c["id"]: c.get("class", "reproduction") for c in doc.get("claims", [])}
    seen: set[str] = set()
    for index, headline in enumerate(doc.get("headlines", [])):
        where = f"headlines[{index}]"
        if headline["id"] in seen:
            raise ConfigError(f"{path}: {where}.id: duplicate headline id {headline['id']}")
        seen.add(headline["id"])
        contrast = any(classes.get(claim) == "reproduction" for claim in headline["claims"])
        for claim in headline["claims"]:
            if claim not in classes:
                raise ConfigError(f"{path}: {where}.claims: unknown claim '{claim}'")
            if classes[claim] == "no_effect" and not contrast:
                raise ConfigError(
                    f"{path}: {where}.claims: '{claim}' is of class no_effect; a headline may name one only beside a "
                    "reproduction claim"
                )
            if classes[claim] not in ("reproduction", "no_effect"):
                raise ConfigError(
                    f"{path}: {where}.claims: '{claim}' is of class {classes[claim]}; a headline's claims must be "
                    "of class reproduction (or no_effect beside one)"
                )


def _check_claim_levels(claim: dict, axes: dict, exp_name: str, where: str, path: Path) -> None:
    """The claim's axis belongs to its experiment, and every level it names is a level of that axis."""
    if claim["axis"] not in axes:
        raise ConfigError(
            f"{path}: {where}.axis: '{claim['axis']}' is not an axis of {exp_name}; axes: {', '.join(axes)}"
        )
    labels = level_labels(axes[claim["axis"]])
    texts = {label_text(x) for x in labels}
    named = [("level", claim.get("level")), ("nearest", claim.get("nearest")), ("baseline", claim.get("baseline"))]
    named += [(f"{key}[{i}]", v) for key in ("than", "among") for i, v in enumerate(claim.get(key, []))]
    for key, label in named:
        if label is not None and label_text(label) not in texts:
            raise ConfigError(
                f"{path}: {where}.{key}: '{label}' is not a level of {claim['axis']}; "
                f"levels: {', '.join(map(str, labels))}"
            )
    if "baseline" in claim and label_text(claim["baseline"]) == label_text(claim.get("level")):
        raise ConfigError(
            f"{path}: {where}.baseline: '{claim['baseline']}' is also the level; a ratio needs two levels"
        )


def _check_claim_scope(claim: dict, experiment: dict, exp_name: str, where: str, path: Path) -> None:
    """A claim's `group:<name>` scope names a flow group of its experiment's scenario."""
    group = claim.get("scope", "all").removeprefix("group:")
    groups = experiment["scenario"]["flows"]
    if claim.get("scope", "").startswith("group:") and group not in groups:
        raise ConfigError(
            f"{path}: {where}.scope: '{group}' is not a flow group of {exp_name}; groups: {', '.join(groups)}"
        )


def _check_claim_tolerances(claim: dict, where: str, path: Path) -> None:
    """A drift band wider than the pass band, a relative tolerance against a non-zero expectation, and a bound's
    drift threshold beyond (looser than) its threshold: otherwise a verdict could never be drift, or pass."""
    if "expected" in claim and "pass" in claim and "drift" in claim:
        expected = claim["expected"]
        for key in ("pass", "drift"):
            if "rel" in claim[key] and expected == 0:
                raise ConfigError(
                    f"{path}: {where}.{key}: a relative tolerance of an expected 0 allows nothing; use abs"
                )
        if allowed(claim["drift"], expected) <= allowed(claim["pass"], expected):
            raise ConfigError(
                f"{path}: {where}.drift: {claim['drift']} is not wider than pass {claim['pass']} at expected "
                f"{expected:g}; drift must allow more than pass"
            )
    if claim["kind"] == "bound":
        below = claim["bound"] == "below"
        looser = (
            claim["drift_threshold"] > claim["threshold"] if below else claim["drift_threshold"] < claim["threshold"]
        )
        if not looser:
            side = "above" if below else "below"
            raise ConfigError(
                f"{path}: {where}.drift_threshold: {claim['drift_threshold']:g} must lie {side} threshold "
                f"{claim['threshold']:g} for a bound {claim['bound']} (the drift band is looser than the pass band)"
            )


def _check_claim_combine(claim: dict, axes: dict, exp_name: str, where: str, path: Path) -> None:
    """combine min:<axis> / max:<axis>: kinds value and bound; mean:<axis>: any kind; over an axis the claim leaves
    free."""
    rule, _, axis = claim.get("combine", "all").partition(":")
    if not axis:
        return
    if rule != "mean" and claim["kind"] not in ("value", "bound"):
        raise ConfigError(
            f"{path}: {where}.combine: {rule}:<axis> judges one level's value; allowed with kinds value and bound, "
            f"not {claim['kind']} (use all, any or each)"
        )
    fixed = {a for a, label in claim.get("where", {}).items() if not isinstance(label, list)} | {claim.get("axis")}
    if axis not in axes or axis in fixed:
        free = [a for a in axes if a not in fixed]
        raise ConfigError(
            f"{path}: {where}.combine: '{axis}' is not an axis the claim leaves free in {exp_name}; "
            f"free axes: {', '.join(free) or 'none'}"
        )
