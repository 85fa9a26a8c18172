"""Running runs: one run directory per run key, complete or absent; a failure kept as <key>.failed/ with its
rerun command; a batch of runs one after another.
"""
