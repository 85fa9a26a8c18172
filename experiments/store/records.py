"""Batch records: what a simulate job leaves behind, its runs' keys, seeds and statuses in the batch's order
(simulate.batch.batch_record), read by the aggregate stage, the retry trigger and the failed-run listing."""

from __future__ import annotations

import json
from pathlib import Path

from experiments.common.files import write_atomic
from experiments.store import layout, run_files


def write_record(path: str | Path, record: dict) -> None:
    """A batch record, written whole or not at all: a record that exists is complete."""
    write_atomic(path, json.dumps(record, indent=2, sort_keys=True) + "\n")


def read_record(path: str | Path) -> dict:
    return json.loads(Path(path).read_text())


def failed_entries(record: dict) -> list[dict]:
    return [entry for entry in record["runs"] if entry["status"] == "failed"]


def read_records(records: list[str | Path]) -> list[dict]:
    """The runs of several records, in their order."""
    return [entry for record in records for entry in read_record(record)["runs"]]


def damaged_runs(record: str | Path, results: str | Path) -> list[str]:
    """What is wrong with each run a record lists as made (none failed): "<key>: <problem>" for a directory that is
    gone or no longer matches its file list (store.run_files, sizes only: cheap enough for every batch of a sweep
    at planning); [] for a record not yet written."""
    try:
        entries = read_record(record)["runs"]
    except FileNotFoundError:
        return []
    found = []
    for entry in entries:
        if entry["status"] != "failed" and (problem := run_files.problem(layout.run_dir(results, entry["key"]))):
            found.append(f"{entry['key']}: {problem}")
    return found
