"""What every stage shares and that knows nothing of experiments: atomic writes, digests, canonical JSON,
progress lines, Markdown tables.
"""
