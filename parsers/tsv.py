"""The driver's sampled tab-separated files (DESIGN.md section 5): one header line, then typed rows."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv

from parsers.tables import SCHEMAS


def read_tsv(path: str | Path, kind: str, block_size: int = 1 << 20) -> pa.Table:
    """The rows as a typed table of SCHEMAS[kind], streamed in blocks; a header other than its columns is an error."""
    schema = SCHEMAS[kind]
    with open(path, "rb") as f:
        header = f.readline().decode().rstrip("\r\n").split("\t")
        if header != schema.names:
            raise ValueError(f"{path}: header {header} is not the expected {schema.names}")
        if not f.read(1):
            return schema.empty_table()
    reader = pacsv.open_csv(
        path,
        read_options=pacsv.ReadOptions(block_size=block_size, use_threads=False),
        parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False),
        convert_options=pacsv.ConvertOptions(
            column_types=dict(zip(schema.names, schema.types, strict=True)), strings_can_be_null=False
        ),
    )
    return pa.Table.from_batches(list(reader), schema=schema)
