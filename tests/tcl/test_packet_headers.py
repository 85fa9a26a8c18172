"""The packet headers a wired run registers (tcl/lib/headers.tcl, monitors.packet_headers): only the used ones by
default, the same output bytes as stock ns-2's layout, a clear failure when code touches one left out."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[2] / "tcl" / "lib"

# Registers the run's headers as the driver does, then prints each named header class's offset.
OFFSETS_TCL = """
source {lib}/headers.tcl
repro::register_packet_headers {which} {wireless} {trace}
set ns [new Simulator]
foreach cl {{Common IP TCP Flags RTP SR AODV Mac LL}} {{
    puts "$cl [PacketHeader/$cl offset]"
}}
"""

# A Ping agent's packets carry hdr_ping, which a wired run of the driver does not register.
PING_TCL = """
source {lib}/headers.tcl
repro::register_packet_headers used 0 true
set ns [new Simulator]
repro::explain_abort $ns
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
Agent/Ping instproc recv {{from rtt}} {{}}
set a [new Agent/Ping]
set b [new Agent/Ping]
$ns attach-agent $n0 $a
$ns attach-agent $n1 $b
$ns connect $a $b
$ns at 0.1 "$a send"
$ns at 1.0 "exit 0"
$ns run
"""


def run_tcl(ns_binary: Path, tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    script = tmp_path / "script.tcl"
    script.write_text(text)
    return subprocess.run([str(ns_binary), str(script)], capture_output=True, text=True, timeout=60, cwd=tmp_path)


def offsets(ns_binary, tmp_path, which="used", wireless=0, trace="true") -> dict[str, int]:
    result = run_tcl(ns_binary, tmp_path, OFFSETS_TCL.format(lib=LIB, which=which, wireless=wireless, trace=trace))
    assert result.returncode == 0, result.stderr
    return {name: int(value) for name, value in (line.split() for line in result.stdout.splitlines())}


def test_a_wired_run_registers_only_the_used_headers(ns_binary, tmp_path):
    got = offsets(ns_binary, tmp_path)
    assert all(got[h] >= 0 for h in ("Common", "IP", "TCP", "Flags", "RTP"))
    assert got["SR"] == got["AODV"] == got["Mac"] == got["LL"] == -1


@pytest.mark.parametrize(
    "which, wireless, trace", [("all", 0, "true"), ("used", 1, "false"), ("used", 0, "text")], ids=str
)
def test_all_headers_when_asked_on_wireless_runs_and_with_the_text_trace(ns_binary, tmp_path, which, wireless, trace):
    got = offsets(ns_binary, tmp_path, which, wireless, trace)
    assert all(offset >= 0 for offset in got.values()), got


def test_touching_a_header_left_out_fails_the_run_with_one_line(ns_binary, tmp_path):
    result = run_tcl(ns_binary, tmp_path, PING_TCL.format(lib=LIB))
    assert result.returncode == 1
    assert "a packet header the run does not register" in result.stderr
    assert "tcl/lib/headers.tcl" in result.stderr


def test_the_ping_script_runs_with_every_header(ns_binary, tmp_path):
    """The failure above comes from the left-out header, not from the script."""
    result = run_tcl(ns_binary, tmp_path, PING_TCL.format(lib=LIB).replace("headers used", "headers all"))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("queue", ["RED", "PI", "DropTail"])
@pytest.mark.parametrize("trace", [True, False])
def test_used_headers_write_the_same_bytes_as_stock_layout(run_driver, koo_params, queue, trace):
    """Koo et al.'s chain (TCP with ECN, a Pareto UDP flow into a LossMonitor), packet log on and off."""
    params = koo_params(queue, kind="chain", core_nodes=3, duration=5.0)
    params["monitors"]["packet_trace"] = trace
    runs = {}
    for which in ("all", "used"):
        params["monitors"]["packet_headers"] = which
        result, runs[which] = run_driver(params, which)
        assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in runs["all"].iterdir() if p.name != "params.json")
    assert "queue_monitor.tsv" in names and ("packets.log" in names) == trace
    for name in names:
        assert (runs["all"] / name).read_bytes() == (runs["used"] / name).read_bytes(), name


def test_an_unknown_packet_headers_value_is_refused(run_driver, koo_params):
    params = koo_params()
    params["monitors"]["packet_headers"] = "some"
    result, run_dir = run_driver(params)
    assert result.returncode == 3
    assert result.stderr.strip().count("\n") == 0 and "monitors.packet_headers" in result.stderr
    assert not (run_dir / "queue_monitor.tsv").exists()
