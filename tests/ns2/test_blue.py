"""Queue/BLUE (patch 0015): Alemu's thesis Ch. 1 Algorithm 2 and Ch. 4 §4.3.

p is rebuilt from the queue's own trace (+ - d at the bottleneck: the loss and idle events)
and compared with the p_ the queue reports: after hand-built arrivals (overflow, a second
loss inside freeze_time, idle periods) and every 10 ms of a small TCP run on the Ch. 4
bottleneck (1.5 Mb/s, 35 packets), for each reading of the link-idle event.
"""

from __future__ import annotations

import bisect

import pytest
from aqm_common import DUMBBELL, Event, arrivals, handbuilt, run, samples_tsv, tcl_list, trace

D1, D2, FREEZE = 0.0025, 0.00025, 0.241
TX = 8 * 1000 / 1e6  # a 1000-byte packet on the hand-built 1 Mb/s link
TRACE_EPS = 2e-6  # ns-2 rounds trace times to 1 us


def blue_replay(
    rows: list[Event], limit: int, bw: float, d1=D1, d2=D2, freeze=FREEZE, L=0, idle_event=0, p=0.0, last_update=0.0
):
    """[(time, p)] after every update Algorithm 2 makes on these events, and the arrivals it
    says overflow (uids)."""
    history = [(0.0, p)]
    overflow = set()
    state = {"p": p, "last": last_update}

    def update(t: float, up: bool) -> None:
        if t - state["last"] > freeze:
            state["p"] = min(1.0, state["p"] + d1) if up else max(0.0, state["p"] - d2)
            state["last"] = t
            history.append((t, state["p"]))

    q = 0
    busy_until = None  # idle_event 1: when the link's transmission ends, if no '-' follows at once
    dropped = {r.uid for r in rows if r.kind == "d"}
    for r in rows:
        if busy_until is not None and r.time > busy_until + TRACE_EPS:
            if idle_event == 1 and q == 0:
                update(busy_until, False)
            busy_until = None
        if r.kind == "+":
            link_idle = busy_until is None
            if idle_event == 2 and q == 0 and link_idle:
                update(r.time, False)
            if q >= limit:
                update(r.time, True)
                overflow.add(r.uid)
            elif L > 0 and q > L:
                update(r.time, True)
            if idle_event == 1 and r.uid in dropped and q == 0 and link_idle:
                update(r.time, False)  # Queue::recv asks the idle link's queue for a packet: none
            q += 1
        elif r.kind == "d":
            q -= 1
        else:
            q -= 1
            busy_until = r.time + 8 * r.size / bw
            if idle_event == 0 and q == 0:
                update(r.time, False)
    if idle_event == 1 and busy_until is not None and q == 0:
        update(busy_until, False)
    return history, overflow


def p_at(history: list[tuple[float, float]], t: float) -> float:
    return history[bisect.bisect_right([h[0] for h in history], t) - 1][1]


def near(times: list[float], t: float) -> bool:
    i = bisect.bisect_left(times, t - TRACE_EPS)
    return i < len(times) and times[i] <= t + TRACE_EPS


def every(start: float, stop: float, step: float) -> list[float]:
    return [start + i * step for i in range(round((stop - start) / step))]


# Packets every 4 ms from 1.0 s to 2.0 s into a 1 Mb/s link (one every 8 ms) with limit_ 3:
# the queue is full from 1.024 s and every other arrival overflows; then one packet at a time.
LOAD = [(t, "send", 1) for t in every(1.0, 2.0, 0.004)] + [(t, "send", 1) for t in (2.5, 2.6, 3.0)]
SAMPLES = [1.2, 1.3, 1.45, 1.6, 1.75, 2.2, 2.55, 2.65, 3.05]


def run_load(ns_binary, tmp_path, knobs: dict):
    events = sorted(LOAD + [(t, "sample", "p_") for t in SAMPLES], key=lambda e: e[0])
    samples, rows = handbuilt(ns_binary, tmp_path, "BLUE", {"limit_": 3, **knobs}, events, seed=3)
    return {t: samples[(t, "p_")] for t in SAMPLES}, rows


def test_hand_built_loss_and_idle_events(ns_binary, tmp_path):
    """Default knobs: the link-idle event is a departure that empties the queue."""
    p, rows = run_load(ns_binary, tmp_path, {})
    # 1.0 s: the first packet finds the link idle and leaves the queue empty at once: an idle
    # event (p stays 0, clamped) that sets last_update to 1.0, so overflows change nothing
    # until 1.241 s.
    assert p[1.2] == 0.0
    assert p[1.3] == D1  # the first overflow after 1.241 s (1.248 s)
    assert p[1.45] == D1  # a second loss (and more) within freeze_time of it: unchanged
    assert p[1.6] == D1 + D1  # the first overflow after 1.489 s
    assert p[1.75] == D1 + D1 + D1
    # 1.992 s: a fourth increase; the queue runs empty about 2.02 s, within freeze_time: no change
    assert p[2.2] == D1 + D1 + D1 + D1
    assert p[2.55] == p[2.2] - D2  # 2.5 s: a lone packet through the idle link: idle event
    assert p[2.65] == p[2.55]  # 2.6 s: another, within freeze_time of 2.5 s
    assert p[3.05] == p[2.55] - D2  # 3.0 s
    history, overflow = blue_replay(rows, 3, 1e6)
    assert [p_at(history, t) for t in SAMPLES] == [p[t] for t in SAMPLES]
    found = {a.uid: (q, dropped) for a, q, dropped in arrivals(rows)}
    assert overflow and all(found[u] == (3, True) for u in overflow)


@pytest.mark.parametrize("idle_event", [1, 2])
def test_hand_built_other_idle_readings(ns_binary, tmp_path, idle_event):
    p, rows = run_load(ns_binary, tmp_path, {"idle_event_": idle_event})
    history, _ = blue_replay(rows, 3, 1e6, idle_event=idle_event)
    assert [p_at(history, t) for t in SAMPLES] == [p[t] for t in SAMPLES]
    if idle_event == 1:
        # no idle event at 1.0 s (the link stays busy): the first overflow, 1.024 s, counts
        assert p[1.2] == D1
        # the link goes idle at 2.024 s, 0.256 s after the last increase (1.768 s): -d2, and
        # again after each lone packet's transmission (2.508, 3.008 s; 2.6 s is frozen)
        assert p[2.2] == 4 * D1 - D2 or p[2.2] == D1 + D1 + D1 + D1 - D2
        assert p[2.65] == p[2.2] - D2 and p[3.05] == p[2.65] - D2
    else:
        # the arrival at 1.0 s finds the link idle: as reading 0 up to 2.2 s
        assert p[1.2] == 0.0 and p[1.3] == D1 and p[2.2] == D1 + D1 + D1 + D1
        assert p[2.55] == p[2.2] - D2 and p[2.65] == p[2.55] and p[3.05] == p[2.55] - D2


def test_freeze_time_and_threshold_knobs(ns_binary, tmp_path):
    """freeze_time_ 0.01 (not on the 4 ms grid, so no two events tie at its edge in the printed trace):
    many more overflows count; L_ 1: arrivals finding 2 queued packets raise p too."""
    p, rows = run_load(ns_binary, tmp_path / "short", {"freeze_time_": 0.01})
    history, overflow = blue_replay(rows, 3, 1e6, freeze=0.01)
    assert [p_at(history, t) for t in SAMPLES] == [p[t] for t in SAMPLES]
    assert p[1.3] > 10 * D1
    p2, rows2 = run_load(ns_binary, tmp_path / "L", {"L_": 1, "freeze_time_": 0.01})
    history2, _ = blue_replay(rows2, 3, 1e6, L=1, freeze=0.01)
    assert [p_at(history2, t) for t in SAMPLES] == [p2[t] for t in SAMPLES]
    without_L, _ = blue_replay(rows2, 3, 1e6, freeze=0.01)
    assert [p_at(without_L, t) for t in SAMPLES] != [p2[t] for t in SAMPLES]


def test_knob_defaults(ns_binary, tmp_path):
    samples, _ = handbuilt(
        ns_binary,
        tmp_path,
        "BLUE",
        {},
        [(0.5, "sample", "d1_", "d2_", "freeze_time_", "L_", "p_init_", "p_", "idle_event_", "last_update_")],
    )
    got = {var: v for (_, var), v in samples.items()}
    assert got == {
        "d1_": 0.0025,
        "d2_": 0.00025,
        "freeze_time_": 0.241,
        "L_": 0,
        "p_init_": 0,
        "p_": 0,
        "idle_event_": 0,
        "last_update_": 0,
    }


def test_p_init_drops_arrivals_at_that_rate(ns_binary, tmp_path):
    """d1_ = d2_ = 0 freezes p at p_init_ 0.2: arrivals into a fast link are dropped at that rate."""
    events = [(1.0 + i * 0.001, "send", 1) for i in range(4000)] + [(5.5, "sample", "p_")]
    samples, rows = handbuilt(
        ns_binary, tmp_path, "BLUE", {"limit_": 100, "d1_": 0, "d2_": 0, "p_init_": 0.2}, events, bw="100Mb"
    )
    assert samples[(5.5, "p_")] == 0.2
    found = arrivals(rows)
    assert len(found) == 4000 and all(q == 0 for _, q, _ in found)
    share = sum(d for _, _, d in found) / len(found)
    assert abs(share - 0.2) < 3 * (0.2 * 0.8 / 4000) ** 0.5


def test_blue_with_p_zero_is_droptail_one_larger(ns_binary, tmp_path):
    """A BLUE whose p stays 0 draws nothing and holds limit_ packets: DropTail with limit_ + 1, byte for byte."""
    traces = {}
    for queue, limit in (("BLUE", 35), ("DropTail", 36)):
        knobs = tcl_list({"limit_": limit, **({"d1_": 0} if queue == "BLUE" else {})})
        proc = run(ns_binary, DUMBBELL, [queue, 8, 20.0, knobs], tmp_path / queue)
        assert proc.returncode == 0, proc.stderr[-800:]
        traces[queue] = (tmp_path / queue / "out.tr").read_bytes()
    assert traces["BLUE"] == traces["DropTail"]
    assert b"\nd " in traces["BLUE"]


@pytest.fixture(scope="module", params=[0, 1, 2], ids=lambda e: f"idle_event_{e}")
def tcp_run(request, ns_binary, tmp_path_factory):
    out = tmp_path_factory.mktemp("blue") / f"idle{request.param}"
    knobs = {"idle_event_": request.param}
    proc = run(ns_binary, DUMBBELL, ["BLUE", 3, 40.0, tcl_list(knobs), "p_"], out)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr[-800:]
    return request.param, out


def test_p_follows_algorithm_2_in_a_tcp_run(tcp_run):
    """Every 10 ms of 3 NewReno flows on the Ch. 4 bottleneck, p_ is what Algorithm 2 makes of the trace's
    overflow and idle events; random drops happen only while p > 0."""
    idle_event, out = tcp_run
    rows = trace(out / "out.tr")
    history, overflow = blue_replay(rows, 35, 1.5e6, idle_event=idle_event)
    samples = samples_tsv(out / "samples.tsv")["p_"]
    assert len(samples) > 3800
    update_times = [h[0] for h in history]
    samples = [(t, v) for t, v in samples if not near(update_times, t)]  # on which side, the trace cannot say
    mismatched = [(t, v, p_at(history, t)) for t, v in samples if v != p_at(history, t)]
    assert not mismatched, mismatched[:5]
    ups = sum(1 for (_, a), (_, b) in zip(history, history[1:], strict=False) if b > a)
    downs = sum(1 for (_, a), (_, b) in zip(history, history[1:], strict=False) if b < a)
    assert ups >= 5 and downs >= 1, (ups, downs)
    random_drops = [a for a, q, dropped in arrivals(rows) if dropped and a.uid not in overflow]
    assert random_drops and all(p_at(history, a.time - 1e-12) > 0 for a in random_drops)


def test_debian_ns_has_no_blue(debian_ns, tmp_path):
    proc = run(debian_ns, DUMBBELL, ["BLUE", 2, 1.0], tmp_path)
    assert proc.returncode != 0
    assert "BLUE" in proc.stderr + proc.stdout
