"""`reading_cells: each_level` (the smoke profile): a reading runs a subset of the cells holding every level of every
axis, the baseline all of them, and planning still checks every cell under the reading."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from experiments.config import readings
from experiments.config.axes import label_text
from experiments.config.errors import ConfigError
from experiments.config.load import load
from experiments.config.readings import BASELINE
from experiments.planning.expansion import Expansion, covering_cells
from experiments.planning.profiles import Settings
from experiments.workflow.plan import Plan, plan

MINIMAL = Path(__file__).resolve().parents[1] / "configs" / "minimal.yaml"
# RED's max_th 5 where five flows run: fine at min_th 1 and 2, impossible (min_th above max_th) at min_th 9.
MAX_TH = {
    "id": "max_th",
    "what": "RED max_th",
    "choice": "15",
    "why": "t",
    "path": "queues.RED.knobs.maxthresh_",
    "where": {"flows_n": "5"},
    "alternatives": [{"label": "5", "value": 5, "why": "t"}],
}


def write(tmp_path: Path, min_th_levels: list[int]) -> Path:
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["experiments"]["tiny"]["matrix"]["product"] = {
        "min_th": {"path": "queues.RED.knobs.thresh_", "levels": min_th_levels},
        "flows_n": {"path": "flows.tcp.count", "levels": [1, 2, 3, 4, 5]},
    }
    doc["choices"] = [MAX_TH]
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def planned(path: Path, reading_cells: str) -> Plan:
    settings = Settings.from_config({"experiment_files": [str(path)], "reading_cells": reading_cells})
    return plan(settings)


def held_levels(cells) -> set[tuple[str, str]]:
    return {(axis, label_text(label)) for cell in cells for axis, label in cell.labels.items()}


def test_a_product_is_covered_by_as_many_cells_as_its_longest_axis_has_levels(tmp_path):
    doc = load(write(tmp_path, [1, 2, 3]))
    every = Expansion(doc, "exp.yaml", "tiny").cells
    chosen = covering_cells(every)
    assert len(every) == 15 and len(chosen) == 5
    assert held_levels(chosen) == held_levels(every)
    assert chosen == [cell for cell in every if cell in chosen]  # in the matrix's order


def test_an_experiment_without_axes_keeps_its_one_cell(tmp_path):
    doc = yaml.safe_load(MINIMAL.read_text())
    del doc["experiments"]["tiny"]["matrix"]
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    (cell,) = Expansion(load(path), path, "tiny").cells
    assert covering_cells([cell]) == [cell]
    assert covering_cells([]) == []


def test_each_level_cuts_only_the_readings_runs(tmp_path):
    path = write(tmp_path, [1, 2, 3])
    full, cut = planned(path, "all"), planned(path, "each_level")
    (label,) = cut.readings["minimal"]
    assert len(full.expansions[("minimal", "tiny", BASELINE)]) == len(cut.expansions[("minimal", "tiny", BASELINE)])
    assert len(full.expansions[("minimal", "tiny", label)]) == 15
    reading = cut.expansions[("minimal", "tiny", label)]
    assert len(reading) == 5
    assert held_levels(reading.cells) == held_levels(full.expansions[("minimal", "tiny", label)].cells)


def test_planning_checks_the_cells_each_level_leaves_out(tmp_path):
    path = write(tmp_path, [1, 2, 9])
    doc = load(path)
    (reading,) = readings.run_readings(doc)
    chosen = Expansion(doc, path, "tiny", reading, each_level=True).cells
    assert {"min_th": 9, "flows_n": 5} not in [cell.labels for cell in chosen]  # the impossible cell is not run...
    refused = r"at flows_n=5, min_th=9 under reading max_th=5: .*thresh_ 9 is above"
    with pytest.raises(ConfigError, match=refused):
        planned(path, "each_level")  # ...and still refused


def test_an_unknown_reading_cells_setting_names_what_is_allowed():
    with pytest.raises(ConfigError, match="reading_cells: 'some' is not allowed; allowed: all, each_level"):
        Settings.from_config({"reading_cells": "some"})


def test_the_smoke_profile_runs_each_level():
    settings = yaml.safe_load((Path(__file__).resolve().parents[2] / "profiles/smoke/settings.yaml").read_text())
    assert Settings.from_config(settings).reading_cells == "each_level"
    assert Settings.from_config({}).reading_cells == "all"
