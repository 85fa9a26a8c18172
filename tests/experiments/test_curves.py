"""Koo et al. curves (experiments/measure/curves.py) on hand-built packet sequences, values worked out by hand.

Unless said otherwise the link runs at 8000 bit/s, so a 1000-byte packet takes 1 s to transmit and a
500-byte one 0.5 s; t_out = t_dequeue + transmission time.
"""

import math

import numpy as np
import pandas as pd
import pytest

from experiments.measure.curves import LinkCurves, binned, delay_average, delay_integral, summary

C = 8000.0
NAN = math.nan


def packets(*rows):
    """rows of (t_enqueue, t_dequeue, size, dropped)."""
    return pd.DataFrame(rows, columns=["t_enqueue", "t_dequeue", "size", "dropped"])


def approx(x):
    return pytest.approx(x, rel=1e-12, abs=1e-12)


def test_one_packet_alone():
    # Arrives at 1, transmitted on [1, 2): D(t) = t - 1 there, 0 after; Q = 1000 bytes on [1, 2).
    one = packets((1.0, 1.0, 1000, False))
    curves = LinkCurves(one, C)
    assert curves.delay.value([0.5, 1.0, 1.5, 1.999, 2.0, 3.0]) == approx([0, 0, 0.5, 0.999, 0, 0])
    assert curves.queue.value([0.5, 1.0, 1.5, 2.0]) == approx([0, 1000, 1000, 0])
    # F(t) = (t - 1)^2 / 2 on [1, 2], then 0.5 for good.
    assert delay_integral(one, C)([0.0, 1.0, 1.5, 2.0, 5.0]) == approx([0, 0, 0.125, 0.5, 0.5])
    # D^avg at t = 2 over tau = 2: 0.5 / 2; at t = 3 over tau = 0.5: D = 0 on [2.5, 3].
    assert delay_average(one, C, [2.0, 3.0], 2.0) == approx([0.25, 0.25])
    assert delay_average(one, C, [3.0], 0.5) == approx([0.0])
    # Over [0, 4]: integral of D 0.5, of Q 1000, busy 1 s, max D reached 1 (just before t_out).
    assert summary(one, C, 0.0, 4.0) == {
        "delay_avg_s": approx(0.125),
        "delay_max_s": approx(1.0),
        "queue_bytes_avg": approx(250.0),
        "busy_loss_pct": approx(0.0),
        "busy_fraction": approx(0.25),
    }


# p1 arrives at 0, out at 1; p2 arrives at 0.5 while p1 transmits, dequeued at 1, out at 2.
BACK_TO_BACK = packets((0.0, 0.0, 1000, False), (0.5, 1.0, 1000, False))


def test_back_to_back_head_of_line_switches():
    curves = LinkCurves(BACK_TO_BACK, C)
    # D = t on [0, 1) (p1 at the head), t - 0.5 on [1, 2) (p2): jumps down from 1 to 0.5 at t = 1.
    assert curves.delay.value([0.5, 0.999, 1.0, 1.5, 1.999, 2.0]) == approx([0.5, 0.999, 0.5, 1.0, 1.499, 0])
    # F: 0.5^2/2 = 0.125 at 0.5; 0.5 at 1; + (1^2 - 0.5^2)/2 = 0.375 at 1.5; + (1.5^2 - 0.5^2)/2 = 1 at 2.
    F = delay_integral(BACK_TO_BACK, C)
    assert F([0.5, 1.0, 1.5, 2.0, 3.0]) == approx([0.125, 0.5, 0.875, 1.5, 1.5])
    # tau spanning both: (F(2) - F(0)) / 2 = 0.75; (F(2.5) - F(0.5)) / 2 = 1.375 / 2.
    assert delay_average(BACK_TO_BACK, C, [2.0, 2.5], 2.0) == approx([0.75, 0.6875])
    # Q: 1000 on [0, .5), 2000 on [.5, 1), 1000 on [1, 2): integral 500 + 1000 + 1000 = 2500.
    assert curves.queue.value([0.25, 0.75, 1.0, 1.5, 2.0]) == approx([1000, 2000, 1000, 1000, 0])
    result = summary(BACK_TO_BACK, C, 0.0, 2.0)
    assert result["queue_bytes_avg"] == approx(1250.0)
    assert result["delay_max_s"] == approx(1.5)
    assert result["busy_fraction"] == approx(1.0)


def test_idle_gap_makes_two_busy_periods():
    # p1 on [0, 1); idle [1, 3); p2 (500 B) on [3, 3.5).
    gap = packets((0.0, 0.0, 1000, False), (3.0, 3.0, 500, False))
    curves = LinkCurves(gap, C)
    assert curves.delay.value([1.0, 2.0, 2.999, 3.25]) == approx([0, 0, 0, 0.25])
    assert curves.busy.value([0.5, 2.0, 3.25, 3.5]) == approx([1, 0, 1, 0])
    assert delay_integral(gap, C)([2.0, 3.0, 3.5]) == approx([0.5, 0.5, 0.625])
    result = summary(gap, C, 0.0, 4.0)
    assert result["busy_fraction"] == approx(1.5 / 4)
    assert result["delay_avg_s"] == approx(0.625 / 4)
    assert result["delay_max_s"] == approx(1.0)


# Busy period 1 = [0, 2): p1 (0 -> out 1), a 1000 B drop at 0.25, p2 (0.5 -> out 2).
#   P = 0 on [0, .25), 1000/2000 on [.25, .5), 1000/3000 on [.5, 2): integral 0.125 + 0.5 = 0.625.
# Busy period 2 = [3, 4): p3 alone, P = 0 again.
WITH_DROP = packets(
    (0.0, 0.0, 1000, False),
    (0.25, NAN, 1000, True),
    (0.5, 1.0, 1000, False),
    (3.0, 3.0, 1000, False),
)


def test_drop_in_busy_period():
    curves = LinkCurves(WITH_DROP, C)
    loss = curves.loss.value([0.0, 0.2, 0.25, 0.4, 0.5, 1.999, 2.0, 2.5, 3.0, 3.5, 4.0])
    expected = [0, 0, 0.5, 0.5, 1 / 3, 1 / 3, NAN, NAN, 0, 0, NAN]
    assert loss == pytest.approx(expected, rel=1e-12, nan_ok=True)
    # Over [0, 5]: 100 x 0.625 / 3 s of busy time.
    result = summary(WITH_DROP, C, 0.0, 5.0)
    assert result["busy_loss_pct"] == approx(100 * 0.625 / 3)
    assert result["busy_fraction"] == approx(3 / 5)
    # Per 1 s bin: [0,1) 100 (0.125 + 0.5/3); [1,2) 100/3; [2,3) idle; [3,4) 0; [4,5) idle.
    bins = binned(WITH_DROP, C, 0.0, 5.0, 1.0)
    expected = [100 * (0.125 + 0.5 / 3), 100 / 3, NAN, 0.0, NAN]
    assert bins["busy_loss_pct"].to_numpy() == pytest.approx(expected, rel=1e-12, nan_ok=True)
    assert bins["busy_fraction"].to_numpy() == approx([1, 1, 0, 1, 0])


def test_drop_while_empty_belongs_to_no_busy_period():
    # p1 on [0, 1); early drops at 1.0 (just as p1 leaves) and at 2.0 (empty); p2 on [3, 4).
    empty_drop = packets((0.0, 0.0, 1000, False), (1.0, NAN, 500, True), (2.0, NAN, 500, True), (3.0, 3.0, 1000, False))
    curves = LinkCurves(empty_drop, C)
    assert curves.loss.value([0.5, 1.0, 2.0, 3.5]) == pytest.approx([0, NAN, NAN, 0], nan_ok=True)
    assert summary(empty_drop, C, 0.0, 5.0)["busy_loss_pct"] == approx(0.0)


def test_arrivals_at_busy_period_start_belong_to_it():
    # A 500 B drop listed before, but arriving at the same instant as, the packet that opens [3, 4):
    # P = 500 / 1500 throughout that period.
    same_instant = packets((3.0, NAN, 500, True), (3.0, 3.0, 1000, False))
    assert summary(same_instant, C, 0.0, 5.0)["busy_loss_pct"] == approx(100 / 3)
    # Likewise when the opening packet never leaves (both t_dequeue NaN, so the drop may sort first).
    never_leaves = packets((3.0, NAN, 500, True), (3.0, NAN, 1000, False))
    assert summary(never_leaves, C, 0.0, 5.0)["busy_loss_pct"] == approx(100 / 3)


def test_arrival_as_last_packet_leaves_continues_busy_period():
    # p1 on [0, 1), drop at 0.5, p2 arrives at exactly 1 when p1 leaves: Q stays > 0, one busy period
    # [0, 2). P = 0 on [0, .5), 1/2 on [.5, 1), 1000/3000 on [1, 2): integral 0.25 + 1/3, not reset.
    chained = packets((0.0, 0.0, 1000, False), (0.5, NAN, 1000, True), (1.0, 1.0, 1000, False))
    curves = LinkCurves(chained, C)
    assert curves.loss.value([1.5]) == approx([1 / 3])
    assert summary(chained, C, 0.0, 2.0)["busy_loss_pct"] == approx(100 * (0.25 + 1 / 3) / 2)


def test_packet_that_never_leaves():
    # p1 on [0, 1); p2 arrives at 0.5 and is still queued at the end: D = t - 0.5 on [1, inf).
    stuck = packets((0.0, 0.0, 1000, False), (0.5, NAN, 1000, False))
    curves = LinkCurves(stuck, C)
    assert curves.delay.value([1.0, 4.0, 100.0]) == approx([0.5, 3.5, 99.5])
    # Over [0, 4]: integral of D 0.5 + (3.5^2 - 0.5^2)/2 = 6.5; Q 500 + 1000 + 3 x 1000 = 4500.
    result = summary(stuck, C, 0.0, 4.0)
    assert result["delay_avg_s"] == approx(6.5 / 4)
    assert result["delay_max_s"] == approx(3.5)
    assert result["queue_bytes_avg"] == approx(1125.0)
    assert result["busy_fraction"] == approx(1.0)


# Four arrivals at t = 0: 1000 B (out 1), 500 B (out 1.5), 500 B (out 2), and a 1000 B drop.
# D = t on [0, 2); Q = 2000 on [0,1), 1000 on [1,1.5), 500 on [1.5,2): integral 2750;
# P = 1000 / 3000 throughout.
SIMULTANEOUS = packets((0.0, 0.0, 1000, False), (0.0, 1.0, 500, False), (0.0, 1.5, 500, False), (0.0, NAN, 1000, True))


def test_simultaneous_arrivals():
    assert delay_integral(SIMULTANEOUS, C)([1.0, 2.0, 3.0]) == approx([0.5, 2.0, 2.0])
    assert summary(SIMULTANEOUS, C, 0.0, 2.0) == {
        "delay_avg_s": approx(1.0),
        "delay_max_s": approx(2.0),
        "queue_bytes_avg": approx(1375.0),
        "busy_loss_pct": approx(100 / 3),
        "busy_fraction": approx(1.0),
    }


@pytest.mark.parametrize("table", [SIMULTANEOUS, WITH_DROP, BACK_TO_BACK])
def test_row_order_does_not_matter(table):
    shuffled = table.iloc[::-1].reset_index(drop=True)
    assert not shuffled.equals(table)
    times = np.linspace(-1.0, 6.0, 57)
    assert delay_integral(shuffled, C)(times) == approx(delay_integral(table, C)(times))
    assert summary(shuffled, C, 0.0, 5.0, [500]) == summary(table, C, 0.0, 5.0, [500])


def test_thresholds():
    # BACK_TO_BACK over [0, 4]: Q = 1000 on [0, .5), 2000 on [.5, 1), 1000 on [1, 2), 0 after.
    result = summary(BACK_TO_BACK, C, 0.0, 4.0, thresholds_bytes=[0, 999.5, 1000, 2000])
    assert result["above_0_pct"] == approx(50.0)  # Q > 0 for 2 s of 4
    assert result["above_999.5_pct"] == approx(50.0)
    assert result["above_1000_pct"] == approx(12.5)  # strictly above: only [.5, 1)
    assert result["above_2000_pct"] == approx(0.0)


def test_empty_link():
    none = packets()
    result = summary(none, C, 0.0, 10.0, [0])
    assert result["delay_avg_s"] == 0.0 and result["queue_bytes_avg"] == 0.0 and result["busy_fraction"] == 0.0
    assert math.isnan(result["busy_loss_pct"])
    assert result["above_0_pct"] == 0.0
    assert binned(none, C, 0.0, 10.0, 2.0)["busy_loss_pct"].isna().all()


def fifo_run(n, seed, capacity=8e6, limit_bytes=20_000, load=1.0, early_drop=0.01):
    """A random FIFO DropTail queue, plus random (RED-like) early drops, even when it is empty.

    Returns the packets table and the time the run ends (the last arrival); packets whose
    transmission has not started by then have t_dequeue NaN."""
    rng = np.random.default_rng(seed)
    size = rng.choice([40, 576, 1000, 1500], n)
    arrive = np.cumsum(rng.exponential(8 * size.mean() / capacity / load, n))
    early = rng.random(n) < early_drop
    dequeue = np.full(n, np.nan)
    dropped = np.zeros(n, bool)
    in_system, free_at = [], 0.0  # (t_out, size) of accepted packets; when the link becomes free
    for i in range(n):
        in_system = [(t_out, s) for t_out, s in in_system if t_out > arrive[i]]
        if early[i] or sum(s for _, s in in_system) + size[i] > limit_bytes:
            dropped[i] = True
            continue
        dequeue[i] = max(arrive[i], free_at)
        free_at = dequeue[i] + 8 * size[i] / capacity
        in_system.append((free_at, size[i]))
    end = arrive[-1]
    dequeue[dequeue > end] = np.nan
    table = pd.DataFrame({"t_enqueue": arrive, "t_dequeue": dequeue, "size": size, "dropped": dropped})
    return table, end


def test_bins_average_to_the_summary():
    table, end = fifo_run(3000, seed=1)
    interval = 0.05
    bins = binned(table, 8e6, 0.0, 20.3 * interval, interval)
    assert len(bins) == 20  # the last partial bin [1.0, 1.015) is dropped
    assert bins["t"].to_numpy() == approx(interval * np.arange(20))
    whole = summary(table, 8e6, 0.0, 20 * interval)
    assert bins["delay_avg_s"].mean() == pytest.approx(whole["delay_avg_s"], rel=1e-9)
    assert bins["queue_bytes_avg"].mean() == pytest.approx(whole["queue_bytes_avg"], rel=1e-9)
    assert bins["busy_fraction"].mean() == pytest.approx(whole["busy_fraction"], rel=1e-9)
    # Busy-loss is averaged over busy time, so the bins combine weighted by their busy time.
    busy = bins["busy_fraction"]
    weighted = (bins["busy_loss_pct"].fillna(0) * busy).sum() / busy.sum()
    assert whole["busy_loss_pct"] > 0
    assert weighted == pytest.approx(whole["busy_loss_pct"], rel=1e-9)


def test_random_run_against_brute_force_sampling():
    capacity = 8e6
    table, end = fifo_run(20_000, seed=7, capacity=capacity)
    assert table["dropped"].mean() > 0.02
    assert (table["t_dequeue"].isna() & ~table["dropped"]).any()  # some packets never leave
    start, stop, dt = 0.5, 10.0, 1e-5
    t = start + dt * (np.arange(round((stop - start) / dt)) + 0.5)  # cell midpoints

    # R_in, R_out and D straight from Eq. 5 as a horizontal distance between byte curves:
    # D(t) = min{x >= 0 : R_out(t) >= R_in(t - x)} = max(0, t - a_m), where m is the first accepted
    # packet (in arrival order) whose arrival makes R_in exceed R_out(t).
    accepted = table[~table["dropped"]].sort_values("t_enqueue")
    a = accepted["t_enqueue"].to_numpy()
    size = accepted["size"].to_numpy()
    t_out = np.sort((accepted["t_dequeue"] + 8 * accepted["size"] / capacity).fillna(np.inf).to_numpy())
    size_out = accepted["size"].to_numpy()[np.argsort(accepted["t_dequeue"].fillna(np.inf).to_numpy())]
    cum_in = np.concatenate([[0], np.cumsum(size)])
    cum_out = np.concatenate([[0], np.cumsum(size_out)])
    r_in = cum_in[np.searchsorted(a, t, side="right")]
    r_out = cum_out[np.searchsorted(t_out, t, side="right")]
    q = r_in - r_out
    m = np.searchsorted(cum_in[1:], r_out, side="right")
    d = np.where(m < a.size, np.maximum(0.0, t - a[np.minimum(m, a.size - 1)]), 0.0)

    # Midpoint sums are exact on D's slope-1 stretches; each dt cell holding a jump is off by at
    # most dt x |jump|. So the error of a time average is at most dt x (total jump size) / window.
    window = stop - start
    jumps_d = np.abs(np.diff(d)).sum() + (stop - start)  # sampled variation, plus slack for the ramps
    jumps_q = 2 * size.sum()  # each accepted byte steps Q up once and down once
    switches = 2 * (np.abs(np.diff(q > 0)).sum() + 1)
    result = summary(table, capacity, start, stop)
    assert result["delay_avg_s"] == pytest.approx(d.mean(), abs=2 * dt * jumps_d / window)
    assert result["queue_bytes_avg"] == pytest.approx(q.mean(), abs=dt * jumps_q / window)
    assert result["busy_fraction"] == pytest.approx((q > 0).mean(), abs=dt * switches / window)
    assert result["delay_max_s"] == pytest.approx(d.max(), abs=2 * dt)
    # Tolerances that would not hide a wrong definition (e.g. D without the transmission time).
    assert 2 * dt * jumps_d / window < 0.01 * result["delay_avg_s"]
    assert 0 < result["busy_fraction"] < 1


def test_random_run_busy_loss_against_event_loop():
    # A plain event loop over arrivals in time order: a busy period is open while some accepted
    # packet has not left; integrate P exactly between consecutive arrivals.
    capacity = 8e6
    table, end = fifo_run(5000, seed=11, capacity=capacity, load=0.8, early_drop=0.05)
    rows = table.sort_values(["t_enqueue", "t_dequeue"])
    t_out = (rows["t_dequeue"] + 8 * rows["size"] / capacity).fillna(np.inf).to_numpy()
    period_end, area, busy, ratio, last_t = -np.inf, 0.0, 0.0, 0.0, 0.0
    arrived = lost = 0.0
    for t, size, dropped, out in zip(rows["t_enqueue"], rows["size"], rows["dropped"], t_out, strict=True):
        if last_t < period_end:  # close the piece [last_t, min(t, period_end)) at the current ratio
            piece = min(t, period_end) - last_t
            area, busy = area + ratio * piece, busy + piece
        if t >= period_end and dropped:  # system empty: the drop counts nowhere
            last_t = t
            continue
        if t > period_end:  # an accepted packet finds the system empty: a new busy period
            arrived = lost = 0.0
        arrived, lost = arrived + size, lost + size * dropped
        ratio = lost / arrived
        if not dropped:
            period_end = max(period_end, out) if t < period_end else out
        last_t = t
    # The window ends at the last arrival, up to which the loop has already integrated.
    result = summary(table, capacity, 0.0, end)
    assert result["busy_fraction"] == pytest.approx(busy / end, rel=1e-9)
    assert result["busy_loss_pct"] == pytest.approx(100 * area / busy, rel=1e-9)
    assert result["busy_loss_pct"] > 1
