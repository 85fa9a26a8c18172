"""Agent/AODV's `purge_filter_` (ns2-patches/0023): the packets AODV pulls out of an interface queue after a link broke
are traced as FIL instead of CBK; the packet the MAC gave up on keeps CBK (Li §6.1: drop causes, issue 52 §1).

Scenario: scripts/aodv_purge.tcl, three nodes in a line whose middle one walks away while the source's queue is full
of packets for it.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "aodv_purge.tcl"


def drops(binary: Path, out: Path, purge: str) -> tuple[list[tuple], bytes]:
    """(time, node, layer, reason, uid, type) of every drop line, and the trace's bytes."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([str(binary), str(SCRIPT), purge, str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-800:]
    text = (out / "out.tr").read_bytes()
    rows = []
    for line in text.decode().splitlines():
        f = line.split()
        if f[0] == "D":
            rows.append((f[1], int(f[2].strip("_")), f[3], f[4], int(f[5]), f[6]))
    return rows, text


@pytest.fixture(scope="module")
def runs(ns_binary, tmp_path_factory):
    base = tmp_path_factory.mktemp("purge")
    return {purge or "stock": drops(ns_binary, base / (purge or "stock"), purge) for purge in ("", "0", "1")}


def test_queued_packets_are_traced_as_filtered(runs):
    rows, _ = runs["1"]
    reasons = Counter((layer, reason) for _, _, layer, reason, _, _ in rows)
    assert reasons[("RTR", "FIL")] >= 5, reasons
    assert reasons[("RTR", "CBK")] >= 1, "the packets the MAC gave up on keep CBK"
    assert {ptype for _, _, _, reason, _, ptype in rows if reason == "FIL"} == {"cbr"}
    # a purge follows the MAC's failure at that node, at that instant
    cbk = {(t, node) for t, node, _, reason, _, _ in rows if reason == "CBK"}
    assert any((t, node) in cbk for t, node, _, reason, _, _ in rows if reason == "FIL")
    assert all(float(t) >= 8 for t, _, _, reason, _, _ in rows if reason == "FIL"), "only after node 1 starts moving"


def test_without_the_knob_the_same_drops_read_cbk(runs):
    with_knob, _ = runs["1"]
    stock, _ = runs["0"]
    assert not any(reason == "FIL" for _, _, _, reason, _, _ in stock)
    renamed = [(t, node, layer, "CBK" if reason == "FIL" else reason, uid, ptype) for t, node, layer, reason, uid, ptype
               in with_knob]  # fmt: skip
    assert renamed == stock, "the knob changes a drop's reason, nothing else"


def test_purge_filter_0_is_the_default(runs, ns_binary, tmp_path):
    assert runs["0"][1] == runs["stock"][1]
    script = tmp_path / "default.tcl"
    script.write_text("puts [Agent/AODV set purge_filter_]\n")
    proc = subprocess.run([str(ns_binary), str(script)], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "0", proc.stderr
