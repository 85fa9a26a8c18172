# Stage: every run of an experiment -> tidy runs/metrics/series tables (parquet).
# `names` digests what it reads of the file (Plan.aggregate_identity): the names joined to
# each run, the warm-up, the queue thresholds; a claim or figure edit leaves it alone.


rule aggregate_experiment:
    input:
        records=lambda w: PLAN.records(RESULTS, w.paper, w.experiment),
        code=AGGREGATE_CODE,
    output:
        runs=f"{RESULTS}/{{paper}}/{{experiment}}/runs.parquet",
        metrics=f"{RESULTS}/{{paper}}/{{experiment}}/metrics.parquet",
        series=f"{RESULTS}/{{paper}}/{{experiment}}/series.parquet",
        failed=f"{RESULTS}/{{paper}}/{{experiment}}/failed.parquet",
    log:
        "logs/{paper}/{experiment}/aggregate_experiment.log",
    params:
        names=lambda w: PLAN.aggregate_identity(w.paper, w.experiment),
    run:
        wf.aggregate_experiment(
            PLAN,
            wildcards.paper,
            wildcards.experiment,
            input.records,
            Path(output.metrics).parent,
            log[0],
        )


rule aggregate_reading:
    input:
        records=lambda w: PLAN.records(RESULTS, w.paper, w.experiment, w.reading),
        code=AGGREGATE_CODE,
    output:
        runs=f"{RESULTS}/{{paper}}/{{experiment}}/readings/{{reading}}/runs.parquet",
        metrics=f"{RESULTS}/{{paper}}/{{experiment}}/readings/{{reading}}/metrics.parquet",
        series=f"{RESULTS}/{{paper}}/{{experiment}}/readings/{{reading}}/series.parquet",
        failed=f"{RESULTS}/{{paper}}/{{experiment}}/readings/{{reading}}/failed.parquet",
    log:
        "logs/{paper}/{experiment}/readings/{reading}/aggregate.log",
    params:
        names=lambda w: PLAN.aggregate_identity(w.paper, w.experiment, w.reading),
    run:
        wf.aggregate_experiment(
            PLAN,
            wildcards.paper,
            wildcards.experiment,
            input.records,
            Path(output.metrics).parent,
            log[0],
            wildcards.reading,
        )
