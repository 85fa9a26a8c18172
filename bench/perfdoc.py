"""docs/PERFORMANCE.md is shared by the benchmarks: each rewrites only its own marked section."""

from __future__ import annotations

from pathlib import Path

HEADER = "# Performance\n\nEvery figure here is a ratio measured side by side in one run of the command shown.\n\n"


def write_section(path: Path, section: str, begin: str, end: str) -> None:
    """Replace the text between the markers `begin` and `end` (appended if absent); keep the rest."""
    if not section.startswith(begin) or not section.rstrip().endswith(end):
        raise ValueError("a section must start with its begin marker and end with its end marker")
    text = path.read_text() if path.exists() else HEADER
    if begin in text:
        before, rest = text.split(begin, 1)
        text = before + section.rstrip("\n") + "\n" + rest.split(end, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"
    path.write_text(text)
