"""Queue/LRED (patch 0016): Alemu's thesis Ch. 1 §1.2.2.5, Eqs. 1.24-1.25, Algorithm 12, Ch. 4 §4.3.

The per-period arrival and drop counts are rebuilt from the bottleneck's trace (not from the
queue's own log), l(k) and lbar from those counts in Python, and each arrival's probability
from lbar and the queue length the trace shows it found.
"""

from __future__ import annotations

import bisect
import csv
import math

import pytest
from aqm_common import DUMBBELL, arrivals, handbuilt, run, samples_tsv, tcl_list, trace

BETA, TARGET, M, MP, MW = 0.021, 10.0, 4, 0.05, 0.9
TRACE_EPS = 2e-6  # ns-2 rounds trace times to 1 us


def eq_1_24(lbar: float, q: int, beta: float = BETA, target: float = TARGET) -> float:
    return min(1.0, max(0.0, lbar + beta * math.sqrt(lbar) * (q - target)))


def rebuild_lbar(counts: list[tuple[int, int]], m: int = M, mw: float = MW, lbar: float = 0.0):
    """[(l(k), lbar)] per period from its (arrivals, drops): Eq. 1.25 over the last m periods, then the EWMA."""
    out = []
    for k in range(len(counts)):
        window = counts[max(0, k - m + 1) : k + 1]
        na, nd = sum(a for a, _ in window), sum(d for _, d in window)
        lk = nd / na if na > 0 else 0.0
        lbar = lbar * mw + (1.0 - mw) * lk
        out.append((lk, lbar))
    return out


@pytest.fixture
def p_per_arrival(ns_binary, tmp_path):
    knobs = {"limit_": 30, "mw_": 1, "lbar_init_": 0.25, "beta_": 1}
    events = []
    for i in range(60):
        t = 1.0 + i * 1e-4  # 60 arrivals within 6 ms: the 1 Mb/s link sends only the first
        events += [(t, "send", 1), (t, "sample", "p_")]
    samples, rows = handbuilt(ns_binary, tmp_path, "LRED", knobs, events)
    return [samples[(e[0], "p_")] for e in events if e[1] == "sample"], arrivals(rows)


def test_probability_is_eq_1_24_clamped(p_per_arrival):
    """mw_ 1 holds lbar at lbar_init_ 0.25; with beta_ 1, Eq. 1.24 is 0.25 + 0.5 (q - 10): 0 below 9.5
    packets, 0.25 at the target, 1 from 11.5 on: each arrival's p_ is Eq. 1.24 on the queue it found."""
    ps, found = p_per_arrival
    assert len(ps) == len(found) == 60
    assert ps == [eq_1_24(0.25, q, beta=1.0) for _, q, _ in found]
    assert 0.0 in ps and 1.0 in ps and any(0 < p < 1 for p in ps)
    assert [q for _, q, _ in found][:3] == [0, 0, 1]  # the first goes straight to the link
    # p = 0: never dropped (the buffer is not full); p = 1: always dropped
    assert all(not d for (_, q, d), p in zip(found, ps, strict=True) if p == 0.0)
    assert all(d for (_, q, d), p in zip(found, ps, strict=True) if p == 1.0)


def test_knob_defaults(ns_binary, tmp_path):
    names = ["beta_", "ktarget_", "M_", "mp_", "mw_", "lbar_init_", "lbar_", "p_"]
    samples, _ = handbuilt(ns_binary, tmp_path, "LRED", {}, [(0.5, "sample", *names)])
    expected = {"beta_": 0.021, "ktarget_": 10, "M_": 4, "mp_": 0.05, "mw_": 0.9, "lbar_init_": 0, "lbar_": 0, "p_": 0}
    assert {var: v for (_, var), v in samples.items()} == expected


@pytest.fixture(
    scope="module",
    params=[(8, {}), (3, {"beta_": 0.151}), (20, {"M_": 2, "mp_": 0.02, "mw_": 0.5})],
    ids=["8flows", "3flows-beta0.151", "20flows-M2"],
)
def tcp_run(request, ns_binary, tmp_path_factory):
    flows, knobs = request.param
    out = tmp_path_factory.mktemp("lred") / "run"
    proc = run(ns_binary, DUMBBELL, ["LRED", flows, 20.0, tcl_list(knobs), "p_ lbar_"], out)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr[-800:]
    with (out / "periods.tsv").open() as f:
        periods = list(csv.DictReader(f, delimiter="\t"))
    params = {"beta": BETA, "M": M, "mp": MP, "mw": MW}
    params.update({k.rstrip("_").replace("beta", "beta"): v for k, v in knobs.items()})
    return out, periods, params


def test_period_counts_and_lbar_follow_eq_1_25(tcp_run):
    """Each period's arrivals and drops, counted from the trace, are the queue's N_a and N_d; l(k) and lbar
    follow from them. ns-2 rounds trace times to 1 us: an event that close to a period's end may belong to
    either period, so there only the two periods' sum is compared."""
    out, periods, params = tcp_run
    rows = trace(out / "out.tr")
    ends = [float(p["time"]) for p in periods]
    assert ends[0] == params["mp"] and len(ends) >= int(20.0 / params["mp"]) - 1
    counts = [[0, 0] for _ in ends]
    ambiguous = set()
    for r in rows:
        k = bisect.bisect_left(ends, r.time)  # period k covers (ends[k-1], ends[k]]
        for j in (k - 1, k):
            if 0 <= j < len(ends) and abs(r.time - ends[j]) <= TRACE_EPS:
                ambiguous.add(j)
        if k < len(ends) and r.kind in "+d":
            counts[k][0 if r.kind == "+" else 1] += 1
    logged = [(int(p["arrivals"]), int(p["drops"])) for p in periods]
    for k, (c, lg) in enumerate(zip(counts, logged, strict=True)):
        if k in ambiguous or k - 1 in ambiguous:
            continue
        assert tuple(c) == lg, k
    for k in ambiguous:
        if k + 1 < len(ends):
            assert counts[k][0] + counts[k + 1][0] == logged[k][0] + logged[k + 1][0]
            assert counts[k][1] + counts[k + 1][1] == logged[k][1] + logged[k + 1][1]
    assert len(ambiguous) < len(ends) / 20
    expected = rebuild_lbar(logged, m=int(params["M"]), mw=float(params["mw"]))
    assert [(float(p["lk"]), float(p["lbar"])) for p in periods] == expected
    assert max(lbar for _, lbar in expected) > 0.001


def test_each_arrival_uses_eq_1_24(tcp_run):
    """p_ sampled every 10 ms is Eq. 1.24 for the last arrival before the sample, with the lbar of the last
    period that had ended and the queue length the trace shows that arrival found."""
    out, periods, params = tcp_run
    ends = [float(p["time"]) for p in periods]
    lbars = [0.0] + [float(p["lbar"]) for p in periods]
    found = arrivals(trace(out / "out.tr"))
    times = [a.time for a, _, _ in found]
    checked = 0
    for t, value in samples_tsv(out / "samples.tsv")["p_"]:
        i = bisect.bisect_right(times, t) - 1
        if i < 0:
            continue
        if abs(times[i] - t) <= TRACE_EPS or (i + 1 < len(times) and abs(times[i + 1] - t) <= TRACE_EPS):
            continue  # ns-2 rounds trace times to 1 us: which side of the sample, the trace cannot say
        a, q, _ = found[i]
        if any(abs(a.time - e) <= TRACE_EPS for e in ends[max(0, bisect.bisect_left(ends, a.time) - 1) :][:2]):
            continue  # the same at a period's end
        lbar = lbars[bisect.bisect_left(ends, a.time)]
        assert value == eq_1_24(lbar, q, beta=float(params["beta"])), (t, q, lbar)
        checked += 1
    assert checked > 1900


def test_debian_ns_has_no_lred(debian_ns, tmp_path):
    proc = run(debian_ns, DUMBBELL, ["LRED", 2, 1.0], tmp_path)
    assert proc.returncode != 0
    assert "LRED" in proc.stderr + proc.stdout
