"""figures/psand.py on small hand-made tables: the comparison tables' cells and the queue-evolution grid."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from experiments.common.markdown import row_cells
from figures import psand
from figures.common import ExperimentData

TABLE = {
    "id": "t22",
    "experiment": "coef_gamma",
    "rows": "variant",
    "columns": "flows",
    "levels": [3, 28],
    "metrics": [["bottleneck_queue_pkts_mean", "AQS", 2], ["bottleneck_drop_pct", "PLR (%)", 1]],
    "caption": "Table 2.2",
}


def metrics_frame() -> pd.DataFrame:
    rows = []
    for variant, base in (("ARED_Feng", 10.0), ("PSAND2", 7.0)):
        for flows in (3, 25, 28):
            for seed, noise in ((1, -1.0), (2, 1.0)):
                rows.append(
                    {
                        "variant": variant,
                        "flows": flows,
                        "seed": seed,
                        "scope": "all",
                        "metric": "bottleneck_queue_pkts_mean",
                        "value": base + flows / 10 + noise,
                    }
                )
                rows.append(
                    {
                        "variant": variant,
                        "flows": flows,
                        "seed": seed,
                        "scope": "all",
                        "metric": "bottleneck_drop_pct",
                        "value": 1.0 + seed,
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture
def table_data() -> ExperimentData:
    return ExperimentData(metrics_frame(), pd.DataFrame(), ["flows", "variant"], {"variant": ["ARED_Feng", "PSAND2"]})


def test_comparison_cells_are_means_over_seeds_of_the_chosen_columns_only(table_data):
    frame = psand.comparison_frame(table_data, TABLE)
    assert list(frame["flows"].unique()) == [3, 28], "N = 25 is not a column of this table"
    cell = frame[(frame["variant"] == "PSAND2") & (frame["flows"] == 28)].iloc[0]
    assert cell["bottleneck_queue_pkts_mean"] == pytest.approx(9.8) and cell["seeds"] == 2
    assert cell["bottleneck_drop_pct"] == pytest.approx(2.5)


def test_comparison_table_markdown_is_laid_out_as_the_thesis(tmp_path, table_data):
    csv, md = psand.comparison_table(table_data, tmp_path / "t22", TABLE)
    lines = md.read_text().splitlines()
    rows = [row_cells(line) for line in lines if line.startswith("|")]
    assert rows[0] == ("variant", "AQS, flows = 3", "AQS, flows = 28", "PLR (%), flows = 3", "PLR (%), flows = 28")
    feng = next(row for row in rows if row[0] == "ARED_Feng")
    assert feng[1].startswith("10.30 ± ") and any(c.startswith("2.5 ± ") for c in feng)
    assert "mean over 2 seeds" in md.read_text()
    assert len(pd.read_csv(csv)) == 4


def test_a_table_without_its_metrics_is_an_error(table_data):
    with pytest.raises(ValueError, match="no values"):
        psand.comparison_frame(table_data, {**TABLE, "metrics": [["bottleneck_queue_pkts_var", "VQS", 2]]})


def series_frame() -> pd.DataFrame:
    rows = []
    for scheme in ("RED", "PSAND"):
        for added in (20, 50):
            for seed in (1, 2):
                for t in (0.0, 0.01, 0.02):
                    rows.append(
                        {
                            "scheme": scheme,
                            "added": added,
                            "seed": seed,
                            "scope": "core0",
                            "metric": "queue_pkts",
                            "t": t,
                            "value": 3.0,
                        }
                    )
                    rows.append(
                        {
                            "scheme": scheme,
                            "added": added,
                            "seed": seed,
                            "scope": "core0",
                            "metric": "qvar_ave",
                            "t": t,
                            "value": 1.0,
                        }
                    )
                    rows.append(
                        {
                            "scheme": scheme,
                            "added": added,
                            "seed": seed,
                            "scope": "core1",
                            "metric": "queue_pkts",
                            "t": t,
                            "value": 9.0,
                        }
                    )
    return pd.DataFrame(rows)


def test_evolution_keeps_the_bottleneck_of_the_first_seed():
    data = ExperimentData(pd.DataFrame(), series_frame(), ["added", "scheme"])
    frame = psand.evolution_frame(data, {"id": "f", "experiment": "step_up"})
    assert set(frame["seed"]) == {1} and set(frame["scope"]) == {"core0"}
    assert set(frame["metric"]) == {"queue_pkts", "qvar_ave"}


def test_evolution_figure_is_drawn_and_needs_the_average(tmp_path):
    data = ExperimentData(pd.DataFrame(), series_frame(), ["added", "scheme"])
    (png,) = psand.queue_evolution(
        data, tmp_path / "fig", {"id": "f", "experiment": "step_up", "panels": "scheme", "rows": "added"}
    )
    assert png.stat().st_size > 0
    bare = ExperimentData(pd.DataFrame(), series_frame().query("scope == 'core1'"), ["added", "scheme"])
    with pytest.raises(ValueError, match="queue_vars"):
        psand.evolution_frame(bare, {"id": "f", "experiment": "step_up"})


def test_evolution_overlay_adds_the_named_variables_and_levels_pick_the_panels(tmp_path, monkeypatch):
    series = series_frame()
    thresholds = series[series["metric"] == "qvar_ave"].assign(metric="qvar_maxthresh", value=20.0)
    data = ExperimentData(pd.DataFrame(), pd.concat([series, thresholds]), ["added", "scheme"])
    plain = psand.evolution_frame(data, {"id": "f", "experiment": "e"})
    assert "qvar_maxthresh" not in set(plain["metric"]), "a variable no overlay names is drawn"
    artifact = {"id": "f", "experiment": "e", "panels": "scheme", "levels": ["PSAND"], "overlay": ["maxthresh_"]}
    assert "qvar_maxthresh" in set(psand.evolution_frame(data, artifact)["metric"])
    drawn = []
    real_subplots = psand.plt.subplots

    def spy(*args, **kwargs):
        fig, grid = real_subplots(*args, **kwargs)
        drawn.append(grid)
        return fig, grid

    monkeypatch.setattr(psand.plt, "subplots", spy)
    psand.queue_evolution(data, tmp_path / "fig", artifact)
    (grid,) = drawn
    visible = [ax for ax in grid.flat if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["PSAND"], "levels do not restrict the panels"
    assert [line.get_label() for line in visible[0].get_lines()] == ["IQS", "WAQS", "Max_th"]
    colours = [line.get_color() for line in visible[0].get_lines()]
    assert len(set(colours)) == 3, f"a threshold drawn in the colour of a queue line: {colours}"
    (legend,) = visible[0].figure.legends
    assert [text.get_text() for text in legend.get_texts()] == ["IQS", "WAQS", "Max_th"]
    assert visible[0].get_legend() is None, "the legend hides the start of the first panel's run"


def test_evolution_time_window_draws_only_that_span(tmp_path, monkeypatch):
    data = ExperimentData(pd.DataFrame(), series_frame(), ["added", "scheme"])
    drawn = []
    real_subplots = psand.plt.subplots
    monkeypatch.setattr(psand.plt, "subplots", lambda *a, **k: drawn.append(real_subplots(*a, **k)) or drawn[-1])
    artifact = {"id": "f", "experiment": "e", "panels": "scheme", "time_window": [0.01, 0.02]}
    psand.queue_evolution(data, tmp_path / "fig", artifact)
    ((fig, grid),) = drawn
    times = {t for ax in grid.flat for line in ax.get_lines() for t in line.get_xdata()}
    assert times == {0.01, 0.02}, f"samples outside the window drawn: {sorted(times)}"
    assert "0.01-0.02 s of the run" in fig._suptitle.get_text()


def queue_runs(tmp_path) -> ExperimentData:
    """Two runs (flows 3, PSAND and RED, one seed) with hand-made bottleneck samples, as the aggregate stage
    leaves them: runs.parquet naming each run's directory, its tables/queue.parquet and params.json."""
    index = []
    for scheme, sizes in (("PSAND", [0, 5, 5, 6]), ("RED", [10, 10, 10, 12])):
        run = tmp_path / "runs" / scheme
        (run / "tables").mkdir(parents=True)
        (run / "params.json").write_text('{"flows": []}')
        queue = pd.DataFrame({"link": ["core0"] * 4 + ["core1"] * 4, "size_packets": sizes + [30] * 4})
        queue.to_parquet(run / "tables" / "queue.parquet")
        index.append({"flows": 3, "scheme": scheme, "seed": 1, "directory": str(run)})
    pd.DataFrame(index).to_parquet(tmp_path / "runs.parquet")
    return ExperimentData(pd.DataFrame(), pd.DataFrame(), ["flows", "scheme"], {}, {}, tmp_path)


def test_queue_pmf_is_the_share_of_the_bottleneck_samples_per_length(tmp_path):
    data = queue_runs(tmp_path)
    artifact = {"id": "f211", "experiment": "load", "panels": "flows", "hue": "scheme", "levels": [3]}
    frame = psand.queue_pmf_frame(data, artifact)
    psand_rows = frame[frame["scheme"] == "PSAND"].set_index("size_packets")["probability"].to_dict()
    assert psand_rows == {0: 0.25, 5: 0.5, 6: 0.25}, "core1's samples are not the bottleneck's"
    assert frame.groupby("scheme")["probability"].sum().tolist() == [1.0, 1.0]
    (png,) = psand.queue_pmf(data, tmp_path / "fig", artifact)
    assert png.stat().st_size > 0


def test_run_table_where_reads_only_the_cells_runs(tmp_path):
    data = queue_runs(tmp_path)
    (tmp_path / "runs" / "RED" / "tables" / "queue.parquet").unlink()  # read it and the call fails
    table = data.run_table("queue", ["link", "size_packets"], {"scheme": "PSAND"})
    assert set(table["scheme"]) == {"PSAND"} and len(table) == 8
    with pytest.raises(ValueError, match="no row has scheme = 'BLUE'"):
        data.run_table("queue", ["link"], {"scheme": "BLUE"})


def test_metric_panels_draws_one_panel_per_level_and_needs_its_metric(tmp_path):
    cells = [(n, c, g, s) for n in (3, 103) for c in (0.5, 1) for g in (0.25, 1.5) for s in (1, 2)]
    rows = [
        {
            "flows": n,
            "coef": c,
            "gamma": g,
            "seed": s,
            "scope": "all",
            "metric": "bottleneck_drop_pct",
            "value": n / 10 + c + s,
        }
        for n, c, g, s in cells
    ]
    data = ExperimentData(pd.DataFrame(rows), pd.DataFrame(), ["flows", "coef", "gamma"])
    artifact = {
        "id": "f214",
        "experiment": "sweep",
        "metric": "bottleneck_drop_pct",
        "panels": "flows",
        "x": "coef",
        "hue": "gamma",
    }
    (png,) = psand.metric_panels(data, tmp_path / "f214", artifact)
    assert png.stat().st_size > 0
    with pytest.raises(ValueError, match="no values"):
        psand.metric_panels(data, tmp_path / "none", {**artifact, "metric": "bottleneck_queue_pkts_var"})


def design_runs(directory, access_delays: list[str]) -> ExperimentData:
    """Runs of one experiment: one with the basic flows only, one with flows on the given access delays."""
    index = []
    for i, delays in enumerate((["3ms", "3.5ms"], ["3ms", "3.5ms", *access_delays])):
        run = directory / f"run{i}"
        run.mkdir(parents=True)
        params = {
            "topology": {"core_link": {"bandwidth": "1.5Mb", "delay": "20ms"}, "edge_link": {"delay": "3ms"}},
            "core_queue": {"class": "Queue/PI", "knobs": {"limit_": 35}},
            "flows": [{"fid": 1}] + [{"fid": f + 2, "edge_link": {"delay": d}} for f, d in enumerate(delays[1:])],
        }
        (run / "params.json").write_text(json.dumps(params))
        index.append({"flows": len(delays), "seed": 1, "directory": str(run)})
    pd.DataFrame(index).to_parquet(directory / "runs.parquet")
    return ExperimentData(pd.DataFrame(), pd.DataFrame(), ["flows"], {}, {}, directory)


def test_design_table_takes_table_4_1_from_the_longest_path_of_each_experiment(tmp_path):
    same = design_runs(tmp_path / "same", ["3ms"])
    same.reference = design_runs(tmp_path / "diff", ["2.5ms", "102.0ms"])
    artifact = {"id": "table4_1", "experiment": "aqm_same", "reference": "aqm_diff"}
    csv, md = psand.design_table(same, tmp_path / "out" / "table4_1", artifact)
    frame = pd.read_csv(csv)
    assert frame["topology"].tolist() == ["aqm_same", "aqm_diff"]
    assert frame["T_p (ms)"].round(6).tolist() == [54.0, 448.0]  # 2(3 + 20 + 4) and 2(200 + 20 + 4), as in §4.3
    assert frame["R+ (ms)"].round(1).tolist() == [240.7, 634.7]  # Table 4.1: 241 and 634 ms
    assert frame["PI a"].iloc[0] > frame["PI a"].iloc[1]  # a longer R+ gives a gentler PI
    assert "unbounded" in md.read_text()  # AVQ's alpha* at N- = 3


def test_evolution_wraps_panels_without_rows_and_keeps_the_rows_axis_otherwise():
    schemes = ["BLUE", "PI", "REM", "AVQ", "AVQ_star", "LRED", "LRED_star", "PSAND", "extra"]
    wrapped = psand.evolution_layout(schemes, [None])
    assert [len(line) for line in wrapped] == [4, 4, 1]
    assert [cell[0] for line in wrapped for cell in line] == schemes
    grid = psand.evolution_layout(["RED", "PSAND"], [20, 50, 70])
    assert grid[2] == [("RED", 70), ("PSAND", 70)]


def ramp(times, rate: float = 1.0) -> list[float]:
    return [round(rate * t, 9) for t in times]


TEN_SECONDS = [round(0.01 * i, 2) for i in range(1001)]  # 0, 0.01, ..., 10 s as the monitors sample


def test_adaptation_ratios_frame_measures_both_ratios_at_each_instant():
    frame = psand.adaptation_ratios_frame(TEN_SECONDS, ramp(TEN_SECONDS), 0.5, 10)
    # K_cur(t) = t: at 0.5 s K_prev is 0 (the first instant), so change_rate starts at 1.0 s
    expected = [0.5 * k for k in range(2, 21)]
    assert frame["t"].tolist() == pytest.approx(expected, rel=1e-12)
    assert frame["k_cur"].tolist() == pytest.approx(expected, rel=1e-12)
    assert frame["k_prev"].tolist() == pytest.approx([t - 0.5 for t in expected], rel=1e-12)
    assert frame["prox_rate"].tolist() == pytest.approx([t / 10 for t in expected], rel=1e-12)
    assert frame["change_rate"].tolist() == pytest.approx([t / (t - 0.5) for t in expected], rel=1e-12)
    assert frame.loc[0, "change_rate"] == 2.0 and frame.loc[18, "prox_rate"] == 1.0  # 1.0/0.5; 10/10 at 10 s
    assert list(frame.columns) == ["t", "k_cur", "k_prev", "change_rate", "prox_rate"]


def test_adaptation_ratios_frame_takes_the_last_sample_before_each_instant_and_skips_a_zero_k_prev():
    times = [0.0, 0.3, 0.7, 1.0, 1.2, 1.6, 2.1]  # unordered-safe: shuffled below
    ave = [0.0, 0.0, 0.0, 4.0, 8.0, 2.0, 6.0]
    order = [3, 0, 6, 1, 5, 2, 4]
    frame = psand.adaptation_ratios_frame([times[i] for i in order], [ave[i] for i in order], 0.5, 8)
    # instants 0.5 (K 0), 1.0 (K 4, K_prev 0: left out), 1.5 (K 8), 2.0 (K 2); 2.5 is past the last sample
    assert frame["t"].tolist() == [1.5, 2.0]
    assert frame["k_cur"].tolist() == [8.0, 2.0] and frame["k_prev"].tolist() == [4.0, 8.0]
    assert frame["change_rate"].tolist() == [2.0, 0.25] and frame["prox_rate"].tolist() == [1.0, 0.25]
    with pytest.raises(ValueError, match="interval"):
        psand.adaptation_ratios_frame(times, ave, 0, 8)


def adaptation_series(metrics=("queue_pkts", "qvar_ave", "qvar_cur_max_p")) -> pd.DataFrame:
    """A 10-s run's bottleneck samples, two seeds: the average rises as t (seed 1) or 3 t (seed 2), the queue is
    twice the average, Max_p 0.1 + t / 100; core1 holds other values."""
    values = {"queue_pkts": lambda t: 2 * t, "qvar_ave": lambda t: t, "qvar_cur_max_p": lambda t: 0.1 + t / 100}
    rows = [
        {"seed": seed, "scope": scope, "metric": metric, "t": t, "value": round(factor * values[metric](t), 9)}
        for seed, factor in ((1, 1.0), (2, 3.0))
        for scope in ("core0", "core1")
        for metric in metrics
        for t in TEN_SECONDS
        if scope == "core0" or metric == "queue_pkts"
    ]
    return pd.DataFrame(rows)


def drawn_axes(monkeypatch) -> list:
    drawn = []
    real_subplots = psand.plt.subplots
    monkeypatch.setattr(psand.plt, "subplots", lambda *a, **k: drawn.append(real_subplots(*a, **k)) or drawn[-1])
    return drawn


def lines_of(ax) -> dict:
    return {line.get_label(): line for line in ax.get_lines()}


def test_adaptation_ratios_draws_the_first_seed_against_the_target_and_the_instants(tmp_path, monkeypatch):
    data = ExperimentData(pd.DataFrame(), adaptation_series(), [])
    drawn = drawn_axes(monkeypatch)
    (png,) = psand.adaptation_ratios(data, tmp_path / "fig2_1", {"id": "fig2_1", "experiment": "adaptation_10s"})
    assert png.name == "fig2_1.png" and png.stat().st_size > 0
    ((fig, (top, bottom)),) = drawn
    top_lines = lines_of(top)
    assert top_lines["WAQS"].get_ydata()[-1] == 10.0, "not the first seed's average (seed 2 ends at 30)"
    assert top_lines["IQS"].get_ydata()[-1] == 20.0
    assert list(top_lines["K_T = 10"].get_ydata()) == [10, 10]
    (instants,) = [c for c in top.collections if c.get_label() == "t_k"]
    assert [segment[0][0] for segment in instants.get_segments()] == pytest.approx([0.5 * k for k in range(1, 21)])
    assert list(top_lines["K_cur at t_k"].get_ydata()) == pytest.approx([0.5 * k for k in range(1, 21)])
    ratios = lines_of(bottom)
    expected = [0.5 * k for k in range(2, 21)]
    assert list(ratios["change_rate"].get_xdata()) == pytest.approx(expected)
    assert list(ratios["change_rate"].get_ydata()) == pytest.approx([t / (t - 0.5) for t in expected])
    assert list(ratios["prox_rate"].get_ydata()) == pytest.approx([t / 10 for t in expected])
    unlabelled = [line for name, line in ratios.items() if name.startswith("_")]
    assert [list(line.get_ydata()) for line in unlabelled] == [[1, 1]], "no reference line at 1"
    (twin,) = [ax for ax in fig.axes if ax not in (top, bottom)]
    assert lines_of(twin)["Max_p"].get_ydata()[-1] == pytest.approx(0.2)
    title = " ".join(fig._suptitle.get_text().split())  # as read, not as wrapped
    assert "t = 1 s" in title and "1 instant with K_prev = 0 left out" in title
    assert "K_T 10 packets (default)" in title and "every 0.5 s (default)" in title


def test_adaptation_ratios_reads_interval_and_target_from_the_queue_knobs(tmp_path, monkeypatch):
    psand_queue = {"class": "Queue/RED/PSAND", "knobs": {"interval_": 1.0, "ktarget_": 5, "thresh_": 0}}
    data = ExperimentData(pd.DataFrame(), adaptation_series(), [], {}, {"core_queue": psand_queue})
    drawn = drawn_axes(monkeypatch)
    artifact = {"id": "fig2_1", "experiment": "adaptation_10s"}
    psand.adaptation_ratios(data, tmp_path / "fig", artifact)
    ((fig, (_, bottom)),) = drawn
    ratios = lines_of(bottom)
    assert list(ratios["prox_rate"].get_xdata()) == pytest.approx(list(range(2, 11)))
    assert list(ratios["prox_rate"].get_ydata()) == pytest.approx([k / 5 for k in range(2, 11)])
    assert list(ratios["change_rate"].get_ydata()) == pytest.approx([k / (k - 1) for k in range(2, 11)])
    assert "the queue's ktarget_" in " ".join(fig._suptitle.get_text().split())
    # interval_ 0 switches the adaptation off: the ratios are read at the default instants, and the caption says so
    off = {**psand_queue, "knobs": {**psand_queue["knobs"], "interval_": 0}}
    data.params = {"core_queue": off}
    psand.adaptation_ratios(data, tmp_path / "off", artifact)
    assert list(lines_of(drawn[-1][1][1])["prox_rate"].get_xdata())[:2] == pytest.approx([1.0, 1.5])
    assert "every 0.5 s (default; the queue's interval_ 0 adapts nothing)" in " ".join(
        drawn[-1][0]._suptitle.get_text().split()
    )


def test_adaptation_ratios_needs_the_sampled_average(tmp_path):
    data = ExperimentData(pd.DataFrame(), adaptation_series(("queue_pkts", "qvar_cur_max_p")), [])
    with pytest.raises(ValueError, match="fig2_1: adaptation_10s does not sample the average .* add ave_"):
        psand.adaptation_ratios(data, tmp_path / "fig", {"id": "fig2_1", "experiment": "adaptation_10s"})
    assert not (tmp_path / "fig.png").exists()
    short = adaptation_series()
    data = ExperimentData(pd.DataFrame(), short[short["t"] <= 0.7], [])
    with pytest.raises(ValueError, match="change_rate is nowhere defined"):
        psand.adaptation_ratios(data, tmp_path / "short", {"id": "fig2_1", "experiment": "adaptation_10s"})


def test_adaptation_ratios_draws_one_run_only(tmp_path):
    series = pd.concat([adaptation_series().assign(scheme=s) for s in ("RED", "PSAND")])
    data = ExperimentData(pd.DataFrame(), series, ["scheme"])
    with pytest.raises(ValueError, match="scheme left free"):
        psand.adaptation_ratios(data, tmp_path / "fig", {"id": "f", "experiment": "e"})
    (png,) = psand.adaptation_ratios(
        data, tmp_path / "fig", {"id": "f", "experiment": "e", "where": {"scheme": "PSAND"}}
    )
    assert png.exists()


def test_adaptation_ratios_goes_logarithmic_when_a_near_empty_start_dwarfs_the_ratios(tmp_path, monkeypatch):
    series = adaptation_series()
    average = series["metric"] == "qvar_ave"
    # the average is 1e-4 at 0.5 s, so change_rate at 1.0 s is 10 000; at 2.0 s it is 0 (K_cur = 0)
    series.loc[average & (series["t"] <= 0.5), "value"] = 1e-4
    series.loc[average & series["t"].between(1.6, 2.0), "value"] = 0.0
    data = ExperimentData(pd.DataFrame(), series, [])
    drawn = drawn_axes(monkeypatch)
    psand.adaptation_ratios(data, tmp_path / "fig", {"id": "f", "experiment": "e"})
    ((fig, (_, bottom)),) = drawn
    assert bottom.get_yscale() == "log"
    ratios = lines_of(bottom)
    assert ratios["change_rate"].get_ydata()[0] == pytest.approx(1e4)
    # K_cur = 0 at 2.0 s leaves K_prev = 0 at 2.5 s: that instant is left out as the first one is
    assert list(ratios["change_rate"].get_xdata()[:5]) == [1.0, 1.5, 2.0, 3.0, 3.5]
    assert list(ratios["change_rate"].get_ydata()[1:5]) == pytest.approx([1.5, 0.0, 3.0 / 2.5, 3.5 / 3.0])
    title = " ".join(fig._suptitle.get_text().split())
    assert "2 ratios of 0 (K_cur = 0) off the log scale" in title and "(2 instants with K_prev = 0 left out)" in title
    psand.adaptation_ratios(
        ExperimentData(pd.DataFrame(), adaptation_series(), []), tmp_path / "lin", {"id": "f", "experiment": "e"}
    )
    assert drawn[-1][1][1].get_yscale() == "linear"


def test_adaptation_ratios_reads_the_knobs_of_the_drawn_runs_params(tmp_path, monkeypatch):
    index = []
    for seed, interval in ((1, 1.0), (2, 0.5)):
        run = tmp_path / "runs" / f"seed{seed}"
        run.mkdir(parents=True)
        queue = {"class": "Queue/RED/PSAND", "knobs": {"interval_": interval, "ktarget_": 10}}
        (run / "params.json").write_text(json.dumps({"flows": [], "core_queue": queue}))
        index.append({"seed": seed, "directory": str(run)})
    pd.DataFrame(index[::-1]).to_parquet(tmp_path / "runs.parquet")  # seed 2's run listed first
    first_listed = {"core_queue": {"class": "Queue/RED/PSAND", "knobs": {"interval_": 0.5}}}
    data = ExperimentData(pd.DataFrame(), adaptation_series(), [], {}, first_listed, tmp_path)
    drawn = drawn_axes(monkeypatch)
    psand.adaptation_ratios(data, tmp_path / "fig", {"id": "fig2_1", "experiment": "adaptation_10s"})
    assert list(lines_of(drawn[0][1][1])["change_rate"].get_xdata()) == pytest.approx(list(range(2, 11)))
