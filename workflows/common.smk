# Shared by the stage files: the workflow's settings (from the profile's config) and
# the plan of experiment files and batches. Logic lives in experiments.workflow.

from experiments import workflow as wf
from experiments.simulate import Toolchain

SETTINGS = wf.Settings.from_config(config)
PLAN = wf.plan(SETTINGS)
RESULTS = str(SETTINGS.results)
TOOLS = Toolchain(
    ns=Path("build/ns2/ns"),
    manifest=Path("build/ns2/manifest.json"),
    driver=Path("tcl/driver.tcl"),
    parsed=SETTINGS.parse,
)
TCL_SOURCES = sorted(glob("tcl/**/*.tcl", recursive=True))
