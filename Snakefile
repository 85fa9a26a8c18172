# ns2-repro: includes the stage rule files and names the targets; nothing else.
#
#   snakemake reproduce-all                      (profiles/default is picked up by itself)
#   snakemake reproduce-all --profile profiles/smoke
#   snakemake sensitivity-all                    (every claim under each alternative reading)
#
# `reproduce-all` and `sensitivity-all` are files: rule names cannot hold a hyphen, so each
# target is a stamp listing every artifact it regenerated with its sha256 (in the results
# folder, <results>/<target>.sha256; the file in the working directory names that listing
# and the build: experiments.workflow.stamps). The listing is not declared an output: a
# target job's rerun trigger is its params, which Snakemake compares only when every output
# has its record, and a new folder's listing has none. Nor are the seeding rounds' tables
# inputs: a target that waits on a checkpoint is not rerun by its params either. Snakemake counts a
# job whose output exists as done even when its inputs are gone (so that temp() inputs may go):
# a stamp left from an earlier invocation would make `snakemake reproduce-all` a no-op after
# results/ was deleted. So each stamp's params hold a token new at every invocation
# (params are a rerun trigger): its job always runs, and with it every job whose output it
# needs and misses. A run that failed does not stop the workflow (workflows/simulate.smk): the
# stamps are made last, and then fail, listing the failed runs, so the command exits non-zero.

from glob import glob
from pathlib import Path


include: "workflows/common.smk"
include: "workflows/build.smk"
include: "workflows/simulate.smk"
include: "workflows/aggregate.smk"
include: "workflows/seeding.smk"
include: "workflows/plot.smk"
include: "workflows/report.smk"


rule reproduce_all:
    input:
        rules.build_ns2.output,
        PLAN.artifact_outputs(RESULTS),
        PLAN.experiment_outputs(RESULTS, readings=False),
        rules.write_report.output,
        rules.write_html_report.output,
    output:
        "reproduce-all",
    log:
        layout.log_file(RESULTS, "reproduce_all.log"),
    params:
        invocation=INVOCATION,
    run:
        stamps.write_stamp(input, RESULTS, output[0])
        stamps.raise_for_failed_runs(PLAN, RESULTS, False, log[0])


rule sensitivity_all:
    input:
        rules.build_ns2.output,
        PLAN.experiment_outputs(RESULTS, readings=True),
        rules.write_report.output,
        rules.write_sensitivity.output,
        rules.write_html_report.output,
    output:
        "sensitivity-all",
    log:
        layout.log_file(RESULTS, "sensitivity_all.log"),
    params:
        invocation=INVOCATION,
    run:
        stamps.write_stamp(input, RESULTS, output[0])
        stamps.raise_for_failed_runs(PLAN, RESULTS, True, log[0])
