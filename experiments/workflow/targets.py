"""What Snakemake's targets ask for: the runs they need (for the progress lines) and whether they include the
sensitivity stage.
"""

from __future__ import annotations

from pathlib import Path

from experiments.config.readings import BASELINE
from experiments.workflow.plan import Plan

SENSITIVITY_TARGET = "sensitivity-all"  # the stamp of the sensitivity stage (Snakefile)


def wants_sensitivity(targets) -> bool:
    """Whether Snakemake's targets include the sensitivity stage (experiments.report.html says why it matters)."""
    return SENSITIVITY_TARGET in {str(Path(str(t))) for t in targets or ()}


def runs_for_targets(plan: Plan, results: str | Path, targets) -> int:
    """The runs Snakemake's targets ask for, for the progress lines: an experiment's file (under
    <results>/<paper>/<experiment>/) its baseline's runs, a reading's file (.../readings/<label>/) that reading's,
    a figure or table (<results>/<paper>/figures/<id>.png, .../tables/<id>.md) its experiment's and its
    reference's baselines, sensitivity-all every expansion's, and anything else (no target: reproduce-all; a
    report or a rule name) every baseline's, plus every reading's if the target lies in a readings folder."""
    root = Path(results).parts
    wanted: set[tuple[str, str, str]] = set()
    for target in targets or ["reproduce-all"]:
        if target == SENSITIVITY_TARGET:
            return plan.total_runs()
        parts = Path(str(target)).parts
        rest = parts[len(root) :] if parts[: len(root)] == root else ()
        reading = rest[3] if len(rest) > 3 and rest[2] == "readings" else BASELINE
        key = (*rest[:2], reading)
        drawn = _artifact_experiments(plan, rest)
        if key in plan.expansions:
            wanted.add(key)
        elif drawn:
            wanted |= drawn
        else:
            any_reading = "readings" in parts
            wanted |= {k for k in plan.expansions if k[2] == BASELINE or any_reading}
    return sum(len(plan.expansions[key]) for key in wanted)


def _artifact_experiments(plan: Plan, rest: tuple) -> set[tuple[str, str, str]]:
    """The baselines a figure or table target (<paper>/figures|tables/<id>.<ext>) is drawn from; empty otherwise."""
    if len(rest) != 3 or rest[1] not in ("figures", "tables") or rest[0] not in plan.docs:
        return set()
    doc, stem = plan.docs[rest[0]], Path(rest[2]).stem
    for artifact in [*doc.get("figures", []), *doc.get("tables", [])]:
        if artifact["id"] == stem:
            names = [artifact["experiment"], *([artifact["reference"]] if "reference" in artifact else [])]
            return {(rest[0], name, BASELINE) for name in names if (rest[0], name, BASELINE) in plan.expansions}
    return set()
