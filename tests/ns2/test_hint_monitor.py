"""HintMonitor (patch 0007): per-flow counters with the cwnd source hint at any point of a link.

Every scenario is scripts/hint_monitor.tcl: a CBR/UDP flow (fid 2, 500-byte packets at
400 kb/s = one every 10 ms from 0.5 s) and a NewReno flow (fid 1, 1000-byte segments, from
1.0 s) from their own 10 Mb/s / 1 ms access links through the bottleneck r1 -> r2 (1 Mb/s,
10 ms, DropTail, queue-limit 5), then 10 Mb/s / 1 ms to the sinks; 5 s. Monitors, placed
as tcl/lib/monitors.tcl places them: "arrival" after the bottleneck's head (interval_ 0.5,
logging every arrival with log-drops, and fid 2's delays), "departure" after its delay
element (interval_ 1.0, delays of fid 1), "drop" in its drop chain (with the queue) and
"ack" after the head of r2 -> r1. Node ids: u 0, t 1, r1 2, r2 3, d 4.
"""

from __future__ import annotations

import csv
import math
import re
import shutil
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "hint_monitor.tcl"
TCP, CBR = 1, 2
U, T, R1, R2, D = 0, 1, 2, 3, 4
LIMIT = 5
STOP = 5.0
# Link parameters of the script (bits per second, seconds).
ACCESS_BW, ACCESS_DELAY = 10e6, 0.001
BOTTLENECK_BW, BOTTLENECK_DELAY = 1e6, 0.010
CBR_SIZE, CBR_START, CBR_GAP = 500, 0.5, 0.01  # 400 kb/s / (500 * 8 bit) = 100 packets/s
TCP_START, TCP_SIZE, HEADER = 1.0, 1040, 40  # packetSize_ 1000 + 40 bytes of TCP/IP header
BINS = ("bin", "event", "fid", "packets", "bytes", "hint_sum", "hinted")
DEBUG_WARNING = "warning: no class variable HintMonitor::debug_"


def run(binary: Path, workdir: Path, *args, check_stderr: bool = False) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(binary), str(SCRIPT), *map(str, args)], cwd=workdir, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    if check_stderr:
        assert proc.stderr == "", proc.stderr[-800:]
    return workdir


def read_bins(d: Path) -> dict[tuple[str, str, int], tuple[int, int, float, int]]:
    """(event, bin as printed, fid) -> (packets, bytes, hint_sum, hinted)."""
    out = {}
    for line in (d / "bins.tsv").read_text().splitlines():
        f = dict(zip(BINS, line.split("\t"), strict=True))
        key = (f["event"], f["bin"], int(f["fid"]))
        assert key not in out, key
        out[key] = (int(f["packets"]), int(f["bytes"]), float(f["hint_sum"]), int(f["hinted"]))
    return out


def read_log(path: Path, names: tuple[str, ...]) -> list[dict]:
    rows = []
    with path.open() as f:
        for values in csv.reader(f, delimiter="\t"):
            row = dict(zip(names, values, strict=True))
            rows.append({k: (float(v) if k in ("time", "hint", "delay") else int(v)) for k, v in row.items()})
    return rows


def packet_log(path: Path) -> list[dict]:
    return read_log(path, ("time", "fid", "seqno", "size", "hint", "qlen"))


def delay_log(path: Path) -> list[dict]:
    return read_log(path, ("time", "fid", "seqno", "delay"))


def trace(d: Path) -> list[tuple]:
    """(event, time, from, to, size, fid, seqno) of every trace-all line."""
    out = []
    for line in (d / "packets.tr").read_text().splitlines():
        f = line.split()
        out.append((f[0], float(f[1]), int(f[2]), int(f[3]), int(f[5]), int(f[7]), int(f[10])))
    return out


def on_link(events: list[tuple], a: int, b: int, kind: str | None = None) -> list[tuple]:
    return [e for e in events if (e[2], e[3]) == (a, b) and (kind is None or e[0] == kind)]


def queue_found(events: list[tuple], a: int, b: int) -> dict[str, list[int]]:
    """Per event kind on link a -> b, the queue length (packets waiting) each one found:
    '+' minus '-' minus 'd' of the link's earlier trace lines."""
    q, found = 0, defaultdict(list)
    for ev, *_ in on_link(events, a, b):
        found[ev].append(q)
        q += {"+": 1, "-": -1, "d": -1}.get(ev, 0)
    return found


def summary(d: Path) -> dict[str, int]:
    return {k: int(v) for k, v in (line.split() for line in (d / "summary.txt").read_text().splitlines())}


def bin_label(k: int, interval: float) -> str:
    return f"{k * interval:.9g}"


@pytest.fixture(scope="module")
def runs(ns_binary, tmp_path_factory):
    base = tmp_path_factory.mktemp("hint_monitor")
    return {"mon": run(ns_binary, base / "mon", 1, STOP), "plain": run(ns_binary, base / "plain", 0, STOP)}


@pytest.fixture(scope="module")
def events(runs):
    return trace(runs["mon"])


# --- per-bin counts ----------------------------------------------------------------


def test_cbr_arrival_bins_are_what_rate_and_size_give(runs):
    """100 packets/s of 500 bytes from 0.5 s: 50 packets and 25,000 bytes in every 0.5 s bin
    from bin 0.5 to bin 4.5 (each packet reaches r1 1.4 ms after it is sent: 0.4 ms
    transmission at 10 Mb/s + 1 ms, far from any bin edge); no hint on UDP packets."""
    bins = read_bins(runs["mon"])
    cbr = {b: v for (ev, b, fid), v in bins.items() if ev == "arrival" and fid == CBR}
    assert cbr == {bin_label(k, 0.5): (50, 50 * CBR_SIZE, 0.0, 0) for k in range(1, 10)}


def test_bin_starts_are_multiples_of_the_interval(runs):
    bins = read_bins(runs["mon"])
    labels = defaultdict(set)
    for ev, b, _ in bins:
        labels[ev].add(b)
    # interval_ 0.5 on the arrival monitor; the others have ns-default.tcl's 1.0
    assert labels["arrival"] == {bin_label(k, 0.5) for k in range(1, 10)}
    assert labels["arrival"] == {"0.5", "1", "1.5", "2", "2.5", "3", "3.5", "4", "4.5"}
    assert labels["departure"] == {"0", "1", "2", "3", "4"}
    assert labels["ack"] == labels["drop"] == {"1", "2", "3", "4"}  # TCP starts at 1.0
    # rows come sorted by bin, then fid, per monitor
    rows = [line.split("\t") for line in (runs["mon"] / "bins.tsv").read_text().splitlines()]
    for event in ("arrival", "departure", "drop", "ack"):
        keys = [(float(r[0]), int(r[2])) for r in rows if r[1] == event]
        assert keys == sorted(keys)


def test_cbr_departures_before_the_tcp_flow(runs):
    """Alone on the link the CBR packets leave r1 -> r2's delay element 14 ms (4 ms
    transmission at 1 Mb/s + 10 ms) after reaching r1: 0.5154 + 0.01 k, 49 of them before 1.0."""
    assert read_bins(runs["mon"])[("departure", "0", CBR)] == (49, 49 * CBR_SIZE, 0.0, 0)


def test_arrival_and_departure_bins_match_the_trace(runs, events):
    """arrival = '+' of r1 -> r2 (every arrival, dropped ones too) per 0.5 s bin;
    departure = 'r' of r1 -> r2 (after the delay element) per 1 s bin; both per fid."""
    bins = read_bins(runs["mon"])
    for event, kind, interval in (("arrival", "+", 0.5), ("departure", "r", 1.0)):
        expected = defaultdict(lambda: [0, 0])
        for _, t, _, _, size, fid, _ in on_link(events, R1, R2, kind):
            e = expected[(event, bin_label(math.floor(t / interval), interval), fid)]
            e[0] += 1
            e[1] += size
        got = {k: list(v[:2]) for k, v in bins.items() if k[0] == event}
        assert got == dict(expected), event
    tcp_bytes = [v[1] for (ev, _, fid), v in bins.items() if ev == "arrival" and fid == TCP]
    assert sum(tcp_bytes) % TCP_SIZE == HEADER, "1040-byte segments and one 40-byte SYN"


def test_queue_monitor_totals(runs, events):
    """The arrival monitor counts what the link's QueueMonitor counts; the departure monitor,
    at the far end, what the QueueMonitor counted as departed minus what is still on the wire."""
    bins = read_bins(runs["mon"])
    qm = summary(runs["mon"])
    total = defaultdict(lambda: [0, 0])
    for (ev, _, _), (packets, size, _, _) in bins.items():
        total[ev][0] += packets
        total[ev][1] += size
    assert total["arrival"] == [qm["parrivals_"], qm["barrivals_"]]
    assert total["drop"] == [qm["pdrops_"], qm["bdrops_"]]
    link = on_link(events, R1, R2)
    on_wire = sum(e[0] == "-" for e in link) - sum(e[0] == "r" for e in link)
    # 10 ms of propagation hold at most 3 packets of >= 500 bytes (>= 4 ms each at 1 Mb/s),
    # plus the one in transmission
    assert 0 <= on_wire <= 4
    assert total["departure"][0] == qm["pdepartures_"] - on_wire
    assert qm["parrivals_"] == qm["pdepartures_"] + qm["pdrops_"] + qm["pkts_"]


# --- hints ----------------------------------------------------------------------------


def test_hint_sum_counts_tcp_packets_only(runs):
    bins = read_bins(runs["mon"])
    log = packet_log(runs["mon"] / "arrivals.log")
    per_bin = defaultdict(list)
    for r in log:
        per_bin[(bin_label(math.floor(r["time"] / 0.5), 0.5), r["fid"])].append(r["hint"])
    for (ev, b, fid), (packets, _, hint_sum, hinted) in bins.items():
        if ev != "arrival":
            continue
        hints = per_bin[(b, fid)]
        assert len(hints) == packets
        if fid == TCP:  # every TCP data packet (and the SYN) has cwnd_ >= 1 as its hint
            assert hinted == packets and all(h >= 1 for h in hints)
            assert hint_sum == sum(hints)  # the same doubles added in the same order
        else:
            assert (hint_sum, hinted) == (0.0, 0) and set(hints) == {0.0}
    # the hint is cwnd_ as a double: fast recovery gives fractional windows
    assert any(r["hint"] != int(r["hint"]) for r in log if r["fid"] == TCP)


def test_first_hints_follow_slow_start(runs):
    """SYN (seqno 0, 40 bytes) with cwnd_ 1, then slow start without delayed ACKs: each ACK
    raises cwnd_ by one and releases two segments, so segment n carries floor((n+1)/2) + 1,
    until the first drop (segment 8) stops the growth after segment 16."""
    tcp = [r for r in packet_log(runs["mon"] / "arrivals.log") if r["fid"] == TCP]
    first = [(r["seqno"], r["size"], r["hint"]) for r in tcp[:17]]
    assert first == [(0, HEADER, 1.0)] + [(n, TCP_SIZE, float((n + 1) // 2 + 1)) for n in range(1, 17)]


def test_acks_carry_no_hint(runs, events):
    acks = packet_log(runs["mon"] / "acks.log")
    assert len(acks) > 200
    assert {(r["fid"], r["size"], r["hint"], r["qlen"]) for r in acks} == {(TCP, HEADER, -1.0, -1)}
    assert len(acks) == len(on_link(events, R2, R1, "+"))
    bins = read_bins(runs["mon"])
    ack_bins = {k: v for k, v in bins.items() if k[0] == "ack"}
    assert sum(v[0] for v in ack_bins.values()) == len(acks)
    assert all(v[2:] == (0.0, 0) and v[1] == HEADER * v[0] for v in ack_bins.values())


# --- the drop chain and the queue length ------------------------------------------------


def test_drop_monitor_sees_exactly_the_links_drops(runs, events):
    log = packet_log(runs["mon"] / "drops.log")
    traced = on_link(events, R1, R2, "d")
    assert len(log) == len(traced) == summary(runs["mon"])["pdrops_"]
    assert {fid for *_, fid, _ in traced} == {TCP, CBR}, "both flows lose packets"
    assert len(log) > 20
    for r, (_, t, _, _, size, fid, seqno) in zip(log, traced, strict=True):
        assert (r["fid"], r["size"]) == (fid, size)
        assert abs(r["time"] - t) <= 5e-7 + 1e-12  # the trace prints 6 decimals
        if fid == TCP:  # the trace shows the RTP seqno of CBR packets, the log hdr_tcp's
            assert r["seqno"] == seqno
    # DropTail (ns-2.35) drops an arrival that finds limit - 1 packets waiting (one more
    # is in transmission): every drop found 4 packets, as the trace's queue length says.
    assert [r["qlen"] for r in log] == [LIMIT - 1] * len(log)
    # (at its 'd' line the trace's count still holds the dropped arrival's own '+')
    assert [q - 1 for q in queue_found(events, R1, R2)["d"]] == [LIMIT - 1] * len(log)
    drop_bins = Counter()
    for _, t, _, _, _, fid, _ in traced:
        drop_bins[(bin_label(math.floor(t), 1.0), fid)] += 1
    assert {(b, fid): v[0] for (ev, b, fid), v in read_bins(runs["mon"]).items() if ev == "drop"} == drop_bins


def test_arrival_log_qlen_is_the_queue_length_found(runs, events):
    log = packet_log(runs["mon"] / "arrivals.log")
    found = queue_found(events, R1, R2)["+"]
    assert [r["qlen"] for r in log] == found
    assert max(found) == LIMIT - 1 and found.count(0) > 50


# --- per-packet delays -------------------------------------------------------------------


def test_log_delays_logs_only_its_fids_with_the_path_delay(runs, events):
    log = delay_log(runs["mon"] / "delays.log")
    assert {r["fid"] for r in log} == {TCP}  # listed: fid 1 only; fid 2 departs there too
    received = on_link(events, R1, R2, "r")
    assert [(r["fid"], r["seqno"]) for r in log] == [(fid, seq) for *_, fid, seq in received if fid == TCP]
    syn_path = HEADER * 8 / ACCESS_BW + ACCESS_DELAY + HEADER * 8 / BOTTLENECK_BW + BOTTLENECK_DELAY
    seg_path = TCP_SIZE * 8 / ACCESS_BW + ACCESS_DELAY + TCP_SIZE * 8 / BOTTLENECK_BW + BOTTLENECK_DELAY
    assert (syn_path, seg_path) == (pytest.approx(0.011352), pytest.approx(0.020152))
    # the SYN and segment 1 find the queue empty and the link idle (CBR packets take
    # 4 ms of every 10 ms); the log prints 9 decimals
    assert (log[0]["seqno"], log[0]["delay"]) == (0, pytest.approx(syn_path, abs=1e-9))
    assert (log[1]["seqno"], log[1]["delay"]) == (1, pytest.approx(seg_path, abs=1e-9))
    assert all(r["delay"] >= seg_path - 1e-9 for r in log[1:])
    # time - delay is the creation time: when the sender put the packet on its access link
    sent = defaultdict(list)
    for _, t, _, _, _, _, seqno in on_link(events, T, R1, "+"):
        sent[seqno].append(t)
    for r in log:
        created = r["time"] - r["delay"]
        assert any(abs(created - t) <= 5e-7 + 1e-9 for t in sent[r["seqno"]]), r


def test_log_delays_skips_udp_packets(runs):
    """Agent/UDP overwrites hdr_cmn::timestamp() with an 8 kHz RTP sample count (apps/udp.cc), so
    log-delays logs TCP data only (hint > 0): the CBR's fid is listed but gets no line."""
    assert not (runs["mon"] / "udp_delays.log").read_text().strip()


# --- packets are passed on ----------------------------------------------------------------


def test_monitors_change_nothing(runs):
    """With and without the four monitors: the same packet trace, byte for byte, and the
    same deliveries (TCP ack_, CBR packets received) and queue counters."""
    mon, plain = runs["mon"], runs["plain"]
    assert (mon / "packets.tr").read_bytes() == (plain / "packets.tr").read_bytes()
    assert summary(mon) == summary(plain)
    s = summary(mon)
    assert s["tcp_ack"] > 250 and s["cbr_received"] > 400
    assert not (plain / "bins.tsv").exists()


def hint_script(ns_binary: Path, tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    script = tmp_path / "probe.tcl"
    script.write_text("set ns [new Simulator]\n" + body + "\nexit 0\n")
    return subprocess.run([str(ns_binary), str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60)


def test_without_target_packets_are_counted_and_freed(ns_binary, tmp_path):
    """A monitor with no target is a sink: a UDP agent sending straight into it."""
    proc = hint_script(
        ns_binary,
        tmp_path,
        """
set m [new HintMonitor]
puts "default [HintMonitor set interval_] [$m set interval_]"
$m set interval_ 0.25
set udp [new Agent/UDP]
$udp set fid_ 7
$udp target $m
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 100
$cbr set rate_ 80kb
$ns at 0.05 "$cbr start"
$ns at 0.55 "$m dump stdout x; exit 0"
$ns run
""",
    )
    assert proc.returncode == 0, proc.stderr
    # 80 kb/s of 100-byte packets: one every 10 ms from 0.05, the last at 0.54
    # (0.55 runs the dump first: it was scheduled before the CBR's timer)
    assert proc.stdout.splitlines() == [
        "default 1.0 1",  # the class default as written, the bound double as %g
        "0\tx\t7\t20\t2000\t0\t0",
        "0.25\tx\t7\t25\t2500\t0\t0",
        "0.5\tx\t7\t5\t500\t0\t0",
    ]


BAD = [
    ("log-drops nosuch", "log-drops: nosuch is not a channel open for writing"),
    ("log-drops $readonly", "log-drops: file\\d+ is not a channel open for writing"),
    ("log-delays nosuch {1 2}", "log-delays: nosuch is not a channel open for writing"),
    ("dump nosuch arrival", "dump: nosuch is not a channel open for writing"),
    ("queue nosuch", "no queue nosuch"),
]


@pytest.mark.parametrize(("command", "message"), BAD, ids=[c.split()[0] + "-" + c.split()[1] for c, _ in BAD])
def test_bad_input_is_a_tcl_error(command, message, ns_binary, tmp_path):
    (tmp_path / "ro.txt").write_text("")
    proc = hint_script(
        ns_binary,
        tmp_path,
        f"""
set readonly [open ro.txt r]
set m [new HintMonitor]
set rc [catch {{$m {command}}} msg]
puts "rc $rc"
puts "first [lindex [split $::errorInfo \\n] 0]"
""",
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "rc 1"
    # OTcl's `unknown` replaces the result with "error when calling class ..."; the
    # monitor's own message is the first line of errorInfo: "<object>: <message>"
    assert re.fullmatch(r"first _o\d+: " + message, lines[1]), lines[1]


def test_wrong_argument_counts_are_errors(ns_binary, tmp_path):
    proc = hint_script(
        ns_binary,
        tmp_path,
        """
set m [new HintMonitor]
foreach cmd {{dump stdout} {log-drops} {log-delays stdout} {queue}} {
    puts "[list $cmd] [catch {eval $m $cmd}]"
}
""",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["{dump stdout} 1", "log-drops 1", "{log-delays stdout} 1", "queue 1"]


# --- defects found in review, fixed in the patch --------------------------------------------


def test_new_hint_monitor_prints_nothing(ns_binary, tmp_path):
    """ns-default.tcl gives HintMonitor its debug_ default: no warning per instance."""
    proc = hint_script(ns_binary, tmp_path, "set m [new HintMonitor]\nset n [new HintMonitor]")
    assert proc.returncode == 0
    assert DEBUG_WARNING not in proc.stderr and proc.stderr == ""


def test_queue_refuses_a_non_queue(ns_binary, tmp_path):
    proc = hint_script(ns_binary, tmp_path, "set m [new HintMonitor]\nputs [catch {$m queue [new Agent/UDP]}]")
    assert proc.stdout.strip() == "1"


def test_log_delays_refuses_a_bad_fid(ns_binary, tmp_path):
    proc = hint_script(ns_binary, tmp_path, "set m [new HintMonitor]\nputs [catch {$m log-delays stdout {1 x}}]")
    assert proc.stdout.strip() == "1"


# --- stock ns-2 -------------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/usr/bin/ns").is_file(), reason="Debian's /usr/bin/ns is not installed")
def test_debians_ns_has_no_hint_monitor(runs, tmp_path):
    """The tests above depend on the patch: stock ns-2 has no HintMonitor. Without the
    monitors the script is stock ns-2 and Debian's ns traces exactly what ours traces with them."""
    debian = Path(shutil.which("ns", path="/usr/bin"))
    proc = subprocess.run(
        [str(debian), str(SCRIPT), "1", str(STOP)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode != 0
    assert 'invalid command name "HintMonitor"' in proc.stderr
    ref = run(debian, tmp_path / "ref", 0, STOP)
    assert (ref / "packets.tr").read_bytes() == (runs["mon"] / "packets.tr").read_bytes()
    assert summary(ref) == summary(runs["mon"])
