"""The Snakemake glue: the plan of every file's runs and batches, the functions the rules call, the code
digests that are the stages' rerun triggers, the stamps and the failed-run listing at the end.
"""
