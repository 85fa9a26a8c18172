"""Workflow settings from a profile (YAML types) or from `--config key=value` (strings)."""

from pathlib import Path

import pytest

from experiments.config.errors import ConfigError
from experiments.config.load import load as load_file
from experiments.planning.expansion import expand
from experiments.planning.profiles import Settings, load, smoke_start


def test_defaults_are_the_default_profile():
    s = Settings.from_config({})
    assert (s.batch_size, s.smoke, s.parse, s.keep_raw, s.profile_name) == (25, False, True, False, "default")


@pytest.mark.parametrize(
    "text,value",
    [
        ("false", False),
        ("False", False),
        ("0", False),
        ("no", False),
        ("true", True),
        ("1", True),
        (True, True),
        (False, False),
    ],
)
def test_command_line_strings_are_read_as_flags(text, value):
    """`--config parse=false` gives the text "false" (Snakemake reads True and False, and numbers, as such)."""
    s = Settings.from_config({"parse": text, "smoke": text, "keep_raw": text, "batch_size": 7})
    assert (s.parse, s.smoke, s.keep_raw, s.batch_size) == (value, value, value, 7)


def test_a_flag_that_is_not_yes_or_no_is_an_error():
    with pytest.raises(ConfigError, match="parse='maybe' is not a yes/no value"):
        Settings.from_config({"parse": "maybe"})


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_setting_that_is_not_a_finite_number_is_refused(value):
    """`--config smoke_duration=nan` gives a float NaN, which the schema's `exclusiveMinimum: 0` lets through (every
    comparison with NaN is false): smoke runs would be cut to NaN seconds."""
    with pytest.raises(ConfigError, match=rf"smoke_duration={value} is not a finite number"):
        Settings.from_config({"smoke_duration": value})


def test_an_unknown_setting_is_refused_with_the_nearest_key():
    with pytest.raises(ConfigError, match="smok: unknown key 'smok'; did you mean 'smoke'"):
        Settings.from_config({"smok": True})


def test_one_experiment_file_given_as_a_string():
    assert Settings.from_config({"experiment_files": "my.yaml"}).experiment_files == ("my.yaml",)


def test_paper_replications_take_seeds_paper_where_the_file_gives_it():
    paper = Settings.from_config({"replications": "paper"})
    file = Settings.from_config({})
    assert (paper.replications, file.replications) == ("paper", "file")
    koo = {s.replications: load("configs/koo_aqm.yaml", s)["experiments"] for s in (paper, file)}
    assert [exp["seeds"]["count"] for exp in koo["paper"].values()] == [1, 1]
    assert [exp["seeds"]["count"] for exp in koo["file"].values()] == [10, 10]
    # smooth_tcp states no replication count: the file's count stands.
    smooth = load("configs/smooth_tcp.yaml", paper)["experiments"]
    assert all(exp["seeds"]["count"] == 5 for exp in smooth.values())


def test_an_unknown_replications_setting_names_what_is_allowed():
    with pytest.raises(ConfigError, match="replications: 'all' is not allowed; allowed: file, paper"):
        Settings.from_config({"replications": "all"})


@pytest.mark.parametrize(
    "start, expected",
    [
        (0, 0),
        (2.0, 2.0),  # still before the shortened end
        ({"uniform": [0, 2]}, {"uniform": [0, 2]}),
        ({"uniform": [0, 180]}, {"uniform": [0.0, 3.0]}),  # a 300-s run cut to 5 s: the window with it
        (240.0, 4.0),
        # staggered: always with the run (how many flows it starts is an axis's to say)
        ({"first": 60.0, "every": 0.3}, {"first": 1.0, "every": 0.005}),
    ],
)
def test_the_smoke_profile_compresses_starts_its_short_runs_would_not_reach(start, expected):
    assert smoke_start(start, 5 / 300, 5.0) == expected


def test_the_smoke_profile_compresses_an_alternative_start_window_too():
    """bqm's adhoc_start=late reading starts flows up to 90 s into a 100-s run: under the smoke profile's 5 s it
    must shrink with the run, or every run of that reading fails."""
    smoke = Settings.from_config({"smoke": True, "smoke_duration": 5})
    doc = load("configs/bqm.yaml", smoke)
    choice = next(c for c in doc["choices"] if c.get("id") == "adhoc_start")
    (late,) = choice["alternatives"]
    assert late["value"] == {"uniform": [0.0, 4.5]}  # [0, 90) of 100 s, cut to 5 s
    full = load("configs/bqm.yaml", Settings.from_config({}))
    (unchanged,) = next(c for c in full["choices"] if c.get("id") == "adhoc_start")["alternatives"]
    assert unchanged["value"] == {"uniform": [0, 90]}


def test_the_smoke_profile_shrinks_a_group_s_stop_with_its_starts():
    """psand's step_down flows start every 0.1 s from 0 and stop at 50 s of 100: in 5 s, they stop at 2.5 s."""
    doc = load("configs/psand.yaml", Settings.from_config({"smoke": True, "smoke_duration": 5}))
    added = doc["experiments"]["step_down"]["scenario"]["flows"]["additional"]
    assert added["stop"] == 2.5 and added["start"] == {"first": 0.0, "every": 0.005}


def test_the_smoke_profile_shrinks_a_figure_s_time_window_with_its_run():
    """Fig. 3.6 draws 50-100 s of a 100-s run: in 5 s, 2.5-5 s (a window past the shortened run draws nothing)."""
    smoke = load("configs/psand.yaml", Settings.from_config({"smoke": True, "smoke_duration": 5}))
    (fig,) = [f for f in smoke["figures"] if f["id"] == "fig3_6"]
    assert fig["time_window"] == [2.5, 5.0]
    full = load("configs/psand.yaml", Settings.from_config({}))
    assert next(f for f in full["figures"] if f["id"] == "fig3_6")["time_window"] == [50, 100]


def _with_axes(tmp_path, product: dict, zipped: list[dict]) -> str:
    import yaml

    doc = yaml.safe_load(Path("tests/configs/minimal.yaml").read_text())
    doc["experiments"]["tiny"]["matrix"] = {"product": product, "zip": zipped}
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))  # the levels' order is the zip's pairing
    return str(path)


def test_the_smoke_profile_runs_only_an_axis_s_smoke_levels_and_a_zip_group_at_their_positions(tmp_path):

    path = _with_axes(
        tmp_path,
        {"flows_n": {"path": "flows.tcp.count", "levels": [1, 2, 3, 4], "smoke_levels": [1, 4]}},
        [
            {
                "delay": {
                    "path": "topology.core_link.delay",
                    "levels": {"short": "5ms", "mid": "10ms", "long": "20ms"},
                },
                "buffer": {"path": "queues.RED.knobs.limit_", "levels": [20, 40, 80], "smoke_levels": [80, 20]},
            }
        ],
    )
    smoke = load(path, Settings.from_config({"smoke": True}))
    cells = {(r.labels["flows_n"], r.labels["delay"], r.labels["buffer"]) for r in expand(smoke, path)}
    assert cells == {(n, d, b) for n in (1, 4) for d, b in (("short", 20), ("long", 80))}
    full = load(path, Settings.from_config({}))
    assert len(expand(full, path)) == 4 * 3


def test_the_default_profile_runs_an_axis_s_default_levels_the_paper_profile_all_and_the_smoke_profile_fewer(tmp_path):

    path = _with_axes(
        tmp_path,
        {
            "flows_n": {
                "path": "flows.tcp.count",
                "levels": [1, 2, 3, 4, 5],
                "default_levels": [1, 3, 5],
                "smoke_levels": [5],
            }
        },
        [
            {
                "delay": {
                    "path": "topology.core_link.delay",
                    "levels": {"short": "5ms", "mid": "10ms", "long": "20ms"},
                    "default_levels": ["long", "short"],
                },
                "buffer": {"path": "queues.RED.knobs.limit_", "levels": [20, 40, 80]},
            }
        ],
    )

    def cells(cfg: dict) -> set:
        doc = load(path, Settings.from_config(cfg))
        return {(r.labels["flows_n"], r.labels["delay"], r.labels["buffer"]) for r in expand(doc, path)}

    pairs = {("short", 20), ("mid", 40), ("long", 80)}
    assert cells({}) == {(n, d, b) for n in (1, 3, 5) for d, b in pairs - {("mid", 40)}}
    assert cells({"replications": "paper"}) == {(n, d, b) for n in (1, 2, 3, 4, 5) for d, b in pairs}
    assert cells({"smoke": True}) == {(5, d, b) for d, b in pairs - {("mid", 40)}}


@pytest.mark.parametrize(
    "product, zipped, message",
    [
        (
            {"flows_n": {"path": "flows.tcp.count", "levels": [1, 2], "smoke_levels": [3]}},
            [],
            "experiments.tiny.matrix.flows_n.smoke_levels: no level 3; allowed: the axis' levels (1, 2)",
        ),
        (
            {},
            [
                {
                    "a": {"path": "flows.tcp.count", "levels": [1, 2], "smoke_levels": [1]},
                    "b": {"path": "topology.core_link.delay", "levels": ["5ms", "9ms"], "smoke_levels": ["5ms"]},
                }
            ],
            "matrix.zip[0]: smoke_levels on a, b; allowed: on at most one axis of a zip group",
        ),
    ],
)
def test_smoke_levels_that_name_no_level_or_split_a_zip_group_are_errors(tmp_path, product, zipped, message):

    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        load_file(_with_axes(tmp_path, product, zipped))
