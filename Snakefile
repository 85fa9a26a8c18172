# ns2-repro: includes the stage rule files and names the targets; nothing else.
#
#   snakemake reproduce-all                      (profiles/default is picked up by itself)
#   snakemake reproduce-all --profile profiles/smoke
#
# `reproduce-all` is a file: rule names cannot hold a hyphen, so the target is a stamp
# listing every regenerated artifact with its sha256.

from glob import glob
from pathlib import Path

from experiments.provenance import write_stamp


include: "workflows/common.smk"
include: "workflows/build.smk"
include: "workflows/simulate.smk"
include: "workflows/aggregate.smk"
include: "workflows/plot.smk"
include: "workflows/report.smk"


rule reproduce_all:
    input:
        rules.build_ns2.output,
        PLAN.artifact_outputs(RESULTS),
        rules.write_report.output,
    output:
        "reproduce-all",
    log:
        "logs/reproduce_all.log",
    run:
        write_stamp(input, output[0])
