"""A claim's note may name measured values as placeholders ({{metric}}, {{metric scope=group:http queue=PI}}): the
report fills them from the runs, so a note never holds a number the next run could contradict.
"""

from __future__ import annotations

import re

# A measured value a note needs: {{metric}} or {{metric scope=group:http queue=PI}} (the report fills it).
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_@.<>-]+)((?:\s+[A-Za-z0-9_:]+=[^\s}]+)*)\s*\}\}")


def note_placeholders(note: str) -> list[tuple[str, dict[str, str]]]:
    """(metric, {key: value}) of each {{metric key=value ...}} placeholder in a note, in order."""
    return [(m.group(1), dict(kv.split("=", 1) for kv in m.group(2).split())) for m in _PLACEHOLDER.finditer(note)]


def fill_placeholders(note: str, value_of) -> str:
    """The note with each placeholder replaced by value_of(metric, {key: value})."""
    return _PLACEHOLDER.sub(lambda m: value_of(m.group(1), dict(kv.split("=", 1) for kv in m.group(2).split())), note)
