"""Malformed run outputs give one clear error naming the file and the line, never a silently wrong
table and never a bare pyarrow message.

A truncated last line (the file does not end with a newline: ns was killed while writing it) is
an error too, even when what is left of it still parses: `... 1 2.0 3.0 0 1` cut from
`... 0 12` would otherwise give a packet uid 1 instead of 12.
"""

from __future__ import annotations

import json

import pytest
from test_parser_tables import FLOWS_HEADER, FLOWS_ROWS, HEADER, QUEUE_ROWS, run_dir  # noqa: F401
from test_trace_parser import META, TRACE

from parsers import flow_sums, parse_run, read_flows
from parsers.queue_monitor import read_queue_monitor
from parsers.run import trace_tables
from parsers.run_meta import LinkTable
from parsers.tsv import read_tsv


def write(path, text: str):
    path.write_text(text)
    return path


def trace_dir(tmp_path, text: str):
    """A run directory with META's meta.json and `text` as packets.tr."""
    write(tmp_path / "meta.json", json.dumps(META))
    return write(tmp_path / "packets.tr", text).parent


# --- packets.tr -------------------------------------------------------------------------------


UID_12 = "+ 0.2 2 0 tcp 1040 ------- 1 2.0 3.0 0 12\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(TRACE + UID_12[:-2], id="cut-in-the-last-field-still-parses"),  # uid 12 would read as 1
        pytest.param(TRACE[:-1], id="only-the-newline-missing"),  # complete perhaps, but ns always ends a line
        pytest.param(TRACE[:-12], id="fewer-fields"),
        pytest.param(TRACE[:-30], id="mid-line"),
    ],
)
def test_truncated_last_trace_line(tmp_path, text):
    run = trace_dir(tmp_path, text)
    last = text.count("\n") + 1
    with pytest.raises(ValueError, match=rf"packets\.tr: line {last}: incomplete last line") as info:
        trace_tables(run, workers=1, block_size=1 << 16)
    assert str(run / "packets.tr") in str(info.value)
    with pytest.raises(ValueError, match=rf"packets\.tr: line {last}: incomplete last line"):
        flow_sums(run / "packets.tr")


@pytest.mark.parametrize(
    "bad, problem",
    [
        ("+ 0.2 2 0 tcp 1040 ------- 1 2.0 3.0\n", "expected 12 fields, got 10"),
        ("+ 0.2 2 0 tcp 1040 ------- 1 2.0 3.0 0 13 extra\n", "expected 12 fields, got 13"),
        ("+ 0.2 2 0 tcp 1o40 ------- 1 2.0 3.0 0 13\n", "size: '1o40' is not an integer"),
        ("+ 0.2 2 0 tcp 1040 ------- 1 2.0 3.0 0 \n", "uid: '' is not an integer"),
        ("+ zero 2 0 tcp 1040 ------- 1 2.0 3.0 0 13\n", "time: 'zero' is not a number"),
        ("++ 0.2 2 0 tcp 1040 ------- 1 2.0 3.0 0 13\n", "event: '\\+\\+' is not one character"),
    ],
)
@pytest.mark.parametrize("workers", [1, 3])
def test_bad_trace_line_is_named(tmp_path, bad, problem, workers):
    lines = TRACE.splitlines(keepends=True)
    run = trace_dir(tmp_path, "".join(lines[:20] + [bad] + lines[20:]))
    with pytest.raises(ValueError, match=rf"packets\.tr: line 21: {problem}") as info:
        trace_tables(run, workers=workers, block_size=256)
    assert str(run / "packets.tr") in str(info.value)


def test_bad_trace_line_through_parse_run(run_dir):  # noqa: F811
    lines = TRACE.splitlines(keepends=True)
    write(run_dir / "packets.tr", "".join(lines[:5] + ["r 0.3 1 3 tcp 1040\n"] + lines[5:]))
    with pytest.raises(ValueError, match=r"packets\.tr: line 6: expected 12 fields, got 6"):
        parse_run(run_dir, run_dir / "tables")
    assert not (run_dir / "tables" / "journeys.parquet").exists()


def test_good_and_empty_traces_still_read(tmp_path):
    run = trace_dir(tmp_path, TRACE)
    assert trace_tables(run, workers=3, block_size=256)["journeys"].num_rows == 5
    empty = write(tmp_path / "empty.tr", "")
    assert flow_sums(empty).num_rows == 0


# --- the sampled TSV files --------------------------------------------------------------------


@pytest.mark.parametrize("cut", [1, 3, 20], ids=["last-digit", "last-fields", "mid-line"])
def test_truncated_last_tsv_line(tmp_path, cut):
    path = write(tmp_path / "queue_monitor.tsv", (HEADER + QUEUE_ROWS)[:-cut])
    with pytest.raises(ValueError, match=r"queue_monitor\.tsv: line 3: .*incomplete"):
        read_queue_monitor(path)


@pytest.mark.parametrize(
    "row, problem",
    [
        ("0.200000\tcore0\t13520\t25\n", "expected 10 fields, got 4"),
        ("0.200000\tcore0\t13520\t25\t749\t775960\t706\t731240\t30\t31200\t7\n", "expected 10 fields, got 11"),
        ("0.200000\tcore0\t13520\tmany\t749\t775960\t706\t731240\t30\t31200\n", "size_packets: 'many' is not an int"),
        ("0.200000\tcore0\t13520\t25.5\t749\t775960\t706\t731240\t30\t31200\n", "size_packets: '25.5' is not an int"),
        ("0.200000\tcore0\t\t25\t749\t775960\t706\t731240\t30\t31200\n", "size_bytes: '' is not an integer"),
        ("0.200000\tcore0\t13520\t25\t749\t775960\t706\t731240\t30\tNA\n", "drops_bytes: 'NA' is not an integer"),
        ("0.2s\tcore0\t13520\t25\t749\t775960\t706\t731240\t30\t31200\n", "time: '0.2s' is not a number"),
        ("nan\tcore0\t13520\t25\t749\t775960\t706\t731240\t30\t31200\n", "time: 'nan' is not a number"),
    ],
)
def test_bad_queue_monitor_row_is_named(tmp_path, row, problem):
    path = write(tmp_path / "queue_monitor.tsv", HEADER + QUEUE_ROWS + row + QUEUE_ROWS)
    with pytest.raises(ValueError, match=rf"queue_monitor\.tsv: line 4: {problem}") as info:
        read_queue_monitor(path, block_size=256)
    assert str(path) in str(info.value)


def test_bad_flows_row_is_named(tmp_path):
    path = write(tmp_path / "flows.tsv", FLOWS_HEADER + FLOWS_ROWS + "0.100000\t2\t3000\tlots\t20\t1\n")
    with pytest.raises(ValueError, match=r"flows\.tsv: line 5: cwnd: 'lots' is not a number"):
        read_flows(path)


def test_objects_end_may_be_nan_and_nothing_else(tmp_path):
    header = "fid\tobject\tstart\tend\tbytes\tdelivered\n"
    good = write(tmp_path / "objects.tsv", header + "2\t1\t0.000000\tnan\t5000\tnan\n2\t2\t0.1\t0.3\t7000\t0.28\n")
    table = read_tsv(good, "objects")
    assert table["end"].to_pylist() == [None, 0.3], "an unfinished object's end is null"
    assert table["delivered"].to_pylist() == [None, 0.28]
    bad = write(tmp_path / "objects.tsv", header + "2\t1\tnan\t0.2\t5000\t0.1\n")
    with pytest.raises(ValueError, match=r"objects\.tsv: line 2: start: 'nan' is not a number"):
        read_tsv(bad, "objects")


def test_good_tsv_still_reads(tmp_path):
    table = read_queue_monitor(write(tmp_path / "queue_monitor.tsv", HEADER + QUEUE_ROWS))
    assert table["size_packets"].to_pylist() == [0, 25] and table["time"].to_pylist() == [0.0, 0.1]
    assert read_queue_monitor(write(tmp_path / "q.tsv", HEADER)).num_rows == 0


# --- meta.json ----------------------------------------------------------------------------------


def test_unknown_link_role(tmp_path):
    meta = json.loads(json.dumps(META))
    meta["links"][2]["role"] = "egress"
    path = write(tmp_path / "meta.json", json.dumps(meta, indent=2))
    with pytest.raises(ValueError, match=r"meta\.json: links\[2\] \(exit1\): unknown link role 'egress'") as info:
        LinkTable.from_meta(path)
    assert str(path) in str(info.value) and "known: ['core', 'entry', 'exit']" in str(info.value)


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda m: m["links"][1].pop("from"), r"links\[1\] \(entry1\): missing 'from'"),
        (lambda m: m["links"][1].update({"to": "C0"}), r"links\[1\] \(entry1\): 'to' is not a node id: 'C0'"),
        (lambda m: m.pop("links"), r"no 'links' list"),
    ],
)
def test_malformed_meta_links(tmp_path, edit, problem):
    meta = json.loads(json.dumps(META))
    edit(meta)
    path = write(tmp_path / "meta.json", json.dumps(meta))
    with pytest.raises(ValueError, match=rf"meta\.json: {problem}"):
        LinkTable.from_meta(path)


def test_meta_json_that_is_not_json(tmp_path):
    path = write(tmp_path / "meta.json", '{"links": [')
    with pytest.raises(ValueError, match=r"meta\.json: not valid JSON"):
        LinkTable.from_meta(path)
