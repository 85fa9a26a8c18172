"""Run directories several test modules of tests/experiments share."""

from __future__ import annotations

import json

import numpy as np
import pytest

FLOWS_TSV = "time\tfid\tdelivered_bytes\tcwnd\tssthresh\tretransmits\n" + "".join(
    f"{t:.6f}\t{fid}\t{(1000 if fid == 1 else 500) * round(t * 10)}\t{2 * fid}\t20\t0\n"
    for t in np.arange(0, 2.05, 0.1)
    for fid in (1, 2)
)  # flow 1 gets 10 000 B/s, flow 2 5 000 B/s
QUEUE_TSV = (
    "time\tlink\tsize_bytes\tsize_packets\tarrivals_packets\tarrivals_bytes\tdepartures_packets\tdepartures_bytes"
    "\tdrops_packets\tdrops_bytes\n"
) + "".join(
    f"{t:.6f}\tcore0\t{500 * (i % 2)}\t{i % 2}\t{10 * i}\t{5000 * i}\t{10 * i}\t{5000 * i}\t0\t0\n"
    for i, t in enumerate(np.arange(0, 2.05, 0.1))
)  # the queue alternates 0, 1, 0, 1 ...


@pytest.fixture
def untraced_run(tmp_path):
    """A run directory as the pipeline leaves it for `monitors.packet_trace: false`: no hops, no journeys."""
    from parsers import parse_run

    run = tmp_path / "untraced"
    run.mkdir()
    params = {
        "schema": "ns2-repro/run-params/2",
        "seed": 1,
        "duration": 2.0,
        "topology": {"kind": "dumbbell", "core_link": {"bandwidth": "1Mb", "delay": "10ms"}},
        "flows": [{"fid": 1, "kind": "ftp", "group": "main"}, {"fid": 2, "kind": "ftp", "group": "cross"}],
        "monitors": {"queue_sample_interval": 0.1, "packet_trace": False},
    }
    (run / "params.json").write_text(json.dumps(params))
    (run / "meta.json").write_text(json.dumps({"links": [{"name": "core0", "from": 0, "to": 1, "role": "core"}]}))
    (run / "queue_monitor.tsv").write_text(QUEUE_TSV)
    (run / "flows.tsv").write_text(FLOWS_TSV)
    assert sorted(parse_run(run, run / "tables")) == ["flows", "queue"]
    return run
