"""Figures and tables of the experiment files: one module per paper (figures/<paper>.py).

Each figure or table is a function `f(data, out, artifact) -> list[Path]` that the plot
stage calls with the experiment's tables (figures.common.ExperimentData), the output path
stem and the entry of the experiment file that names it. Everything drawn or written is
computed from the tables alone; published values appear only in the experiment files'
claims and in the report.
"""
