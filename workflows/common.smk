# Shared by the stage files: the workflow's settings (from the profile's config) and
# the plan of experiment files and batches. Logic lives in experiments.workflow.

import sys
import uuid

from experiments import results_lock
from experiments import workflow as wf
from experiments.config import ConfigError
from experiments.aggregate import METRICS_CODE
from experiments.simulate import Toolchain

# A bad experiment file: one line naming the file and key, as `validate` gives, not the
# stack Snakemake prints for an exception in a Snakefile.
try:
    SETTINGS = wf.Settings.from_config(config)
    PLAN = wf.plan(SETTINGS, Path("build/ns2/ns"))
except ConfigError as err:
    print(f"error: {err}", file=sys.stderr)
    sys.exit(2)
RESULTS = str(SETTINGS.results)
# New at every invocation: the stamps' params (the Snakefile says why).
INVOCATION = uuid.uuid4().hex
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


# When the workflow starts executing (not on a dry run): hold the results folder against a
# second invocation (experiments.results_lock, which says why Snakemake's own lock is off),
# then size the sweep for the progress lines, once the targets are known: the readings'
# runs count only when the targets ask for them.
HELD = []


onstart:
    try:
        HELD.append(results_lock.hold(RESULTS))
    except results_lock.ResultsBusy as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    PROGRESS.total = wf.runs_for_targets(
        PLAN, RESULTS, workflow.dag_settings.targets
    )


# Paths hold names only (parameters live in each run's params.json): keep each wildcard to
# one path segment, so that a reading's folder (<experiment>/readings/<reading>/) never
# matches the baseline's rules.
wildcard_constraints:
    paper="[a-z][a-z0-9_]*",
    experiment="[a-z][a-z0-9_]*",
    batch="[0-9]+",
    reading="[A-Za-z0-9_.=+-]+",
