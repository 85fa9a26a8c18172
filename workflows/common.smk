# Shared by the stage files: the workflow's settings (from the profile's config) and
# the plan of experiment files and batches. Logic lives in experiments.workflow.

from experiments import workflow as wf
from experiments.aggregate import METRICS_CODE
from experiments.simulate import Toolchain

SETTINGS = wf.Settings.from_config(config)
PLAN = wf.plan(SETTINGS, Path("build/ns2/ns"))
RESULTS = str(SETTINGS.results)
TOOLS = Toolchain(
    ns=Path("build/ns2/ns"),
    manifest=Path("build/ns2/manifest.json"),
    driver=Path("tcl/driver.tcl"),
    parsed=SETTINGS.parse,
)
PROGRESS = wf.SweepProgress(PLAN.total_runs(), workflow.cores)
# What the aggregate stage computes with: a change re-aggregates (the metrics cache is keyed by it too).
AGGREGATE_CODE = [f"experiments/{name}" for name in METRICS_CODE] + [
    "experiments/aggregate.py"
]


# The sweep's size for the progress lines, once the targets are known: the readings' runs
# count only when the targets ask for them.
onstart:
    PROGRESS.total = wf.runs_for_targets(PLAN, RESULTS, workflow.dag_settings.targets)


# Paths hold names only (parameters live in each run's params.json): keep each wildcard to
# one path segment, so that a reading's folder (<experiment>/readings/<reading>/) never
# matches the baseline's rules.
wildcard_constraints:
    paper="[a-z][a-z0-9_]*",
    experiment="[a-z][a-z0-9_]*",
    batch="[0-9]+",
    reading="[A-Za-z0-9_.=+-]+",
