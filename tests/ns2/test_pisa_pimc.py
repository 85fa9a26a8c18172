"""PISA and PIMC (patches 0004-0006): the TCP cwnd source hint, Queue/PI/PISA, Queue/PI/PIMC.

Thesis §3.2 (PISA, Figs 3.1-3.3) and §3.3 (PIMC, Fig 3.4). Every scenario is
scripts/pisa_pimc_dumbbell.tcl: six NewReno flows (fids 0-5) and a 200 kb/s CBR flow
(fid 9) over a 2 Mb/s bottleneck r1 -> r2 (200-packet buffer, qref_ 20), 30 s; fids 0-2
have maxcwnd_ 4, so their hint stays <= 7, fids 3-5 are not capped (window_ 60). ACKs
come back over an 80 kb/s link with an 8-packet buffer of the same queue class (qref_ 2);
the runs "PISA64"/"PIMC64" make that link 64 kb/s, so that ACKs are dropped too. With
PISA or PIMC both queues write a drop log (`$q drop-log $chan`):
time fid seqno size hint kind prob p_pi cwnd_avg qlen.
"""

from __future__ import annotations

import bisect
import csv
import math
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "pisa_pimc_dumbbell.tcl"
SMALL, LARGE, CBR = {0, 1, 2}, {3, 4, 5}, 9
R1, R2 = 0, 1  # node ids of the bottleneck routers
LIMIT, QREF, A, B, W = 200, 20, 0.00001822, 0.00001816, 170
MINCWND = 7
STOP = 30.0
CWND_ULP = 0.0005  # cwnd.tr prints cwnd_ with three decimals


def run(binary: Path, workdir: Path, *args) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [str(binary), str(SCRIPT), *map(str, args)], cwd=workdir, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stderr == "", proc.stderr[-800:]
    return workdir


def drop_log(path: Path) -> list[dict]:
    with path.open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for r in rows:
        for k in ("time", "hint", "prob", "p_pi", "cwnd_avg"):
            r[k] = float(r[k])
        for k in ("fid", "seqno", "size", "qlen"):
            r[k] = int(r[k])
    return rows


def packets(path: Path) -> list[tuple]:
    """(event, time, from, to, type, fid, seqno) of every trace-all line."""
    out = []
    for line in path.read_text().splitlines():
        f = line.split()
        out.append((f[0], float(f[1]), int(f[2]), int(f[3]), f[4], int(f[7]), int(f[10])))
    return out


@pytest.fixture(scope="module")
def runs(ns_binary, tmp_path_factory):
    base = tmp_path_factory.mktemp("pisa_pimc")
    out = {q: run(ns_binary, base / q, q) for q in ("PI", "PISA", "PIMC")}
    for q in ("PISA", "PIMC"):
        out[q + "64"] = run(ns_binary, base / (q + "64"), q, STOP, 4, "default", 7, "64kb")
    return out


# --- knobs ------------------------------------------------------------------


def test_knob_defaults(ns_binary, tmp_path):
    script = tmp_path / "knobs.tcl"
    script.write_text(
        """
set ns [new Simulator]
puts "PISA.alpha_ [Queue/PI/PISA set alpha_]"
puts "PISA.cwnd_weight_ [Queue/PI/PISA set cwnd_weight_]"
puts "PISA.cwnd_avg_ [Queue/PI/PISA set cwnd_avg_]"
puts "PIMC.mincwnd_ [Queue/PI/PIMC set mincwnd_]"
set s [new Queue/PI/PISA]
set m [new Queue/PI/PIMC]
puts "s.alpha_ [$s set alpha_]"
puts "s.a_ [$s set a_]"
puts "s.w_ [$s set w_]"
puts "m.mincwnd_ [$m set mincwnd_]"
puts "m.qref_ [$m set qref_]"
$s set alpha_ 0.5
puts "s.alpha_set [$s set alpha_]"
"""
    )
    proc = subprocess.run([str(ns_binary), str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # a bound variable without an ns-default.tcl default warns here
    assert dict(line.split() for line in proc.stdout.splitlines()) == {
        "PISA.alpha_": "3",
        "PISA.cwnd_weight_": "0.02",
        "PISA.cwnd_avg_": "0",
        "PIMC.mincwnd_": "7",
        "s.alpha_": "3",
        "s.a_": "1.8219999999999998e-05",  # a double bound from 0.00001822
        "s.w_": "170",
        "m.mincwnd_": "7",
        "m.qref_": "50",
        "s.alpha_set": "0.5",
    }


def test_stock_pi_run_is_debians(ns_binary, debian_ns, tmp_path):
    """The script's PI mode (its no-argument default) is stock ns-2: identical to Debian's ns."""
    ours = run(ns_binary, tmp_path / "ours", "PI")
    ref = run(debian_ns, tmp_path / "ref", "PI")
    for name in ("packets.tr", "prob.tr", "cwnd.tr"):
        assert (ours / name).read_bytes() == (ref / name).read_bytes(), name


# --- the drop log ------------------------------------------------------------


@pytest.mark.parametrize("queue", ["PISA", "PIMC", "PISA64", "PIMC64"])
def test_drop_log_matches_packet_trace(queue, runs):
    """One log line per drop the packet trace shows at the queue, on both directions."""
    d = runs[queue]
    trace = packets(d / "packets.tr")
    for logname, (src, dst) in (("drops.log", (R1, R2)), ("ackdrops.log", (R2, R1))):
        log = drop_log(d / logname)
        traced = [(t, fid, seq) for (ev, t, a, b, _, fid, seq) in trace if ev == "d" and (a, b) == (src, dst)]
        assert len(log) == len(traced), (logname, len(log), len(traced))
        assert len(log) > 20 or (logname == "ackdrops.log" and not queue.endswith("64"))
        assert [r["fid"] for r in log] == [fid for (_, fid, _) in traced]
        # the trace prints hdr_tcp's seqno for TCP packets only (CBR shows its RTP seqno)
        assert all(r["seqno"] == seq for r, (_, fid, seq) in zip(log, traced, strict=True) if fid != CBR)
        # the packet trace prints times with 6 decimals
        assert all(abs(r["time"] - t) <= 5e-7 + 1e-12 for r, (t, _, _) in zip(log, traced, strict=True))
        kinds = Counter(r["kind"] for r in log)
        assert set(kinds) <= {"early", "forced"}
        for r in log:
            if r["kind"] == "forced":
                assert r["qlen"] >= (LIMIT if logname == "drops.log" else 8) - 1, r
    assert Counter(r["kind"] for r in drop_log(d / "drops.log"))["early"] > 20
    if queue.endswith("64"):
        assert Counter(r["kind"] for r in drop_log(d / "ackdrops.log"))["early"] > 0


# --- (a) the hint ------------------------------------------------------------


def cwnd_history(path: Path) -> dict[int, tuple[list[float], list[float]]]:
    """Per sender address: (times, cwnd_ values) from cwnd.tr."""
    hist: dict[int, tuple[list, list]] = defaultdict(lambda: ([], []))
    for line in path.read_text().splitlines():
        f = line.split()
        if f[5] == "cwnd_":
            hist[int(f[1])][0].append(float(f[0]))
            hist[int(f[1])][1].append(float(f[6]))
    return hist


@pytest.mark.parametrize("queue", ["PISA", "PIMC"])
def test_hint_is_sender_cwnd_at_send_time(queue, runs):
    d = runs[queue]
    trace = packets(d / "packets.tr")
    hist = cwnd_history(d / "cwnd.tr")
    # Sender node of flow i is node 2 + 2i; its '+' on the access link is the send time.
    sends = defaultdict(list)
    for ev, t, _, b, typ, fid, seq in trace:
        if ev == "+" and b == R1 and typ == "tcp":
            sends[(fid, seq)].append(t)
    log = drop_log(d / "drops.log")
    tcp = [r for r in log if r["fid"] in SMALL | LARGE]
    assert len(tcp) > 20
    fractional = 0
    for r in tcp:
        send = max(t for t in sends[(r["fid"], r["seqno"])] if t <= r["time"])
        times, values = hist[2 + 2 * r["fid"]]
        cwnd = values[bisect.bisect_right(times, send + 5e-6) - 1]  # cwnd.tr rounds time to 5 decimals
        assert abs(r["hint"] - cwnd) <= CWND_ULP + 1e-9, (r, send, cwnd)
        fractional += r["hint"] != int(r["hint"])
        if r["fid"] in SMALL:  # maxcwnd_ 4 caps int(cwnd_): cwnd_ < 5
            assert 0 < r["hint"] < 5
    assert fractional > 0, "no fractional hint: the hint must be cwnd_ as a double"
    # packets no TCP sender stamped (CBR) carry 0, TCPSink's ACKs carry -1
    cbr = [r for r in log if r["fid"] == CBR]
    assert cbr and all(r["hint"] == 0 for r in cbr)
    acks = drop_log(runs[queue + "64"] / "ackdrops.log")
    assert len(acks) > 20 and all(r["hint"] == -1 and r["fid"] in SMALL | LARGE for r in acks)


# --- (b) PIMC -----------------------------------------------------------------


def test_pimc_never_early_drops_small_hints(runs):
    log = drop_log(runs["PIMC"] / "drops.log")
    small = [r for r in log if 0 < r["hint"] <= MINCWND]
    large_early = [r for r in log if r["hint"] > MINCWND and r["kind"] == "early"]
    assert not [r for r in small if r["kind"] == "early"]
    assert all(r["prob"] == -1 for r in small)  # exempt: logged probability -1
    assert len(large_early) > 20
    # PIMC's probability is PI's own P, for hinted and hint-less arrivals alike
    for r in log:
        if not 0 < r["hint"] <= MINCWND:
            assert r["prob"] == r["p_pi"], r
    # The capped flows are early-dropped under plain PI in the same scenario.
    pi = packets(runs["PI"] / "packets.tr")
    assert any(ev == "d" and (a, b) == (R1, R2) and fid in SMALL for ev, _, a, b, _, fid, _ in pi)


def test_pimc_ack_drops_get_pi_probability(runs):
    acks = drop_log(runs["PIMC64"] / "ackdrops.log")
    assert len(acks) > 20
    assert all(r["prob"] == r["p_pi"] and r["cwnd_avg"] == -1 for r in acks)


# --- (c) PISA -----------------------------------------------------------------


def test_pisa_probability_formula(runs):
    log = drop_log(runs["PISA"] / "drops.log")
    hinted = [r for r in log if r["hint"] > 0]
    assert len(hinted) > 20
    for r in hinted:
        expected = min(1.0, 3 * r["p_pi"] * r["hint"] / r["cwnd_avg"])
        assert math.isclose(r["prob"], expected, rel_tol=1e-12, abs_tol=1e-15), r
    # hint-less arrivals (CBR; ACKs on the reverse queue) get plain P and leave the average alone
    acks = drop_log(runs["PISA64"] / "ackdrops.log")
    assert len(acks) > 20
    for r in [r for r in log if r["hint"] <= 0] + acks:
        assert r["prob"] == r["p_pi"], r
    # the average of hints (cwnd_ >= 1, never far above window_ 60) is in that range
    assert all(1 <= r["cwnd_avg"] <= 100 for r in hinted)
    # Psa differs from P (it is not P in disguise)
    assert any(abs(r["prob"] - r["p_pi"]) > 1e-6 for r in hinted)


def drop_rate(d: Path, fids: set[int]) -> float:
    """Dropped / arrived packets of these flows at r1 -> r2, from the packet trace."""
    trace = packets(d / "packets.tr")
    link = [(ev, fid) for ev, _, a, b, _, fid, _ in trace if (a, b) == (R1, R2) and fid in fids]
    return sum(ev == "d" for ev, _ in link) / sum(ev == "+" for ev, _ in link)


def test_pisa_drops_large_hints_more(runs):
    """Under PI the capped and uncapped flows lose the same share of packets; under PISA
    the uncapped ones (larger hints) lose a larger share."""
    pi_small, pi_large = drop_rate(runs["PI"], SMALL), drop_rate(runs["PI"], LARGE)
    small, large = drop_rate(runs["PISA"], SMALL), drop_rate(runs["PISA"], LARGE)
    assert 0.7 < pi_large / pi_small < 1.4, (pi_small, pi_large)
    assert large / small > 1.5 and large / small > 1.4 * pi_large / pi_small, (small, large)
    log = drop_log(runs["PISA"] / "drops.log")
    assert all(r["kind"] == "early" for r in log if r["fid"] in SMALL | LARGE)
    p_small = [r["prob"] for r in log if r["fid"] in SMALL]
    p_large = [r["prob"] for r in log if r["fid"] in LARGE]
    assert sum(p_large) / len(p_large) > 1.5 * sum(p_small) / len(p_small)


# --- (d) PI's own probability is untouched ---------------------------------------


def prob_trace(d: Path) -> dict[int, float]:
    """PI's prob_ trace as {timer tick k: P}: prob_ is written every 1/w_ s, traced on change.

    prob.tr prints times with %g (six digits): each record is matched to its tick k/w_.
    """
    ticks = {}
    for line in (d / "prob.tr").read_text().splitlines():
        _, t, v = line.split()
        t = float(t)
        k = round(t * W)
        slack = 0.5 * 10 ** (math.floor(math.log10(t)) - 5) * W + 1e-6  # %g rounding
        assert abs(t * W - k) <= slack, f"prob_ changed off PI's timer at t = {t}"
        ticks[k] = float(v)
    return ticks


def p_at_tick(ticks: dict[int, float], sorted_ticks: list[int], k: int) -> float:
    j = bisect.bisect_right(sorted_ticks, k) - 1
    return ticks[sorted_ticks[j]] if j >= 0 else 0.0


@pytest.mark.parametrize("queue", ["PI", "PISA", "PIMC"])
def test_pi_probability_follows_queue_only(queue, runs):
    """prob_ changes only on PI's 1/w_ timer, and equals PI's recursion on the queue length.

    The queue length at each tick k/w_ comes from the packet trace (+ minus - minus d on
    r1 -> r2); P_k = clamp(a (q_k - qref) - b (q_{k-1} - qref) + P_{k-1}, 0, 1). Were
    Psa written back into PI's state, the recursion would not hold.
    """
    d = runs[queue]
    ticks = prob_trace(d)
    order = sorted(ticks)
    assert len(order) > 100
    events = sorted((t, ev) for ev, t, a, b, *_ in packets(d / "packets.tr") if (a, b) == (R1, R2))
    stop = STOP
    q, i, p, qold, checked, positive = 0, 0, 0.0, 0, 0, 0
    for k in range(1, int(stop * W) - 1):
        tick = k / W
        while i < len(events) and events[i][0] < tick - 1e-9:
            q += {"+": 1, "-": -1, "d": -1}.get(events[i][1], 0)
            i += 1
        p = min(1.0, max(0.0, A * (q - QREF) - B * (qold - QREF) + p))
        qold = q
        traced = p_at_tick(ticks, order, k)
        assert math.isclose(traced, p, rel_tol=1e-5, abs_tol=1e-9), (queue, tick, q, traced, p)
        checked += 1
        positive += p > 0
    assert checked > 3000 and positive > 1000
    # the drop log's P is the traced prob_ of the moment
    if queue != "PI":
        for r in drop_log(d / "drops.log"):
            k = math.floor(r["time"] * W + 1e-9)
            assert math.isclose(r["p_pi"], p_at_tick(ticks, order, k), rel_tol=1e-5, abs_tol=1e-9), r
