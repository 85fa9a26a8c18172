"""What every stage shares and that knows nothing of experiments: atomic writes, digests, canonical JSON, the import
closure of a module, progress lines, Markdown tables.
"""
