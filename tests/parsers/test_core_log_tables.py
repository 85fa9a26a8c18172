"""The core_log files (core_bins.tsv, core_drops.tsv, core_delays.tsv; DESIGN.md section 5.4) as typed tables."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from test_parser_untraced import PARAMS, make_run

from parsers import SCHEMAS, parse_run
from parsers.tsv import read_tsv

# As ns2-patches/0007 prints them: bins with %.9g, times and delays with %.9f, hint_sum with %.17g.
CORE_BINS = (
    "bin\tevent\tfid\tpackets\tbytes\thint_sum\thinted\n"
    "0\tarrival\t1\t12\t12480\t54.5\t12\n"
    "0\tarrival\t2\t1\t40\t0\t0\n"
    "0.5\tdrop\t1\t2\t2080\t17.25\t2\n"
    "0.5\tdeparture\t1\t9\t9360\t40\t9\n"
)
CORE_DROPS = "time\tfid\tseqno\tsize\thint\tqlen\n0.612345678\t1\t41\t1040\t8.625\t20\n0.700000000\t2\t3\t40\t-1\t20\n"
CORE_DELAYS = "time\tfid\tseqno\tdelay\n0.031200000\t1\t0\t0.021200000\n0.041600000\t1\t1\t0.022400000\n"


@pytest.mark.parametrize(
    "kind,text,rows",
    [
        (
            "core_bins",
            CORE_BINS,
            [
                {
                    "bin": 0.0,
                    "event": "arrival",
                    "fid": 1,
                    "packets": 12,
                    "bytes": 12480,
                    "hint_sum": 54.5,
                    "hinted": 12,
                },
                {"bin": 0.0, "event": "arrival", "fid": 2, "packets": 1, "bytes": 40, "hint_sum": 0.0, "hinted": 0},
                {"bin": 0.5, "event": "drop", "fid": 1, "packets": 2, "bytes": 2080, "hint_sum": 17.25, "hinted": 2},
                {
                    "bin": 0.5,
                    "event": "departure",
                    "fid": 1,
                    "packets": 9,
                    "bytes": 9360,
                    "hint_sum": 40.0,
                    "hinted": 9,
                },
            ],
        ),
        (
            "core_drops",
            CORE_DROPS,
            [
                {"time": 0.612345678, "fid": 1, "seqno": 41, "size": 1040, "hint": 8.625, "qlen": 20},
                {"time": 0.7, "fid": 2, "seqno": 3, "size": 40, "hint": -1.0, "qlen": 20},
            ],
        ),
        (
            "core_delays",
            CORE_DELAYS,
            [
                {"time": 0.0312, "fid": 1, "seqno": 0, "delay": 0.0212},
                {"time": 0.0416, "fid": 1, "seqno": 1, "delay": 0.0224},
            ],
        ),
    ],
)
def test_core_log_files_read_as_typed_tables(tmp_path, kind, text, rows):
    path = tmp_path / f"{kind}.tsv"
    path.write_text(text)
    table = read_tsv(path, kind)
    assert table.schema == SCHEMAS[kind]
    assert table.to_pylist() == rows


def test_core_log_column_types():
    types = {kind: {f.name: str(f.type) for f in SCHEMAS[kind]} for kind in ("core_bins", "core_drops", "core_delays")}
    assert types == {
        "core_bins": {
            "bin": "double",
            "event": "string",
            "fid": "int32",
            "packets": "int64",
            "bytes": "int64",
            "hint_sum": "double",
            "hinted": "int64",
        },
        "core_drops": {
            "time": "double",
            "fid": "int32",
            "seqno": "int64",
            "size": "int32",
            "hint": "double",
            "qlen": "int64",
        },
        "core_delays": {"time": "double", "fid": "int32", "seqno": "int64", "delay": "double"},
    }


@pytest.mark.parametrize("kind", ["core_bins", "core_drops", "core_delays"])
def test_a_core_log_file_with_another_header_is_an_error(tmp_path, kind):
    path = tmp_path / f"{kind}.tsv"
    path.write_text("\t".join(reversed(SCHEMAS[kind].names)) + "\n")
    with pytest.raises(ValueError, match="header"):
        read_tsv(path, kind)


def test_parse_run_writes_the_core_log_tables_it_finds(tmp_path):
    run = make_run(tmp_path, {**PARAMS["monitors"], "core_log": {"interval": 0.5}}, flows=False)
    (run / "core_bins.tsv").write_text(CORE_BINS)
    (run / "core_drops.tsv").write_text(CORE_DROPS)
    written = parse_run(run, tmp_path / "out")
    assert sorted(written) == ["core_bins", "core_drops", "queue"]  # no core_delays.tsv, no table
    bins = pq.read_table(written["core_bins"])
    assert bins.schema.metadata[b"ns2repro.schema_version"] == b"ns2-repro/table/core_bins/1"
    assert bins.column_names == ["paper", "experiment", "queue", "seed", "run_key", *SCHEMAS["core_bins"].names]
    assert bins["packets"].to_pylist() == [12, 1, 2, 9]
    assert pq.read_table(written["core_drops"])["hint"].to_pylist() == [8.625, -1.0]
