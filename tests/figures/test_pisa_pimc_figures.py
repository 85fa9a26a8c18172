"""figures.pisa_pimc on small synthetic tables built here: 4 queues x 3 seeds, per-run metrics
chosen so that every table cell can be computed by hand (the value of seed s is base + (s - 2) x
STEP: the mean over seeds is base, the sample standard deviation STEP), ten one-second series
samples, and a few run tables on disk for the pooled distributions."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from experiments.common.markdown import contains_row, row_cells
from figures import pisa_pimc
from figures.common import ExperimentData

QUEUES = ("PI", "PISA", "PIMC", "DropTail")
SEEDS = (1, 2, 3)
TIMES = tuple(float(t) for t in range(10))
STEP = 0.3
T975_DF2 = 4.302652729911275  # two-sided 95 % Student t quantile, 2 degrees of freedom (3 seeds)
HALF = T975_DF2 * STEP / math.sqrt(3)  # the 95 % half-width of every cell built with STEP
OBJECTS = {"PI": 1000.0, "PISA": 1100.0, "PIMC": 1250.0, "DropTail": 900.0}  # objects_completed, scope all
HTTP_RTTS = (20, 100, 400)  # group:http_<rtt>; 100 after 20 only if sorted as numbers
HTTP_SHARE = {20: 0.5, 100: 0.3, 400: 0.2}  # each group's share of all objects


def cell(experiment: str, labels: dict, seed: int) -> dict:
    key = "-".join(str(v) for v in labels.values())
    return {"paper": "pisa_pimc", "experiment": experiment, **labels, "seed": seed, "run_key": f"{key}-{seed}"}


METRICS = sorted({m for m, *_ in pisa_pimc.CLASS_COLUMNS + pisa_pimc.UTILIZATION_COLUMNS})
SCOPE_OFFSET = {"all": 0.0, "group:ftp": 1.0, "group:http": 2.0}


def base(metric: str, scope: str, q: int) -> float:
    """A distinct, hand-computable mean per (metric, scope, queue q)."""
    return 10.0 * (1 + METRICS.index(metric)) + SCOPE_OFFSET[scope] + q


def metric_rows(experiment: str, labels: dict, metric: str, scope: str, mean: float, step: float = STEP) -> list:
    return [
        {**cell(experiment, labels, s), "scope": scope, "metric": metric, "value": mean + (s - 2) * step} for s in SEEDS
    ]


def standard() -> ExperimentData:
    """The `standard` experiment: axis queue."""
    metrics, series = [], []
    for q, queue in enumerate(QUEUES):
        labels = {"queue": queue}
        for metric, scope, *_ in pisa_pimc.CLASS_COLUMNS + pisa_pimc.UTILIZATION_COLUMNS:
            if not any(m["metric"] == metric and m["scope"] == scope and m["queue"] == queue for m in metrics):
                metrics += metric_rows("standard", labels, metric, scope, base(metric, scope, q))
        metrics += metric_rows("standard", labels, "objects_completed", "all", OBJECTS[queue], step=10.0)
        for seed in SEEDS:
            ctx = cell("standard", labels, seed)
            for t in TIMES:
                for scope, level in (("group:ftp", 1.0), ("group:http", 2.0), ("all", 3.0)):
                    drops = 10.0 * q + level + t + (seed - 2)  # mean over seeds: 10 q + level + t
                    series.append({**ctx, "scope": scope, "metric": "core_drops_per_s", "t": t, "value": drops})
                    util = {"group:ftp": 0.3, "group:http": 0.6, "all": 0.9}[scope] + 0.01 * (seed - 2)
                    series.append({**ctx, "scope": scope, "metric": "core_utilization", "t": t, "value": util})
                series.append({**ctx, "scope": "core0", "metric": "queue_pkts", "t": t, "value": 20.0 * q + seed + t})
    return ExperimentData(pd.DataFrame(metrics), pd.DataFrame(series), ["queue"], {"queue": list(QUEUES)})


@pytest.fixture(scope="module")
def data() -> ExperimentData:
    return standard()


def read_csv(paths: list[Path]) -> pd.DataFrame:
    assert [p.suffix for p in paths] == [".csv", ".md"] and all(p.stat().st_size > 0 for p in paths)
    return pd.read_csv(paths[0])


# ------------------------------------------------------------------ tables


def test_class_table_values(data, tmp_path):
    artifact = {"id": "table5_2", "experiment": "standard", "caption": "Table 5.2. test"}
    written = pisa_pimc.class_table(data, tmp_path / "table5_2", artifact)
    frame = read_csv(written)
    assert frame["queue"].tolist() == list(QUEUES) and (frame["seeds"] == 3).all()
    for q, queue in enumerate(QUEUES):
        row = frame[frame["queue"] == queue].iloc[0]
        for metric, scope, *_ in pisa_pimc.CLASS_COLUMNS:
            assert row[f"{metric}@{scope}"] == pytest.approx(base(metric, scope, q)), (queue, metric, scope)
            assert row[f"{metric}@{scope}_ci95"] == pytest.approx(HALF, rel=1e-3)
    md = written[1].read_text().splitlines()
    assert md[0] == "**Table 5.2. test**"
    assert row_cells(md[2])[1:3] == ("Seeds", "FTP cwnd")
    pisa_row = next(row_cells(line) for line in md if line.startswith("|") and row_cells(line)[0] == "PISA")
    ftp_cwnd = base("core_cwnd_hint_mean", "group:ftp", 1)
    assert f"{ftp_cwnd:.2f} ± {HALF:.2f}" in pisa_row
    assert f"{base('core_drops_per_s', 'group:http', 1):.3f} ± {HALF:.3f}" in pisa_row


def test_class_table_levels_pick_the_rows(data, tmp_path):
    artifact = {"id": "table5_1", "experiment": "standard", "levels": ["DropTail", "PI"]}
    frame = read_csv(pisa_pimc.class_table(data, tmp_path / "table5_1", artifact))
    assert sorted(frame["queue"]) == ["DropTail", "PI"]
    with pytest.raises(ValueError, match=r"no runs with queue = \['RED'\]"):
        pisa_pimc.class_table(data, tmp_path / "t", {**artifact, "levels": ["PI", "RED"]})


# An artifact's `levels` give the rows' order too, and objects_table's baseline is the first of them.


def test_class_table_rows_in_the_order_of_the_levels(data, tmp_path):
    artifact = {"id": "table5_1", "experiment": "standard", "levels": ["DropTail", "PI"]}
    frame = read_csv(pisa_pimc.class_table(data, tmp_path / "table5_1", artifact))
    assert frame["queue"].tolist() == ["DropTail", "PI"]


def test_objects_table_baseline_is_the_first_of_the_levels(data, tmp_path):
    artifact = {"id": "table5_4", "experiment": "standard", "levels": ["DropTail", "PI"]}
    frame = read_csv(pisa_pimc.objects_table(data, tmp_path / "t", artifact))
    assert frame["improvement_pct"].tolist() == pytest.approx([0.0, (1000 / 900 - 1) * 100])


def test_utilization_table_values(data, tmp_path):
    frame = read_csv(pisa_pimc.utilization_table(data, tmp_path / "table5_3", {"id": "t", "experiment": "standard"}))
    assert frame["queue"].tolist() == list(QUEUES)
    for q, queue in enumerate(QUEUES):
        row = frame[frame["queue"] == queue].iloc[0]
        for scope in ("group:ftp", "group:http", "all"):
            assert row[f"core_utilization@{scope}"] == pytest.approx(base("core_utilization", scope, q))


def test_objects_table_change_against_the_first_level(data, tmp_path):
    artifact = {"id": "table5_4", "experiment": "standard", "levels": ["PI", "PISA", "PIMC", "DropTail"]}
    written = pisa_pimc.objects_table(data, tmp_path / "table5_4", artifact)
    frame = read_csv(written)
    assert frame["objects_completed"].tolist() == pytest.approx([OBJECTS[q] for q in QUEUES])
    assert frame["improvement_pct"].tolist() == pytest.approx([0.0, 10.0, 25.0, -10.0])
    assert frame["objects_completed_ci95"].tolist() == pytest.approx([T975_DF2 * 10 / math.sqrt(3)] * 4, rel=1e-3)
    md = written[1].read_text()
    assert contains_row(md, "| PISA | 3 | 1100 ± 25 | +10.0 % |") and contains_row(
        md, "| DropTail | 3 | 900 ± 25 | -10.0 % |"
    )
    assert "vs PI" in md


def rtt_data() -> ExperimentData:
    """rtt_groups: axes ftp_rtt x queue; objects per HTTP RTT group and in all."""
    metrics = []
    for ftp_rtt, scale in (("200ms", 1.0), ("2000ms", 2.0)):
        for queue in ("PI", "PISA"):
            labels = {"ftp_rtt": ftp_rtt, "queue": queue}
            total = scale * OBJECTS[queue]
            metrics += metric_rows("rtt_groups", labels, "objects_completed", "all", total, step=6.0)
            for rtt in HTTP_RTTS:
                share = HTTP_SHARE[rtt] * total
                metrics += metric_rows("rtt_groups", labels, "objects_completed", f"group:http_{rtt}", share, step=2.0)
            metrics += metric_rows("rtt_groups", labels, "objects_completed", "group:ftp", 1.0)  # not an HTTP group
    return ExperimentData(pd.DataFrame(metrics), pd.DataFrame(), ["ftp_rtt", "queue"], {"queue": ["PI", "PISA"]})


def test_rtt_objects_table_shares(tmp_path):
    artifact = {"id": "table5_10", "experiment": "rtt_groups", "where": {"ftp_rtt": "200ms"}}
    written = pisa_pimc.rtt_objects_table(rtt_data(), tmp_path / "table5_10", artifact)
    frame = read_csv(written)
    groups = [f"group:http_{rtt}" for rtt in HTTP_RTTS] + ["all"]
    assert frame["group"].tolist() == groups * 2, "HTTP groups in RTT order (20 before 100), then all"
    for queue in ("PI", "PISA"):
        part = frame[frame["queue"] == queue].set_index("group")
        assert part.loc["all", "objects"] == pytest.approx(OBJECTS[queue])
        assert part.loc["all", "share_pct"] == pytest.approx(100.0)
        for rtt in HTTP_RTTS:
            assert part.loc[f"group:http_{rtt}", "objects"] == pytest.approx(HTTP_SHARE[rtt] * OBJECTS[queue])
            assert part.loc[f"group:http_{rtt}", "share_pct"] == pytest.approx(100 * HTTP_SHARE[rtt])
        assert (part["seeds"] == 3).all()
    md = written[1].read_text().splitlines()
    assert row_cells(md[2]) == ("HTTP group", "PI objects", "PISA objects", "PI %", "PISA %")
    assert row_cells(md[4]) == ("RTT 20 ms", "500", "550", "50.0", "50.0")
    assert row_cells(md[-3]) == ("Total", "1000", "1100", "100.0", "100.0")
    # the other FTP RTT is the other half of the runs
    other = read_csv(
        pisa_pimc.rtt_objects_table(rtt_data(), tmp_path / "t", {**artifact, "where": {"ftp_rtt": "2000ms"}})
    )
    assert other.set_index(["queue", "group"]).loc[("PI", "all"), "objects"] == pytest.approx(2000.0)


def test_variance_table_windows(tmp_path):
    metrics = []
    for i, (start, end) in enumerate(pisa_pimc.VARIANCE_WINDOWS[:-1]):  # the last window has no values
        metric = f"core_drops_per_s_var@{start}-{end}"
        metrics += metric_rows("stability", {"queue": "PIMC"}, metric, "group:ftp", 2.0 + i)
        metrics += metric_rows("stability", {"queue": "PIMC"}, metric, "group:http", 0.5 + i)
    data = ExperimentData(pd.DataFrame(metrics), pd.DataFrame(), ["queue"])
    written = pisa_pimc.variance_table(data, tmp_path / "table4_1", {"id": "table4_1", "experiment": "stability"})
    frame = read_csv(written)
    assert frame["interval"].tolist() == [f"{a}-{b}" for a, b in pisa_pimc.VARIANCE_WINDOWS]
    n = len(pisa_pimc.VARIANCE_WINDOWS) - 1
    assert frame["ftp"].tolist()[:n] == pytest.approx([2.0 + i for i in range(n)])
    assert frame["http"].tolist()[:n] == pytest.approx([0.5 + i for i in range(n)])
    assert frame["ftp_ci95"].tolist()[:n] == pytest.approx([HALF] * n, rel=1e-3)
    assert math.isnan(frame["ftp"].iloc[-1]) and math.isnan(frame["http_ci95"].iloc[-1])
    md = written[1].read_text()
    assert contains_row(md, f"| 0 - 100 s | 2.000 ± {HALF:.3f} | 0.500 ± {HALF:.3f} |")
    assert contains_row(md, "| 1000 - 2000 s | n/a ± n/a | n/a ± n/a |") and "3 seeds" in md


def test_mincwnd_table_over_its_own_axis(tmp_path):
    metrics = []
    for m, mincwnd in enumerate((1, 4, 7)):
        labels = {"mincwnd": mincwnd}
        metrics += metric_rows("mincwnd", labels, "core_drops_per_s", "all", 5.0 - m)
        metrics += metric_rows("mincwnd", labels, "object_delay_client_s_median", "all", 0.2 + 0.1 * m)
    data = ExperimentData(pd.DataFrame(metrics), pd.DataFrame(), ["mincwnd"], {"mincwnd": [1, 4, 7]})
    artifact = {"id": "table3_1", "experiment": "mincwnd", "hue": "mincwnd"}
    frame = read_csv(pisa_pimc.mincwnd_table(data, tmp_path / "table3_1", artifact))
    assert frame["mincwnd"].tolist() == [1, 4, 7]
    assert frame["core_drops_per_s@all"].tolist() == pytest.approx([5.0, 4.0, 3.0])
    assert frame["object_delay_client_s_median@all"].tolist() == pytest.approx([0.2, 0.3, 0.4])


# ------------------------------------------------------------------ figures


@pytest.fixture
def drawn(monkeypatch):
    """What each figure function saves: per axes, its title and its lines as (label, x, y)."""
    figures = []
    original = pisa_pimc.save_figure

    def spy(fig, out, pdf=False):
        figures.append(
            [
                {
                    "title": ax.get_title(),
                    "lines": [(ln.get_label(), list(ln.get_xdata()), list(ln.get_ydata())) for ln in ax.get_lines()],
                }
                for ax in fig.axes
            ]
        )
        return original(fig, out, pdf)

    monkeypatch.setattr(pisa_pimc, "save_figure", spy)
    return figures


def test_drops_over_time_is_the_mean_over_seeds(data, tmp_path, monkeypatch):
    calls = []
    original = pisa_pimc.sns.lineplot
    monkeypatch.setattr(pisa_pimc.sns, "lineplot", lambda **kw: calls.append(kw) or original(**kw))
    artifact = {"id": "fig5_24", "experiment": "standard", "levels": ["PISA", "PI"], "scope": "ftp"}
    written = pisa_pimc.drops_over_time(data, tmp_path / "fig5_24", artifact)
    assert [p.name for p in written] == ["fig5_24.png"] and written[0].stat().st_size > 10_000
    assert len(calls) == 1 and calls[0]["hue_order"] == ["PISA", "PI"]
    mean = calls[0]["data"].set_index(["queue", "t"])["value"]
    assert sorted(set(mean.index.get_level_values("queue"))) == ["PI", "PISA"]
    assert mean[("PISA", 3.0)] == pytest.approx(10 * 1 + 1.0 + 3.0) and mean[("PI", 9.0)] == pytest.approx(10.0)
    # without a scope: FTP and HTTP side by side
    calls.clear()
    pisa_pimc.drops_over_time(data, tmp_path / "fig4_3", {"id": "fig4_3", "experiment": "standard"})
    assert len(calls) == 2 and calls[0]["hue_order"] == list(QUEUES)
    assert calls[1]["data"].set_index(["queue", "t"])["value"][("PI", 0.0)] == pytest.approx(2.0)  # HTTP


def test_drops_over_time_needs_the_scope(data, tmp_path):
    with pytest.raises(ValueError, match="no core_drops_per_s series for p2p"):
        pisa_pimc.drops_over_time(data, tmp_path / "f", {"id": "f", "experiment": "standard", "scope": "p2p"})


def test_utilization_over_time(data, tmp_path, drawn):
    artifact = {"id": "fig5_21", "experiment": "standard", "where": {"queue": "PISA"}, "caption": "Fig. 5.21."}
    written = pisa_pimc.utilization_over_time(data, tmp_path / "fig5_21", artifact)
    assert written[0].name == "fig5_21.png" and written[0].stat().st_size > 10_000
    (ax,) = drawn[0]
    assert [label for label, _, _ in ax["lines"]] == ["all flows", "FTP", "HTTP"]
    for (_, x, y), level in zip(ax["lines"], (0.9, 0.3, 0.6), strict=True):
        assert x == list(TIMES) and y == pytest.approx([level] * len(TIMES))
    assert ax["title"].startswith("Fig. 5.21.") and "queue = PISA" in ax["title"] and "3 seeds" in ax["title"]


def test_queue_over_time_draws_the_lowest_seed(data, tmp_path, drawn):
    artifact = {"id": "fig5_13", "experiment": "standard", "levels": ["PIMC", "PI"]}
    written = pisa_pimc.queue_over_time(data, tmp_path / "fig5_13", artifact)
    assert written[0].stat().st_size > 10_000
    (ax,) = drawn[0]
    assert [label for label, _, _ in ax["lines"]] == ["PIMC (seed 1)", "PI (seed 1)"]
    assert ax["lines"][0][2] == pytest.approx([40.0 + 1 + t for t in TIMES]), "seed 1's own trace, not a mean"


def write_runs(directory: Path) -> ExperimentData:
    """Run tables on disk for the distributions: per queue and seed, objects (fid 2, http) and core_drops
    (fid 1 ftp, fid 2 http), carrying seed and run_key only, as the pipeline writes them; runs.parquet names the
    run directories and their axes' labels."""
    runs = []
    for q, queue in enumerate(QUEUES[:3]):  # no DropTail runs in the run tables
        for seed in SEEDS:
            run = directory / "runs" / f"{queue}-{seed}"
            (run / "tables").mkdir(parents=True)
            flows = [{"fid": 1, "group": "ftp"}, {"fid": 2, "group": "http"}]
            (run / "params.json").write_text(json.dumps({"flows": flows}))
            ctx = {"seed": seed, "run_key": f"{queue}-{seed}"}
            objects = pd.DataFrame(
                [
                    {
                        **ctx,
                        "fid": 2,
                        "object": 1,
                        "start": 1.0,
                        "end": 1.0 + 0.1 * (q + 1) * seed,
                        "bytes": 100,
                        "delivered": 1.0 + 0.1 * (q + 1) * seed - 0.05,
                    },
                    {
                        **ctx,
                        "fid": 2,
                        "object": 2,
                        "start": 2.0,
                        "end": None,
                        "bytes": 100,
                        "delivered": 2.5,
                    },  # unfinished
                ]
            )
            objects.to_parquet(run / "tables" / "objects.parquet", index=False)
            drops = pd.DataFrame(
                [
                    {**ctx, "fid": 1, "hint": 10.0 + q, "qlen": 50 + seed},
                    {**ctx, "fid": 2, "hint": 2.0, "qlen": 40},
                    {**ctx, "fid": 2, "hint": -1.0, "qlen": 0},  # an ACK: no hint
                ]
            )
            drops.to_parquet(run / "tables" / "core_drops.parquet", index=False)
            runs.append({"queue": queue, **ctx, "directory": str(run)})
    pd.DataFrame(runs).to_parquet(directory / "runs.parquet", index=False)
    data = standard()
    data.directory = directory
    return data


def test_distribution_values(tmp_path):
    data = write_runs(tmp_path)
    delays = pisa_pimc.distribution_values(data, {"id": "f", "table": "objects", "column": "object_delay"})
    assert len(delays) == 9, "completed objects only"
    pisa = delays[delays["queue"] == "PISA"].sort_values("seed")["value"]
    assert pisa.tolist() == pytest.approx([0.2, 0.4, 0.6])
    client = pisa_pimc.distribution_values(data, {"id": "f", "table": "objects", "column": "object_delay_client"})
    assert len(client) == 9, "completed objects only (an unfinished object counts nowhere)"
    pisa = client[client["queue"] == "PISA"].sort_values("seed")["value"]
    assert pisa.tolist() == pytest.approx([0.15, 0.35, 0.55]), "delivered - start"
    hints = pisa_pimc.distribution_values(data, {"id": "f", "table": "core_drops", "column": "hint"})
    assert sorted(set(hints["value"])) == [2.0, 10.0, 11.0, 12.0], "hints > 0 only"
    ftp = pisa_pimc.distribution_values(data, {"id": "f", "table": "core_drops", "column": "hint", "scope": "ftp"})
    assert set(ftp["group"]) == {"ftp"} and len(ftp) == 9
    qlen = pisa_pimc.distribution_values(
        data, {"id": "f", "table": "core_drops", "column": "qlen", "where": {"queue": "PI"}}
    )
    assert sorted(qlen["value"]) == [0, 0, 0, 40, 40, 40, 51, 52, 53]


@pytest.mark.parametrize("complementary", [False, True])
def test_distribution_figure(tmp_path, drawn, monkeypatch, complementary):
    data = write_runs(tmp_path)
    calls = []
    original = pisa_pimc.sns.ecdfplot
    monkeypatch.setattr(pisa_pimc.sns, "ecdfplot", lambda **kw: calls.append(kw) or original(**kw))
    artifact = {
        "id": "fig5_14",
        "experiment": "standard",
        "table": "core_drops",
        "column": "qlen",
        "complementary": complementary,
    }
    written = pisa_pimc.distribution(data, tmp_path / "fig", artifact)
    assert [p.name for p in written] == ["fig.png"] and written[0].stat().st_size > 10_000
    (call,) = calls
    assert call["hue_order"] == ["PI", "PISA", "PIMC"] and call["complementary"] is complementary
    counts = call["data"].groupby("queue")["value"].size().to_dict()
    assert counts == ({q: 6 for q in QUEUES[:3]} if complementary else {q: 9 for q in QUEUES[:3]}), "log axes: > 0"
    title = drawn[0][0]["title"]
    assert "none for DropTail" in title and f"PI: {counts['PI']}" in title
