"""experiments/paper_models/drop_functions.py against Alemu's Ch. 1 formulas at hand-computed points."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.paper_models import drop_functions as df

RED = df.Red(min_th=5, max_th=15, max_p=0.1)
GENTLE = df.Red(min_th=5, max_th=15, max_p=0.1, gentle=True)


def test_red_strict_eq_1_2():
    # 0 below Min_th and at 0; at Min_th 0; halfway 0.05; just below Max_th ~ Max_p; 1 from Max_th on
    points = [0, 4.999, 5, 10, 12.5, 14.999999, 15, 20, 35]
    expected = [0, 0, 0, 0.05, 0.075, 0.1 * 9.999999 / 10, 1, 1, 1]
    assert df.red(points, RED) == pytest.approx(expected, abs=1e-12)


def test_red_gentle_eq_1_3():
    # linear part as strict; Max_p at Max_th; halfway to 2 Max_th: 0.1 + 0.9 * 7.5 / 15 = 0.55; 1 at 2 Max_th
    points = [4, 5, 10, 15, 22.5, 29.999999, 30, 35]
    expected = [0, 0, 0.05, 0.1, 0.55, 0.1 + 0.9 * 14.999999 / 15, 1, 1]
    assert df.red(points, GENTLE) == pytest.approx(expected, abs=1e-12)


def test_gentle_slope_is_over_max_th_not_the_threshold_gap():
    """Eq. 1.3 divides by Max_th: with Min_th = 0 the thesis's PSAND setting (0, 20) and Max_p 0.5 gives 0.25
    at K̂_T = 10 and 0.75 at 30 (§2.3's reasoning); with Min_th 10, Max_th 20 the slope stays 0.5 / 20."""
    psand = df.Red(min_th=0, max_th=20, max_p=0.5, gentle=True)
    assert df.red([10, 20, 30, 40], psand) == pytest.approx([0.25, 0.5, 0.75, 1.0])
    narrow = df.Red(min_th=10, max_th=20, max_p=0.5, gentle=True)
    assert float(df.red(30, narrow)) == pytest.approx(0.5 + 0.5 * 10 / 20)


def test_red_is_monotone_and_in_unit_interval():
    k = np.linspace(0, 40, 4001)
    for params in (RED, GENTLE, df.RIO_IN, df.RIO_OUT):
        p = df.red(k, params)
        assert np.all(np.diff(p) >= 0) and p.min() == 0 and p.max() == 1


def test_sred_levels_eq_1_6_and_simple_sred_eq_1_7():
    sred = df.Sred(buffer=36, p_max=0.2)  # steps at 6 and 12
    assert df.sred_levels([0, 5.99, 6, 11.99, 12, 35.99], sred) == pytest.approx([0, 0, 0.05, 0.05, 0.2, 0.2])
    assert np.isnan(df.sred_levels(36, sred))  # K_cur = B is outside Eq. 1.6
    assert float(df.sred(20, sred, flows=128)) == pytest.approx(0.2 / 4)  # 128^2 / 256^2
    assert float(df.sred(20, sred, flows=512)) == pytest.approx(0.2)  # min(1, .) caps


def test_dsred_eq_1_12_knee_and_ends():
    d = df.Dsred(k_l=5, k_h=30, gamma=0.9)  # K_m = 17.5, alpha = 0.2 / 25, beta = 1.8 / 25
    assert d.knee == 17.5
    assert df.dsred([0, 5, 17.5, 30, 35], d) == pytest.approx([0, 0, 0.1, 1, 1])
    below, above = df.dsred([17.5 - 1e-9, 17.5 + 1e-9], d)
    assert below == pytest.approx(1 - 0.9, abs=1e-9) and above == pytest.approx(1 - 0.9, abs=1e-9)
    assert float(df.dsred(10, d)) == pytest.approx(0.2 / 25 * 5)
    assert float(df.dsred(25, d)) == pytest.approx(0.1 + 1.8 / 25 * 7.5)
    assert np.isnan(df.dsred(36, d))  # above the buffer N
    # gamma = 0.5: one straight line from K_l to K_h
    line = df.Dsred(k_l=5, k_h=30, gamma=0.5)
    assert df.dsred([10, 17.5, 25], line) == pytest.approx([0.2, 0.5, 0.8])


def test_dsred_with_an_off_centre_knee_is_taken_literally():
    d = df.Dsred(k_l=5, k_h=30, gamma=0.9, k_m=10)
    assert float(df.dsred(10, d)) == pytest.approx(0.1)  # second segment starts at 1 - gamma
    assert float(df.dsred(9.999, d)) == pytest.approx(0.2 / 25 * 4.999)  # the first one ends below it


def test_rio_twins_drop_out_earlier_and_harder():
    assert df.RIO_OUT.min_th < df.RIO_IN.min_th and df.RIO_OUT.max_th < df.RIO_IN.max_th
    assert df.RIO_OUT.max_p > df.RIO_IN.max_p
    k = np.linspace(0, 35, 701)
    assert np.all(df.rio_out(k) >= df.rio_in(k))
    assert float(df.rio_in(22.5)) == pytest.approx(0.01) and float(df.rio_out(10)) == pytest.approx(0.05)
