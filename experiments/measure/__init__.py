"""Measuring: a run's metrics from its parquet tables, one module per input table family, and the aggregate
stage that joins them into an experiment's tables. The registry (registry.py, no pandas) is the one list of
metric names; validation reads it without importing the rest of this package.
"""
