"""Biased Queue Management (patches 0009-0012): header, queue, sender and receiver.

Li's thesis §3.1 (pattern), §3.2-3.4 (discriminator, measure), §3.5 (Table 3.1), §3.6
(Modified BQM), §4.1 (queue, permanent dead packets). Each check recomputes what the C++
should have done from evidence it does not write itself: the queue's victims from the
packet trace (levels from sequence numbers and earlier sends), the receiver's holes from
the packets the trace shows arriving at the sink, the sender's window from Table 3.1.

Scenarios: scripts/bqm_dumbbell.tcl: n flows over a 1 Mb/s bottleneck with a 10-packet
buffer, or (mode diagnose) hand-built loss sets and the sender's levels, no simulation.
"""

from __future__ import annotations

import csv
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).parent / "scripts"
DUMBBELL = SCRIPTS / "bqm_dumbbell.tcl"
PATTERN8 = [0, 3, 2, 3, 1, 3, 2, 3]
PATTERN16 = [0, 3, 3, 3, 2, 3, 3, 3, 1, 3, 3, 3, 2, 3, 3, 3]
BETA = [7 / 8, 3 / 4, 1 / 2, 1 / 4]  # Table 3.1
ALPHA = [1 / 8, 1 / 4, 1 / 2, 1.0]
LIMIT = 10  # the bottleneck's queue-limit
R1, R2 = 0, 1  # bottleneck node ids
CONGESTION, WIRELESS = 1, 2
MESSAGE_LEVEL = 9  # a routing packet's place in the victim order: never chosen while a data packet is queued
MESSAGE_EVERY = 0.05  # seconds between the priqueue run's messages (routing packets for PriQueue)


def ns(binary: Path, script: Path, *args, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(binary), str(script), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def dumbbell(
    binary: Path,
    out: Path,
    sender="BQM",
    sink="BQM",
    queue="BQM",
    flows=4,
    stop=20.0,
    loss=0,
    pattern="default",
    modified="false",
    messages=0,
) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    proc = ns(binary, DUMBBELL, sender, sink, queue, flows, stop, loss, pattern, modified, out, messages)
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stderr == "", proc.stderr[-800:]
    return out


def trace(out: Path) -> list[list[str]]:
    return [line.split() for line in (out / "out.tr").read_text().splitlines()]


def tsv(path: Path) -> list[dict]:
    with path.open() as f:
        return list(csv.DictReader(f, delimiter="\t"))


def expected_victims(rows: list[list[str]], pattern: list[int], raise_per_send: int = 1):
    """(dropped uid, the uid BQM should have dropped, queue length) for every drop at r1 -> r2.

    A packet's level is its sequence number's in the pattern, raised one level per earlier
    send of that sequence number (§4.1), capped at 3; sends are the '+' events on the
    source's access link. The queue holds what entered r1 -> r2 and has not left it yet
    ('-' or 'd'); at a drop, the arrival is its newest entry. Messages (PriQueue's routing
    packets) are in the queue but never victims.
    """
    sources = {}  # fid -> source node: the first node a flow's data leaves from
    sends = defaultdict(int)
    level = {}
    queue: list[str] = []
    out = []
    for f in rows:
        event, frm, to, ptype, fid, seq, uid = f[0], int(f[2]), int(f[3]), f[4], f[7], int(f[10]), f[11]
        if ptype == "message":
            level[uid] = MESSAGE_LEVEL
        elif ptype != "tcp":
            continue
        else:
            sources.setdefault(fid, int(f[8].split(".")[0]))
        if ptype == "tcp" and event == "+" and frm == sources[fid]:
            level[uid] = min(3, pattern[seq % len(pattern)] + raise_per_send * sends[(fid, seq)])
            sends[(fid, seq)] += 1
        if (frm, to) != (R1, R2):
            continue
        if event == "+":
            queue.append(uid)
        elif event in "-d":
            if event == "d":
                lowest = min(level[u] for u in queue)
                first = next(u for u in queue if level[u] == lowest)
                out.append((uid, first, len(queue), level[uid]))
            queue.remove(uid)
    return out


# --- the queue ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bqm_run(ns_binary, tmp_path_factory):
    return dumbbell(ns_binary, tmp_path_factory.mktemp("bqm") / "run")


@pytest.fixture(scope="module")
def priqueue_run(ns_binary, tmp_path_factory):
    """The interface-queue variant (ad hoc runs) on the same wired bottleneck, with routing packets (messages)
    arriving at its head now and then."""
    return dumbbell(ns_binary, tmp_path_factory.mktemp("bqm") / "pri", queue="PriQueueBQM", messages=MESSAGE_EVERY)


def routing_pushouts(rows: list[list[str]]) -> list[str]:
    """uids of the packets dropped at r1 -> r2 right after a message entered it: the victims a routing packet's
    arrival at a full PriQueue chose (its high_priority_victim())."""
    link = [f for f in rows if (int(f[2]), int(f[3])) == (R1, R2)]
    return [
        f[11]
        for prev, f in zip(link, link[1:], strict=False)
        if f[0] == "d" and prev[0] == "+" and prev[4] == "message" and f[4] == "tcp"
    ]


def test_a_routing_arrival_pushes_out_the_lowest_level(priqueue_run, ns_binary, tmp_path):
    """A message (a routing packet to PriQueue) joins the head of a full queue and pushes out the first packet of
    the lowest level, not the tail as stock PriQueue does; the check of those victims fails on stock PriQueue."""
    rows = trace(priqueue_run)
    pushed = set(routing_pushouts(rows))
    assert len(pushed) >= 5, "routing packets must meet a full queue often enough to test the rule"
    checked = [(d, e) for d, e, _, _ in expected_victims(rows, PATTERN8) if d in pushed]
    assert len(checked) == len(pushed) and all(d == e for d, e in checked), checked
    stock = trace(dumbbell(ns_binary, tmp_path / "stock", queue="PriQueue", messages=MESSAGE_EVERY))
    tail = set(routing_pushouts(stock))
    wrong = [d for d, e, _, _ in expected_victims(stock, PATTERN8) if d in tail and d != e]
    assert tail and len(wrong) > len(tail) / 4, "stock PriQueue drops the tail: the check above must object"


@pytest.mark.parametrize("which", ["bqm_run", "priqueue_run"])
def test_overflow_drops_the_lowest_level_oldest_first(which, request):
    drops = expected_victims(trace(request.getfixturevalue(which)), PATTERN8)
    assert len(drops) > 50, "the scenario must overflow the buffer often"
    wrong = [(d, e) for d, e, _, _ in drops if d != e]
    assert not wrong, f"{len(wrong)} of {len(drops)} drops were not the first packet of the lowest level: {wrong[:5]}"
    assert all(n == LIMIT for _, _, n, _ in drops), "BQM drops only when DropTail would (limit - 1 queued + arrival)"
    # Push-outs happened (the victim was queued, not the arrival), and low levels went first.
    by_level = defaultdict(int)
    for _, _, _, lvl in drops:
        by_level[lvl] += 1
    assert by_level[0] > by_level[3], by_level


def test_the_victim_check_can_fail_on_droptail(ns_binary, tmp_path):
    """The same senders through plain DropTail: the arrival goes, so the check above must object."""
    out = dumbbell(ns_binary, tmp_path / "dt", queue="DropTail")
    drops = expected_victims(trace(out), PATTERN8)
    assert drops and sum(d != e for d, e, _, _ in drops) > len(drops) / 4


@pytest.mark.parametrize("stock, bqm_queue", [("DropTail", "BQM"), ("PriQueue", "PriQueueBQM")])
def test_unmarked_traffic_sees_the_stock_queue(ns_binary, tmp_path, stock, bqm_queue):
    """Stock NewReno and TCPSink mark nothing: each BQM queue is then its stock queue, byte for byte."""
    dt = dumbbell(ns_binary, tmp_path / "dt", sender="Newreno", sink="TCPSink", queue=stock)
    bqm = dumbbell(ns_binary, tmp_path / "bqm", sender="Newreno", sink="TCPSink", queue=bqm_queue)
    text = (dt / "out.tr").read_text()
    assert " d " in text.replace("\nd ", " d "), "the scenario must drop packets"
    assert (bqm / "out.tr").read_text() == text


def test_debian_ns_has_no_bqm(debian_ns, tmp_path):
    proc = ns(debian_ns, DUMBBELL, "BQM", "BQM", "BQM", 4, 20.0, 0, "default", "false", tmp_path)
    assert proc.returncode != 0
    assert "BQM" in proc.stderr or "BQM" in proc.stdout


# --- the sender's pattern ------------------------------------------------------------------


def diagnose(binary: Path, knobs: dict, sets: list[list[int]]) -> tuple[list[int], dict]:
    knob_list = " ".join(f"{k} {{{v}}}" for k, v in knobs.items())
    set_list = " ".join("{" + " ".join(map(str, s)) + "}" for s in sets)
    proc = ns(binary, DUMBBELL, "diagnose", knob_list, set_list)
    assert proc.returncode == 0, proc.stderr[-800:]
    prios, results = [], {}
    for line in proc.stdout.splitlines():
        words = line.split()
        if words[0] == "prio":
            prios.append(int(words[2]))
        else:
            results[words[1]] = tuple(int(w) for w in words[3:])
    return prios, results


@pytest.mark.parametrize(
    "knobs, levels",
    [
        ({}, PATTERN8 * 4),
        ({"pattern_": " ".join(map(str, PATTERN16))}, PATTERN16 * 2),
        ({"pattern_offset_": 1}, (PATTERN8 * 5)[7:39]),  # (i - 1) mod 8: seq 1 gets level 0
    ],
)
def test_sender_levels_follow_the_pattern(ns_binary, knobs, levels):
    prios, _ = diagnose(ns_binary, knobs, [])
    assert prios == levels


def test_pattern_8_counts_match_table_3_1():
    """Table 3.1's overloads W/8, W/4, W/2, W: one level-0 and one level-1 packet per 8, two 2s, four 3s."""
    assert [PATTERN8.count(lvl) for lvl in range(4)] == [1, 1, 2, 4]
    assert all(abs(a - b) >= 1 for a, b in zip(PATTERN8, PATTERN8[1:] + PATTERN8[:1], strict=False))


def test_a_malformed_pattern_is_refused(ns_binary):
    proc = ns(ns_binary, DUMBBELL, "diagnose", "pattern_ {0 3 9}", "")
    assert proc.returncode != 0
    assert "pattern_ '0 3 9'" in proc.stderr and "0..3" in proc.stderr


# --- the receiver's diagnosis of hand-built loss sets ----------------------------------------

# (loss set, knobs) -> (ltype, measure, x, r, burst); levels from pattern 8 unless told.
HAND_BUILT = [
    ([8], {}, (CONGESTION, 0, 1, 1, 1)),  # one level-0 loss: F = 1 - 8 < 0
    ([8, 12], {}, (CONGESTION, 1, 1, 2, 1)),  # levels 0 and 1
    ([5], {}, (WIRELESS, -1, 0, 1, 1)),  # one level-3 loss: F = 1 > 0
    ([8, 13], {}, (CONGESTION, 3, 1, 2, 1)),  # a "jump": BQM reports its highest level
    ([8, 13], {"modified_": "true"}, (CONGESTION, 0, 1, 2, 1)),  # Modified: the level before the gap
    ([8, 12, 14, 21], {"modified_": "true"}, (CONGESTION, 3, 1, 4, 1)),  # levels 0-3 all lost: no gap
    ([8, 12, 13], {"modified_": "true"}, (CONGESTION, 1, 1, 3, 2)),  # 0, 1, 3: the gap at 2
    ([9, 10, 11], {}, (CONGESTION, 3, 0, 3, 3)),  # burst rule: three consecutive losses
    ([9, 10, 11], {"modified_": "true"}, (CONGESTION, 0, 0, 3, 3)),  # no level 0 lost: measure 0
    ([9, 10, 11], {"modified_": "true", "modified_nop0_": "true"}, (CONGESTION, 3, 0, 3, 3)),
    ([9, 10, 11], {"burst_": 0}, (WIRELESS, -1, 0, 3, 3)),  # rule off: x = 0 is wireless
    ([0, 1, 3, 5, 7, 9, 11, 13], {}, (WIRELESS, -1, 1, 8, 2)),  # x/r = 1/8 = 1/k: F = 0
    ([0, 8, 3, 5, 11, 13, 15, 17, 19], {}, (CONGESTION, 3, 2, 9, 1)),  # x/r = 2/9 > 1/8
    ([0, 8, 3, 5, 11, 13, 15, 17, 19], {"f_floor_": "true"}, (WIRELESS, -1, 2, 9, 1)),  # floor(16/9) = 1
    ([0, 1, 3, 5], {}, (CONGESTION, 3, 1, 4, 2)),  # k = 8: 8 x > r
    ([0, 1, 3, 5], {"k_": 4}, (WIRELESS, -1, 1, 4, 2)),  # k = 4: 4 x = r
]


@pytest.mark.parametrize("lost, knobs, expected", HAND_BUILT, ids=[f"{c[0]}-{c[1]}" for c in HAND_BUILT])
def test_receiver_diagnosis(ns_binary, lost, knobs, expected):
    _, results = diagnose(ns_binary, knobs, [lost])
    assert results[",".join(map(str, lost))] == expected


def test_pattern_16_diagnosis(ns_binary):
    """Pattern 16's k is 16: one level-0 loss among 16 is the random share."""
    knobs = {"pattern_": " ".join(map(str, PATTERN16))}
    one_in_16 = [16, 1, 3, 5, 7, 9, 11, 13, 19, 21, 23, 25, 27, 29, 31, 33]  # no three in a row
    _, results = diagnose(ns_binary, knobs, [[16, 20], one_in_16, one_in_16[:-1]])
    assert results["16,20"] == (CONGESTION, 2, 1, 2, 1)
    assert results[",".join(map(str, one_in_16))] == (WIRELESS, -1, 1, 16, 1)
    assert results[",".join(map(str, one_in_16[:-1]))] == (CONGESTION, 3, 1, 15, 1)


# --- the receiver's holes and the sender's response in a run ---------------------------------


def arrivals(rows: list[list[str]], flows: int) -> dict[int, list[tuple[float, int]]]:
    """(time, seqno) of every data packet the trace shows reaching flow i's sink node."""
    sink_node = {}
    got = defaultdict(list)
    for f in rows:
        if f[0] == "r" and f[4] == "tcp":
            fid = int(f[7])
            node = int(f[9].split(".")[0])
            sink_node.setdefault(fid, node)
            if int(f[3]) == node:
                got[fid].append((float(f[1]), int(f[10])))
    assert len(got) == flows
    return got


def holes_at(received: list[tuple[float, int]], t: float) -> tuple[int, list[int]]:
    seen = {s for time, s in received if time <= t}
    nxt = 0
    while nxt in seen:
        nxt += 1
    return nxt - 1, [s for s in range(nxt, max(seen) + 1) if s not in seen]


@pytest.fixture(scope="module")
def lossy_run(ns_binary, tmp_path_factory):
    """Congestion at the bottleneck and 1 % random loss after it."""
    return dumbbell(ns_binary, tmp_path_factory.mktemp("bqm") / "lossy", loss=0.01, stop=30.0)


@pytest.mark.parametrize("which", ["bqm_run", "lossy_run"])
def test_receiver_reports_the_holes_the_trace_shows(which, request):
    out = request.getfixturevalue(which)
    got = arrivals(trace(out), 4)
    checked = 0
    for fid in range(4):
        for row in tsv(out / f"sink{fid}.tsv"):
            ack, lost = holes_at(got[fid], float(row["time"]))
            assert int(row["ack"]) == ack
            assert [int(s) for s in row["lost"].split(",")] == lost, row
            levels = [PATTERN8[s % 8] for s in lost]
            assert int(row["x"]) == levels.count(0) and int(row["r"]) == len(lost)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("which", ["bqm_run", "lossy_run"])
def test_sender_window_follows_table_3_1(which, request):
    out = request.getfixturevalue(which)
    kinds = defaultdict(int)
    for fid in range(4):
        sink_rows = defaultdict(list)  # ack -> the sink's diagnoses in order (every dupack has holes)
        for row in tsv(out / f"sink{fid}.tsv"):
            sink_rows[int(row["ack"])].append((int(row["ltype"]), int(row["measure"])))
        for row in tsv(out / f"sender{fid}.tsv"):
            ltype, m, window = int(row["ltype"]), int(row["measure"]), float(row["window"])
            # the third dupack triggered the response: the sink's third diagnosis of that ack
            assert sink_rows[int(row["seqno"]) - 1][2] == (ltype, m), row
            cwnd, ssthresh = float(row["cwnd"]), int(row["ssthresh"])
            if ltype == CONGESTION:
                assert cwnd == pytest.approx(max(1.0, BETA[m] * window), rel=1e-12)
                assert ssthresh == max(2, int(BETA[m] * window))
                assert float(row["increase"]) == ALPHA[m]
                kinds[f"level {m}"] += 1
            else:
                assert ltype == WIRELESS, row
                assert cwnd == pytest.approx(max(1.0, window - 1), rel=1e-12)
                assert ssthresh == max(2, int(window - 1))
                kinds["wireless"] += 1
    assert kinds["level 0"] > 0, kinds
    if which == "lossy_run":
        assert kinds["wireless"] > 0, kinds


def test_modified_measure_never_exceeds_bqms(ns_binary, tmp_path):
    out = dumbbell(ns_binary, tmp_path / "mod", loss=0.01, stop=30.0, modified="true")
    for fid in range(4):
        for row in tsv(out / f"sink{fid}.tsv"):
            if int(row["ltype"]) != CONGESTION:
                continue
            levels = {PATTERN8[int(s) % 8] for s in row["lost"].split(",")}
            m = int(row["measure"])
            assert m <= max(levels)
            assert set(range(m + 1)) <= levels or (0 not in levels and m == 0), row
