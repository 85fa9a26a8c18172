"""TcpSink's `last-delivery` (patch 0008): when the receiver last got in-order bytes.

scripts/sink_last_delivery.tcl sends two objects through a 10 Mb/s, 20 ms bottleneck, resetting
both ends between them, and logs `$sink last-delivery` before anything is sent, when each
object is acknowledged and right after the reset. The bottleneck's trace (`r` lines: a
packet received at d) gives the arrivals to compare with; seqno 0 is each object's SYN.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "sink_last_delivery.tcl"
ACK_BITS = 40 * 8
# The final ACK's way back, d -> r -> s, with nothing queued before it.
ACK_ONE_WAY = ACK_BITS / 10e6 + 0.020 + ACK_BITS / 100e6 + 0.001


TRACE_PRECISION = 1e-5  # ns-2's trace prints times with %g: six significant digits


def run(binary: Path, workdir: Path, sink: str, limit: int, size: int) -> tuple[dict[str, tuple[float, float]], list]:
    """The events (name -> (time, last-delivery)) and (time, seqno, event) of the data packets (not the SYN,
    seqno 0) that reached d (`r`) or were dropped at r (`d`)."""
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(binary), str(SCRIPT), sink, str(limit), str(size), "1"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    events = {}
    for line in (workdir / "events.tsv").read_text().splitlines():
        name, now, last = line.split("\t")
        events[name] = (float(now), float(last))
    packets = []
    for line in (workdir / "packets.tr").read_text().splitlines():
        f = line.split()
        if f[0] in ("r", "d") and f[4] == "tcp" and f[10] != "0":
            packets.append((float(f[1]), int(f[10]), f[0]))
    return events, packets


def complete_at(packets: list, start: float, end: float) -> tuple[float, int]:
    """When d first held every data packet of the object sent in (start, end), and how many were dropped."""
    inside = [(t, seq, ev) for t, seq, ev in packets if start < t < end]
    last_seq = max(seq for _, seq, _ in inside)
    held = set()
    for t, seq, ev in inside:
        if ev == "r":
            held.add(seq)
            if len(held) == last_seq:
                return t, sum(ev == "d" for _, _, ev in inside)
    raise AssertionError("the object never completed")


@pytest.mark.parametrize("sink", ["Agent/TCPSink", "Agent/TCPSink/DelAck"])
def test_last_delivery_is_when_the_object_is_complete(ns_binary, tmp_path, sink):
    events, packets = run(ns_binary, tmp_path, sink, 100, 20_000)
    assert events["before"][1] == -1, "nothing delivered yet"
    assert events["reset"][1] == -1, "reset clears it"
    for done, start in (("done1", 0.0), ("done2", events["reset"][0])):
        complete, dropped = complete_at(packets, start, events[done][0])
        assert dropped == 0
        assert events[done][1] == pytest.approx(complete, abs=TRACE_PRECISION)
    if sink == "Agent/TCPSink":  # acks every packet: the object's last ACK leaves at once
        assert events["done2"][0] - events["done2"][1] == pytest.approx(ACK_ONE_WAY, abs=1e-9)


def test_a_loss_delays_it_to_the_repair(ns_binary, tmp_path):
    # A 3-packet queue overflows in slow start: the object is complete when the last hole is filled, which
    # need not be the arrival of its highest sequence number.
    events, packets = run(ns_binary, tmp_path, "Agent/TCPSink", 3, 100_000)
    complete, dropped = complete_at(packets, 0.0, events["done1"][0])
    assert dropped > 0
    assert events["done1"][1] == pytest.approx(complete, abs=TRACE_PRECISION)
    assert events["done1"][0] - events["done1"][1] == pytest.approx(ACK_ONE_WAY, abs=1e-9)
