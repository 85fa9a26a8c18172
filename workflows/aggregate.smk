# Stage: every run of an experiment -> tidy runs/metrics/series tables (parquet).
# `names` digests what it reads of the file (Plan.aggregate_identity): the names joined to
# each run, the warm-up, the queue thresholds; a claim or figure edit leaves it alone. `code`
# digests the modules the job imports (experiments.workflow.digests).


rule aggregate_experiment:
    input:
        records=lambda w: PLAN.records(RESULTS, *jobs.part_of(w)),
    output:
        **{
            kind: layout.experiment_table(RESULTS, "{paper}", "{experiment}", kind)
            for kind in layout.TABLE_KINDS
        },
    log:
        layout.log_file(RESULTS, "{paper}/{experiment}/aggregate_experiment.log"),
    params:
        names=lambda w: PLAN.aggregate_identity(*jobs.part_of(w)),
        code=digests.stage_code("aggregate"),
    run:
        jobs.aggregate_experiment(
            PLAN, RESULTS, wildcards, input.records, output.metrics, log[0]
        )


# A reading's tables: the rule above with a reading's paths (its params and body read the reading from the wildcards).
use rule aggregate_experiment as aggregate_reading with:
    output:
        **{
            kind: layout.experiment_table(
                RESULTS, "{paper}", "{experiment}", kind, "{reading}"
            )
            for kind in layout.TABLE_KINDS
        },
    log:
        layout.log_file(
            RESULTS, "{paper}/{experiment}/readings/{reading}/aggregate.log"
        ),
