"""The meaning of an experiment file: reading it, its JSON Schema, the cross-checks the schema cannot say, the
matrix's axes and labels, dotted paths into a scenario, the readings of its open choices, note placeholders and
ns-2's units. No pandas: validating a file stays fast.
"""
