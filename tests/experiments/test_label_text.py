"""One text per level label: 20, 20.0 and "20.0" are the same level wherever labels are compared.

A parquet column of an axis mixing ints and floats is float64 (20 is read back as 20.0), and YAML keeps 20 and
20.0 apart; experiments.config.label_text gives both one canonical text, so that a claim's or a figure's label
finds its rows and a config names a level either way.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from experiments import cli
from experiments.config import readings
from experiments.config.axes import label_column, label_text
from experiments.config.errors import ConfigError
from experiments.config.load import load
from experiments.planning.expansion import Expansion
from experiments.references import check as references
from experiments.verdicts.claims import judge
from figures.common import select


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (20, "20"),
        (20.0, "20"),
        ("20.0", "20"),
        ("20", "20"),
        (np.float64(20.0), "20"),
        (np.int64(20), "20"),
        (10.5, "10.5"),
        ("10.5", "10.5"),
        (0.0625, "0.0625"),
        ("0.0625", "0.0625"),
        (-3.0, "-3"),
        ("1e3", "1000"),
        (True, "True"),
        (False, "False"),
        (np.bool_(True), "True"),
        ("1/6", "1/6"),
        ("RED", "RED"),
        ("", ""),
        ("nan", "nan"),
        ("inf", "inf"),
        (" 20", " 20"),  # not a number as YAML writes one: kept as it is
        (None, "None"),
    ],
)
def test_label_text(value, text):
    assert label_text(value) == text


def test_label_text_keeps_large_integers_exact():
    assert label_text(2**60 + 1) == label_text(str(2**60 + 1)) == str(2**60 + 1)


def test_label_column_maps_each_value_to_its_text_and_keeps_missing_values_missing():
    texts = label_column(pd.Series([10.5, 20.0, np.nan, 20.0]))
    assert texts.tolist()[:2] == ["10.5", "20"] and texts.iloc[3] == "20"
    assert pd.isna(texts.iloc[2])
    assert label_column(pd.Series(["PI", "RED", "PI"])).tolist() == ["PI", "RED", "PI"]
    assert label_column(pd.Series([1, 2, 1])).tolist() == ["1", "2", "1"]


def test_label_column_tells_a_bool_from_the_number_it_equals():
    mixed = pd.Series([True, 1, 1.0, False, 0, "x"], dtype=object)  # True == 1 == 1.0: one key in a dict
    assert label_column(mixed).tolist() == ["True", "1", "1", "False", "0", "x"]
    assert label_column(pd.Series([{"a": 1}, {"a": 1}])).tolist() == ["{'a': 1}"] * 2  # unhashable: per row


def metrics_table() -> pd.DataFrame:
    """An axis max_th read back from parquet as float64: 20 became 20.0."""
    rows = [
        (th, "a", seed, "all", "m", value)
        for th, values in ((10.5, [5.0, 5.2, 4.8]), (20.0, [10.0, 10.2, 9.8]))
        for seed, value in enumerate(values)
    ]
    table = pd.DataFrame(rows, columns=["max_th", "variant", "seed", "scope", "metric", "value"])
    assert table["max_th"].dtype == np.float64
    return table


CLAIM = {
    "id": "c",
    "kind": "value",
    "source": "s",
    "experiment": "e",
    "metric": "m",
    "where": {"max_th": 20},
    "expected": 10.0,
    "pass": {"rel": 0.1},
    "drift": {"rel": 0.3},
}


@pytest.mark.parametrize("label", [20, 20.0, "20", "20.0"])
def test_a_claim_where_finds_the_rows_of_a_float_column(label):
    (verdict,) = judge({**CLAIM, "where": {"max_th": label}}, metrics_table(), ["max_th", "variant"])
    assert verdict.verdict == "pass", verdict.deciding
    assert verdict.deciding.seeds == 3


def test_claims_naming_levels_of_a_float_column():
    ratio = {**CLAIM, "kind": "ratio", "axis": "max_th", "level": 20.0, "baseline": "10.5", "expected": 1.0}
    del ratio["where"]
    (verdict,) = judge(ratio, metrics_table(), ["max_th", "variant"])
    assert verdict.verdict == "pass" and verdict.deciding.measured.startswith("+1.0000 ± ")
    assert verdict.deciding.measured.endswith(" (20 10 / 10.5 5)")
    extreme = {
        "id": "x",
        "kind": "extreme",
        "source": "s",
        "experiment": "e",
        "metric": "m",
        "axis": "max_th",
        "level": 20,
        "extreme": "max",
    }
    (verdict,) = judge(extreme, metrics_table(), ["max_th", "variant"])
    assert verdict.verdict == "pass"
    compare = {
        "id": "k",
        "kind": "compare",
        "source": "s",
        "experiment": "e",
        "metric": "m",
        "axis": "max_th",
        "level": 20.0,
        "than": [10.5],
        "relation": "greater",
    }
    (verdict,) = judge(compare, metrics_table(), ["max_th", "variant"])
    assert verdict.verdict == "pass"


def test_a_free_float_axis_is_shown_by_its_label_text():
    free = {**CLAIM, "where": {}, "combine": "each", "expected": 7.5, "pass": {"rel": 0.9}, "drift": {"rel": 1}}
    assert [v.deciding.group for v in judge(free, metrics_table(), ["max_th"])] == ["max_th=10.5", "max_th=20"]


def test_a_reading_level_finds_the_rows_of_a_float_column():
    claim = {k: v for k, v in CLAIM.items() if k != "where"}
    (verdict,) = judge(claim, metrics_table(), ["max_th", "variant"], fixed={"max_th": "20"})
    assert verdict.verdict == "pass" and verdict.deciding.seeds == 3


@pytest.mark.parametrize("label", [20, "20", 20.0])
def test_figure_select_finds_the_rows_of_a_float_column(label):
    table = metrics_table()
    rows = select(table, {"max_th": label})
    assert len(rows) == 3 and (rows["max_th"] == 20.0).all()
    with pytest.raises(ValueError, match=r"no row has max_th = 13; levels: \['10.5', '20'\]"):
        select(table, {"max_th": 13})


MINIMAL = Path(__file__).resolve().parents[1] / "configs" / "minimal.yaml"


def write_config(tmp_path: Path, levels: list, named) -> Path:
    """The minimal file with an axis max_th of `levels` (default_levels as written there, the last one), each
    of its other mentions naming the level `named`: smoke_levels, an axis choice's baseline, a path choice's
    `where`, a figure's levels, a claim's note, and a ratio claim's level."""
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["experiments"]["tiny"]["matrix"]["product"]["max_th"] = {
        "path": "queues.RED.knobs.maxthresh_",
        "levels": levels,
        "default_levels": [10.5, levels[-1]],
        "smoke_levels": [named],
    }
    doc["choices"] = [
        {"id": "th", "what": "Max_th", "choice": str(named), "why": "t", "axis": "max_th", "baseline": named},
        {
            "id": "buffer",
            "what": "RED buffer",
            "choice": "default",
            "why": "t",
            "path": "queues.RED.knobs.limit_",
            "where": {"max_th": named},
            "alternatives": [{"label": "5", "value": 5, "why": "small"}],
        },
    ]
    doc["figures"] = [
        {
            "id": "f",
            "experiment": "tiny",
            "module": "figures.generic",
            "function": "metric_vs_axis",
            "metric": "e2e_delay_ms_mean",
            "x": "flows_n",
            "hue": "max_th",
            "levels": [named],
        }
    ]
    value = doc["claims"][0]
    doc["claims"] = [
        # no `where` on max_th: the axis choice makes it a reading axis, which a claim's where may not name
        {**value, "note": f"{{{{e2e_delay_ms_mean max_th={named}}}}}"},
        {**value, "id": "up", "kind": "ratio", "axis": "max_th", "level": named, "baseline": 10.5, "expected": 0.1},
    ]
    path = tmp_path / "labels.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


@pytest.mark.parametrize(("level", "named"), [(20, 20.0), (20.0, 20)])
def test_a_config_names_a_level_as_int_or_float(tmp_path, capsys, level, named):
    path = write_config(tmp_path, [10.5, level], named)
    assert cli.main(["validate", str(path), "--ns", str(tmp_path / "no-ns")]) == 0, capsys.readouterr().err
    assert "ok (1 experiments, 4 runs, 2 claims)" in capsys.readouterr().out


def test_two_levels_with_one_label_text_are_refused(tmp_path):
    path = write_config(tmp_path, [10.5, 20, 20.0], 20)
    with pytest.raises(ConfigError, match=r"matrix\.max_th\.levels: two levels have the same label"):
        load(path)


def test_label_text_of_nan_is_nan():
    assert label_text(math.nan) == "nan"  # label_column leaves missing values missing instead


@pytest.mark.parametrize(("level", "named"), [(20, 20.0), (20.0, 20)])
def test_readings_name_a_level_as_int_or_float(tmp_path, level, named):
    doc = load(write_config(tmp_path, [10.5, level], named))
    assert [r.label for r in readings.axis_readings(doc, "tiny")] == ["th=10.5"]  # not the baseline again
    (buffer,) = readings.run_readings(doc)
    runs = Expansion(doc, "labels.yaml", "tiny", buffer)  # at the axis choice's baseline only
    assert [cell.labels["max_th"] for cell in runs.cells] == [level, level]
    assert all(buffer.assignments_at(cell.labels) == {"queues.RED.knobs.limit_": 5} for cell in runs.cells)
    assert readings.in_cells({"max_th": [10.5, str(named)]}, {"max_th": level})


def test_the_scenario_a_claim_reads_has_its_level_applied(tmp_path):
    doc = load(write_config(tmp_path, [10.5, 20], 20.0))
    experiment = doc["experiments"]["tiny"]
    experiment["matrix"]["product"]["flows_n"]["levels"] = [1, 3]
    assert references.scenario_at(experiment, {"flows_n": 3.0})["flows"]["tcp"]["count"] == 3
