"""drops.tr (DESIGN.md §4.1): a wireless run's CMU drop lines to the `wireless_drops` table; position lines (M)
skipped; a malformed or truncated line is an error naming the file and the line."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from parsers import KINDS, RAW_OUTPUTS, SCHEMAS, parse_run
from parsers.lines import MalformedFile
from parsers.wireless_drops import read_wireless_drops

# Lines as ns-2.35 writes them (old CMU format): an interface queue's overflow, a link-layer failure reported to
# AODV, ARP's one-packet buffer, a node's position when a setdest starts, a MAC collision, no route.
DROPS = (
    "D 12.345678901 _7_ IFQ  --- 1234 tcp 1060 [0 0 0 0] ------- [7:0 3:0 32 3] [45 0] 0 0\n"
    "D 0.417809511 _3_ RTR  CBK 26 ack 40 [13a 2 3 800] ------- [3:0 0:0 30 2] [11 0] 0 0\n"
    "D 25.594336986 _0_ IFQ  ARP 14 tcp 80 [0 0 0 800] ------- [0:0 3:0 32 1] [0 0] 0 0\n"
    "M 30.00000 3 (610.00, 250.00, 0.00), (900.00, 400.00), 10.00\n"
    "D 31.000001000 _12_ MAC  COL 99 AODV 48 [0 ffffffff 1 800] ------- [1:255 -1:255 29 0] "
    "[0x2 2 1 [3 0] [0 4]] (REQUEST)\n"
    "D 40.5 _1_ RTR  NRTE 100 tcp 572 [0 0 0 0] ------- [1:0 4:0 32 0] [3 0] 0 0\n"
)
ROWS = [
    {"time": 12.345678901, "node": 7, "layer": "IFQ", "reason": "---", "uid": 1234, "ptype": "tcp", "size": 1060},
    {"time": 0.417809511, "node": 3, "layer": "RTR", "reason": "CBK", "uid": 26, "ptype": "ack", "size": 40},
    {"time": 25.594336986, "node": 0, "layer": "IFQ", "reason": "ARP", "uid": 14, "ptype": "tcp", "size": 80},
    {"time": 31.000001, "node": 12, "layer": "MAC", "reason": "COL", "uid": 99, "ptype": "AODV", "size": 48},
    {"time": 40.5, "node": 1, "layer": "RTR", "reason": "NRTE", "uid": 100, "ptype": "tcp", "size": 572},
]


def write(path, text: str):
    path.write_text(text)
    return path


def test_drop_lines_to_rows_in_file_order(tmp_path):
    table = read_wireless_drops(write(tmp_path / "drops.tr", DROPS))
    assert table.schema == SCHEMAS["wireless_drops"]
    assert table.to_pylist() == ROWS, "the M line is skipped, the D lines kept in file order (not sorted by time)"


def test_an_empty_file_is_an_empty_typed_table(tmp_path):
    table = read_wireless_drops(write(tmp_path / "drops.tr", ""))
    assert table.num_rows == 0 and table.schema == SCHEMAS["wireless_drops"]
    moves = write(tmp_path / "moves.tr", "M 1.00000 0 (1.00, 2.00, 0.00), (3.00, 4.00), 5.00\n")
    only_moves = read_wireless_drops(moves)
    assert only_moves.num_rows == 0


@pytest.mark.parametrize(
    "bad, problem",
    [
        pytest.param("D 1.5 _2_ IFQ --- 12 tcp\n", "not a CMU drop line", id="too-few-fields"),
        pytest.param("s 1.5 _2_ AGT --- 12 tcp 552 [0 0 0 0]\n", "not a CMU drop line", id="not-a-drop"),
        pytest.param("D 1.5 2 IFQ --- 12 tcp 552 [0 0 0 0]\n", "not a CMU drop line", id="node-without-underscores"),
        pytest.param("D 1.5 _x_ IFQ --- 12 tcp 552 [0 0 0 0]\n", "invalid literal for int", id="node-not-a-number"),
        pytest.param("D soon _2_ IFQ --- 12 tcp 552 [0 0 0 0]\n", "could not convert string to float", id="time"),
        pytest.param("D 1.5 _2_ IFQ --- 12 tcp 5x2 [0 0 0 0]\n", "invalid literal for int", id="size"),
        pytest.param("D 1.5 _2_ IFQ --- u12 tcp 552 [0 0 0 0]\n", "invalid literal for int", id="uid"),
        pytest.param("\n", "not a CMU drop line", id="blank-line"),
    ],
)
def test_a_malformed_line_is_named_by_file_and_number(tmp_path, bad, problem):
    lines = DROPS.splitlines(keepends=True)
    path = write(tmp_path / "drops.tr", "".join(lines[:4] + [bad] + lines[4:]))
    with pytest.raises(MalformedFile, match=rf"drops\.tr: line 5: .*{problem}") as info:
        read_wireless_drops(path)
    assert str(info.value).startswith(f"{path}: line 5: ")


@pytest.mark.parametrize("cut", [1, 3, 40], ids=["only-the-newline", "in-the-last-field", "mid-line"])
def test_a_truncated_last_line_is_an_error(tmp_path, cut):
    path = write(tmp_path / "drops.tr", DROPS[:-cut])  # the last line's "... 0 0" cut to "... 0" still parses
    with pytest.raises(MalformedFile, match=r"drops\.tr: line 6: incomplete last line") as info:
        read_wireless_drops(path)
    assert str(path) in str(info.value)


FLOWS_HEADER = "time\tfid\tdelivered_bytes\tcwnd\tssthresh\tretransmits\n"
QUEUE_HEADER = (
    "time\tlink\tsize_bytes\tsize_packets\tarrivals_packets\tarrivals_bytes"
    "\tdepartures_packets\tdepartures_bytes\tdrops_packets\tdrops_bytes\n"
)


@pytest.fixture
def wireless_run(tmp_path):
    """A wireless run's outputs as the driver leaves them: no packets.tr, an empty queue monitor, drops.tr."""
    run = tmp_path / "runs" / "abc123"
    run.mkdir(parents=True)
    params = {
        "schema": "ns2-repro/run-params/2",
        "seed": 3,
        "topology": {"kind": "wireless"},
        "monitors": {"queue_sample_interval": 1.0, "packet_trace": False},
    }
    (run / "params.json").write_text(json.dumps(params))
    (run / "meta.json").write_text(json.dumps({"nodes": {"core": [], "sources": {}, "sinks": {}}, "links": []}))
    (run / "queue_monitor.tsv").write_text(QUEUE_HEADER)
    (run / "flows.tsv").write_text(FLOWS_HEADER + "0.000000\t1\t0\t1\t20\t0\n")
    (run / "drops.tr").write_text(DROPS)
    return run


def test_parse_run_writes_the_wireless_drops_table(wireless_run, tmp_path):
    written = parse_run(wireless_run, tmp_path / "out")
    assert sorted(written) == ["flows", "queue", "wireless_drops"]
    table = pq.read_table(written["wireless_drops"])
    assert table.schema.metadata[b"ns2repro.kind"] == b"wireless_drops"
    assert table.column_names == ["seed", "run_key", *SCHEMAS["wireless_drops"].names]
    assert table.select(SCHEMAS["wireless_drops"].names).to_pylist() == ROWS
    assert set(table["run_key"].to_pylist()) == {"abc123"}


def test_a_bad_drops_tr_fails_the_whole_parse(wireless_run, tmp_path):
    write(wireless_run / "drops.tr", DROPS + "D 50.0 _1_ RTR\n")
    with pytest.raises(MalformedFile, match=r"drops\.tr: line 7: not a CMU drop line"):
        parse_run(wireless_run, tmp_path / "out")
    assert not (tmp_path / "out" / "wireless_drops.parquet").exists()


def test_drops_tr_is_a_kind_and_a_raw_output():
    assert "wireless_drops" in KINDS and "drops.tr" in RAW_OUTPUTS
