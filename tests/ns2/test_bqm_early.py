"""The BQM sender's opt-in knobs (ns2-patches/0011): `early_rexmit_` (Li §3.5, a fast retransmit on ONE dupack for
a level-0 hole) and `wireless_ssthresh_` (§3.5's quote of past papers: a wireless loss leaves ssthresh alone).

Scenarios: scripts/tcp_recovery.tcl (one BQM transfer over a clean 1 Mb/s link losing hand-picked packets; with the
default pattern 0 3 2 3 1 3 2 3, seqno 16 is level 0 and 13 level 3), and scripts/bqm_dumbbell.tcl (four BQM flows
through a 10-packet bottleneck, 1 % random loss after it). The checks read the packet trace, which the sender does not
write: which duplicate ACK each fast retransmit followed, the level of the hole's latest send, the new packets sent
during recovery.
"""

from __future__ import annotations

import csv
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest
from test_tcp_counters import evidence

SCRIPTS = Path(__file__).parent / "scripts"
RECOVERY = SCRIPTS / "tcp_recovery.tcl"
DUMBBELL = SCRIPTS / "bqm_dumbbell.tcl"
PATTERN8 = [0, 3, 2, 3, 1, 3, 2, 3]
CONGESTION, WIRELESS = 1, 2
WINDOW = 40  # the script's window_
REPORT = ["nearly_", "ncongestion_", "nwireless_", "nfastrexmit_", "nrexmitpack_", "nrexmit_"]


def bqm(binary: Path, out: Path, drops: str, knobs: str = "", sink: str = "BQM") -> tuple[dict, list[dict]]:
    """(the counters and `start ssthresh_`, the bqm-log's rows) of one BQM transfer."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(binary), str(RECOVERY), "BQM", sink, drops, knobs, " ".join(REPORT), "10.0", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stderr == "", proc.stderr[-800:]
    values = {name: int(value) for name, value in (line.rsplit(" ", 1) for line in proc.stdout.splitlines())}
    with (out / "sender.tsv").open() as f:
        return values, list(csv.DictReader(f, delimiter="\t"))


def episode(out: Path, ack: int) -> tuple[int, list[tuple[int, int]]]:
    """For the duplicates of `ack` at the sender (node 0): the highest seqno sent before the first, and after each
    duplicate k (its own sends included) the highest seqno sent so far, until a higher ACK arrives."""
    highest, before, after = -1, None, []
    dups = -1
    for line in (out / "out.tr").read_text().splitlines():
        f = line.split()
        event, frm, to, ptype, seqno = f[0], int(f[2]), int(f[3]), f[4], int(f[10])
        if event in "+d" and ptype == "tcp" and frm == 0:  # a drop at the link's head: a send (test_tcp_counters)
            highest = max(highest, seqno)
            if after:
                after[-1] = (after[-1][0], highest)
        elif event == "r" and ptype == "ack" and to == 0:
            if seqno == ack:
                dups += 1
                if dups == 1:
                    before = highest
                if dups >= 1:
                    after.append((dups, highest))
            elif seqno > ack and dups >= 1:
                break
    return before, after


@pytest.fixture(scope="module")
def runs(ns_binary, tmp_path_factory):
    base = tmp_path_factory.mktemp("early")
    cases = {
        "early-0": ("16", "early_rexmit_ 1"),
        "early-3": ("13", "early_rexmit_ 1"),
        "stock-0": ("16", ""),
        "stock-3": ("13", ""),
        "keep-3": ("13", "wireless_ssthresh_ 0"),
    }
    out = {}
    for name, (drops, knobs) in cases.items():
        values, log = bqm(ns_binary, base / name, drops, knobs)
        out[name] = (values, log, evidence(base / name), base / name)
    return out


def test_a_level_0_hole_is_retransmitted_at_the_first_dupack(runs):
    values, log, ev, _ = runs["early-0"]
    assert [s for _, s in ev.drops] == [16]
    assert [(r.seqno, r.ack, r.k) for r in ev.fast] == [(16, 15, 1)], "one dupack, not three"
    assert [r.seqno for r in ev.resends] == [16], "no second fast retransmit in the episode"
    assert values["nearly_"] == 1 and values["nfastrexmit_"] == 1 and values["nrexmit_"] == 0
    # the same response to the first dupack's diagnosis: one level-0 hole is congestion of measure 0, Table 3.1
    assert len(log) == 1
    row = log[0]
    assert (int(row["seqno"]), int(row["ltype"]), int(row["measure"])) == (16, CONGESTION, 0)
    assert float(row["time"]) == pytest.approx(ev.fast[0].time, abs=1e-9)
    assert float(row["cwnd"]) == pytest.approx(7 / 8 * float(row["window"]), rel=1e-12)


def test_a_level_3_hole_waits_for_the_third_dupack(runs):
    values, log, ev, _ = runs["early-3"]
    assert [(r.seqno, r.ack, r.k) for r in ev.fast] == [(13, 12, 3)]
    assert values["nearly_"] == 0 and values["nfastrexmit_"] == 1
    assert [(int(r["seqno"]), int(r["ltype"])) for r in log] == [(13, WIRELESS)]


@pytest.mark.parametrize("name", ["stock-0", "stock-3"])
def test_by_default_every_hole_waits_for_the_third_dupack(runs, name):
    values, _, ev, _ = runs[name]
    assert [r.k for r in ev.fast] == [3]
    assert values["nearly_"] == 0


def test_the_knob_changes_nothing_for_a_level_3_hole(runs):
    """Byte for byte: early_rexmit_ 1 acts on level-0 holes only."""
    assert (runs["early-3"][3] / "out.tr").read_bytes() == (runs["stock-3"][3] / "out.tr").read_bytes()
    assert (runs["early-0"][3] / "out.tr").read_bytes() != (runs["stock-0"][3] / "out.tr").read_bytes()


@pytest.mark.parametrize("name", ["early-0", "stock-0", "early-3"])
def test_recovery_inflates_by_the_dupacks_received(runs, name):
    """After the fast retransmit, NewReno's window is int(cwnd) + dupwnd_ with dupwnd_ the dupacks received (the packets
    that left the network): after dupack k the sender has sent up to ack + int(cwnd) + k, and not beyond. With the
    early retransmit dupwnd_ starts at 1, not at numdupacks_ (3), which would send two packets sooner."""
    _, log, ev, out = runs[name]
    fr = ev.fast[0]
    cwnd = int(float(log[0]["cwnd"]))
    before, after = episode(out, fr.ack)
    assert len(after) > 10, "the episode has many dupacks"
    sent_new = False
    for k, highest in after:
        if k < fr.k:
            continue  # before the fast retransmit: limited transmit (stock) or nothing
        expected = max(before if fr.k == 1 else after[fr.k - 2][1], fr.ack + min(cwnd + k, WINDOW))
        assert highest == expected, (k, highest, expected, cwnd)
        sent_new |= highest > before
    assert sent_new, "the window must grow past the packets in flight during the episode"


def test_wireless_ssthresh_0_keeps_the_threshold(runs):
    values, log, _, _ = runs["keep-3"]
    start = values["start ssthresh_"]
    assert start == WINDOW, "ns-2 starts ssthresh_ at window_"
    [row] = log
    assert int(row["ltype"]) == WIRELESS
    assert float(row["cwnd"]) == pytest.approx(float(row["window"]) - 1, rel=1e-12), "cwnd still loses a packet"
    assert int(row["ssthresh"]) == start
    # by default (1) ssthresh follows the reduced window
    [stock] = runs["stock-3"][1]
    assert int(stock["ssthresh"]) == max(2, int(float(stock["window"]) - 1)) != start


def test_the_defaults(ns_binary, tmp_path):
    script = tmp_path / "defaults.tcl"
    script.write_text(
        "set ns [new Simulator]\nset tcp [new Agent/TCP/Newreno/BQM]\n"
        'foreach v {early_rexmit_ wireless_ssthresh_ nearly_} { puts "$v [$tcp set $v]" }\n'
    )
    proc = subprocess.run([str(ns_binary), str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.splitlines() == ["early_rexmit_ 0", "wireless_ssthresh_ 1", "nearly_ 0"]


# --- many flows, congestion and random loss ----------------------------------------------------------------


def dumbbell(binary: Path, out: Path, knobs: str) -> dict[int, int]:
    out.mkdir(parents=True, exist_ok=True)
    args = ["BQM", "BQM", "BQM", 4, 30.0, 0.01, "default", "false", out, 0, knobs]
    proc = subprocess.run([str(binary), str(DUMBBELL), *map(str, args)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stderr == "", proc.stderr[-800:]
    early = {}
    for line in proc.stdout.splitlines():
        words = line.split()
        if words[0] == "counters":
            early[int(words[1])] = int(words[2])
    return early


def fast_retransmits(out: Path) -> list[tuple[int, int, int]]:
    """(flow, the dupack ordinal, the level of the hole's latest send) of every resend of the packet after the
    acknowledged one at a duplicate ACK, from the trace: levels from the pattern, one higher per earlier send."""
    source = {}  # node of each flow's sender
    sends = defaultdict(int)
    level = {}
    acks = {}  # node -> (time, ack, duplicates)
    result = []
    for line in (out / "out.tr").read_text().splitlines():
        f = line.split()
        event, time, frm, to, ptype, fid, seqno = f[0], float(f[1]), int(f[2]), int(f[3]), f[4], int(f[7]), int(f[10])
        if ptype == "tcp" and event == "+":
            source.setdefault(fid, int(f[8].split(".")[0]))
            if frm != source[fid]:
                continue
            node = frm
            ack = acks.get(node)
            if sends[(fid, seqno)] and ack and ack[0] == time and ack[2] >= 1 and seqno == ack[1] + 1:
                result.append((fid, ack[2], level[(fid, seqno)]))
            level[(fid, seqno)] = min(3, PATTERN8[seqno % 8] + sends[(fid, seqno)])
            sends[(fid, seqno)] += 1
        elif ptype == "ack" and event == "r" and to in source.values():
            last = acks.get(to)
            dups = 0 if last is None or seqno > last[1] else last[2] + (seqno == last[1])
            acks[to] = (time, max(seqno, last[1]) if last else seqno, dups)
    return result


def test_in_a_busy_run_early_retransmits_are_exactly_the_level_0_holes(ns_binary, tmp_path):
    out = tmp_path / "busy"
    early = dumbbell(ns_binary, out, "early_rexmit_ 1")
    frs = fast_retransmits(out)
    by_k = defaultdict(list)
    for _, k, lvl in frs:
        by_k[k].append(lvl)
    assert set(by_k) <= {1, 3}, by_k.keys()
    assert by_k[1] and all(lvl == 0 for lvl in by_k[1]), "a first-dupack retransmission only for a level-0 hole"
    assert by_k[3] and all(lvl != 0 for lvl in by_k[3]), "a level-0 hole is never left for the third dupack"
    for fid in range(4):
        assert early[fid] == sum(1 for f, k, _ in frs if f == fid and k == 1)
    # and without the knob, the same senders wait for three dupacks whatever the level
    stock = tmp_path / "stock"
    assert set(dumbbell(ns_binary, stock, "").values()) == {0}
    assert {k for _, k, _ in fast_retransmits(stock)} == {3}
    assert any(lvl == 0 for _, _, lvl in fast_retransmits(stock))
