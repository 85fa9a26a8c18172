"""Fixtures for the Tcl driver tests: Koo et al.'s parameters and a way to run the driver."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

DRIVER = Path(__file__).resolve().parents[2] / "tcl" / "driver.tcl"

TCP_FLOW = {
    "kind": "ftp",
    "start": 0.0,
    "agent": {"class": "Agent/TCP/Newreno", "knobs": {"packetSize_": 500, "window_": 50, "ecn_": 1}},
    "sink": {"class": "Agent/TCPSink", "knobs": {}},
    "app": {"class": "Application/FTP", "knobs": {}},
}
PARETO_FLOW = {
    "kind": "pareto",
    "start": 0.0,
    "agent": {"class": "Agent/UDP", "knobs": {"packetSize_": 500}},
    "sink": {"class": "Agent/LossMonitor", "knobs": {}},
    "app": {
        "class": "Application/Traffic/Pareto",
        "knobs": {"packetSize_": 500, "burst_time_": 0.01, "idle_time_": 0.01, "rate_": "5Mb", "shape_": 1.3},
    },
}
# Koo et al.'s core queues, all in byte mode.
BYTE_MODE = {"queue_in_bytes_": True, "limit_": 300, "mean_pktsize_": 500}
CORE_QUEUES = {
    "DropTail": {"class": "Queue/DropTail", "knobs": dict(BYTE_MODE)},
    "RED": {
        "class": "Queue/RED",
        "knobs": {**BYTE_MODE, "thresh_": 60, "maxthresh_": 240, "linterm_": 1, "q_weight_": 0.002},
    },
    "PI": {"class": "Queue/PI", "knobs": dict(BYTE_MODE)},
}


def koo(queue: str = "RED", kind: str = "dumbbell", core_nodes: int = 2, duration: float = 10.0, seed: int = 3):
    """Koo et al.'s setup: 3 FTP/NewReno flows (fids 1-3) and one Pareto on/off UDP flow (fid 4)."""
    flows = [{"fid": fid, **copy.deepcopy(TCP_FLOW)} for fid in (1, 2, 3)]
    flows.append({"fid": 4, **copy.deepcopy(PARETO_FLOW)})
    return {
        "schema": "ns2-repro/run-params/2",
        "seed": seed,
        "duration": duration,
        "topology": {
            "kind": kind,
            "core_nodes": core_nodes,
            "core_link": {"bandwidth": "10Mb", "delay": "10ms"},
            "edge_link": {
                "bandwidth": "100Mb",
                "delay": "1ms",
                "queue": {"class": "Queue/DropTail", "knobs": {"limit_": 1000}},
            },
        },
        "core_queue": copy.deepcopy(CORE_QUEUES[queue]),
        "flows": flows,
        # text: these tests check the driver against ns-2's own trace of every event (tests/parsers/test_packet_log.py
        # checks the packet log, the default, against it)
        "monitors": {"queue_sample_interval": 0.1, "packet_trace": "text"},
    }


@pytest.fixture
def koo_params():
    """Factory of fresh Koo et al. parameter dicts (see `koo`)."""
    return koo


def run(ns_binary: Path, params: dict, run_dir: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "params.json").write_text(json.dumps(params, indent=2))
    return subprocess.run(
        [str(ns_binary), str(DRIVER), str(run_dir)], capture_output=True, text=True, cwd=cwd, timeout=300
    )


@pytest.fixture
def run_driver(ns_binary, tmp_path):
    """run_driver(params, name="run", cwd=None) -> (CompletedProcess, run dir)."""

    def _run(params: dict, name: str = "run", cwd: Path | None = None):
        run_dir = tmp_path / name
        return run(ns_binary, params, run_dir, cwd), run_dir

    return _run


@pytest.fixture(scope="session")
def red_run(ns_binary, tmp_path_factory) -> Path:
    """One 10 s run of Koo et al.'s dumbbell with a RED core queue, shared by the read-only tests."""
    run_dir = tmp_path_factory.mktemp("red") / "run"
    result = run(ns_binary, koo("RED"), run_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""
    return run_dir
