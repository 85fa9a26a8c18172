# Stage: simulate every run of every experiment file, a batch of runs per job.
# Each run keeps its own key and directory (results/runs/<key>/), is parsed into parquet
# right after it ran, and is reused while its key is unchanged.
#
# A batch job depends on what decides its runs' bytes, not on the whole experiment file:
# `identity` digests its runs' scenario, levels and seeds (Plan.batch_identity), so an edit
# to a claim, a figure or a level's label re-runs no simulate job (Snakemake compares
# params); so is `code`, the digest of the code that turns params into a run directory
# (Tcl sources, parsers, and the modules a batch job imports: experiments.workflow.digests).
# A failed run does not fail its job: the record lists it (with its message and rerun
# command), every other job goes on, the report lists it, the stamps exit non-zero, and
# `retry` (experiments.workflow.plan.Plan.batch_retry) reruns the batch at the next invocation.
# A batch a run of which was damaged since it ran is forced to run again (workflows/common.smk).

SIMULATE_CODE = digests.simulate_code(TOOLS)


rule simulate_batch:
    input:
        ns=rules.build_ns2.output.ns,
        manifest=rules.build_ns2.output.manifest,
        damaged=force_if_damaged,
    output:
        record=layout.batch_record(RESULTS, "{paper}", "{experiment}", "{batch}"),
    log:
        layout.log_file(RESULTS, "{paper}/{experiment}/simulate_batch_{batch}.log"),
    params:
        code=SIMULATE_CODE,
        identity=lambda w: PLAN.batch_identity(*jobs.batch_of(w)),
        retry=lambda w: PLAN.batch_retry(RESULTS, *jobs.batch_of(w)),
        runs=lambda w: PLAN.describe_batch(*jobs.batch_of(w)),
    message:
        "{params.runs}"
    run:
        jobs.simulate_batch(
            PLAN,
            wildcards,
            SETTINGS,
            TOOLS,
            output.record,
            log[0],
            PROGRESS,
            params.retry,
        )


# The alternatives of the open choices (experiments.config.readings): the same experiment with
# one reading applied; its runs share results/runs/ with the baseline's (a run is named by
# its key), its batch records live under <paper>/<experiment>/readings/<reading>/. The rule
# is simulate_batch's with these paths (its params and body read the reading from the wildcards).
use rule simulate_batch as simulate_reading_batch with:
    output:
        record=layout.batch_record(
            RESULTS, "{paper}", "{experiment}", "{batch}", "{reading}"
        ),
    log:
        layout.log_file(
            RESULTS,
            "{paper}/{experiment}/readings/{reading}/simulate_batch_{batch}.log",
        ),
