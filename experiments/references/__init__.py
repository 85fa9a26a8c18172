"""Every reference of an experiment file checked before any run: metrics against the registry, figure and
table entries against the figure modules, ns-2 classes and knobs against the ns binary.
"""
