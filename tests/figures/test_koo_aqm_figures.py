"""figures.koo_aqm and figures.common on small synthetic tables built here: 3 queues x 2
variants x 3 seeds, 5 one-second intervals of series, values chosen so that every table
cell can be computed by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from experiments.common.markdown import contains_row
from figures import koo_aqm
from figures.common import ExperimentData, levels, seed_note, select

QUEUES = ("DropTail", "RED", "PI")
VARIANTS = ("as_text", "as_script")
SEEDS = (1, 2, 3)
TIMES = (0.0, 1.0, 2.0, 3.0, 4.0)
CORE_LINKS = ("core0", "core1", "core2")
FLOWS = ("flow1", "flow2", "flow3", "flow4")

# Per-run end-to-end metrics (scope all): base value of each queue; seed s adds
# (s - 2) x STEP[metric] and variant as_script adds VARIANT_SHIFT[metric], so over the
# three seeds the mean is base (+ shift) and the sample standard deviation is STEP.
E2E_METRICS = ("e2e_loss_pct_mean", "e2e_delay_ms_mean", "e2e_loss_pct_std", "e2e_delay_ms_std")
E2E_BASE = {
    "DropTail": dict(zip(E2E_METRICS, (0.5, 70.0, 0.8, 20.0), strict=True)),
    "RED": dict(zip(E2E_METRICS, (0.9, 45.0, 1.2, 12.0), strict=True)),
    "PI": dict(zip(E2E_METRICS, (0.1, 40.0, 0.1, 7.0), strict=True)),
}
STEP = {"e2e_loss_pct_mean": 0.03, "e2e_delay_ms_mean": 2.0, "e2e_loss_pct_std": 0.06, "e2e_delay_ms_std": 1.5}
VARIANT_SHIFT = {"as_text": 0.0, "as_script": 10.0}
# Mean queueing delay (ms) of core0, core1, core2 per queue discipline, in every run.
CORE_DELAY_MS = {"DropTail": (60.0, 0.6, 0.3), "RED": (8.0, 0.7, 0.3), "PI": (25.0, 0.5, 0.5)}
T975_DF2 = 4.302652729911275  # two-sided 95 % Student t quantile, 2 degrees of freedom (3 seeds)


def _context(experiment: str, queue: str, variant: str, seed: int) -> dict:
    # Column order as experiments.measure.aggregate writes it (context keys come back sorted).
    return {
        "experiment": experiment,
        "paper": "koo_aqm",
        "queue": queue,
        "seed": seed,
        "variant": variant,
        "run_key": f"{queue}-{variant}-{seed}",
    }


def synthetic(experiment: str = "chain", seeds=SEEDS, times=TIMES) -> ExperimentData:
    metrics, series = [], []
    for queue in QUEUES:
        for variant in VARIANTS:
            for seed in seeds:
                ctx = _context(experiment, queue, variant, seed)
                shift = VARIANT_SHIFT[variant]
                for metric, base in E2E_BASE[queue].items():
                    value = base + (seed - 2) * STEP[metric] + shift
                    metrics.append({**ctx, "scope": "all", "metric": metric, "value": value})
                for link, delay in zip(CORE_LINKS, CORE_DELAY_MS[queue], strict=True):
                    metrics.append({**ctx, "scope": link, "metric": "node_delay_ms_avg", "value": delay + shift})
                    metrics.append({**ctx, "scope": link, "metric": "utilization_pct", "value": 90.0})
                    metrics.append({**ctx, "scope": link, "metric": "queue_above_30000B_pct", "value": seed * 10.0})
                for t in times:
                    wave = math.sin(t + seed)  # some spread over seeds, the same in every call
                    link = {
                        "utilization_pct": 95.0 - 5 * (queue == "RED") + wave,
                        "node_loss_pct_avg": 1.0 + 0.3 * wave + (queue == "RED"),
                        "node_delay_ms_avg": CORE_DELAY_MS[queue][0] + 2 * wave,
                        "node_queue_bytes_avg": 1250.0 * CORE_DELAY_MS[queue][0] + 1000 * wave,
                    }
                    series += [{**ctx, "scope": "core0", "metric": m, "t": t, "value": v} for m, v in link.items()]
                    for n, flow in enumerate(FLOWS, start=1):
                        delay = 32 + 3 * sum(CORE_DELAY_MS[queue]) / 3 + n + wave
                        series.append({**ctx, "scope": flow, "metric": "e2e_delay_ms_mean", "t": t, "value": delay})
                        series.append({**ctx, "scope": flow, "metric": "e2e_loss_pct", "t": t, "value": 0.1 * n})
                        bound = 4 * CORE_DELAY_MS[queue][0] + 32 + seed  # the same for every flow of a run
                        series.append({**ctx, "scope": flow, "metric": "e2e_delay_bound_ms", "t": t, "value": bound})
    metrics, series = pd.DataFrame(metrics), pd.DataFrame(series)
    return ExperimentData(metrics, series, ["queue", "variant"], params=PARAMS)


# What figures read from a run's params.json: link delays and what each flow is.
PARAMS = {
    "topology": {"core_link": {"delay": "10ms"}, "edge_link": {"delay": "1ms"}},
    "flows": [{"fid": n, "kind": "ftp", "agent": {"class": "Agent/TCP/Newreno"}} for n in (1, 2, 3)]
    + [{"fid": 4, "kind": "pareto", "agent": {"class": "Agent/UDP"}}],
}


FIG7 = {"id": "fig7", "experiment": "single_bottleneck", "function": "fig7", "caption": "Fig. 7. test caption"}
FIG8 = {"id": "fig8", "experiment": "chain", "function": "fig8", "where": {"queue": "RED"}, "caption": "Fig. 8."}
TABLE2 = {"id": "table2", "experiment": "chain", "function": "table2", "caption": "Table 2. test caption"}


@pytest.fixture(scope="module")
def data() -> ExperimentData:
    return synthetic()


def _bytes(paths: list[Path]) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in paths}


# ------------------------------------------------------------------ figures.common


def test_load_reads_both_tables_and_infers_axes(tmp_path, data):
    data.metrics.to_parquet(tmp_path / "metrics.parquet", index=False)
    data.series.to_parquet(tmp_path / "series.parquet", index=False)
    loaded = ExperimentData.load(tmp_path)
    assert loaded.axes == ["queue", "variant"]
    assert len(loaded.metrics) == len(data.metrics) and len(loaded.series) == len(data.series)
    assert set(loaded.series["scope"]) == {"core0", *FLOWS}


def test_select_keeps_only_the_labelled_rows(data):
    rows = select(data.metrics, {"queue": "RED", "variant": "as_script"})
    assert set(rows["queue"]) == {"RED"} and set(rows["variant"]) == {"as_script"}
    assert len(rows) == len(data.metrics) / (len(QUEUES) * len(VARIANTS))
    assert select(data.metrics, None) is data.metrics
    # Labels are compared as text, as claims do: an integer axis matches a YAML string and vice versa.
    numeric = pd.DataFrame({"flows_n": [2, 4, 8], "value": [1.0, 2.0, 3.0]})
    assert select(numeric, {"flows_n": "4"})["value"].tolist() == [2.0]


def test_select_rejects_unknown_axis_and_label(data):
    with pytest.raises(ValueError, match="'bandwidth' is not a column"):
        select(data.metrics, {"bandwidth": "10Mb"})
    with pytest.raises(ValueError, match=r"no row has queue = 'Red'.*'DropTail', 'PI', 'RED'"):
        select(data.metrics, {"queue": "Red"})


def test_levels_puts_preferred_order_first(data):
    assert levels(data.metrics, "queue", ("DropTail", "RED", "PI")) == ["DropTail", "RED", "PI"]
    assert levels(data.metrics, "queue") == ["DropTail", "PI", "RED"]
    assert levels(data.metrics, "variant", ("as_script",)) == ["as_script", "as_text"]


def test_seed_note_counts_seeds_per_group(data):
    assert seed_note(data.metrics, ["queue", "variant"]) == "3 seeds"
    uneven = data.metrics[~((data.metrics["queue"] == "PI") & (data.metrics["seed"] == 3))]
    assert seed_note(uneven, ["queue", "variant"]) == "2–3 seeds"
    assert seed_note(uneven[uneven["seed"] == 1], ["queue"]) == "1 seed"


# ------------------------------------------------------------------ Table 2


def test_table2_cells_are_mean_and_ci_over_seeds(data):
    frame = koo_aqm.table2_frame(data, TABLE2)
    assert frame[["queue", "variant"]].values.tolist() == [[q, v] for q in QUEUES for v in VARIANTS]
    assert frame["seeds"].tolist() == [3] * 6
    for row in frame.to_dict("records"):
        for metric, base in E2E_BASE[row["queue"]].items():
            # values base + shift - step, base + shift, base + shift + step: mean base + shift, sample std step
            assert row[metric] == pytest.approx(base + VARIANT_SHIFT[row["variant"]])
            assert row[f"{metric}_ci95"] == pytest.approx(T975_DF2 * STEP[metric] / math.sqrt(3))


def test_table2_writes_csv_numbers_and_readable_markdown(tmp_path, data):
    written = koo_aqm.table2(data, tmp_path / "table2", TABLE2)
    csv, md = tmp_path / "table2.csv", tmp_path / "table2.md"
    assert written == [csv, md]
    table = pd.read_csv(csv)
    assert list(table.columns) == [
        "queue",
        "variant",
        "seeds",
        "e2e_loss_pct_mean",
        "e2e_loss_pct_mean_ci95",
        "e2e_delay_ms_mean",
        "e2e_delay_ms_mean_ci95",
        "e2e_loss_pct_std",
        "e2e_loss_pct_std_ci95",
        "e2e_delay_ms_std",
        "e2e_delay_ms_std_ci95",
    ]
    red = table[(table["queue"] == "RED") & (table["variant"] == "as_text")].iloc[0]
    assert red["e2e_delay_ms_mean"] == pytest.approx(45.0)
    assert red["e2e_delay_ms_mean_ci95"] == pytest.approx(T975_DF2 * 2.0 / math.sqrt(3))
    text = md.read_text()
    assert text.startswith("**Table 2. test caption**\n")
    # RED, as_text: loss 0.900 ± 4.303 x 0.03 / sqrt 3 = 0.0745; delay 45.00 ± 4.303 x 2 / sqrt 3 = 4.97
    assert contains_row(text, "| RED | as_text | 3 | 0.900 ± 0.075 | 45.00 ± 4.97 | 1.200 ± 0.149 | 12.00 ± 3.73 |")
    # PI, as_script: every value shifted by 10
    assert contains_row(text, "| PI | as_script | 3 | 10.100 ± 0.075 | 50.00 ± 4.97 | 10.100 ± 0.149 | 17.00 ± 3.73 |")


def test_table2_applies_where_and_marks_single_seed(tmp_path):
    one_seed = synthetic(seeds=(2,))
    frame = koo_aqm.table2_frame(one_seed, {**TABLE2, "where": {"variant": "as_text"}})
    assert frame["variant"].tolist() == ["as_text"] * 3
    assert frame["e2e_delay_ms_mean"].tolist() == [70.0, 45.0, 40.0]
    assert frame["e2e_delay_ms_mean_ci95"].isna().all()
    koo_aqm.table2(one_seed, tmp_path / "t", {**TABLE2, "where": {"variant": "as_text"}})
    assert contains_row((tmp_path / "t.md").read_text(), "| DropTail | as_text | 1 | 0.500 ± n/a | 70.00 ± n/a |")


def test_table2_without_metrics_is_an_error():
    empty = synthetic()
    empty.metrics = empty.metrics[empty.metrics["scope"] != "all"]
    with pytest.raises(ValueError, match="no end-to-end metrics"):
        koo_aqm.table2_frame(empty, TABLE2)


# ------------------------------------------------------------------ Fig. 7 and Fig. 8


def test_fig7_rows_are_the_bottleneck_in_display_units(data):
    rows = koo_aqm.fig7_rows(data, FIG7)
    assert set(rows["scope"]) == {"core0"}
    assert set(rows["metric"]) == {"utilization_pct", "node_loss_pct_avg", "node_delay_ms_avg", "node_queue_bytes_avg"}
    queue_kb = rows[rows["metric"] == "node_queue_bytes_avg"]
    source = data.series[(data.series["scope"] == "core0") & (data.series["metric"] == "node_queue_bytes_avg")]
    assert queue_kb["value"].tolist() == pytest.approx((source["value"] / 1000).tolist())
    assert set(rows["queue"]) == set(QUEUES) and set(rows["variant"]) == set(VARIANTS)


def test_fig8_rows_use_only_the_selected_queue(data):
    rows, bounds = koo_aqm.fig8_rows(data, FIG8)
    assert set(rows["queue"]) == {"RED"}
    assert set(rows["variant"]) == set(VARIANTS)  # both readings stay
    assert set(rows["scope"]) == set(FLOWS) and set(rows["metric"]) == {"e2e_delay_ms_mean"}
    assert len(rows) == len(VARIANTS) * len(SEEDS) * len(TIMES) * len(FLOWS)
    # The bound is the runs' own series (the numbers the claim on it reads), of RED only.
    assert set(bounds["queue"]) == {"RED"} and set(bounds["metric"]) == {"e2e_delay_bound_ms"}
    assert bounds["value"].mean() == pytest.approx(4 * 8.0 + 32 + 2)  # seeds 1..3 add 2 on average


def test_flow_kinds_come_from_the_runs_params():
    assert koo_aqm.flow_kinds(PARAMS) == {
        "flow1": "ftp over TCP/Newreno",
        "flow2": "ftp over TCP/Newreno",
        "flow3": "ftp over TCP/Newreno",
        "flow4": "pareto over UDP",
    }


def test_fig8_output_ignores_other_queues(tmp_path, data):
    """Changing every row of DropTail and PI must leave the RED figure byte for byte the same."""
    koo_aqm.fig8(data, tmp_path / "a", FIG8)
    scrambled = ExperimentData(data.metrics.copy(), data.series.copy(), data.axes, params=data.params)
    for table in (scrambled.metrics, scrambled.series):
        table.loc[table["queue"] != "RED", "value"] *= 7.0
    koo_aqm.fig8(scrambled, tmp_path / "b", FIG8)
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


@pytest.mark.parametrize(("function", "artifact"), [(koo_aqm.fig7, FIG7), (koo_aqm.fig8, FIG8)])
def test_figures_write_a_png(tmp_path, data, function, artifact):
    written = function(data, tmp_path / "figures" / artifact["id"], artifact)
    png = tmp_path / "figures" / f"{artifact['id']}.png"
    assert written == [png]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert b"Software" not in png.read_bytes()  # no matplotlib version stamp


def test_where_with_a_typo_is_an_error(tmp_path, data):
    with pytest.raises(ValueError, match="no row has queue = 'Red'"):
        koo_aqm.fig8(data, tmp_path / "fig8", {**FIG8, "where": {"queue": "Red"}})


LOAD = {"id": "load", "experiment": "chain", "function": "load", "caption": "Load"}


def test_load_table_gives_each_core_link_and_threshold(tmp_path, data):
    frame, columns = koo_aqm.load_frame(data, LOAD)
    assert len(frame) == len(QUEUES) * len(VARIANTS) * len(CORE_LINKS)
    assert ("queue_above_30000B_pct", "Time Q > 30,000 B (%)", 1) in columns
    red = frame[(frame["queue"] == "RED") & (frame["variant"] == "as_text") & (frame["link"] == "core1")].iloc[0]
    assert red["node_delay_ms_avg"] == pytest.approx(0.7) and red["queue_above_30000B_pct"] == pytest.approx(20.0)
    written = koo_aqm.load(data, tmp_path / "load", LOAD)
    assert contains_row(written[1].read_text(), "| DropTail | as_text | core0 | 3 |")


@pytest.mark.parametrize(
    ("function", "artifact"),
    [(koo_aqm.fig7, FIG7), (koo_aqm.fig8, FIG8), (koo_aqm.table2, TABLE2), (koo_aqm.load, LOAD)],
)
def test_outputs_are_byte_identical_across_calls(tmp_path, data, function, artifact):
    first = function(data, tmp_path / "one" / artifact["id"], artifact)
    second = function(synthetic(), tmp_path / "two" / artifact["id"], artifact)
    assert all(p.stat().st_size > 0 for p in first + second)
    assert _bytes(first) == _bytes(second)
