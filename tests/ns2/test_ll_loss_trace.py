"""ns2-patches/0024: an ErrorModel's `drop-reason` and CMU drop traces of layer LL, the pieces the driver's
topology.loss is traced with (its runs: tests/tcl/test_wireless_driver.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = """
set ns [new Simulator]
set em [new ErrorModel]
puts "long [catch {$em drop-reason ABCDEFGH} msg] $msg"
puts "short [catch {$em drop-reason LOSS} msg]"
set t [new CMUTrace/Drop LL]
puts "trace [$t info class]"
"""


def run(binary: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    script = tmp_path / "ll.tcl"
    script.write_text(SCRIPT)
    return subprocess.run([str(binary), str(script)], capture_output=True, text=True, timeout=60)


def test_drop_reason_and_the_ll_layer(ns_binary, tmp_path):
    proc = run(ns_binary, tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("long 1 "), "a reason longer than 7 characters is refused"
    assert lines[1:] == ["short 0", "trace CMUTrace/Drop"]


def test_debian_ns_knows_neither(debian_ns, tmp_path):
    proc = run(debian_ns, tmp_path)
    assert "short 1" in proc.stdout, "no drop-reason command"
    assert "CMU Trace Initialized with invalid type" in proc.stderr + proc.stdout
