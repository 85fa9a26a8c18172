"""Parquet tables of a run: context columns, schema metadata, queue_monitor.tsv, flows.tsv, the CLI, an empty run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_trace_parser import META, TRACE

from parsers import KINDS, SCHEMAS, parse_run, read_flows
from parsers.queue_monitor import read_queue_monitor
from parsers.tables import with_context

REPO = Path(__file__).resolve().parents[2]
CONTEXT = {
    "paper": "koo_aqm",
    "experiment": "single_bottleneck",
    "labels": {"queue": "RED", "variant": "as_text", "buffer": 100},
    "seed": 3,
    "run_key": "abc123",
}
HEADER = (
    "time\tlink\tsize_bytes\tsize_packets\tarrivals_packets\tarrivals_bytes"
    "\tdepartures_packets\tdepartures_bytes\tdrops_packets\tdrops_bytes\n"
)
QUEUE_ROWS = (
    "0.000000\tcore0\t0\t0\t0\t0\t0\t0\t0\t0\n0.100000\tcore0\t13520\t25\t749\t775960\t706\t731240\t30\t31200\n"
)
OBJECTS_HEADER = "fid\tobject\tstart\tend\tbytes\tdelivered\n"
FLOWS_HEADER = "time\tfid\tdelivered_bytes\tcwnd\tssthresh\tretransmits\n"
FLOWS_ROWS = "0.000000\t1\t0\t1\t20\t0\n0.000000\t2\t0\t1\t20\t0\n0.100000\t1\t3000\t3.5\t20\t1\n"
# The core_log files (DESIGN.md section 5.4): header line, rows.
CORE_LOG = {
    "core_bins": ("bin\tevent\tfid\tpackets\tbytes\thint_sum\thinted\n", "0\tarrival\t1\t3\t3120\t6.5\t3\n"),
    "core_drops": ("time\tfid\tseqno\tsize\thint\tqlen\n", "0.050000000\t1\t7\t1040\t2.5\t20\n"),
    "core_delays": ("time\tfid\tseqno\tdelay\n", "0.060000000\t1\t2\t0.031000000\n"),
    # not core_log's, but read the same way: monitors.queue_vars (DESIGN.md section 5.5)
    "queue_vars": ("time\tvar\tvalue\n", "0.010000\tave_\t1.5\n"),
    # nor these: a LossMonitor sink's counters and gaps (DESIGN.md section 5.6)
    "sinks": ("time\tfid\tpackets\tbytes\texpected\n", "1.000000\t4\t80\t45840\t83\n"),
    "sink_gaps": ("time\tfid\tfirst\tcount\n", "0.420000\t4\t17\t3\n"),
    # each TCP sender's recovery counters at the end (DESIGN.md section 5.7): nan where it is no BQM sender
    "tcp_counters": (
        "fid\ttimeouts\tfast_retransmits\tretransmitted_packets\tcongestion_responses\twireless_responses\t"
        "early_retransmits\n",
        "1\t1\t2\t4\tnan\tnan\tnan\n2\t0\t3\t3\t2\t1\t0\n",
    ),
}
# A wired run has every table but wireless_drops (drops.tr: wireless runs only, tests/parsers/test_wireless_drops.py).
WIRED_KINDS = [kind for kind in KINDS if kind != "wireless_drops"]


@pytest.fixture
def run_dir(tmp_path):
    run = tmp_path / "runs" / "abc123"
    run.mkdir(parents=True)
    (run / "meta.json").write_text(json.dumps(META))
    (run / "packets.tr").write_text(TRACE)
    (run / "queue_monitor.tsv").write_text(HEADER + QUEUE_ROWS)
    (run / "flows.tsv").write_text(FLOWS_HEADER + FLOWS_ROWS)
    (run / "objects.tsv").write_text(OBJECTS_HEADER + "2\t1\t0.000000\t0.250000\t5000\t0.230000\n")
    for kind, (header, rows) in CORE_LOG.items():
        (run / f"{kind}.tsv").write_text(header + rows)
    (run / "params.json").write_text(json.dumps({"schema": "ns2-repro/run-params/2", "seed": CONTEXT["seed"]}))
    return run


def test_queue_monitor_parses_section_5(tmp_path):
    path = tmp_path / "queue_monitor.tsv"
    path.write_text(HEADER + QUEUE_ROWS)
    table = read_queue_monitor(path)
    assert table.schema == SCHEMAS["queue"]
    assert table.to_pylist()[1] == {
        "time": 0.1,
        "link": "core0",
        "size_bytes": 13520,
        "size_packets": 25,
        "arrivals_packets": 749,
        "arrivals_bytes": 775960,
        "departures_packets": 706,
        "departures_bytes": 731240,
        "drops_packets": 30,
        "drops_bytes": 31200,
    }


def test_queue_monitor_with_another_header_is_an_error(tmp_path):
    path = tmp_path / "queue_monitor.tsv"
    path.write_text(HEADER.replace("drops_bytes", "bdrops_") + QUEUE_ROWS)
    with pytest.raises(ValueError, match="header"):
        read_queue_monitor(path)


def test_flows_parses_section_5_2(tmp_path):
    path = tmp_path / "flows.tsv"
    path.write_text(FLOWS_HEADER + FLOWS_ROWS)
    table = read_flows(path)
    assert table.schema == SCHEMAS["flows"]
    assert table.num_rows == 3
    assert table.to_pylist()[2] == {
        "time": 0.1,
        "fid": 1,
        "delivered_bytes": 3000,
        "cwnd": 3.5,
        "ssthresh": 20,
        "retransmits": 1,
    }


def test_flows_with_another_header_is_an_error(tmp_path):
    path = tmp_path / "flows.tsv"
    path.write_text(FLOWS_HEADER.replace("retransmits", "nrexmitpack_") + FLOWS_ROWS)
    with pytest.raises(ValueError, match="header"):
        read_flows(path)


def test_context_columns_come_first_constant_and_dictionary_encoded():
    queue = pa.table({name: [0, 1] for name in SCHEMAS["queue"].names} | {"link": ["core0", "core0"]})
    table = with_context(queue, "queue", CONTEXT)
    context_names = ["paper", "experiment", "queue", "variant", "buffer", "seed", "run_key"]
    assert table.column_names[:7] == context_names
    assert table.column_names[7:] == SCHEMAS["queue"].names
    assert table.schema.field("paper").type == pa.dictionary(pa.int32(), pa.string())
    assert table.schema.field("seed").type == pa.int64() and table.schema.field("buffer").type == pa.int64()
    assert table["variant"].to_pylist() == ["as_text", "as_text"] and table["seed"].to_pylist() == [3, 3]
    assert table.schema.field("time").type == pa.float64() and table["time"].to_pylist() == [0.0, 1.0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seed": None}, "seed must be an integer"),
        ({"labels": {"fid": 1}}, "clash"),
        ({"labels": {"queue": [1, 2]}}, "string, number or boolean"),
    ],
)
def test_bad_context_is_an_error(change, message):
    with pytest.raises(ValueError, match=message):
        with_context(SCHEMAS["flow_sums"].empty_table(), "flow_sums", {**CONTEXT, **change})


def test_missing_context_key_is_an_error():
    with pytest.raises(ValueError, match="missing"):
        with_context(SCHEMAS["flow_sums"].empty_table(), "flow_sums", {"paper": "p"})


def test_parse_run_writes_every_table_with_metadata(run_dir, tmp_path):
    written = parse_run(run_dir, tmp_path / "out")  # context from params.json and the directory name
    assert sorted(written) == sorted(WIRED_KINDS)
    for kind, path in written.items():
        assert path == tmp_path / "out" / f"{kind}.parquet"
        table = pq.read_table(path)
        meta = table.schema.metadata
        assert meta[b"ns2repro.kind"] == kind.encode()
        assert meta[b"ns2repro.schema_version"] == f"ns2-repro/table/{kind}/1".encode()
        # a version 2 params.json names nothing: the run's own context is its seed and key (DESIGN.md section 6)
        assert json.loads(meta[b"ns2repro.context"]) == {"labels": {}, "seed": 3, "run_key": "abc123"}
        assert table.column_names == ["seed", "run_key", *SCHEMAS[kind].names]
        assert set(table["run_key"].to_pylist()) <= {"abc123"}
    rows = {kind: pq.read_table(written[kind]).num_rows for kind in WIRED_KINDS}
    assert rows == {"journeys": 5, "hops": 4, "queue": 2, "flow_sums": 8, "flows": 3, "objects": 1} | {
        kind: rows.count("\n") for kind, (_, rows) in CORE_LOG.items()
    }


def test_cli_with_context_override(run_dir, tmp_path):
    context = json.dumps({**CONTEXT, "run_key": "other", "labels": {"queue": "PI"}})
    out = tmp_path / "cli"
    subprocess.run(
        [sys.executable, "-m", "parsers", str(run_dir), "--out", str(out), "--context", context],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    table = pq.read_table(out / "journeys.parquet")
    assert set(table["run_key"].to_pylist()) == {"other"} and set(table["queue"].to_pylist()) == {"PI"}
    assert "variant" not in table.column_names


def test_cli_reports_a_missing_file(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "parsers", str(tmp_path), "--out", str(tmp_path / "o")],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "missing" in proc.stderr


def test_empty_run_gives_empty_typed_tables(run_dir, tmp_path):
    (run_dir / "packets.tr").write_text("")
    (run_dir / "queue_monitor.tsv").write_text(HEADER)
    (run_dir / "flows.tsv").write_text(FLOWS_HEADER)
    (run_dir / "objects.tsv").write_text(OBJECTS_HEADER)
    for kind, (header, _) in CORE_LOG.items():
        (run_dir / f"{kind}.tsv").write_text(header)
    written = parse_run(run_dir, tmp_path / "out", CONTEXT)
    assert sorted(written) == sorted(WIRED_KINDS)
    for kind, path in written.items():
        table = pq.read_table(path)
        assert table.num_rows == 0
        expected = with_context(SCHEMAS[kind].empty_table(), kind, CONTEXT).schema
        assert table.schema.remove_metadata() == expected.remove_metadata()


def test_objects_tsv_reads_unfinished_objects_as_null(tmp_path):
    from parsers.tsv import read_tsv

    path = tmp_path / "objects.tsv"
    path.write_text(OBJECTS_HEADER + "3\t1\t0.000000\t0.296272\t4695\t0.276000\n3\t2\t0.796272\tnan\t2398\tnan\n")
    table = read_tsv(path, "objects")
    assert table.schema == SCHEMAS["objects"]
    assert table.column("end").to_pylist() == [0.296272, None]
    assert table.column("delivered").to_pylist() == [0.276, None]
    assert table.column("bytes").to_pylist() == [4695, 2398]
    path.write_text("fid\tobject\tbegin\tend\tbytes\n")
    with pytest.raises(ValueError, match="header"):
        read_tsv(path, "objects")
