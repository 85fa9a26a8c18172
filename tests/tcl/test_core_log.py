"""The driver's core_log (HintMonitors on core0), core_reverse_queue, reverse flows and
http flows reusing one TCP connection per flow (DESIGN.md §2, §5.4; ns2-patches/0007).

Every run is a dumbbell C0 -> C1 (node ids 0, 1) with 100 Mb/s / 1 ms access links; flow i
has source and sink nodes 2i and 2i + 1 (in flow order from 2).
"""

from __future__ import annotations

import copy
import json
import math
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import pytest

DRIVER = Path(__file__).resolve().parents[2] / "tcl" / "driver.tcl"
CORE_FILES = {
    "core_bins.tsv": "bin\tevent\tfid\tpackets\tbytes\thint_sum\thinted",
    "core_drops.tsv": "time\tfid\tseqno\tsize\thint\tqlen",
    "core_delays.tsv": "time\tfid\tseqno\tdelay",
}
OUTPUTS = ["meta.json", "packets.tr", "queue_monitor.tsv", "flows.tsv", "tcp_counters.tsv", "objects.tsv", *CORE_FILES]
# ns2-patches/0007 gives HintMonitor no debug_ default: each `new HintMonitor` prints this
# (see test_core_log_prints_nothing); every other stderr line is a failure.
WARNING = (
    "warning: no class variable HintMonitor::debug_\n\n\tsee tcl-object.tcl in tclcl for info about this warning.\n\n"
)

EDGE_BW, EDGE_DELAY = 100e6, 0.001
CORE_DELAY = 0.010
LIMIT = 20  # core0's DropTail limit_ in the core_log run
TCP = {
    "kind": "ftp",
    "start": 0.0,
    "agent": {"class": "Agent/TCP/Newreno", "knobs": {"packetSize_": 500, "window_": 50}},
    "sink": {"class": "Agent/TCPSink", "knobs": {}},
    "app": {"class": "Application/FTP", "knobs": {}},
}
PARETO = {
    "kind": "pareto",
    "start": 0.0,
    "agent": {"class": "Agent/UDP", "knobs": {"packetSize_": 500}},
    "sink": {"class": "Agent/LossMonitor", "knobs": {}},
    "app": {
        "class": "Application/Traffic/Pareto",
        "knobs": {"packetSize_": 500, "burst_time_": 0.01, "idle_time_": 0.01, "rate_": "5Mb", "shape_": 1.3},
    },
}
CBR = {
    "kind": "cbr",
    "start": 0.0,
    "agent": {"class": "Agent/UDP", "knobs": {}},
    "sink": {"class": "Agent/Null", "knobs": {}},
    "app": {"class": "Application/Traffic/CBR", "knobs": {"rate_": "400kb", "packetSize_": 500}},
}


def params(flows: list[dict], duration: float = 5.0, core_bw: str = "10Mb", limit: int = LIMIT, **extra) -> dict:
    return {
        "schema": "ns2-repro/run-params/2",
        "seed": 3,
        "duration": duration,
        "topology": {
            "kind": "dumbbell",
            "core_nodes": 2,
            "core_link": {"bandwidth": core_bw, "delay": "10ms"},
            "edge_link": {
                "bandwidth": "100Mb",
                "delay": "1ms",
                "queue": {"class": "Queue/DropTail", "knobs": {"limit_": 1000}},
            },
        },
        "core_queue": {"class": "Queue/DropTail", "knobs": {"limit_": limit}},
        "flows": copy.deepcopy(flows),
        "monitors": {"queue_sample_interval": 0.1, "packet_trace": "text", "core_log": {"interval": 1.0}},
        **extra,
    }


def flow(fid: int, template: dict, **fields) -> dict:
    return {"fid": fid, **copy.deepcopy(template), **fields}


def run(ns_binary: Path, p: dict, run_dir: Path) -> subprocess.CompletedProcess:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "params.json").write_text(json.dumps(p, indent=2))
    return subprocess.run([str(ns_binary), str(DRIVER), str(run_dir)], capture_output=True, text=True, timeout=120)


def run_ok(ns_binary: Path, p: dict, run_dir: Path) -> Path:
    result = run(ns_binary, p, run_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.replace(WARNING, "") == "", result.stderr
    return run_dir


def read_tsv(path: Path) -> list[dict]:
    lines = path.read_text().splitlines()
    names = lines[0].split("\t")
    return [dict(zip(names, line.split("\t"), strict=True)) for line in lines[1:]]


def read_bins(d: Path) -> dict[tuple[str, int, int], tuple[int, int, float, int]]:
    """(event, bin number, fid) -> (packets, bytes, hint_sum, hinted); interval 1.0."""
    out = {}
    for r in read_tsv(d / "core_bins.tsv"):
        key = (r["event"], int(r["bin"]), int(r["fid"]))
        assert key not in out and r["bin"] == str(key[1]), r  # bin = its start, k * 1.0, as %.9g
        out[key] = (int(r["packets"]), int(r["bytes"]), float(r["hint_sum"]), int(r["hinted"]))
    return out


def totals(bins: dict, event: str, fid: int | None = None) -> tuple[int, int]:
    rows = [v for (ev, _, f), v in bins.items() if ev == event and fid in (None, f)]
    return sum(v[0] for v in rows), sum(v[1] for v in rows)


def trace(d: Path) -> list[tuple]:
    """(event, time, from, to, type, size, fid, seqno) of every packets.tr line."""
    out = []
    for line in (d / "packets.tr").read_text().splitlines():
        f = line.split()
        out.append((f[0], float(f[1]), int(f[2]), int(f[3]), f[4], int(f[5]), int(f[7]), int(f[10])))
    return out


def on_link(events: list[tuple], a: int, b: int, kind: str) -> list[tuple]:
    return [e for e in events if (e[2], e[3]) == (a, b) and e[0] == kind]


# ---- core_log on a DropTail bottleneck: 3 FTP flows (group ftp) and a Pareto flow (group pareto) ----


def core_log_params(**monitors) -> dict:
    flows = [flow(fid, TCP, group="ftp") for fid in (1, 2, 3)] + [flow(4, PARETO, group="pareto")]
    p = params(flows)
    p["monitors"] |= monitors
    return p


@pytest.fixture(scope="module")
def core_runs(ns_binary, tmp_path_factory):
    base = tmp_path_factory.mktemp("core_log")
    plain = core_log_params()
    del plain["monitors"]["core_log"]
    return {
        "core": run_ok(ns_binary, core_log_params(), base / "core"),
        "plain": run_ok(ns_binary, plain, base / "plain"),
        "no_trace": run_ok(ns_binary, core_log_params(packet_trace=False), base / "no_trace"),
    }


def test_core_log_files_and_headers(core_runs):
    d = core_runs["core"]
    for name, header in CORE_FILES.items():
        assert (d / name).read_text().splitlines()[0] == header, name
    bins = read_bins(d)
    assert {ev for ev, _, _ in bins} == {"arrival", "departure", "drop"}
    assert {b for _, b, _ in bins} == {0, 1, 2, 3, 4}
    assert {fid for _, _, fid in bins} == {1, 2, 3, 4}
    rows = [(r["event"], float(r["bin"]), int(r["fid"])) for r in read_tsv(d / "core_bins.tsv")]
    assert [ev for ev, _, _ in rows] == sorted((ev for ev, _, _ in rows), key=["arrival", "departure", "drop"].index)
    for event in ("arrival", "departure", "drop"):  # per event, sorted by bin then fid
        keys = [(b, fid) for ev, b, fid in rows if ev == event]
        assert keys == sorted(keys)


def test_without_core_log_there_are_no_core_files(core_runs):
    assert not any((core_runs["plain"] / name).exists() for name in CORE_FILES)


def test_core_log_changes_no_other_output(core_runs):
    for name in ("packets.tr", "queue_monitor.tsv", "flows.tsv", "meta.json"):
        assert (core_runs["core"] / name).read_bytes() == (core_runs["plain"] / name).read_bytes(), name


def test_core_log_without_packet_trace_is_the_same(core_runs):
    assert not (core_runs["no_trace"] / "packets.tr").exists()
    for name in CORE_FILES:
        assert (core_runs["core"] / name).read_bytes() == (core_runs["no_trace"] / name).read_bytes(), name


def test_core_bins_agree_with_the_queue_monitor_and_trace(core_runs):
    d = core_runs["core"]
    bins = read_bins(d)
    last = [r for r in read_tsv(d / "queue_monitor.tsv") if r["link"] == "core0"][-1]
    assert last["time"] == "5.000000"
    qm = {k: int(v) for k, v in last.items() if k not in ("time", "link")}
    assert totals(bins, "arrival") == (qm["arrivals_packets"], qm["arrivals_bytes"])
    assert totals(bins, "drop") == (qm["drops_packets"], qm["drops_bytes"])
    assert qm["drops_packets"] > 50
    # The QueueMonitor counts a departure when the queue releases the packet, the core_log
    # at the far end of the link: the difference is what is still on the wire at the end,
    # at most 10 ms * 10 Mb/s / (500 * 8 bit) = 25 packets in propagation + 1 in transmission.
    events = trace(d)
    on_wire = len(on_link(events, 0, 1, "-")) - len(on_link(events, 0, 1, "r"))
    departed = totals(bins, "departure")
    assert departed[0] == qm["departures_packets"] - on_wire
    assert 0 < on_wire <= 26 and qm["departures_bytes"] - departed[1] <= 26 * 540
    # per bin and fid: arrivals are core0's '+' lines, departures its 'r' lines, drops its 'd' lines
    for event, kind in (("arrival", "+"), ("departure", "r"), ("drop", "d")):
        expected = defaultdict(lambda: [0, 0])
        for _, t, _, _, _, size, fid, _ in on_link(events, 0, 1, kind):
            expected[(event, math.floor(t), fid)][0] += 1
            expected[(event, math.floor(t), fid)][1] += size
        assert {k: list(v[:2]) for k, v in bins.items() if k[0] == event} == dict(expected), event


def test_core_bins_hints(core_runs):
    bins = read_bins(core_runs["core"])
    for (_, _, fid), (packets, size, hint_sum, hinted) in bins.items():
        if fid == 4:  # UDP: no hint
            assert (hint_sum, hinted) == (0.0, 0) and size == 500 * packets
        else:  # every TCP data packet (and SYN) carries cwnd_ >= 1
            assert hinted == packets and hint_sum >= packets


def test_core_drops_are_the_drop_rows(core_runs):
    d = core_runs["core"]
    drops = read_tsv(d / "core_drops.tsv")
    bins = read_bins(d)
    assert len(drops) == totals(bins, "drop")[0] > 50
    per_fid = Counter(int(r["fid"]) for r in drops)
    assert per_fid == {fid: totals(bins, "drop", fid)[0] for fid in (1, 2, 3, 4) if totals(bins, "drop", fid)[0]}
    traced = on_link(trace(d), 0, 1, "d")
    assert [int(r["fid"]) for r in drops] == [e[6] for e in traced]
    assert all(abs(float(r["time"]) - e[1]) <= 5e-7 + 1e-12 for r, e in zip(drops, traced, strict=True))
    # DropTail in packets: an arrival that finds limit_ - 1 packets waiting is dropped
    assert {int(r["qlen"]) for r in drops} == {LIMIT - 1}
    for r in drops:
        if r["fid"] == "4":
            assert (r["size"], float(r["hint"])) == ("500", 0.0)
        else:
            assert r["size"] in ("540", "40") and float(r["hint"]) >= 1


def test_core_delays_of_the_first_flow_of_each_group(core_runs):
    d = core_runs["core"]
    delays = read_tsv(d / "core_delays.tsv")
    # groups ftp (fids 1-3) and pareto (fid 4): only TCP data is logged (UDP agents overwrite
    # hdr_cmn's timestamp), so the pareto group's first flow has no rows
    assert {int(r["fid"]) for r in delays} == {1}
    tcp = [r for r in delays if r["fid"] == "1"]
    received = [e for e in on_link(trace(d), 0, 1, "r") if e[6] == 1]
    assert [int(r["seqno"]) for r in tcp] == [e[7] for e in received]
    # a 40-byte SYN and a 540-byte segment through empty queues: transmission on the access
    # link (100 Mb/s) and on core0 (10 Mb/s) plus 1 ms + 10 ms of propagation
    syn = 40 * 8 / EDGE_BW + EDGE_DELAY + 40 * 8 / 10e6 + CORE_DELAY
    seg = 540 * 8 / EDGE_BW + EDGE_DELAY + 540 * 8 / 10e6 + CORE_DELAY
    assert (syn, seg) == (pytest.approx(0.0110352), pytest.approx(0.0114752))
    assert (tcp[0]["seqno"], float(tcp[0]["delay"])) == ("0", pytest.approx(syn, abs=1e-9))
    assert (tcp[1]["seqno"], float(tcp[1]["delay"])) == ("1", pytest.approx(seg, abs=1e-9))
    assert min(float(r["delay"]) for r in tcp[1:]) >= seg - 1e-9
    # at most 19 packets waiting and one in transmission on core0, and the rest of a
    # window of 50 ahead of it on the access link
    assert max(float(r["delay"]) for r in tcp) <= seg + LIMIT * 540 * 8 / 10e6 + 50 * 540 * 8 / EDGE_BW + 1e-9


def test_core_delays_skip_udp_flows(core_runs):
    """A UDP packet's hdr_cmn timestamp is an RTP sample count (apps/udp.cc): not logged."""
    assert not [r for r in read_tsv(core_runs["core"] / "core_delays.tsv") if r["fid"] == "4"]


def test_core_log_prints_nothing(ns_binary, tmp_path):
    result = run(ns_binary, params([flow(1, TCP)], duration=0.5), tmp_path / "run")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


# ---- core_reverse_queue and reverse flows ----
# Forward: FTP fid 1 (group fwd). Reverse, C1 -> C0: FTP fid 2 (group rev) and a 400 kb/s
# CBR fid 3 (group cbr) of 500-byte packets. Core link 2 Mb/s, core_queue DropTail 1000.


def reverse_params(reverse_queue: dict | None) -> dict:
    flows = [
        flow(1, TCP, group="fwd"),
        flow(2, TCP, group="rev", enter=1, leave=0),
        flow(3, CBR, group="cbr", enter=1, leave=0),
    ]
    extra = {} if reverse_queue is None else {"core_reverse_queue": reverse_queue}
    return params(flows, core_bw="2Mb", limit=1000, **extra)


@pytest.fixture(scope="module")
def reverse_runs(ns_binary, tmp_path_factory):
    base = tmp_path_factory.mktemp("reverse")
    small = {"class": "Queue/DropTail", "knobs": {"limit_": 4}}
    red = {"class": "Queue/RED", "knobs": {"thresh_": 2, "maxthresh_": 6, "limit_": 8}}
    return {
        "same": run_ok(ns_binary, reverse_params(None), base / "same"),
        "small": run_ok(ns_binary, reverse_params(small), base / "small"),
        "red": run_ok(ns_binary, reverse_params(red), base / "red"),
    }


def cbr_lost_on_reverse_link(d: Path) -> int:
    """CBR packets dropped by the C1 -> C0 queue (that link is not traced): those that reached
    C1 (from their source, node 6) but never left C0 towards their sink (node 7) while a later
    one did (the queue is FIFO). The trace shows the CBR's RTP seqno."""
    events = trace(d)
    arrived = {e[7] for e in on_link(events, 6, 1, "r") if e[6] == 3}
    left = {e[7] for e in on_link(events, 0, 7, "+")}
    assert left <= arrived
    return len({s for s in arrived - left if s < max(left)})


def last_flow_row(d: Path, fid: str) -> dict:
    return [r for r in read_tsv(d / "flows.tsv") if r["fid"] == fid][-1]


def cbr_sojourn_on_reverse_link(d: Path) -> float:
    """The longest time a CBR packet took from C1 (its 'r' from node 6) to C0 (its '+' towards
    node 7): waiting in the C1 -> C0 queue, 2 ms of transmission, 10 ms of propagation."""
    events = trace(d)
    arrived = {e[7]: e[1] for e in on_link(events, 6, 1, "r") if e[6] == 3}
    return max(e[1] - arrived[e[7]] for e in on_link(events, 0, 7, "+"))


def test_reverse_queue_gets_core_reverse_queue(reverse_runs):
    # C1 -> C0 is not a traced link; its queue shows in what the reverse flows go through.
    same, small, red = (reverse_runs[k] for k in ("same", "small", "red"))
    # By default C1 -> C0 is a DropTail of limit_ 1000, like core_queue: no loss, and the
    # reverse FTP's window of up to 50 packets waits in it.
    assert cbr_lost_on_reverse_link(same) == 0
    assert last_flow_row(same, "2")["retransmits"] == "0"
    assert cbr_sojourn_on_reverse_link(same) > 0.030
    # limit_ 4: a CBR packet finds at most 3 packets waiting and one in transmission, each
    # at most 540 bytes at 2 Mb/s (2.16 ms)
    assert cbr_sojourn_on_reverse_link(small) <= 4 * 540 * 8 / 2e6 + 500 * 8 / 2e6 + CORE_DELAY + 1e-6
    assert cbr_lost_on_reverse_link(small) > 0
    assert int(last_flow_row(small, "2")["retransmits"]) > 5
    assert int(last_flow_row(small, "2")["delivered_bytes"]) < int(last_flow_row(same, "2")["delivered_bytes"]) / 4
    # Queue/RED (thresh_ is no DropTail knob, so the spec's class is the one built): early
    # drops keep its queue at limit_ 8 or less
    assert cbr_sojourn_on_reverse_link(red) <= 8 * 540 * 8 / 2e6 + 500 * 8 / 2e6 + CORE_DELAY + 1e-6
    assert int(last_flow_row(red, "2")["retransmits"]) > 5


def test_forward_queue_keeps_core_queue(reverse_runs):
    for name, d in reverse_runs.items():
        meta = json.loads((d / "meta.json").read_text())
        assert meta["knobs"]["core_queue"]["class"] == "Queue/DropTail", name
        assert meta["knobs"]["core_queue"]["values"]["limit_"] == "1000", name
        core0 = [r for r in read_tsv(d / "queue_monitor.tsv") if r["link"] == "core0"]
        assert max(int(r["size_packets"]) for r in core0) > 8, name  # more than any reverse limit_
        assert core0[-1]["drops_packets"] == "0", name


def test_reverse_flows_send_against_the_data_direction(reverse_runs):
    d = reverse_runs["same"]
    meta = json.loads((d / "meta.json").read_text())
    links = {link["name"]: (link["from"], link["to"]) for link in meta["links"]}
    assert (links["entry2"], links["exit2"], links["entry3"], links["exit3"]) == ((4, 1), (0, 5), (6, 1), (0, 7))
    events = trace(d)
    core0 = [e for e in events if (e[2], e[3]) == (0, 1)]
    assert not [e for e in core0 if e[6] == 3], "the reverse CBR never crosses C0 -> C1"
    assert {(e[4], e[5]) for e in core0 if e[6] == 2} == {("ack", 40)}, "only the reverse FTP's ACKs do"
    bins = read_bins(d)
    assert not [k for k in bins if k[2] == 3]
    rev = {k: v for k, v in bins.items() if k[2] == 2}
    assert rev and all(
        size == 40 * packets and (hint_sum, hinted) == (0.0, 0) for packets, size, hint_sum, hinted in rev.values()
    )
    # both deliver: the CBR's 500 packets of 5 s reach its sink (but those still queued
    # behind the reverse FTP's window of 50 at the end), the FTP's data its sink
    assert len([e for e in on_link(events, 0, 7, "r") if e[6] == 3]) >= 500 - 50
    assert int(last_flow_row(d, "2")["delivered_bytes"]) > 500_000
    assert len([e for e in on_link(events, 0, 5, "r") if e[4] == "tcp"]) > 1000
    # core_delays logs TCP data leaving core0 of each group's first flow: the forward FTP's;
    # not the reverse FTP's ACKs (no hint) nor the CBR
    delays = read_tsv(d / "core_delays.tsv")
    assert {r["fid"] for r in delays} == {"1"}


# ---- http flows: one agent/sink pair per flow, reset before every object ----
# fid 1: objects of 100-1000 bytes (one 1000-byte segment); fid 2: 8000-30000 bytes.
# windowInit_ 1, idle 0.5 s, 10 s; nothing else on the 10 Mb/s core link.

HTTP_TEMPLATE = {
    "kind": "http",
    "agent": {"class": "Agent/TCP/Newreno", "knobs": {"packetSize_": 1000, "windowInit_": 1}},
    "sink": {"class": "Agent/TCPSink", "knobs": {}},
}
TINY = {"mean_bytes": 500, "shape": 1.5, "min_bytes": 100, "max_bytes": 1000, "bound": "resample", "idle": 0.5}
BIG = {"mean_bytes": 20000, "shape": 1.5, "min_bytes": 8000, "max_bytes": 30000, "bound": "resample", "idle": 0.5}


@pytest.fixture(scope="module")
def http_run(ns_binary, tmp_path_factory):
    flows = [
        {"fid": 1, "start": 0.1, "group": "tiny", **copy.deepcopy(HTTP_TEMPLATE), "http": TINY},
        {"fid": 2, "start": 0.2, "group": "big", **copy.deepcopy(HTTP_TEMPLATE), "http": BIG},
    ]
    return run_ok(ns_binary, params(flows, duration=10.0, limit=100), tmp_path_factory.mktemp("http") / "run")


def objects(d: Path, fid: str) -> list[dict]:
    return [r for r in read_tsv(d / "objects.tsv") if r["fid"] == fid]


@pytest.mark.parametrize(("fid", "http", "start"), [("1", TINY, 0.1), ("2", BIG, 0.2)])
def test_http_objects_numbered_spaced_and_bounded(fid, http, start, http_run):
    mine = objects(http_run, fid)
    assert len(mine) > 10
    assert [int(o["object"]) for o in mine] == list(range(1, len(mine) + 1))
    assert float(mine[0]["start"]) == pytest.approx(start, abs=1e-9)
    assert all(http["min_bytes"] <= int(o["bytes"]) <= http["max_bytes"] for o in mine)
    assert all(o["end"] != "nan" for o in mine[:-1])
    for before, after in zip(mine, mine[1:], strict=False):  # both times printed with 6 decimals
        assert float(after["start"]) >= float(before["end"]) + 0.5 - 1e-6
        assert float(after["start"]) == pytest.approx(float(before["end"]) + 0.5, abs=1.01e-6)


def test_http_one_segment_objects_are_new_connections(http_run):
    """Each object is a new incarnation: a SYN (40 bytes, cwnd_ 1) and, one SYN round trip
    later, its single segment (1040 bytes) with cwnd_ 1 again (windowInit_ 1): hint 1 every
    time, never the window the previous object ended with. Every object takes the SYN's round
    trip plus the segment's."""
    syn_rtt = 2 * (2 * (40 * 8 / EDGE_BW + EDGE_DELAY) + 40 * 8 / 10e6 + CORE_DELAY)
    seg_rtt = (1040 * 8 / EDGE_BW + EDGE_DELAY) * 2 + 1040 * 8 / 10e6 + CORE_DELAY
    seg_rtt += (40 * 8 / EDGE_BW + EDGE_DELAY) * 2 + 40 * 8 / 10e6 + CORE_DELAY
    assert (syn_rtt, seg_rtt) == (pytest.approx(0.0240768), pytest.approx(0.0250368))
    mine = objects(http_run, "1")
    for o in mine[:-1]:
        assert float(o["end"]) - float(o["start"]) == pytest.approx(syn_rtt + seg_rtt, abs=1.01e-6), o
    # core0 arrivals of fid 1, bin by bin, from the objects' start times
    expected = defaultdict(lambda: [0, 0, 0.0, 0])
    for o in mine:
        start = float(o["start"])
        for t, size in (
            (start + 40 * 8 / EDGE_BW + EDGE_DELAY, 40),
            (start + syn_rtt + 1040 * 8 / EDGE_BW + EDGE_DELAY, 1040),
        ):
            if t < 10.0:
                e = expected[("arrival", math.floor(t), 1)]
                e[0] += 1
                e[1] += size
                e[2] += 1.0
                e[3] += 1
    got = {k: list(v) for k, v in read_bins(http_run).items() if k[0] == "arrival" and k[2] == 1}
    assert got == dict(expected)


def test_http_objects_restart_slow_start(http_run):
    """fid 2's objects of the same number of segments take the same time, whenever they
    start: every object begins with a SYN (seqno 0) and cwnd_ 1 and sends segments
    1..ceil(bytes / 1000)."""
    mine = objects(http_run, "2")
    by_segments = defaultdict(list)
    for o in mine[:-1]:
        by_segments[math.ceil(int(o["bytes"]) / 1000)].append(float(o["end"]) - float(o["start"]))
    repeated = {n: d for n, d in by_segments.items() if len(d) >= 2}
    assert sum(len(d) for d in repeated.values()) >= 5
    for n, durations in repeated.items():
        assert max(durations) - min(durations) <= 2.01e-6, (n, durations)
    sent = [e for e in trace(http_run) if (e[0], e[2], e[3], e[4], e[6]) == ("+", 0, 1, "tcp", 2)]
    for o in mine[:-1]:
        start, end = float(o["start"]), float(o["end"])
        seqnos = sorted({e[7] for e in sent if start <= e[1] <= end})
        assert seqnos == list(range(math.ceil(int(o["bytes"]) / 1000) + 1)), o
        assert [e[5] for e in sent if start <= e[1] <= end and e[7] == 0] == [40]


# ---- bad input: one line on stderr, exit 3, no outputs ----

BAD = [
    (
        ["monitors", "core_log"],
        {},
        "monitors.core_log.interval: missing required field; known: required fields of monitors.core_log: interval",
    ),
    (["monitors", "core_log", "interval"], 0, 'monitors.core_log.interval: bad value "0"; known: a number > 0'),
    (["monitors", "core_log", "interval"], -1, 'monitors.core_log.interval: bad value "-1"; known: a number > 0'),
    (["monitors", "core_log", "interval"], "1s", 'monitors.core_log.interval: bad value "1s"; known: a number > 0'),
    (["monitors", "core_log", "bins"], 10, "monitors.core_log.bins: unknown field; known: interval"),
    (["monitors", "core_log"], True, "monitors.core_log: not a JSON object; known: an object with fields interval"),
    (
        ["flows", 0, "leave"],
        0,
        "flows[0]: enters at core router 0 and leaves at 0; known: enter != leave, both in 0..1 "
        "(the core routers; enter > leave for a reverse flow)",
    ),
    (
        ["flows", 0, "leave"],
        2,
        "flows[0]: enters at core router 0 and leaves at 2; known: enter != leave, both in 0..1 "
        "(the core routers; enter > leave for a reverse flow)",
    ),
    (
        ["core_reverse_queue"],
        {"class": "Queue/DropTail", "knobs": {"thresh_": 5}},
        "core_reverse_queue.knobs.thresh_: unknown knob of Queue/DropTail; "
        "known: debug_, limit_, blocked_, util_weight_, drop_front_ (the 5 closest of 11)",
    ),
    (
        ["core_reverse_queue"],
        {"class": "Queue/REDD", "knobs": {}},
        'core_reverse_queue.class: unknown class "Queue/REDD" (must be a subclass of Queue); '
        "known: Queue/RED, Queue/LRED, Queue/RED/PD, Queue/REM, Queue/dsRED (the 5 closest of 34)",
    ),
]


@pytest.mark.parametrize(("path", "value", "line"), BAD, ids=[".".join(map(str, p)) + f"={v}" for p, v, _ in BAD])
def test_bad_parameter(path, value, line, ns_binary, tmp_path):
    p = params([flow(1, TCP), flow(2, {**HTTP_TEMPLATE, "start": 0.0}, http=TINY)], duration=1.0)
    target = p
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    for name in OUTPUTS:  # outputs of an earlier run must not survive either
        (run_dir / name).write_text("stale")
    result = run(ns_binary, p, run_dir)
    assert result.returncode == 3
    assert result.stderr == f"ns2-repro: {line}\n"
    assert result.stdout == ""
    assert sorted(x.name for x in run_dir.iterdir()) == ["params.json"]
