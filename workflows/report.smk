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
