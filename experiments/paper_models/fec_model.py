"""The FEC loss model of Alemu's thesis, §5.5 (Figs. 5.11-5.12): losses of one flow as a compound Poisson process.

Blocks of consecutive losses ("blocks of losses", Definition 1) arrive as a Poisson process over the flow's packet
sequence; block sizes A_1, A_2, ... are i.i.d. with law A. With loss rate p = lambda E(A) and a FEC block of
T = k + h packets, x = pT is the mean number of losses in one FEC block, and Eq. 5.3 gives the probability that a
block is repaired (at most h losses):

    P(N_T <= h) = sum_m  Poisson(m; x / E(A)) P(A_1 + ... + A_m <= h).

Only m <= h terms count when A >= 1, so the sum is finite. The thesis compares two situations of equal p: RED/FEC
(situation 1) and DT/FEC (situation 2), each with A = 1 w.p. beta and A = 2 w.p. 1 - beta (beta = 9/10 for RED,
6/10 for DT, read off its Fig. 5.6), through Delta_h(x) = P(N^(1) <= h) - P(N^(2) <= h), and states that Delta_h
changes sign once, at x_h, with x_h - h tending to a positive constant C as h grows. Its crossover rule: RED/FEC
is better iff p (k + h) <= h + C.

Every sum here has positive terms only. P(N <= h) and P(N > h) are each summed from their own terms, so that
Delta_h keeps its sign where both probabilities are close to 1 or to 0 (it is then of order 1e-20 or less).

"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

RED_BETA = 0.9  # §5.5: P(A = 1) for RED/FEC, from the loss run lengths of Fig. 5.6


DT_BETA = 0.6  # §5.5: P(A = 1) for DT/FEC


@dataclass(frozen=True)
class BatchLaw:
    """The law of A, the size of a block of losses: pmf[a] = P(A = a) for a = 0, 1, ...; pmf[0] must be 0."""

    pmf: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.pmf or self.pmf[0] != 0 or min(self.pmf) < 0 or not math.isclose(sum(self.pmf), 1.0):
            raise ValueError(f"a batch law needs P(A = 0) = 0 and probabilities summing to 1, got {self.pmf}")

    @classmethod
    def two_point(cls, beta: float) -> BatchLaw:
        """§5.5's law: A = 1 with probability beta, A = 2 with probability 1 - beta."""
        if not 0 <= beta <= 1:
            raise ValueError(f"beta is a probability, got {beta}")
        return cls((0.0, beta, 1.0 - beta))

    @classmethod
    def from_run_lengths(cls, counts: Mapping[int, float]) -> BatchLaw:
        """The empirical law of measured loss run lengths (how many runs of each length, as in Fig. 5.6)."""
        if not counts or min(counts) < 1 or sum(counts.values()) <= 0:
            raise ValueError(f"loss run lengths must be >= 1 with a positive count, got {dict(counts)}")
        pmf = np.zeros(max(counts) + 1)
        for length, count in counts.items():
            pmf[length] += count
        return cls(tuple(pmf / pmf.sum()))

    @property
    def mean(self) -> float:
        return float(np.dot(np.arange(len(self.pmf)), self.pmf))


RED_LAW = BatchLaw.two_point(RED_BETA)


DT_LAW = BatchLaw.two_point(DT_BETA)


def _poisson_pmf(m: int, lam: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pmf = m * np.log(lam) - lam - math.lgamma(m + 1)
    if m == 0:
        return np.exp(-lam)
    return np.where(lam > 0, np.exp(log_pmf), 0.0)


def _sum_laws(h: int, law: BatchLaw) -> list[np.ndarray]:
    """The laws of A_1 + ... + A_m for m = 0..h, each on its whole support."""
    laws = [np.array([1.0])]
    for _ in range(h):
        laws.append(np.convolve(laws[-1], law.pmf))
    return laws


def _checked(h: int, x) -> np.ndarray:
    if h < 0:
        raise ValueError(f"h counts redundancy packets, got {h}")
    x = np.asarray(x, dtype=float)
    if np.any(x < 0):
        raise ValueError("x = pT is a mean number of losses and cannot be negative")
    return x


def repair_probability(h: int, x, law: BatchLaw) -> np.ndarray:
    """P(N_T <= h) of Eq. 5.3 at x = pT (a number or an array): the chance a FEC block with h redundancy packets
    is repaired when losses follow the compound Poisson process with batch law `law`."""
    x = _checked(h, x)
    lam = x / law.mean
    total = np.zeros_like(x)
    for m, sum_law in enumerate(_sum_laws(h, law)):
        total = total + _poisson_pmf(m, lam) * sum_law[: h + 1].sum()
    return total


def loss_probability(h: int, x, law: BatchLaw) -> np.ndarray:
    """P(N_T > h) = 1 - repair_probability, summed from its own positive terms so that it keeps its relative
    precision where it is tiny (small x, large h): more than h blocks of losses, or at most h whose sizes add up
    to more than h."""
    x = _checked(h, x)
    lam = x / law.mean
    total = np.zeros_like(x)
    for m, sum_law in enumerate(_sum_laws(h, law)):
        total = total + _poisson_pmf(m, lam) * sum_law[h + 1 :].sum()
    last = h + 1 + math.ceil(float(np.max(lam, initial=0.0)) + 40 * math.sqrt(float(np.max(lam, initial=0.0))) + 40)
    for m in range(h + 1, last):
        total = total + _poisson_pmf(m, lam)
    return total


def delta(h: int, x, red: BatchLaw = RED_LAW, dt: BatchLaw = DT_LAW) -> np.ndarray:
    """Delta_h(x) of §5.5: RED/FEC's repair probability minus DT/FEC's at the same loss rate. Where both
    repair probabilities are near 1 (small x) it is taken as the difference of the loss probabilities, where
    they are small as the difference of the repair probabilities: either way no digits cancel."""
    repaired = repair_probability(h, x, red), repair_probability(h, x, dt)
    lost = loss_probability(h, x, red), loss_probability(h, x, dt)
    return np.where(repaired[0] + repaired[1] < 1, repaired[0] - repaired[1], lost[1] - lost[0])


@dataclass(frozen=True)
class Threshold:
    """Where Delta_h turns negative on (0, x_max]: x_h (0 when Delta_h < 0 from the start, as for h = 0) and
    how many sign changes the scan found after its first point (the thesis says one for h >= 1)."""

    h: int
    x_h: float
    sign_changes: int

    @property
    def offset(self) -> float:
        """x_h - h: the thesis's C for large h."""
        return self.x_h - self.h


def threshold(
    h: int, red: BatchLaw = RED_LAW, dt: BatchLaw = DT_LAW, x_max: float | None = None, points: int = 4001
) -> Threshold:
    """x_h: the first x > 0 where Delta_h turns from >= 0 to < 0, refined by bisection; the scan of (0, x_max]
    (default 4h + 40, well into the tail where both probabilities decay) also counts every sign change."""
    x_max = 4 * h + 40 if x_max is None else x_max
    grid = np.linspace(x_max / points, x_max, points)
    negative = delta(h, grid, red, dt) < 0
    sign_changes = int(np.count_nonzero(negative[1:] != negative[:-1]))
    if negative[0]:
        return Threshold(h, 0.0, sign_changes)
    if not negative.any():
        return Threshold(h, math.inf, sign_changes)
    first = int(np.argmax(negative))
    low, high = grid[first - 1], grid[first]
    for _ in range(60):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if delta(h, mid, red, dt) >= 0 else (low, mid)
    return Threshold(h, 0.5 * (low + high), sign_changes)


def red_fec_better(p: float, k: int, h: int, c: float) -> bool:
    """§5.5's crossover rule: RED/FEC beats DT/FEC iff p (k + h) <= h + C."""
    return p * (k + h) <= h + c
