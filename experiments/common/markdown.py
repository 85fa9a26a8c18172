"""Markdown: pipe tables written by tabulate, and read back as paragraphs and tables.

Every Markdown table the project writes (REPORT.md, SENSITIVITY.md, the metric list, the figures' tables) is
`table`'s; the HTML report shows a figure module's table file as `blocks` reads it. A cell's text is escaped so
that it stays one cell of one row: a `|` would end the cell, a line break the row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby

from tabulate import tabulate


def cell(value) -> str:
    """A value as the text of one table cell."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(headers: Sequence, rows: Iterable[Sequence], right: Sequence[bool] = ()) -> list[str]:
    """A pipe table's lines; `right[i]` right-aligns column i (numbers), every other column is left-aligned. Cells
    are written as given (no number parsing: "1.50" stays "1.50")."""
    align = ["right" if i < len(right) and right[i] else "left" for i in range(len(headers))]
    text = tabulate(
        [[cell(value) for value in row] for row in rows],
        headers=[cell(h) for h in headers],
        tablefmt="pipe",
        colalign=align,
        disable_numparse=True,
    )
    return text.splitlines()


@dataclass(frozen=True)
class Block:
    """A paragraph (text) or a pipe table (header, align, rows) of a Markdown file."""

    text: str = ""
    header: tuple[str, ...] = ()
    align: tuple[str, ...] = ()  # "left" or "right" per column
    rows: tuple[tuple[str, ...], ...] = ()


def row_cells(line: str) -> tuple[str, ...]:
    inner = line.strip().removeprefix("|").removesuffix("|")
    return tuple(c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner))


def _line_kind(line: str) -> str:
    return "" if not line.strip() else "table" if line.lstrip().startswith("|") else "text"


def blocks(text: str) -> list[Block]:
    """A Markdown file of paragraphs and `table`s, as blocks: a run of consecutive table lines (those starting with
    |) or of other lines; a blank line ends one."""
    out = []
    for kind, group in groupby(text.splitlines(), _line_kind):
        lines = list(group)
        if kind == "table" and len(lines) >= 2:
            align = tuple("right" if c.endswith(":") and not c.startswith(":") else "left" for c in row_cells(lines[1]))
            out.append(Block(header=row_cells(lines[0]), align=align, rows=tuple(map(row_cells, lines[2:]))))
        elif kind:
            out.append(Block(text=" ".join(line.strip() for line in lines)))
    return out


def contains_row(text: str, row: str | Sequence[str]) -> bool:
    """Whether a table of the Markdown `text` holds these cells side by side in one row (given as cells or as a
    line "| a | b |"): what a reader sees, whatever width tabulate gave the columns."""
    wanted = row_cells(row) if isinstance(row, str) else tuple(row)
    for line in text.splitlines():
        if line.lstrip().startswith("|"):
            cells = row_cells(line)
            if any(cells[i : i + len(wanted)] == wanted for i in range(len(cells) - len(wanted) + 1)):
                return True
    return False
