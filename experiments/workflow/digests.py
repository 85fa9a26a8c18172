"""Each stage's rerun trigger: the digest of the code its jobs run, computed from their imports (common.code).

A rule parameter rather than input files: Snakemake compares it (a change re-runs that stage's jobs: a simulate
job then re-simulates only runs whose key changed), and planning a 100,000-run sweep does not stat the sources
once per job. Each stage names the modules its job calls; what those import is found, not listed.
"""

from __future__ import annotations

from functools import cache

from experiments.common.code import ROOT, code_digest
from experiments.simulate.toolchain import Toolchain

# The modules each stage's job calls (workflow.jobs); their imports are followed.
# A batch job expands its runs, runs them and writes its record.
SIMULATE = ("experiments.planning.expansion", "experiments.simulate.batch", "experiments.store.records")
AGGREGATE = ("experiments.measure.aggregate",)
REPORT = ("experiments.report.markdown",)
SENSITIVITY = ("experiments.report.sensitivity_markdown",)
HTML = ("experiments.report.html", "figures.spec_curves")  # the pages, and the headlines' curves drawn with them
SEEDING = ("experiments.verdicts.seeding",)  # a seeding round's schedule
DRAW = ("experiments.store.experiment_data",)  # what a drawing reads its tables with, beside its figure module
TEMPLATES = ROOT / "experiments" / "report" / "templates"


def simulate_code(tools: Toolchain) -> str:
    """The Tcl sources and parsers (both in every run key) and the modules that expand and run a batch."""
    return f"{tools.code_sha256}:{code_digest(SIMULATE)}"


@cache
def stage_code(stage: str) -> str:
    """aggregate, seeding, report, sensitivity or html: the digest of what that stage's job runs (the HTML report's
    templates included)."""
    stages = {"aggregate": AGGREGATE, "seeding": SEEDING, "report": REPORT, "sensitivity": SENSITIVITY, "html": HTML}
    roots = stages[stage]
    extra = sorted(TEMPLATES.glob("*.j2")) if stage == "html" else []
    return code_digest(roots, extra)


@cache
def draw_code(module: str) -> str:
    """What drawing a figure or table runs: its figure module (figures.<paper> or the one its entry names)."""
    return code_digest((module, *DRAW))
