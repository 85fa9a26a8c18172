"""The drop functions of Alemu's thesis, Chapter 1 (configs/psand.yaml, Figs. 1.1-1.3 and 1.5), from its formulas.

Each function maps a queue size (an array or a number, packets) to a drop probability, exactly as the thesis
writes it:

- red: Eq. 1.2 (strict mode) and Eq. 1.3 (gentle mode) of the average queue K̂_cur, thresholds Min_th, Max_th
  and maximum probability Max_p. Note Eq. 1.3's gentle slope (1 - Max_p) / Max_th: from Max_p at Max_th to 1 at
  2 Max_th, whatever Min_th.
- sred_levels: Eq. 1.6, SRED's three levels (0, p_max / 4, p_max) of the instantaneous queue K_cur against the
  buffer B; sred: Eq. 1.7 ("simple SRED"), those levels times min(1, N^2 / 256^2), N the estimated number of
  active flows.
- dsred: Eq. 1.12 with the slopes of Eqs. 1.13-1.14 (DSRED, thresholds K_l, K_m, K_h, mode selector gamma).
- rio_in, rio_out: RIO's twin RED functions (§1.4.3, Algorithm 15), each Eq. 1.2 with its own (Min, Max, P_Max)
  of its own average: Avg_In for In packets, Avg_total for Out packets.

The parameters the figures use (the thesis's pictures are lost from the text and show only symbols; the values
below are ours, each with its reason, and are listed among configs/psand.yaml's choices): RED's are the
thesis's own plain RED of Ch. 2 (Min_th 5, Max_th 15, Max_p 0.1, buffer 35: choice `red`); RIO's are ns-2.35's
defaults for Queue/RED/RIO; SRED's and DSRED's are listed at SRED and DSRED.

"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BUFFER = 35  # B, packets: the bottleneck buffer of every experiment of the thesis (§2.4.1)


@dataclass(frozen=True)
class Red:
    """RED's parameters (§1.2.1.1): d(K̂) by Eq. 1.2, or Eq. 1.3 when gentle."""

    min_th: float
    max_th: float
    max_p: float
    gentle: bool = False


@dataclass(frozen=True)
class Sred:
    """SRED's parameters (§1.2.1.3): buffer B and maximum early-drop probability p_max."""

    buffer: float
    p_max: float


@dataclass(frozen=True)
class Dsred:
    """DSRED's parameters (§1.2.1.5): thresholds K_l < K_m < K_h, mode selector gamma in [0, 1], buffer N.
    K_m defaults to the midpoint of K_l and K_h: the only K_m at which Eq. 1.12's two segments meet (at 1 -
    gamma) given the slopes of Eqs. 1.13-1.14."""

    k_l: float
    k_h: float
    gamma: float
    k_m: float | None = None
    buffer: float = BUFFER

    @property
    def knee(self) -> float:
        return (self.k_l + self.k_h) / 2 if self.k_m is None else self.k_m


# Fig. 1.1: the thesis's plain RED of Ch. 2 (configs/psand.yaml, choice `red`), strict and gentle.
RED_STRICT = Red(min_th=5, max_th=15, max_p=0.1, gentle=False)


RED_GENTLE = Red(min_th=5, max_th=15, max_p=0.1, gentle=True)


# Fig. 1.2: the thesis gives no p_max; 0.15 is our choice (a value of the order of RED's Max_p, large enough that
# the p_max / 4 step is visible). The buffer is the thesis's 35 packets, so the steps are at 35/6 and 35/3.
SRED = Sred(buffer=BUFFER, p_max=0.15)


SRED_FLOWS = (64, 128)  # N of Eq. 1.7 drawn beside Eq. 1.6: min(1, N^2/256^2) = 1/16, 1/4 (N >= 256: Eq. 1.6 itself)


# Fig. 1.3: the thesis gives no values; ours: K_l = Min_th 5 and K_h = 2 Max_th 30 of the gentle RED of Fig. 1.1
# (so that the two can be compared over the same span), the buffer 35, and three gammas: 0.5 (one straight line),
# 0.9 (a gentle first segment, as RED's, then a steep one) and 0.25 (the reverse).
DSRED_GAMMAS = (0.9, 0.5, 0.25)


DSRED = tuple(Dsred(k_l=5, k_h=30, gamma=g) for g in DSRED_GAMMAS)


# Fig. 1.5: ns-2.35's defaults for Queue/RED/RIO (tcl/lib/ns-default.tcl): In 15, 30, 1/50; Out 5, 15, 1/10
# (ns-2's Out probability uses the queue's linterm_). They order the twins as §1.4.3 asks: Min_Out < Min_In,
# Max_Out much smaller than Max_In, P_Max_Out > P_Max_In.
RIO_IN = Red(min_th=15, max_th=30, max_p=1 / 50)


RIO_OUT = Red(min_th=5, max_th=15, max_p=1 / 10)


def red(k, params: Red) -> np.ndarray:
    """Eq. 1.2 (strict) or Eq. 1.3 (gentle) at average queue sizes k."""
    k = np.asarray(k, dtype=float)
    linear = (k - params.min_th) / (params.max_th - params.min_th) * params.max_p
    if params.gentle:
        upper = (1 - params.max_p) * (k - params.max_th) / params.max_th + params.max_p
        top = 2 * params.max_th
    else:
        upper, top = np.ones_like(k), params.max_th
    return np.select([k < params.min_th, k < params.max_th, k < top], [0.0, linear, upper], 1.0)


def sred_levels(k, params: Sred) -> np.ndarray:
    """Eq. 1.6: p_SRED of the instantaneous queue k (0 <= k < B); k >= B is outside the equation (NaN)."""
    k = np.asarray(k, dtype=float)
    b = params.buffer
    return np.select([k < b / 6, k < b / 3, k < b], [0.0, params.p_max / 4, params.p_max], np.nan)


def sred(k, params: Sred, flows: float) -> np.ndarray:
    """Eq. 1.7 (simple SRED): p_SRED(k) x min(1, N^2 / 256^2) with N = `flows`."""
    return sred_levels(k, params) * min(1.0, flows**2 / 256**2)


def dsred(k, params: Dsred) -> np.ndarray:
    """Eq. 1.12 with alpha and beta of Eqs. 1.13-1.14, at average queue sizes k (up to the buffer N; above it
    the equation says nothing: NaN)."""
    k = np.asarray(k, dtype=float)
    span = params.k_h - params.k_l
    alpha, beta = 2 * (1 - params.gamma) / span, 2 * params.gamma / span
    first = alpha * (k - params.k_l)
    second = 1 - params.gamma + beta * (k - params.knee)
    return np.select(
        [k < params.k_l, k < params.knee, k < params.k_h, k <= params.buffer], [0.0, first, second, 1.0], np.nan
    )


def rio_in(avg_in, params: Red = RIO_IN) -> np.ndarray:
    """RIO's drop probability of an In packet, of Avg_In (Eq. 1.2 with Min_In, Max_In, P_Max_In)."""
    return red(avg_in, params)


def rio_out(avg_total, params: Red = RIO_OUT) -> np.ndarray:
    """RIO's drop probability of an Out packet, of Avg_total (Eq. 1.2 with Min_Out, Max_Out, P_Max_Out)."""
    return red(avg_total, params)
