"""Per-node queue, delay and loss curves of one link (Koo et al. 2004, §2.3, Eqs. 4-7), computed exactly.

Input: one row per packet that arrived at the link's FIFO queue (columns t_enqueue, t_dequeue, size in
bytes, dropped; t_dequeue is NaN for a dropped packet or one still queued when the run ended) and the
link's bandwidth C in bit/s. Every curve is a right-continuous step or piecewise-linear function of t
built from these events, and every average below is an exact integral of it, not a sampled one.

  A(t)      bytes arrived by t: every packet, dropped or not, counted at t_enqueue.
  R_in(t)   bytes accepted (not dropped) by t, counted at t_enqueue.
  R_out(t)  bytes transmitted by t; a packet counts when its transmission ENDS,
            t_out = t_dequeue + 8 size / C ("the output curve is the transmitted traffic", Eq. 3; the
            bound 4 x D + propagation of §5.2 only holds if a node's delay includes transmission).
            An accepted packet with NaN t_dequeue never leaves: t_out = +inf.
            So an accepted packet is in the system on [t_enqueue, t_out).
  Q(t)      = R_in(t) - R_out(t), bytes (Eq. 4).
  D(t)      the horizontal distance between R_in and R_out at t (Eq. 5) = t - a_h, where a_h is the
            arrival time of the oldest accepted packet still in the system at t (t_out > t); D(t) = 0
            when the system is empty. D rises with slope 1 while a packet is head of line and jumps at
            each t_out. Erratum: the paper prints D(t) = max_{x<t}{x | R_out(t) >= R_in(t-x)}, which
            read literally is t itself (the condition holds for every large x); the horizontal distance
            drawn in its Fig. 3 is the SMALLEST such x, which is what is computed here.
  D^avg_t(tau) = (1/tau) * integral of D over [t - tau, t] (Eq. 6); D = 0 before the first arrival.
  Busy period: a maximal interval [t0, t1) with Q(t) > 0 (at least one accepted packet in the system).
            It begins at the arrival of an accepted packet that finds the system empty; a packet that
            arrives exactly when the last one leaves continues the busy period (Q never reaches 0).
  P(t)      (Eq. 7) within the busy period begun at t0: bytes dropped / bytes arrived, over every
            arrival (dropped or accepted) in [t0, t], so arrivals at t0 itself belong to it. A step
            function changing at arrivals. P is undefined (NaN) while the system is empty, so a drop
            that happens then (a RED/PI early drop) belongs to no busy period and counts nowhere.

"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd


class Pieces:
    """f(t) = v0_k + slope_k * (t - start_k) on [start_k, end_k), `outside` elsewhere.

    Pieces are sorted by start and do not overlap; empty pieces are discarded. Only the last piece
    may be endless (a packet that never leaves)."""

    def __init__(self, start, end, v0, slope=0.0, outside=0.0):
        start, end = np.asarray(start, float), np.asarray(end, float)
        keep = end > start
        self.start, self.end = start[keep], end[keep]
        self.v0 = np.broadcast_to(np.asarray(v0, float), start.shape)[keep]
        self.slope = np.broadcast_to(np.asarray(slope, float), start.shape)[keep]
        self.outside = outside
        # before[k] = integral of the pieces before k; an endless piece is never summed whole.
        length = np.where(np.isfinite(self.end), self.end - self.start, 0.0)
        self.before = np.concatenate([[0.0], np.cumsum(self.v0 * length + self.slope * length**2 / 2)])

    def _locate(self, t):
        t = np.asarray(t, float)
        k = np.searchsorted(self.start, t, side="right") - 1  # last piece starting at or before t
        return t, k, np.clip(k, 0, max(self.start.size - 1, 0))

    def integral(self, t):
        """Integral of f over (-inf, t] for each t, counting f as 0 outside the pieces."""
        if not self.start.size:
            return np.zeros(np.shape(t))
        t, k, kk = self._locate(t)
        u = np.clip(t - self.start[kk], 0.0, self.end[kk] - self.start[kk])  # time spent in piece kk
        return np.where(k >= 0, self.before[kk] + self.v0[kk] * u + self.slope[kk] * u**2 / 2, 0.0)

    def mean(self, lo, hi):
        """Time average of f over [lo, hi] (f counted as 0 outside the pieces)."""
        return (self.integral(hi) - self.integral(lo)) / (np.asarray(hi, float) - lo)

    def value(self, t):
        if not self.start.size:
            return np.full(np.shape(t), self.outside, dtype=float)
        t, k, kk = self._locate(t)
        inside = (k >= 0) & (t < self.end[kk])
        return np.where(inside, self.v0[kk] + self.slope[kk] * (t - self.start[kk]), self.outside)

    def sup(self, lo, hi):
        """Supremum of f over [lo, hi] (slopes >= 0), or `outside` if no piece meets [lo, hi]."""
        meet = (self.start <= hi) & (self.end > lo)
        if not meet.any():
            return self.outside
        top = np.minimum(self.end[meet], hi) - self.start[meet]
        return float(np.max(self.v0[meet] + self.slope[meet] * top))


class LinkCurves:
    """D, Q, busy indicator and P of one link as `Pieces`; see the module docstring."""

    def __init__(self, packets: pd.DataFrame, capacity_bps: float):
        enq = packets["t_enqueue"].to_numpy(float)
        deq = packets["t_dequeue"].to_numpy(float)
        order = np.lexsort((np.nan_to_num(deq, nan=np.inf), enq))
        enq, deq = enq[order], deq[order]
        size = packets["size"].to_numpy(float)[order]
        dropped = packets["dropped"].to_numpy(bool)[order]

        a, s = enq[~dropped], size[~dropped]
        t_out = np.where(np.isnan(deq[~dropped]), np.inf, deq[~dropped] + 8 * s / capacity_bps)
        # gone[k]: when every accepted packet before k has left (a running max, so float jitter in
        # the FIFO order cannot make head-of-line segments overlap).
        left = np.maximum.accumulate(t_out) if t_out.size else t_out
        gone = np.concatenate([[-np.inf], left])[: a.size]
        # Packet k is head of line from when it has arrived and all before it have left until it leaves.
        hol = np.maximum(a, gone)
        self.delay = Pieces(hol, t_out, hol - a, slope=1.0)
        self.busy = Pieces(hol, t_out, 1.0)

        # Q: +size at each acceptance, -size at each transmission end; constant between events.
        leaves = np.isfinite(t_out)
        times = np.concatenate([a, t_out[leaves]])
        order = np.argsort(times, kind="stable")
        self._q_start = times[order]
        self._q = np.cumsum(np.concatenate([s, -s[leaves]])[order])
        self._q_end = np.append(self._q_start[1:], np.inf)[: times.size]
        self.queue = Pieces(self._q_start, self._q_end, self._q)

        # Busy periods: one starts at each accepted packet arriving after all earlier ones have left.
        new = a > gone
        p_start = a[new]
        last = np.searchsorted(np.cumsum(new) - 1, np.arange(p_start.size), side="right") - 1
        p_end = left[last]
        # Every arrival (dropped or not) inside [p_start, p_end) belongs to that period; others to none.
        pid = np.searchsorted(p_start, enq, side="right") - 1
        inside = pid >= 0
        inside[inside] = enq[inside] < p_end[pid[inside]]
        t, sz, pid = enq[inside], size[inside], pid[inside]
        sz_lost = sz * dropped[inside]
        # Cumulative bytes since the start of each arrival's own period (periods are contiguous runs).
        first = np.maximum.accumulate(np.where(np.diff(pid, prepend=-1) != 0, np.arange(t.size), 0))
        arrived, lost = np.cumsum(sz), np.cumsum(sz_lost)
        ratio = (lost - lost[first] + sz_lost[first]) / (arrived - arrived[first] + sz[first])
        # P holds until the period's next arrival, or its end.
        last_of_period = np.diff(pid, append=-1) != 0
        until = np.where(last_of_period, p_end[pid], np.append(t[1:], np.inf)[: t.size])
        self.loss = Pieces(t, until, ratio, outside=np.nan)

    def queue_above(self, threshold_bytes: float) -> Pieces:
        """Indicator of Q(t) > threshold_bytes."""
        return Pieces(self._q_start, self._q_end, (self._q > threshold_bytes).astype(float))


def delay_integral(packets: pd.DataFrame, capacity_bps: float) -> Callable[[np.ndarray], np.ndarray]:
    """F with F(t) = integral of D over [0, t], exact and vectorised over t."""
    return LinkCurves(packets, capacity_bps).delay.integral


def delay_average(packets: pd.DataFrame, capacity_bps: float, times, tau: float) -> np.ndarray:
    """D^avg_t(tau) (Eq. 6) at each t in `times`."""
    integral = delay_integral(packets, capacity_bps)
    times = np.asarray(times, float)
    return (integral(times) - integral(times - tau)) / tau


def _busy_loss_pct(curves: LinkCurves, lo, hi):
    """Time average of 100 P(t) over the busy time in [lo, hi]; NaN where there is none."""
    busy = curves.busy.integral(hi) - curves.busy.integral(lo)
    loss = curves.loss.integral(hi) - curves.loss.integral(lo)
    return np.divide(100 * loss, busy, out=np.full(np.shape(busy), np.nan), where=busy > 0)


def binned(packets: pd.DataFrame, capacity_bps: float, start: float, end: float, interval: float) -> pd.DataFrame:
    """One row per whole bin [start + k interval, start + (k+1) interval) inside [start, end]."""
    return binned_curves(LinkCurves(packets, capacity_bps), start, end, interval)


def binned_curves(curves: LinkCurves, start: float, end: float, interval: float) -> pd.DataFrame:
    """binned() of curves already built (one LinkCurves serves every measure of a link)."""
    n = int(np.floor((end - start) / interval + 1e-9))  # the 1e-9 forgives float error, e.g. 0.3 / 0.1
    lo = start + interval * np.arange(n)
    hi = start + interval * np.arange(1, n + 1)
    return pd.DataFrame(
        {
            "t": lo,
            "delay_avg_s": curves.delay.mean(lo, hi),
            "queue_bytes_avg": curves.queue.mean(lo, hi),
            "busy_loss_pct": _busy_loss_pct(curves, lo, hi),
            "busy_fraction": curves.busy.mean(lo, hi),
        }
    )


def summary(
    packets: pd.DataFrame, capacity_bps: float, start: float, end: float, thresholds_bytes: Sequence[float] = ()
) -> dict[str, float]:
    """Time averages over [start, end]; `above_<b>_pct` is the % of the time with Q(t) > b bytes."""
    return summary_curves(LinkCurves(packets, capacity_bps), start, end, thresholds_bytes)


def summary_curves(
    curves: LinkCurves, start: float, end: float, thresholds_bytes: Sequence[float] = ()
) -> dict[str, float]:
    """summary() of curves already built."""
    out = {
        "delay_avg_s": float(curves.delay.mean(start, end)),
        "delay_max_s": curves.delay.sup(start, end),
        "queue_bytes_avg": float(curves.queue.mean(start, end)),
        "busy_loss_pct": float(_busy_loss_pct(curves, start, end)),
        "busy_fraction": float(curves.busy.mean(start, end)),
    }
    for b in thresholds_bytes:
        label = int(b) if float(b).is_integer() else b
        out[f"above_{label}_pct"] = 100 * float(curves.queue_above(b).mean(start, end))
    return out
