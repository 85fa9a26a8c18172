"""From a validated file to runs: each run's resolved parameters (params.json), the expansion of a matrix into
runs under a reading, node tracks, run keys, and the cut a profile makes (default, smoke, paper).
"""
