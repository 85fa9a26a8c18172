# Stage: the report: every claim's measured vs expected value and verdict.


rule write_report:
    input:
        metrics=PLAN.all_metrics(RESULTS),
        experiment_files=list(PLAN.files.values()),
        manifest=rules.build_ns2.output.manifest,
        code=["experiments/claims.py", "experiments/report.py"],
    output:
        f"{RESULTS}/REPORT.md",
    log:
        "logs/write_report.log",
    run:
        wf.report(PLAN, SETTINGS, input.manifest, output[0])


# The sensitivity table: every reproduction claim under the baseline and each reading.
rule write_sensitivity:
    input:
        metrics=PLAN.all_metrics(RESULTS),
        readings=PLAN.reading_metrics(RESULTS),
        experiment_files=list(PLAN.files.values()),
        manifest=rules.build_ns2.output.manifest,
        code=[
            "experiments/claims.py",
            "experiments/readings.py",
            "experiments/sensitivity.py",
        ],
    output:
        md=f"{RESULTS}/SENSITIVITY.md",
        parquet=f"{RESULTS}/sensitivity.parquet",
    log:
        "logs/write_sensitivity.log",
    run:
        wf.sensitivity_report(PLAN, SETTINGS, input.manifest, output.md, output.parquet)
