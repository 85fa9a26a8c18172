"""The statistics every verdict uses: the confidence interval of a mean, of a difference between two levels
(paired per seed where the levels ran the same seeds, unpaired otherwise) and of a ratio of two means.

Every level of a cell runs the same seeds (common random numbers: the same start times, draws and node tracks), so
the values of two levels at one seed move together, and their per-seed differences vary far less than either level
does. Where both levels have a value at exactly the same seeds, a difference is judged on those per-seed
differences (paired); where they do not (another seed list, a run that failed or measured nothing), on the two
levels' own intervals as if they were independent (unpaired), and the verdict says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

MIN_VALUES_FOR_INTERVAL = 2
CONFIDENCE = 0.95  # of every interval shown, and of a verdict's test where seeds are never added (verdicts.seeding)


def t_quantile(df: int, confidence: float = CONFIDENCE) -> float:
    """The two-sided Student t quantile of a `confidence` interval for `df` degrees of freedom, any df (scipy)."""
    # Imported here: scipy.stats is slow to import, and every Snakemake command imports this module (the plan
    # reads the seeding rounds), most of them judging nothing.
    from scipy import stats as scipy_stats

    return float(scipy_stats.t.ppf(1 - (1 - confidence) / 2, df))


def t975(df: int) -> float:
    """The two-sided 95 % Student t quantile for `df` degrees of freedom."""
    return t_quantile(df, 0.95)


def half_width(values: pd.Series, confidence: float = CONFIDENCE) -> float:
    """Half-width of the `confidence` interval of the mean of the measured (non-NaN) values; nan for fewer than
    two."""
    values = pd.Series(values).dropna()
    n = len(values)
    if n < MIN_VALUES_FOR_INTERVAL:
        return math.nan
    return t_quantile(n - 1, confidence) * values.std(ddof=1) / math.sqrt(n)


def ci95(values: pd.Series) -> float:
    """Half-width of the 95 % confidence interval of the mean of the measured values (the figures' ±)."""
    return half_width(values, 0.95)


def percent(confidence: float) -> str:
    """A confidence as the report writes it: 95 %, 98.3 %."""
    return f"{100 * confidence:.3g} %"


@dataclass(frozen=True)
class Difference:
    """A - factor x B between two levels of a cell: its mean, the half-width of its interval (nan: none can be
    formed) and how it was taken: paired (per seed, over `n` seeds) or unpaired (the two levels' intervals added)."""

    mean: float
    half: float
    paired: bool
    n: int

    @property
    def apart(self) -> bool:
        """The interval is clear of 0; one that cannot be formed never is."""
        return not math.isnan(self.half) and abs(self.mean) > self.half


def per_seed(values: pd.DataFrame, level_column: str) -> pd.DataFrame | None:
    """A cell's measured values as seed x level (columns: the levels as `level_column` gives them), or None when
    the rows carry no seed or a level holds two values at one seed (then nothing is paired)."""
    if "seed" not in values or values.duplicated([level_column, "seed"]).any():
        return None
    return values.pivot(index="seed", columns=level_column, values="value")


def shared_seeds(table: pd.DataFrame | None, levels: list[str]) -> pd.DataFrame | None:
    """The per-seed values of these levels when each has a value at exactly the same seeds (at least two), else
    None."""
    if table is None or any(level not in table for level in levels):
        return None
    present = [frozenset(table.index[table[level].notna()]) for level in levels]
    if len(set(present)) != 1 or len(present[0]) < MIN_VALUES_FOR_INTERVAL:
        return None
    return table.loc[sorted(present[0]), levels]


def difference(
    stats: pd.DataFrame, table: pd.DataFrame | None, a: str, b: str, factor: float = 1, confidence: float = CONFIDENCE
) -> Difference:
    """a - factor x b, its interval at `confidence`: paired over the seeds both ran where they ran the same ones, else
    from their own means and intervals (`stats`: mean, half (at the same confidence) and count per level)."""
    paired = shared_seeds(table, [a, b])
    if paired is not None:
        d = paired[a] - factor * paired[b]
        return Difference(float(d.mean()), half_width(d, confidence), True, len(d))
    half = stats.loc[a, "half"] + factor * stats.loc[b, "half"]
    return Difference(stats.loc[a, "mean"] - factor * stats.loc[b, "mean"], half, False, 0)


def ratio_half_width(stats: pd.DataFrame, table: pd.DataFrame | None, a: str, b: str) -> tuple[float, bool]:
    """Half-width of the 95 % interval of mean(a) / mean(b) by the delta method, and whether it is paired: with the
    two means' covariance over their shared seeds where they ran the same ones, without it otherwise. The ratio of
    the means is what the papers compute (a per-seed ratio's mean would be another quantity). nan when an interval
    cannot be formed. `stats`: mean, half (95 %) and count per level."""
    paired = shared_seeds(table, [a, b])
    if paired is not None:
        x, y = paired[a].to_numpy(float), paired[b].to_numpy(float)
        n = len(x)
        cov = np.cov(x, y, ddof=1)
        var_a, var_b, cov_ab, df = cov[0, 0] / n, cov[1, 1] / n, cov[0, 1] / n, n - 1
    else:
        counts = stats.loc[[a, b], "count"]
        if counts.min() < MIN_VALUES_FOR_INTERVAL:
            return math.nan, False
        var_a = (stats.loc[a, "half"] / t975(counts[a] - 1)) ** 2
        var_b = (stats.loc[b, "half"] / t975(counts[b] - 1)) ** 2
        cov_ab, df = 0.0, int(counts.min()) - 1
    mean_a, mean_b = stats.loc[a, "mean"], stats.loc[b, "mean"]
    ratio = mean_a / mean_b
    variance = (var_a - 2 * ratio * cov_ab + ratio**2 * var_b) / mean_b**2
    return t975(df) * math.sqrt(max(variance, 0.0)), paired is not None
