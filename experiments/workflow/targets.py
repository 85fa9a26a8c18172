"""What Snakemake's targets ask for: the runs they need (for the progress lines) and whether they include the
sensitivity stage.
"""

from __future__ import annotations

from pathlib import Path

from experiments.config.readings import BASELINE
from experiments.store import layout
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
    wanted: set[tuple[str, str, str]] = set()
    for target in targets or ["reproduce-all"]:
        if target == SENSITIVITY_TARGET:
            return plan.total_runs()
        place = layout.place_of(results, str(target))
        if place[:1] == ("artifact",):
            drawn = _artifact_experiments(plan, *place[1:])
        else:
            drawn = {place} if place in plan.expansions else set()
        if drawn:
            wanted |= drawn
        else:
            any_reading = layout.in_readings(str(target))
            wanted |= {k for k in plan.expansions if k[2] == BASELINE or any_reading}
    return sum(len(plan.expansions[key]) for key in wanted)


def _artifact_experiments(plan: Plan, paper: str, artifact_id: str) -> set[tuple[str, str, str]]:
    """The baselines a figure or table is drawn from (its experiment's and its reference's); empty for an unknown
    one."""
    doc = plan.docs.get(paper, {})
    for artifact in [*doc.get("figures", []), *doc.get("tables", [])]:
        if artifact["id"] == artifact_id:
            names = [artifact["experiment"], *([artifact["reference"]] if "reference" in artifact else [])]
            return {(paper, name, BASELINE) for name in names if (paper, name, BASELINE) in plan.expansions}
    return set()
