# Stage: every run of an experiment -> tidy runs/metrics/series tables (parquet).


rule aggregate_experiment:
    input:
        records=lambda w: PLAN.records(RESULTS, w.paper, w.experiment),
        code=["experiments/metrics.py", "experiments/aggregate.py"],
    output:
        runs=f"{RESULTS}/{{paper}}/{{experiment}}/runs.parquet",
        metrics=f"{RESULTS}/{{paper}}/{{experiment}}/metrics.parquet",
        series=f"{RESULTS}/{{paper}}/{{experiment}}/series.parquet",
    log:
        "logs/{paper}/{experiment}/aggregate_experiment.log",
    run:
        wf.aggregate_experiment(
            PLAN,
            wildcards.paper,
            wildcards.experiment,
            input.records,
            Path(output.metrics).parent,
        )


rule aggregate_reading:
    input:
        records=lambda w: PLAN.records(RESULTS, w.paper, w.experiment, w.reading),
        code=["experiments/metrics.py", "experiments/aggregate.py"],
    output:
        runs=f"{RESULTS}/{{paper}}/{{experiment}}/readings/{{reading}}/runs.parquet",
        metrics=f"{RESULTS}/{{paper}}/{{experiment}}/readings/{{reading}}/metrics.parquet",
        series=f"{RESULTS}/{{paper}}/{{experiment}}/readings/{{reading}}/series.parquet",
    log:
        "logs/{paper}/{experiment}/readings/{reading}/aggregate.log",
    run:
        wf.aggregate_experiment(
            PLAN,
            wildcards.paper,
            wildcards.experiment,
            input.records,
            Path(output.metrics).parent,
        )
