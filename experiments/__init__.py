"""ns2-repro's core: experiment files, run matrices, run keys, claims and provenance.

Plain functions, tested without Snakemake; the workflow's rules are thin wrappers.
"""
