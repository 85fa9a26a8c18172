# Stage: every run of an experiment -> tidy runs/metrics/series tables (parquet).
# `names` digests what it reads of the file (Plan.aggregate_identity): the names joined to
# each run, the warm-up, the queue thresholds; a claim or figure edit leaves it alone. `code`
# digests the modules the job imports (experiments.workflow.digests).


rule aggregate_experiment:
    input:
        records=lambda w: PLAN.records(RESULTS, w.paper, w.experiment),
    output:
        **{
            kind: layout.experiment_table(RESULTS, "{paper}", "{experiment}", kind)
            for kind in layout.TABLE_KINDS
        },
    log:
        "logs/{paper}/{experiment}/aggregate_experiment.log",
    params:
        names=lambda w: PLAN.aggregate_identity(w.paper, w.experiment),
        code=digests.stage_code("aggregate"),
    run:
        jobs.aggregate_experiment(
            PLAN,
            RESULTS,
            wildcards.paper,
            wildcards.experiment,
            input.records,
            Path(output.metrics).parent,
            log[0],
        )


rule aggregate_reading:
    input:
        records=lambda w: PLAN.records(RESULTS, w.paper, w.experiment, w.reading),
    output:
        **{
            kind: layout.experiment_table(
                RESULTS, "{paper}", "{experiment}", kind, "{reading}"
            )
            for kind in layout.TABLE_KINDS
        },
    log:
        "logs/{paper}/{experiment}/readings/{reading}/aggregate.log",
    params:
        names=lambda w: PLAN.aggregate_identity(w.paper, w.experiment, w.reading),
        code=digests.stage_code("aggregate"),
    run:
        jobs.aggregate_experiment(
            PLAN,
            RESULTS,
            wildcards.paper,
            wildcards.experiment,
            input.records,
            Path(output.metrics).parent,
            log[0],
            wildcards.reading,
        )
