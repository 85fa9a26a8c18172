"""ns2-repro's core package, one subpackage per stage (docs/DESIGN.md opens with their map): config (an experiment
file's meaning), planning (its runs and their keys), store (the results folder), simulate (running them), measure
(their metrics), references (every reference checked before any run), verdicts (claims judged), report, and the
Snakemake glue (workflow); common and paper_models beneath them all. Plain functions, tested without Snakemake; the
rules in workflows/ are thin wrappers.
"""
