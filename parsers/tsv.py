"""The driver's sampled tab-separated files (DESIGN.md section 5): one header line, then typed rows.

A malformed file is an error naming the file and the line (parsers/lines.py): a truncated last line,
a row with too few or too many fields, a field that is not a number of its column's type. Only
`objects.end` may be `nan` (an object unfinished when the run ended), read as null.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv

from parsers.lines import malformed, null_columns, require_complete
from parsers.tables import NULLABLE, SCHEMAS


def read_tsv(path: str | Path, kind: str, block_size: int = 1 << 20) -> pa.Table:
    """The rows as a typed table of SCHEMAS[kind], streamed in blocks; a header other than its columns is an error."""
    schema = SCHEMAS[kind]
    with open(path, "rb") as f:
        header = f.readline().decode().rstrip("\r\n").split("\t")
        if header != schema.names:
            raise ValueError(f"{path}: header {header} is not the expected {schema.names}")
        if not f.read(1):
            return schema.empty_table()
    require_complete(path)
    nullable = NULLABLE.get(kind, ())
    locate = {"schema": schema, "delimiter": "\t", "nullable": nullable, "skip_lines": 1}
    try:
        reader = pacsv.open_csv(
            path,
            read_options=pacsv.ReadOptions(block_size=block_size, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types=dict(zip(schema.names, schema.types, strict=True)), strings_can_be_null=False
            ),
        )
        table = pa.Table.from_batches(list(reader), schema=schema)
    except pa.ArrowInvalid as exc:
        raise malformed(path, exc, **locate) from exc
    if null_columns(table, nullable):  # an empty or `NA` field, which pyarrow reads as null
        raise malformed(path, None, **locate)
    return table
