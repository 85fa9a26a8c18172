# Stage: simulate every run of every experiment file, a batch of runs per job.
# Each run keeps its own key and directory (results/<paper>/<experiment>/runs/<key>/),
# is parsed into parquet right after it ran, and is reused while its key is unchanged.


rule simulate_batch:
    input:
        experiment_file=lambda w: PLAN.files[w.paper],
        ns=rules.build_ns2.output.ns,
        manifest=rules.build_ns2.output.manifest,
        tcl=TCL_SOURCES,
    output:
        record=f"{RESULTS}/{{paper}}/{{experiment}}/batches/{{batch}}.json",
    log:
        "logs/{paper}/{experiment}/simulate_batch_{batch}.log",
    params:
        batch_size=SETTINGS.batch_size,
        smoke=SETTINGS.smoke,
        runs=lambda w: PLAN.describe_batch(
            w.paper, w.experiment, int(w.batch), SETTINGS.batch_size
        ),
    message:
        "{params.runs}"
    run:
        wf.simulate_batch(
            input.experiment_file,
            wildcards.experiment,
            int(wildcards.batch),
            SETTINGS,
            TOOLS,
            output.record,
            log[0],
        )


# The alternatives of the open choices (experiments.readings): the same experiment with
# one reading applied; its runs share results/<paper>/<experiment>/runs/ with the
# baseline's (a run is named by its key), its batch records live under readings/<reading>/.
rule simulate_reading_batch:
    input:
        experiment_file=lambda w: PLAN.files[w.paper],
        ns=rules.build_ns2.output.ns,
        manifest=rules.build_ns2.output.manifest,
        tcl=TCL_SOURCES,
    output:
        record=f"{RESULTS}/{{paper}}/{{experiment}}/readings/{{reading}}/batches/{{batch}}.json",
    log:
        "logs/{paper}/{experiment}/readings/{reading}/simulate_batch_{batch}.log",
    params:
        runs=lambda w: PLAN.describe_batch(
            w.paper, w.experiment, int(w.batch), SETTINGS.batch_size, w.reading
        ),
    message:
        "{params.runs}"
    run:
        wf.simulate_batch(
            input.experiment_file,
            wildcards.experiment,
            int(wildcards.batch),
            SETTINGS,
            TOOLS,
            output.record,
            log[0],
            wildcards.reading,
        )
