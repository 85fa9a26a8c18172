"""The results folder, one place: every path in it, the batch records, the parquet tables and their readers, the
folder's lock.
"""
