"""Queue/Vq's alpha as a knob (patch 0017): Alemu's thesis Ch. 1 §1.2.2.2 (Eq. 1.17, Algorithm 9), Ch. 4 §4.3.

The virtual capacity and virtual queue of hand-built arrivals are rebuilt in Python from
stock vq.cc's arithmetic (the same operations in the same order, so the doubles agree
exactly) for alpha 0.15 and 0.251, and for each adapt_dropped_ (what an arrival the virtual queue drops
adapts: 0 nothing, 1 all, 2 the elapsed time's tokens); with the default alpha_ and adapt_dropped_ a Vq run
is byte-identical to Debian's ns.
"""

from __future__ import annotations

import pytest
from aqm_common import DUMBBELL, HANDBUILT, handbuilt, run, tcl_list

BW = 1e6  # the hand-built link, bits/s
SIZE = 1000


def vq_model(
    times: list[float], alpha: float, limit: int, gamma=0.98, ecnlim=0.8, buflim=1.0, mean=1000, adapt_dropped=0
):
    """(ctilde, vq_len, dropped by the virtual queue) after each arrival; queue_in_bytes_ true and drop mode,
    the defaults: vq.cc's Vq::enque and dropPacketForECN, term by term. Stock Vq adapts ctilde only at arrivals
    the virtual queue accepted (the "accepted rate"); adapt_dropped 1 at every arrival, 2 credits a dropped
    arrival with the elapsed time's tokens only."""
    c = BW / 8.0
    ctilde = c * ecnlim
    prev = vqprev = times[0]
    vq = 0.0
    out = []
    for t in times:
        vq = vq - ctilde * (t - vqprev)
        vqprev = t
        if vq < 0.0:
            vq = 0.0
        vq = vq + 1 * SIZE + (1 - 1)
        dropped = vq > buflim * limit * (1 - 1 + 1 * mean)
        if dropped:
            vq = vq - 1 * SIZE - (1.0 - 1)
            if vq < 0.0:
                vq = 0.0
        if adapt_dropped == 2 and dropped:
            ctilde = ctilde + alpha * gamma * c * (t - prev)
            if ctilde > c:
                ctilde = c
            prev = t
        if adapt_dropped == 1 or not dropped:
            ctilde = ctilde + alpha * gamma * c * (t - prev) - alpha * (1.0 - 1) - alpha * 1 * SIZE
            if ctilde > c:
                ctilde = c
            if ctilde < 0.0:
                ctilde = 0.0
            prev = t
        out.append((ctilde, vq, dropped))
    return out


# 2 ms apart for 0.2 s (4 Mb/s into 1 Mb/s: the virtual queue overflows), then 20 ms apart for 1 s
TIMES = [1.0 + i * 0.002 for i in range(100)] + [1.2 + i * 0.02 for i in range(50)]


def sampled(ns_binary, tmp_path, knobs: dict) -> tuple[list[tuple[float, float]], list]:
    events = [e for t in TIMES for e in ((t, "send", 1), (t, "sample", "ctilde_", "vq_len_"))]
    samples, rows = handbuilt(ns_binary, tmp_path, "Vq", {"limit_": 10, **knobs}, events)
    return [(samples[(t, "ctilde_")], samples[(t, "vq_len_")]) for t in TIMES], rows


@pytest.mark.parametrize("alpha", [None, 0.15, 0.251])
def test_virtual_capacity_follows_the_token_bucket(ns_binary, tmp_path, alpha):
    knobs = {} if alpha is None else {"alpha_": alpha}
    got, rows = sampled(ns_binary, tmp_path, knobs)
    model = vq_model(TIMES, 0.15 if alpha is None else alpha, 10)
    assert got == [(c, v) for c, v, _ in model]
    # the virtual queue's drops are the trace's drops (the real 10 000-byte buffer never overflows here)
    dropped_uids = {r.uid for r in rows if r.kind == "d"}
    arrivals = [r for r in rows if r.kind == "+"]
    assert [r.uid in dropped_uids for r in arrivals] == [d for _, _, d in model]
    assert any(d for _, _, d in model) and not all(d for _, _, d in model)
    assert model[0][0] == 0.8 * BW / 8 - (0.15 if alpha is None else alpha) * SIZE  # ecnlim_ C, then -alpha b


@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("alpha", [0.251, 14.9033])
def test_a_dropped_arrival_adapts_as_adapt_dropped_says(ns_binary, tmp_path, alpha, mode):
    got, _ = sampled(ns_binary, tmp_path, {"alpha_": alpha, "adapt_dropped_": mode})
    assert got == [(c, v) for c, v, _ in vq_model(TIMES, alpha, 10, adapt_dropped=mode)]
    assert got != [(c, v) for c, v, _ in vq_model(TIMES, alpha, 10)]  # the arrivals do drop: not stock's values


def test_an_adapt_dropped_outside_0_to_2_stops_the_run(ns_binary, tmp_path):
    proc = run(ns_binary, HANDBUILT, ["Vq", tcl_list({"adapt_dropped_": 3}), "{1.0 send 1}", "1Mb", 1], tmp_path)
    assert proc.returncode != 0 and "Queue/Vq: adapt_dropped_ 3; allowed: 0, 1, 2" in proc.stderr


@pytest.mark.parametrize("mode", [1, 2])
def test_stock_vq_locks_at_large_alpha_and_adapt_dropped_frees_it(ns_binary, tmp_path, mode):
    """AVQ*'s alpha at N = 103 (14.9): the burst drives ctilde to 0; stock Vq then drops every later arrival and
    never adapts again (the link stays idle), while adapt_dropped_ 1 or 2 lets the slow arrivals raise ctilde."""
    stock, _ = sampled(ns_binary, tmp_path / "stock", {"alpha_": 14.9033})
    freed, _ = sampled(ns_binary, tmp_path / "freed", {"alpha_": 14.9033, "adapt_dropped_": mode})
    assert stock == [(c, v) for c, v, _ in vq_model(TIMES, 14.9033, 10)]
    drops = [d for _, _, d in vq_model(TIMES, 14.9033, 10)]
    locked_from = next(i for i in range(len(drops)) if all(drops[i:]))
    assert locked_from < 100  # during the burst, and every later arrival is dropped
    assert all(c == 0.0 for c, _ in stock[locked_from:])
    assert freed[-1][0] > 0.0 and freed[-1][1] < 10 * SIZE


def test_alpha_changes_the_evolution(ns_binary, tmp_path):
    a, _ = sampled(ns_binary, tmp_path / "a", {"alpha_": 0.15})
    b, _ = sampled(ns_binary, tmp_path / "b", {"alpha_": 0.251})
    assert a != b
    # the same first arrival: ctilde = 0.8 C - alpha * 1000
    assert a[0][0] - b[0][0] == pytest.approx((0.251 - 0.15) * SIZE, rel=1e-12)


def test_default_alpha_is_stock(ns_binary, tmp_path):
    variables = ["alpha_", "gamma_", "ecnlim_", "buflim_", "adapt_dropped_"]
    samples, _ = handbuilt(ns_binary, tmp_path, "Vq", {}, [(0.5, "sample", *variables)])
    assert {var: v for (_, var), v in samples.items()} == {
        "alpha_": 0.15,
        "gamma_": 0.98,
        "ecnlim_": 0.8,
        "buflim_": 1.0,
        "adapt_dropped_": 0,
    }


@pytest.mark.parametrize("flows", [3, 8])
def test_default_vq_run_is_byte_identical_to_debian(ns_binary, debian_ns, tmp_path, flows):
    """The Ch. 4 bottleneck with stock Vq (alpha_ untouched): the same trace as Debian's ns; alpha_ 0.15 set
    explicitly changes nothing; alpha_ 0.251 changes the run."""
    out = {}
    runs = [
        ("debian", debian_ns, {}),
        ("ours", ns_binary, {}),
        ("explicit", ns_binary, {"alpha_": 0.15}),
        ("thesis", ns_binary, {"alpha_": 0.251}),
    ]
    for name, binary, knobs in runs:
        proc = run(binary, DUMBBELL, ["Vq", flows, 20.0, tcl_list(knobs)], tmp_path / name)
        assert proc.returncode == 0, proc.stderr[-800:]
        out[name] = (tmp_path / name / "out.tr").read_bytes()
    assert out["ours"] == out["debian"] == out["explicit"]
    assert b"\nd " in out["debian"]
    assert out["thesis"] != out["ours"]


def test_debian_ns_has_no_alpha_knob(debian_ns, tmp_path):
    """In Debian's ns `$q set alpha_ 0.251` only makes an OTcl variable: the run is the default run."""
    traces = []
    for name, knobs in (("default", ""), ("alpha", "alpha_ 0.251")):
        proc = run(debian_ns, DUMBBELL, ["Vq", 3, 10.0, knobs], tmp_path / name)
        assert proc.returncode == 0, proc.stderr[-800:]
        traces.append((tmp_path / name / "out.tr").read_bytes())
    assert traces[0] == traces[1]
