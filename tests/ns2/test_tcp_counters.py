"""TcpAgent's `nfastrexmit_` (ns2-patches/0022): retransmissions sent for duplicate ACKs, beside ns-2's own
`nrexmit_` (timeouts) and `nrexmitpack_` (retransmitted packets).

Li's thesis §3.5 and §6.1 (issue 52 §1): which recoveries the senders use. Scenario: scripts/tcp_recovery.tcl, one
transfer over a 1 Mb/s link that loses hand-picked packets (an ErrorModel/List) and nothing else. Every counter is
checked against the packet trace, which the counters do not write: a resend of the packet after the acknowledged one
at the instant a duplicate ACK arrives is a fast retransmit, a resend at an instant no ACK arrives a timeout.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "tcp_recovery.tcl"
S, D = 0, 1  # the sender's and the sink's node
COUNTERS = ["nrexmit_", "nfastrexmit_", "nrexmitpack_"]


def recovery_run(binary: Path, out: Path, sender="Newreno", sink="TCPSink", drops="16", knobs="", stop=10.0) -> dict:
    """Runs the script; returns the sender's counters (name -> int) at the end."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(binary), str(SCRIPT), sender, sink, drops, knobs, " ".join(COUNTERS), str(stop), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stderr == "", proc.stderr[-800:]
    values = dict(line.rsplit(" ", 1) for line in proc.stdout.splitlines())
    return {name: int(values[name]) for name in COUNTERS}


@dataclass
class Resend:
    time: float
    seqno: int
    trigger: str  # "dupack" (the k-th duplicate of ack), "ack" (a new ACK), "timer" (no ACK at that instant)
    ack: int = -1
    k: int = 0


@dataclass
class Evidence:
    sends: list[tuple[float, int]] = field(default_factory=list)  # (time, seqno) of every packet S sends
    resends: list[Resend] = field(default_factory=list)
    drops: list[tuple[float, int]] = field(default_factory=list)
    # ('+' or 'd', seqno) of every packet reaching the link, in the order the loss model numbers them
    packets_on_link: list[tuple[str, int]] = field(default_factory=list)

    def of(self, trigger: str) -> list[Resend]:
        return [r for r in self.resends if r.trigger == trigger]

    @property
    def fast(self) -> list[Resend]:
        """Resends of the packet after the acknowledged one at a duplicate ACK: fast retransmits."""
        return [r for r in self.resends if r.trigger == "dupack" and r.seqno == r.ack + 1]


def evidence(out: Path) -> Evidence:
    """What the trace shows at the sender: its sends, each resend's trigger, the link's drops.

    The loss model sits at the link's head, before its enqueue trace: a packet it drops shows as a 'd' and no '+',
    both at the instant S sends it, and nothing else drops on this link. So a send is a '+' or a 'd' from S.
    """
    ev = Evidence()
    sent: set[int] = set()
    last_ack, dups = -1, 0
    ack = None  # (time, ack number, duplicates of it so far) of the latest ACK reaching S
    for line in (out / "out.tr").read_text().splitlines():
        f = line.split()
        event, time, frm, to, ptype, seqno = f[0], float(f[1]), int(f[2]), int(f[3]), f[4], int(f[10])
        if event == "r" and ptype == "ack" and to == S:
            if seqno > last_ack:
                last_ack, dups = seqno, 0
            elif seqno == last_ack:
                dups += 1
            ack = (time, seqno, dups)
        elif ptype == "tcp" and frm == S and event in "+d":
            ev.packets_on_link.append((event, seqno))
            if event == "d":
                ev.drops.append((time, seqno))
            ev.sends.append((time, seqno))
            if seqno in sent:
                if ack is None or ack[0] != time:
                    ev.resends.append(Resend(time, seqno, "timer"))
                else:
                    trigger = "dupack" if ack[2] >= 1 else "ack"
                    ev.resends.append(Resend(time, seqno, trigger, ack[1], ack[2]))
            sent.add(seqno)
    return ev


@pytest.fixture(scope="module")
def runs(ns_binary, tmp_path_factory):
    """name -> (counters, evidence) of the module's shared runs."""
    base = tmp_path_factory.mktemp("recovery")
    cases = {
        "none": {"drops": ""},
        "one": {"drops": "16"},
        "two": {"drops": "16 20"},
        "sack-two": {"sender": "Sack1", "sink": "Sack1", "drops": "16 20"},
        "reno-one": {"sender": "Reno", "drops": "16"},
        "tahoe-one": {"sender": "Tahoe", "drops": "16"},
    }
    return {name: (recovery_run(ns_binary, base / name, **kw), evidence(base / name)) for name, kw in cases.items()}


def test_a_run_without_loss_counts_nothing(runs):
    counters, ev = runs["none"]
    assert not ev.drops and not ev.resends
    assert len(ev.sends) > 1000, "the transfer runs for the whole 10 s"
    assert counters == {"nrexmit_": 0, "nfastrexmit_": 0, "nrexmitpack_": 0}


@pytest.mark.parametrize("name", ["one", "reno-one"])
def test_a_single_loss_is_one_fast_retransmit(runs, name):
    counters, ev = runs[name]
    assert ev.drops == [(ev.drops[0][0], 16)]
    assert [(r.seqno, r.trigger, r.k) for r in ev.resends] == [(16, "dupack", 3)], "NewReno's third dupack"
    assert counters == {"nrexmit_": 0, "nfastrexmit_": 1, "nrexmitpack_": 1}


@pytest.mark.parametrize("name", ["two", "sack-two"])
def test_a_partial_ack_resend_is_no_fast_retransmit(runs, name):
    """Two losses in a window: the first is fast-retransmitted; the second goes out on the partial ACK (NewReno's
    output(.., 0), Sack1's TCP_REASON_PARTIALACK) or from Sack1's scoreboard (reason 0): counted by nrexmitpack_
    only."""
    counters, ev = runs[name]
    assert [s for _, s in ev.drops] == [16, 20]
    assert [(r.seqno, r.trigger) for r in ev.fast] == [(16, "dupack")]
    assert sorted(r.seqno for r in ev.resends) == [16, 20]
    assert [r.trigger for r in ev.resends if r.seqno == 20] != ["timer"]
    assert counters == {"nrexmit_": 0, "nfastrexmit_": 1, "nrexmitpack_": 2}


def test_tahoe_resends_with_no_dupack_reason(runs):
    """Tahoe's dupack_action() only rewinds: its resend at the third dupack leaves from send_much() with reason 0, so
    ns-2 does not mark it as a dupack retransmission and nfastrexmit_ stays 0 (documented in the patch)."""
    counters, ev = runs["tahoe-one"]
    assert [(r.seqno, r.trigger, r.k) for r in ev.fast] == [(16, "dupack", 3)]
    assert counters["nfastrexmit_"] == 0 and counters["nrexmit_"] == 0
    assert counters["nrexmitpack_"] == len(ev.resends) >= 1


def test_a_lost_fast_retransmit_takes_a_timeout(ns_binary, runs, tmp_path):
    """Packet 16 and its fast retransmit lost: one fast retransmit, then the timer resends it (nrexmit_ 1)."""
    _, single = runs["one"]
    # The ErrorModel/List numbers the packets reaching the link: sends ('+') and its own drops ('d'), in order.
    position = [i for i, (e, s) in enumerate(single.packets_on_link) if e == "+" and s == 16][-1]
    counters, ev = recovery_run(ns_binary, tmp_path / "lost", drops=f"16 {position}"), evidence(tmp_path / "lost")
    assert [s for _, s in ev.drops] == [16, 16]
    assert [(r.seqno, r.trigger) for r in ev.fast] == [(16, "dupack")]
    timers = ev.of("timer")
    assert [r.seqno for r in timers] == [16]
    assert counters["nrexmit_"] == len(timers) == 1
    assert counters["nfastrexmit_"] == len(ev.fast) == 1
    assert counters["nrexmitpack_"] == len(ev.resends)


@pytest.mark.parametrize("name", ["none", "one", "two", "sack-two", "reno-one"])
def test_counters_agree_with_the_trace(runs, name):
    counters, ev = runs[name]
    assert counters["nfastrexmit_"] == len(ev.fast)
    assert counters["nrexmit_"] == len(ev.of("timer"))
    assert counters["nrexmitpack_"] == len(ev.resends)
    assert counters["nfastrexmit_"] <= counters["nrexmitpack_"]


def test_random_losses_counted_as_the_trace_shows(ns_binary, tmp_path):
    """Many losses, some of them of retransmissions: every kind of recovery, each counter against the trace."""
    drops = " ".join(str(n) for n in range(16, 2000, 37)) + " " + " ".join(str(n) for n in range(300, 2000, 173))
    drops = " ".join(map(str, sorted({int(n) for n in drops.split()})))
    counters, ev = recovery_run(ns_binary, tmp_path / "many", drops=drops, stop=20.0), evidence(tmp_path / "many")
    assert len(ev.drops) > 40
    assert counters["nfastrexmit_"] == len(ev.fast) > 10
    assert counters["nrexmit_"] == len(ev.of("timer"))
    assert counters["nrexmitpack_"] == len(ev.resends)


def test_the_default_is_zero_and_reset_clears_it(ns_binary, tmp_path):
    script = tmp_path / "reset.tcl"
    script.write_text(
        "set ns [new Simulator]\n"
        "puts [Agent/TCP set nfastrexmit_]\n"
        "set tcp [new Agent/TCP/Newreno]\n"
        "puts [$tcp set nfastrexmit_]\n"
        "$tcp set nfastrexmit_ 5\n"
        "$tcp reset\n"
        "puts [$tcp set nfastrexmit_]\n"
    )
    proc = subprocess.run([str(ns_binary), str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.split() == ["0", "0", "0"]


def test_debian_ns_has_no_nfastrexmit(debian_ns, tmp_path):
    script = tmp_path / "debian.tcl"
    script.write_text("set ns [new Simulator]\nset tcp [new Agent/TCP/Newreno]\nputs [$tcp set nfastrexmit_]\n")
    proc = subprocess.run([str(debian_ns), str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 or "nfastrexmit_" in proc.stderr
