"""An alternative with `cases`: one reading that sets its paths to different values in different matrix cells."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from experiments.common.files import canonical_json
from experiments.config import load as load_mod
from experiments.config import readings
from experiments.config.errors import ConfigError
from experiments.planning.expansion import Expansion, expand, reading_material
from experiments.planning.profiles import smoke_choice_starts
from experiments.planning.runkey import KEY_LENGTH, run_key
from experiments.references import check as references

MINIMAL = Path(__file__).resolve().parents[1] / "configs" / "minimal.yaml"
MAX = "queues.RED.knobs.maxthresh_"
LIMIT = "queues.RED.knobs.limit_"

# The `load` axis sets the RED queue's maxthresh_ in its levels; the alternative reads each level differently, and
# leaves the `extreme` level alone.
SHIFTED = {
    "id": "max",
    "what": "what the load levels mean",
    "choice": "the levels' values",
    "why": "t",
    "alternatives": [
        {
            "label": "shifted",
            "why": "another reading of each level",
            "cases": [{"where": {"load": "light"}, "set": {MAX: 12}}, {"where": {"load": "heavy"}, "set": {MAX: 24}}],
        }
    ],
}
BUFFER = {
    "id": "buffer",
    "what": "RED buffer",
    "choice": "default",
    "why": "t",
    "path": LIMIT,
    "alternatives": [{"label": "5", "value": 5, "why": "small"}],
}
SPREAD = {
    "id": "spread",
    "what": "how the delay is aggregated",
    "choice": "per packet",
    "why": "t",
    "alternatives": [{"label": "flows", "why": "per flow", "metrics": {"e2e_delay_ms_mean": "e2e_delay_ms_flow_mean"}}],
}


def write(tmp_path, choices, **extra) -> Path:
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["experiments"]["tiny"]["matrix"]["product"]["load"] = {
        "levels": {"light": {MAX: 15}, "heavy": {MAX: 30}, "extreme": {MAX: 45}}
    }
    doc["choices"] = choices
    doc.update(extra)
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def load(tmp_path, choices, **extra) -> dict:
    return load_mod.load(write(tmp_path, choices, **extra))


def cases_choice(*cases, **rest) -> dict:
    return {**SHIFTED, **rest, "alternatives": [{**SHIFTED["alternatives"][0], "cases": list(cases)}]}


def keys(runs) -> dict:
    return {(tuple(r.labels.values()), r.seed): run_key(r.params, "tcl", "ns", "parsers") for r in runs}


def test_a_cases_alternative_is_one_reading_setting_each_cell_its_case(tmp_path):
    doc = load(tmp_path, [SHIFTED])
    (reading,) = readings.run_readings(doc)
    assert reading.label == "max=shifted" and reading.assignments == {} and reading.runs_anew
    assert reading.cases == (({"load": "light"}, {MAX: 12}), ({"load": "heavy"}, {MAX: 24}))
    assert reading.assignments_at({"flows_n": 1, "load": "light"}) == {MAX: 12}
    assert reading.assignments_at({"flows_n": 2, "load": "heavy"}) == {MAX: 24}
    assert reading.assignments_at({"flows_n": 1, "load": "extreme"}) == {}
    assert readings.alternative_assignments(SHIFTED, SHIFTED["alternatives"][0]) == {MAX: 24}  # the paths it sets
    assert readings.experiments_of(doc, reading) == ["tiny"]


def test_only_the_cells_a_case_matches_get_new_runs(tmp_path):
    """A cell no case matches keeps the baseline's params, hence its key: the reading runs nothing new there."""
    path = write(tmp_path, [SHIFTED])
    doc = load_mod.load(path)
    (reading,) = readings.run_readings(doc)
    base, alt = expand(doc, path, ["tiny"]), expand(doc, path, ["tiny"], reading)
    assert len(base) == len(alt) == 6
    for run in alt:
        assert (
            run.params["core_queue"]["knobs"]["maxthresh_"]
            == {"light": 12, "heavy": 24, "extreme": 45}[run.labels["load"]]
        )
    new = {cell for cell, key in keys(alt).items() if key not in set(keys(base).values())}
    assert new == {((n, load), 1) for n in (1, 2) for load in ("light", "heavy")}


def test_a_cases_alternative_crossed_with_other_choices(tmp_path):
    doc = load(tmp_path, [SHIFTED, BUFFER, SPREAD], interactions=[["max", "buffer", "spread"]])
    by_label = {r.label: r for r in readings.run_readings(doc)}
    assert list(by_label) == ["max=shifted", "buffer=5", "max=shifted+buffer=5"]
    both = by_label["max=shifted+buffer=5"]
    assert both.assignments == {LIMIT: 5} and len(both.cases) == 2
    assert both.assignments_at({"flows_n": 1, "load": "heavy"}) == {LIMIT: 5, MAX: 24}
    assert both.assignments_at({"flows_n": 1, "load": "extreme"}) == {LIMIT: 5}
    for run in expand(doc, "exp.yaml", ["tiny"], both):
        knobs = run.params["core_queue"]["knobs"]
        assert knobs["limit_"] == 5
        assert knobs["maxthresh_"] == {"light": 12, "heavy": 24, "extreme": 45}[run.labels["load"]]
    measured = {r.label: r.runs for r in readings.measure_readings(doc)}
    assert measured["max=shifted+buffer=5+spread=flows"] == "max=shifted+buffer=5"
    assert measured["spread=flows"] == readings.BASELINE


def test_cases_matching_one_cell_may_set_different_paths(tmp_path):
    choice = cases_choice({"where": {"load": "light"}, "set": {MAX: 12}}, {"where": {"flows_n": 2}, "set": {LIMIT: 9}})
    (reading,) = readings.run_readings(load(tmp_path, [choice]))
    assert reading.assignments_at({"flows_n": 2, "load": "light"}) == {MAX: 12, LIMIT: 9}
    assert reading.assignments_at({"flows_n": 1, "load": "heavy"}) == {}


def old_identity(expansion: Expansion) -> str:
    """Expansion.identity as it was before cases existed: the reading's [assignments, where]."""
    reading = expansion.reading
    material = {
        "scenario": expansion.exp["scenario"],
        "duration": expansion.exp["duration"],
        "queues": expansion.doc["queues"],
        "reading": [reading.assignments, reading.where] if reading else None,
        "runs": [
            [cell.levels, seed]
            for cell in expansion.cells
            for seed in range(expansion.first, expansion.first + expansion.seeds)
        ],
    }
    return hashlib.sha256(canonical_json(material)).hexdigest()[:KEY_LENGTH]


def test_the_keys_of_the_baseline_and_of_readings_without_cases_are_unchanged(tmp_path):
    where = {
        "id": "where",
        "what": "w",
        "choice": "c",
        "why": "t",
        "path": LIMIT,
        "where": {"load": "heavy"},
        "alternatives": [{"label": "9", "value": 9, "why": "t"}],
    }
    doc = load(tmp_path, [SHIFTED, BUFFER, where])
    plain = [r for r in readings.run_readings(doc) if not r.cases]
    assert [r.label for r in plain] == ["buffer=5", "where=9"]
    for reading in [None, *plain]:
        expansion = Expansion(doc, "exp.yaml", "tiny", reading)
        assert expansion.identity(0, len(expansion)) == old_identity(expansion)
        if reading is not None:
            assert reading_material(reading) == [reading.assignments, reading.where]
    (cased,) = [r for r in readings.run_readings(doc) if r.cases]
    expansion = Expansion(doc, "exp.yaml", "tiny", cased)
    assert reading_material(cased) == [{}, {}, list(cased.cases)]
    assert expansion.identity(0, len(expansion)) != old_identity(expansion)  # the cases are part of it


def test_a_case_may_set_an_axis_path_only_where_it_names_that_axis(tmp_path):
    choice = cases_choice({"where": {"flows_n": 1}, "set": {MAX: 12}})
    message = (
        r"choices\[0\]\.alternatives\[0\]\.cases\[0\]: path 'queues\.RED\.knobs\.maxthresh_' is also a matrix axis"
    )
    with pytest.raises(ConfigError, match=message + " of tiny"):
        load(tmp_path, [choice])


@pytest.mark.parametrize("scope", [{"where": {"load": "heavy"}}, {"path": MAX}])
def test_cases_are_refused_on_a_choice_with_where_or_path(tmp_path, scope):
    with pytest.raises(ConfigError, match=rf"cases: not allowed on a choice with '{next(iter(scope))}'"):
        load(tmp_path, [{**SHIFTED, **scope}])


def test_a_case_s_where_names_levels_of_the_experiments_it_changes(tmp_path):
    choice = cases_choice(
        {"where": {"load": "light"}, "set": {MAX: 12}}, {"where": {"load": "medium"}, "set": {MAX: 20}}
    )
    with pytest.raises(ConfigError, match=r"cases\[1\]\.where\.load: 'medium' is not a level; levels: "):
        load(tmp_path, [choice])
    choice["alternatives"][0]["cases"][1]["where"] = {"speed": 1}
    with pytest.raises(ConfigError, match=r"cases\[1\]\.where: 'speed' is not an axis of tiny"):
        load(tmp_path, [choice])


def test_a_case_s_where_may_name_an_axis_only_some_of_its_experiments_have(tmp_path):
    """One question over a sweep and over single runs (Alemu's AVQ* alpha: the flows axis sets it in the sweep, the
    scheme axis in the runs at one N): a `where` entry on an axis an experiment lacks does not narrow there."""
    path = write(tmp_path, [])
    doc = yaml.safe_load(path.read_text())
    doc["experiments"]["single"] = {**doc["experiments"]["tiny"], "matrix": {"product": {}}}
    choice = cases_choice({"where": {"load": ["light", "heavy"]}, "set": {LIMIT: 9}}, experiments=["tiny", "single"])
    doc["choices"] = [choice]
    path.write_text(yaml.safe_dump(doc))
    doc = load_mod.load(path)
    (reading,) = readings.run_readings(doc)
    for run in expand(doc, path, ["single"], reading):
        assert run.params["core_queue"]["knobs"]["limit_"] == 9, "no load axis in single: every cell"
    limits = {
        r.labels["load"]: r.params["core_queue"]["knobs"].get("limit_") for r in expand(doc, path, ["tiny"], reading)
    }
    assert limits == {"light": 9, "heavy": 9, "extreme": None}
    choice["alternatives"][0]["cases"][0]["where"] = {"speed": 1}
    doc = yaml.safe_load(path.read_text())
    doc["choices"] = [choice]
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ConfigError, match=r"cases\[0\]\.where: 'speed' is not an axis of tiny, single"):
        load_mod.load(path)


def test_two_cases_setting_one_path_in_one_cell_are_refused(tmp_path):
    choice = cases_choice(
        {"where": {"load": "light"}, "set": {MAX: 12}}, {"where": {"load": ["light", "heavy"]}, "set": {MAX: 24}}
    )
    with pytest.raises(
        ConfigError,
        match=r"cases\[0\] and cases\[1\] both set 'queues\.RED\.knobs\."
        r"maxthresh_' in tiny at flows_n=1, load=light",
    ):
        load(tmp_path, [choice])


def test_a_case_setting_a_path_no_experiment_has_is_refused(tmp_path):
    choice = cases_choice({"where": {"load": "light"}, "set": {"flows.udp.count": 3}})
    with pytest.raises(ConfigError, match="'flows.udp.count' does not exist in any experiment"):
        load(tmp_path, [choice])


def test_the_knob_check_applies_each_case_only_in_its_cells(tmp_path, ns_binary):
    """A knob only one level's agent has: a case putting it in that level's cells passes, elsewhere it is refused."""
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["experiments"]["tiny"]["matrix"]["product"]["scheme"] = {
        "levels": {
            "stock": {"flows.tcp.agent.class": "Agent/TCP/Newreno"},
            "bqm": {"flows.tcp.agent.class": "Agent/TCP/Newreno/BQM"},
        }
    }
    pattern = "flows.tcp.agent.knobs.pattern_"
    one = {"where": {"scheme": "bqm", "flows_n": 1}, "set": {pattern: "0 3 1 3"}}
    two = {"where": {"scheme": "bqm", "flows_n": 2}, "set": {pattern: "0 1 2 3"}}
    doc["choices"] = [cases_choice(one, two)]
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    references.check_knobs(load_mod.load(path), path, ns_binary)
    doc["choices"][0]["alternatives"][0]["cases"][1]["where"]["scheme"] = "stock"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ConfigError, match="reading max=shifted.*pattern_"):
        references.check_knobs(load_mod.load(path), path, ns_binary)


def test_the_smoke_profile_compresses_a_case_s_start(tmp_path):
    doc = {"choices": [cases_choice({"where": {"load": "light"}, "set": {"flows.tcp.start": {"uniform": [0, 180]}}})]}
    smoke_choice_starts(doc, {"tiny": 5 / 300}, 5.0)
    assert doc["choices"][0]["alternatives"][0]["cases"][0]["set"]["flows.tcp.start"] == {"uniform": [0, 3]}
