# ns2-repro: includes the stage rule files and names the targets; nothing else.
#
#   snakemake reproduce-all        (profiles/default is picked up automatically)
#
# `reproduce-all` is a file: rule names cannot hold a hyphen, so the target is
# a stamp listing every regenerated artifact with its sha256.

from glob import glob
from pathlib import Path

from experiments.provenance import write_stamp


include: "workflows/build.smk"


rule reproduce_all:
    input:
        rules.build_ns2.output,
    output:
        "reproduce-all",
    log:
        "logs/reproduce_all.log",
    run:
        write_stamp(input, output[0])
