# Shared by the stage files: the workflow's settings (from the profile's config) and
# the plan of experiment files and batches. Logic lives in experiments.workflow.

import sys
import uuid

from experiments.common.progress import Progress
from experiments.config.errors import ConfigError
from experiments.planning.profiles import Settings
from experiments.simulate.toolchain import Toolchain
from experiments.store import layout
from experiments.store import folder as results_folder
from experiments.store import lock as results_lock
from experiments.store.records import damaged_runs
from experiments.workflow import digests, jobs, scheduler, stamps, targets, worker
from experiments.workflow.plan_cache import cached_plan

# Snakemake's scheduler wakes once per pass and span, not once per finished job and span
# (experiments/workflow/scheduler.py says why; bench/scheduler_wakeups.py measures it).
scheduler.one_pending_reevaluation()

# A bad experiment file: one line naming the file and key, as `validate` gives, not the
# stack Snakemake prints for an exception in a Snakefile.
try:
    SETTINGS = Settings.from_config(config)
    PLAN = cached_plan(SETTINGS, Path("build/ns2/ns"))
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
    cpu_limit=SETTINGS.run_cpu_limit,
)
# The whole sweep's progress, appended to each run's line (batch jobs are threads of this process).
PROGRESS = Progress(PLAN.total_runs(), workflow.cores)


# When the workflow starts executing (not on a dry run): refuse a results folder holding a link
# or a pipe (experiments.store.folder says why), hold it against a second invocation
# (experiments.store.lock, which says why Snakemake's own lock is off),
# then size the sweep for the progress lines, once the targets are known: the readings'
# runs count only when the targets ask for them.
HELD = []


onstart:
    try:
        results_folder.check(RESULTS)
        HELD.append(results_lock.hold(RESULTS))
    except (results_folder.UnsafeResults, results_lock.ResultsBusy) as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    worker.watch_interrupts()
    PROGRESS.total = targets.runs_for_targets(
        PLAN, RESULTS, workflow.dag_settings.targets
    )


# A Ctrl-C said once, whichever job or thread saw it first: the job that was running may have
# ended well (its ns started before the signal), and Snakemake then names no job that stopped.
onerror:
    if worker.STOP.is_set():
        print(f"error: {worker.INTERRUPTED_TEXT}", file=sys.stderr)


# Paths hold names only (parameters live in each run's params.json): keep each wildcard to
# one path segment, so that a reading's folder (<experiment>/readings/<reading>/) never
# matches the baseline's rules.
wildcard_constraints:
    paper="[a-z][a-z0-9_]*",
    experiment="[a-z][a-z0-9_]*",
    batch="[0-9]+",
    reading="[A-Za-z0-9_.=+-]+",
    round="[1-9][0-9]*",


# The seeding rounds' inputs (workflows/seeding.smk): each round's schedule, asked of its
# checkpoint as the round before it is done, and the tables of the runs it added.
SEEDING = PLAN.seeding


def round_tables(number):
    """The metrics tables of the runs round `number` adds (none: the rounds end there)."""
    return [
        PLAN.experiment_tables(RESULTS, paper, experiment, seed_round=number)["metrics"]
        for paper, experiment in PLAN.load_round(number)
    ]


def seed_round_inputs(last=None):
    """The schedules of the rounds (through `last`, else all until one adds no runs) and the tables of the runs
    they added, each round asked of its checkpoint as the one before it is done."""
    files, number = [], 1
    while SEEDING and (last is None or number <= last):
        files.append(checkpoints.seed_round.get(round=number).output[0])
        added = round_tables(number)
        if not added:
            break
        files += added
        number += 1
    return files


# A run found damaged since it was made (its directory gone, a file of it missing or of another
# size than its files.json says: experiments.store.run_files; other bytes of the same size are
# found by the batch job's sha256 check when it runs) forces its batch to run again, as `--forcerun <record>` would (so
# a dry run lists it too): the batch makes the damaged runs again and reuses the others, and the
# aggregation and all after it follow by their inputs' times. Forced, not a param: Snakemake
# compares params only where it kept a record's metadata, which a copied results folder lacks.
# An input function (no input), as the DAG exists only while it is built; a cluster job's
# Snakemake does not look: the main process decided.
DAMAGE_SEEN = set()


def force_if_damaged(wildcards):
    record = PLAN.records(RESULTS, *jobs.part_of(wildcards))[int(wildcards.batch)]
    if workflow.is_main_process and record not in DAMAGE_SEEN:
        DAMAGE_SEEN.add(record)
        for line in damaged_runs(record, RESULTS):
            print(f"{record}: run {line}: made again", file=sys.stderr)
            workflow.dag.forcefiles.add(record)
    return []
