"""packets.log (ns2-patches/0019, parsers/packet_log.py) against ns-2's text trace: one run written both ways.

The driver's run of test_parser_real_run.py, with an entry link's queue small enough to drop too, run once with
`monitors.packet_trace: text` (packets.tr, read by the trace parser that file checks line by line) and once with
`true` (packets.log): journeys and hops must be the same rows, and the other outputs the same bytes (the PacketLogs
change nothing they pass).
"""

from __future__ import annotations

import json
import subprocess

import pyarrow.parquet as pq
import pytest

from experiments.measure.run import run_metrics
from parsers import SCHEMAS, parse_run, run_tables
from parsers.lines import MalformedFile
from parsers.packet_log import MAGIC, RECORD, read_packet_log
from tests.parsers.test_parser_real_run import CONTEXT, DRIVER, DRIVER_PARAMS

# A 4-packet entry queue: flow 1's slow start overflows it, so drops on an entry link are covered too.
PARAMS = {
    **DRIVER_PARAMS,
    "topology": {
        **DRIVER_PARAMS["topology"],
        "edge_link": {
            **DRIVER_PARAMS["topology"]["edge_link"],
            "queue": {"class": "Queue/DropTail", "knobs": {"limit_": 4}},
        },
    },
}
SAME_BYTES = ("queue_monitor.tsv", "flows.tsv", "meta.json")


@pytest.fixture(scope="module")
def runs(ns_binary, tmp_path_factory) -> dict:
    """mode -> (run directory, {kind: rows}) for packet_trace text and true."""
    out = {}
    for mode in ("text", True):
        run = tmp_path_factory.mktemp(f"run-{mode}")
        params = {**PARAMS, "monitors": {**PARAMS["monitors"], "packet_trace": mode}}
        (run / "params.json").write_text(json.dumps(params))
        done = subprocess.run([str(ns_binary), str(DRIVER), str(run)], check=True, capture_output=True, timeout=120)
        (run / "ns.stderr").write_bytes(done.stderr)
        written = parse_run(run, run / "tables", CONTEXT)
        out[mode] = (
            run,
            {kind: pq.read_table(path).select(SCHEMAS[kind].names).to_pylist() for kind, path in written.items()},
        )
    return out


def test_the_log_gives_the_text_traces_journeys_and_hops(runs):
    (text_run, text), (log_run, log) = runs["text"], runs[True]
    assert (log_run / "packets.log").is_file() and not (log_run / "packets.tr").exists()
    assert (text_run / "packets.tr").is_file() and not (text_run / "packets.log").exists()
    journeys = log["journeys"]
    drop_links = {j["drop_link"] for j in journeys}
    assert "core0" in drop_links and any(name.startswith("entry") for name in drop_links if name), drop_links
    assert any(j["marked"] for j in journeys) and {j["ptype"] for j in journeys} >= {"tcp", "cbr"}
    assert journeys == text["journeys"]
    assert log["hops"] == text["hops"]


def test_the_log_leaves_every_other_output_as_it_was(runs):
    (text_run, _), (log_run, _) = runs["text"], runs[True]
    for name in SAME_BYTES:
        assert (log_run / name).read_bytes() == (text_run / name).read_bytes(), name


def test_ns_says_nothing_of_the_packet_logs(runs):
    """A PacketLog binds Connector's debug_ (ns-default.tcl): without it, ns warns once per object."""
    assert (runs[True][0] / "ns.stderr").read_bytes() == b""


def test_flow_sums_come_from_the_text_trace_only(runs):
    assert "flow_sums" in runs["text"][1] and "flow_sums" not in runs[True][1]


def test_a_log_cut_mid_record_is_an_error_naming_the_file(runs, tmp_path):
    data = (runs[True][0] / "packets.log").read_bytes()
    cut = tmp_path / "packets.log"
    cut.write_bytes(data[: len(data) - RECORD.itemsize // 2])
    with pytest.raises(MalformedFile, match=rf"{cut}: the last record is cut short \(20 of 40 bytes\)"):
        read_packet_log(cut)
    records, names = read_packet_log(runs[True][0] / "packets.log")
    assert len(records) > 1000 and "tcp" in names and "ack" in names


def test_a_file_without_the_header_is_no_log(tmp_path):
    path = tmp_path / "packets.log"
    path.write_bytes(b"+ 0.1 2 0 tcp 1040 ------- 1 2.0 3.0 0 0\n")
    with pytest.raises(MalformedFile, match=f"{path}: not a packet log .no {MAGIC.decode()} header"):
        read_packet_log(path)


def test_a_full_disk_stops_ns_with_a_message(ns_binary, tmpfs):
    """A record that cannot be written ends the run (exit 1, the file named), never a log cut short that passes."""
    run = tmpfs("64k") / "run"
    run.mkdir()
    (run / "params.json").write_text(json.dumps({**PARAMS, "monitors": {**PARAMS["monitors"], "packet_trace": True}}))
    done = subprocess.run([str(ns_binary), str(DRIVER), str(run)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert f"PacketLog: writing {run / 'packets.log'}: No space left on device" in done.stderr


@pytest.mark.parametrize("mode", ["text", True])
def test_metrics_of_the_tables_held_in_memory_are_those_read_back(runs, mode):
    """A batch job measures a run from the tables it just made (parsers.run_tables), the aggregation from the
    parquet files written from them: the same metrics and series, value for value."""
    run, _ = runs[mode]
    held = run_tables(run)
    assert held.keys() == {p.stem for p in (run / "tables").glob("*.parquet")}
    for read_back, in_memory in zip(run_metrics(run, 1.0), run_metrics(run, 1.0, held=held), strict=True):
        assert len(read_back) and read_back.equals(in_memory)
