"""A run made without a packet trace (`monitors.packet_trace: false`): queue and flows tables only."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from test_parser_tables import FLOWS_HEADER, FLOWS_ROWS, HEADER, QUEUE_ROWS

from parsers import SCHEMAS, TRACE_KINDS, parse_run

META = {
    "schema": "ns2-repro/run-meta/1",
    "links": [{"name": "core0", "from": 0, "to": 1, "role": "core", "traced": False, "monitored": True}],
}
PARAMS = {
    "schema": "ns2-repro/run-params/2",
    "paper": "zhang_gaimd",
    "experiment": "droptail",
    "labels": {"queue": "DropTail"},
    "seed": 1,
    "duration": 0.1,
    "monitors": {"queue_sample_interval": 0.1, "packet_trace": False},
}


def make_run(tmp_path, monitors: dict, flows: bool = True):
    run = tmp_path / "runs" / "k1"
    run.mkdir(parents=True)
    (run / "params.json").write_text(json.dumps({**PARAMS, "monitors": monitors}))
    (run / "meta.json").write_text(json.dumps(META))
    (run / "queue_monitor.tsv").write_text(HEADER + QUEUE_ROWS)
    if flows:
        (run / "flows.tsv").write_text(FLOWS_HEADER + FLOWS_ROWS)
    return run


def test_untraced_run_writes_queue_and_flows(tmp_path):
    run = make_run(tmp_path, PARAMS["monitors"])
    written = parse_run(run, tmp_path / "out")
    assert sorted(written) == ["flows", "queue"]
    assert not any((tmp_path / "out" / f"{kind}.parquet").exists() for kind in TRACE_KINDS)
    flows = pq.read_table(written["flows"])
    assert flows.schema.metadata[b"ns2repro.schema_version"] == b"ns2-repro/table/flows/1"
    assert flows.column_names == ["paper", "experiment", "queue", "seed", "run_key", *SCHEMAS["flows"].names]
    assert flows["delivered_bytes"].to_pylist() == [0, 0, 3000] and set(flows["run_key"].to_pylist()) == {"k1"}


def test_untraced_run_without_tcp_flows_writes_queue_only(tmp_path):
    run = make_run(tmp_path, PARAMS["monitors"], flows=False)
    assert sorted(parse_run(run, tmp_path / "out")) == ["queue"]


@pytest.mark.parametrize(
    ("monitors", "missing"),
    [
        ({"queue_sample_interval": 0.1}, "packets.log"),
        ({"packet_trace": True}, "packets.log"),
        ({"packet_trace": "text"}, "packets.tr"),
    ],
    ids=["default", "on", "text"],
)
def test_missing_trace_is_an_error_unless_turned_off(tmp_path, monitors, missing):
    run = make_run(tmp_path, monitors)
    with pytest.raises(FileNotFoundError, match=f"{missing}: missing"):
        parse_run(run, tmp_path / "out")


def test_missing_trace_without_params_is_an_error(tmp_path):
    run = make_run(tmp_path, PARAMS["monitors"])
    (run / "params.json").unlink()
    with pytest.raises(FileNotFoundError, match="packets.log: missing"):
        parse_run(run, tmp_path / "out", {k: PARAMS[k] for k in ("paper", "experiment", "seed")} | {"run_key": "k"})


def test_untraced_run_still_needs_the_queue_monitor(tmp_path):
    run = make_run(tmp_path, PARAMS["monitors"])
    (run / "queue_monitor.tsv").unlink()
    with pytest.raises(FileNotFoundError, match="queue_monitor.tsv: missing"):
        parse_run(run, tmp_path / "out")
