# Stage: the report: every claim's measured vs expected value and verdict. Each rule's
# `code` digests the modules its job imports (experiments.workflow.digests).


# The sensitivity table is an input only when sensitivity-all is a target (as for the HTML report, below): its
# null readings set the non-discriminating claims apart.
rule write_report:
    input:
        metrics=PLAN.all_metrics(RESULTS),
        sensitivity=lambda w: (
            [rules.write_sensitivity.output.parquet]
            if targets.wants_sensitivity(workflow.dag_settings.targets)
            else []
        ),
        seeding=lambda w: seed_round_inputs(),
        experiment_files=list(PLAN.files.values()),
        manifest=rules.build_ns2.output.manifest,
    output:
        layout.report_md(RESULTS),
    log:
        layout.log_file(RESULTS, "write_report.log"),
    params:
        code=digests.stage_code("report"),
    run:
        jobs.report(
            PLAN,
            SETTINGS,
            input.manifest,
            output[0],
            input.sensitivity,
            input.seeding,
        )


# The sensitivity table: every reproduction claim under the baseline and each reading.
rule write_sensitivity:
    input:
        metrics=PLAN.all_metrics(RESULTS),
        readings=PLAN.reading_metrics(RESULTS),
        seeding=lambda w: seed_round_inputs(),
        experiment_files=list(PLAN.files.values()),
        manifest=rules.build_ns2.output.manifest,
    output:
        md=layout.sensitivity_md(RESULTS),
        parquet=layout.sensitivity_table(RESULTS),
    log:
        layout.log_file(RESULTS, "write_sensitivity.log"),
    # papers judged two at a time (one process each): Alemu's thesis is over half the work, so a third would wait
    threads: 2
    params:
        code=digests.stage_code("sensitivity"),
    run:
        jobs.sensitivity_report(
            PLAN,
            SETTINGS,
            input.manifest,
            output.md,
            output.parquet,
            input.seeding,
            threads,
        )


# The report as HTML pages beside REPORT.md (experiments/report/html.py). The sensitivity table is an input only
# when sensitivity-all is a target: an input function, as the targets are known once the DAG is built. A local
# rule, since a cluster job's Snakemake is not told the targets (the module's docstring says more).
localrules:
    write_report,
    write_html_report,


rule write_html_report:
    input:
        report=rules.write_report.output,
        metrics=PLAN.all_metrics(RESULTS),
        runs=PLAN.baseline_tables(RESULTS, "runs"),
        artifacts=PLAN.artifact_outputs(RESULTS),
        sensitivity=lambda w: (
            [rules.write_sensitivity.output.parquet]
            if targets.wants_sensitivity(workflow.dag_settings.targets)
            else []
        ),
        seeding=lambda w: seed_round_inputs(),
        experiment_files=list(PLAN.files.values()),
        manifest=rules.build_ns2.output.manifest,
    output:
        jobs.html_pages(PLAN, RESULTS),
    log:
        layout.log_file(RESULTS, "write_html_report.log"),
    # headlines' specification curves drawn two at a time (one process each): over half the stage's time
    threads: 2
    params:
        code=digests.stage_code("html"),
        # what the footer names besides the build manifest: a new commit re-renders it
        tcl=lambda w: TOOLS.tcl_sha256,
        commit=lambda w: stamps.git_commit(workflow.basedir),
    run:
        jobs.html_report(
            PLAN,
            SETTINGS,
            input.manifest,
            input.sensitivity,
            input.seeding,
            params.tcl,
            params.commit,
            log[0],
            threads,
        )
