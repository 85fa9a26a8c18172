"""Readings of the open choices: which runs each alternative makes, where, and with which params."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from experiments.common.markdown import contains_row
from experiments.config import load as load_mod
from experiments.config import readings
from experiments.config.errors import ConfigError
from experiments.planning.expansion import expand
from experiments.references import check as references
from experiments.report.markdown import choice_lines
from experiments.report.sensitivity_markdown import paper_markdown
from experiments.store.tables import Measured
from experiments.verdicts.sensitivity import NOT_RUN, classify, flips, row_ranking, table

MINIMAL = Path(__file__).resolve().parents[1] / "configs" / "minimal.yaml"


def load(tmp_path, **extra) -> dict:
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["queues"]["DT"] = {"class": "Queue/DropTail", "knobs": {"limit_": 20}}
    doc["experiments"]["other"] = {
        "scenario": {**doc["experiments"]["tiny"]["scenario"], "core_queue": "DT"},
        "duration": 2,
        "seeds": {"count": 2},
    }
    doc.update(extra)
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    return load_mod.load(path)


BUFFER = {
    "id": "buffer",
    "what": "RED buffer",
    "choice": "default",
    "why": "t",
    "path": "queues.RED.knobs.limit_",
    "alternatives": [{"label": "5", "value": 5, "why": "small"}, {"label": "50", "value": 50, "why": "big"}],
}
DELAY = {
    "id": "delay",
    "what": "edge delay",
    "choice": "1ms",
    "why": "t",
    "path": "topology.edge_link.delay",
    "alternatives": [{"label": "2ms", "value": "2ms", "why": "longer"}],
}


def test_each_alternative_alone_then_the_interactions(tmp_path):
    doc = load(tmp_path, choices=[BUFFER, DELAY], interactions=[["buffer", "delay"]])
    labels = [r.label for r in readings.run_readings(doc)]
    assert labels == ["buffer=5", "buffer=50", "delay=2ms", "buffer=5+delay=2ms", "buffer=50+delay=2ms"]
    both = readings.run_readings(doc)[3]
    assert both.assignments == {"queues.RED.knobs.limit_": 5, "topology.edge_link.delay": "2ms"}


def test_a_named_queue_reading_runs_only_where_the_queue_is_used_and_a_claim_is_checked(tmp_path):
    doc = load(tmp_path, choices=[BUFFER, DELAY])
    by_label = {r.label: r for r in readings.run_readings(doc)}
    assert readings.experiments_of(doc, by_label["buffer=5"]) == ["tiny"]  # `other` uses DT only
    doc["claims"].append({**doc["claims"][0], "id": "other_claim", "experiment": "other"})
    assert sorted(readings.experiments_of(doc, by_label["delay=2ms"])) == ["other", "tiny"]


def test_a_reading_changes_only_its_value_and_names_itself_in_the_context_only(tmp_path):
    doc = load(tmp_path, choices=[BUFFER])
    reading = readings.run_readings(doc)[0]
    base = expand(doc, "exp.yaml", ["tiny"])
    alt = expand(doc, "exp.yaml", ["tiny"], reading)
    assert len(base) == len(alt) == 2
    for b, a in zip(base, alt, strict=True):
        assert a.params["core_queue"]["knobs"]["limit_"] == 5
        assert "limit_" not in b.params["core_queue"]["knobs"]
        assert "reading" not in a.params and "reading" not in b.params  # params name nothing
        rest = {k: v for k, v in a.params.items() if k != "core_queue"}
        assert rest == {k: v for k, v in b.params.items() if k != "core_queue"}
        assert a.context["reading"] == "buffer=5" and "reading" not in b.context
    # the file's queues are not changed for the next expansion
    assert "limit_" not in doc["queues"]["RED"]["knobs"]


def test_a_matrix_axis_reaches_a_named_queues_knob(tmp_path):
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["experiments"]["tiny"]["matrix"]["product"]["max"] = {"path": "queues.RED.knobs.maxthresh_", "levels": [10, 30]}
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    runs = expand(load_mod.load(path), path)
    assert sorted({(r.labels["max"], r.params["core_queue"]["knobs"]["maxthresh_"]) for r in runs}) == [
        (10, 10),
        (30, 30),
    ]


def test_a_level_that_breaks_a_named_queue_is_an_error(tmp_path):
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["experiments"]["tiny"]["matrix"]["product"]["cls"] = {"path": "queues.RED.class", "levels": [7]}
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ConfigError, match=r"with this level applied, queues\.RED\.class: 7 has the wrong type"):
        expand(load_mod.load(path), path)


def test_an_axis_choice_judges_claims_at_its_baseline_and_offers_the_other_levels(tmp_path):
    choice = {"id": "flows", "what": "flows", "choice": "1", "why": "t", "axis": "flows_n", "baseline": 1}
    doc = load(tmp_path, choices=[choice])
    assert readings.reading_axes(doc, "tiny") == {"flows_n": "1"}
    (other,) = readings.axis_readings(doc, "tiny")
    assert (other.label, other.axis_levels, other.runs_anew) == ("flows=2", {"flows_n": "2"}, False)
    assert readings.axis_readings(doc, "other") == [] and readings.run_readings(doc) == []


def test_an_axis_choice_with_experiments_leaves_the_same_axis_of_other_experiments_a_sweep(tmp_path):
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["experiments"]["twin"] = doc["experiments"]["tiny"]  # the same flows_n axis
    choice = {"id": "flows", "what": "flows", "choice": "1", "why": "t", "axis": "flows_n", "baseline": 1}
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump({**doc, "choices": [{**choice, "experiments": ["tiny"]}]}))
    named = load_mod.load(path)
    assert readings.reading_axes(named, "tiny") == {"flows_n": "1"} and len(readings.axis_readings(named, "tiny")) == 1
    assert readings.reading_axes(named, "twin") == {} and readings.axis_readings(named, "twin") == []
    path.write_text(yaml.safe_dump({**doc, "choices": [choice]}))
    assert readings.reading_axes(load_mod.load(path), "twin") == {"flows_n": "1"}, "without experiments: every one"


def test_paths_reach_a_core_links_entry_and_knobs_a_file_left_out(tmp_path):
    doc = yaml.safe_load(MINIMAL.read_text())
    exp = doc["experiments"]["tiny"]
    exp["scenario"]["topology"].update(
        kind="chain", core_nodes=3, core_links=[{"bandwidth": "1Mb"}, {"bandwidth": "2Mb"}]
    )
    exp["matrix"]["product"] = {
        "r1": {"path": "topology.core_links.0.bandwidth", "levels": ["5Mb", "10Mb"]},
        "window": {"path": "flows.tcp.agent.knobs.window_", "levels": [20]},  # the agent has no knobs mapping
    }
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    runs = expand(load_mod.load(path), path)
    links = sorted({(r.labels["r1"], r.params["topology"]["core_links"][0]["bandwidth"]) for r in runs})
    assert links == [("10Mb", "10Mb"), ("5Mb", "5Mb")]
    assert all(r.params["topology"]["core_links"][1]["bandwidth"] == "2Mb" for r in runs)
    assert all(r.params["flows"][0]["agent"]["knobs"] == {"window_": 20} for r in runs)
    exp["matrix"]["product"]["r1"]["path"] = "topology.core_links.2.bandwidth"
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(ConfigError, match=r"no '2'"):
        load_mod.load(path)


def test_a_reading_reuses_the_baseline_run_of_a_cell_it_does_not_change(tmp_path):
    """A RED knob's alternative in a DropTail cell changes nothing: same params, hence the baseline's key."""
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["queues"]["DT"] = {"class": "Queue/DropTail"}
    doc["experiments"]["tiny"]["matrix"]["product"]["queue"] = {"path": "core_queue", "levels": ["RED", "DT"]}
    doc["choices"] = [BUFFER]
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    doc = load_mod.load(path)
    base = {(r.labels["queue"], r.labels["flows_n"]): r for r in expand(doc, path)}
    for run in expand(doc, path, None, readings.run_readings(doc)[0]):
        baseline = base[(run.labels["queue"], run.labels["flows_n"])]
        same = baseline.params == run.params
        assert same == (run.labels["queue"] == "DT"), run.labels
        assert run.reading == "buffer=5" and run.context["reading"] == "buffer=5"  # aggregated under the reading


def test_a_reading_runs_only_at_the_baseline_level_of_an_axis_choice(tmp_path):
    axis_choice = {"id": "flows", "what": "flows", "choice": "1", "why": "t", "axis": "flows_n", "baseline": 1}
    doc = load(tmp_path, choices=[BUFFER, axis_choice])
    runs = expand(doc, "exp.yaml", ["tiny"], readings.run_readings(doc)[0])
    assert [r.labels["flows_n"] for r in runs] == [1]
    assert len(expand(doc, "exp.yaml", ["tiny"])) == 2


def test_paths_reach_monitor_settings_a_file_left_out(tmp_path):
    doc = yaml.safe_load(MINIMAL.read_text())  # its scenario has no monitors mapping
    doc["experiments"]["tiny"]["matrix"]["product"] = {
        "sampling": {"path": "monitors.queue_sample_interval", "levels": [0.05, 0.2]},
        "bins": {"path": "monitors.core_log.interval", "levels": [1]},
    }
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    runs = expand(load_mod.load(path), path)
    assert sorted(r.params["monitors"]["queue_sample_interval"] for r in runs) == [0.05, 0.2]
    assert all(r.params["monitors"]["core_log"] == {"interval": 1} for r in runs)


SPREAD = {
    "id": "spread",
    "what": "how the delay is aggregated",
    "choice": "per packet",
    "why": "t",
    "alternatives": [{"label": "flows", "why": "per flow", "metrics": {"e2e_delay_ms_mean": "e2e_delay_ms_flow_mean"}}],
}


def test_a_measure_choice_reads_another_metric_of_the_runs_it_is_crossed_with(tmp_path):
    doc = load(tmp_path, choices=[BUFFER, SPREAD], interactions=[["spread", "buffer"]])
    assert [r.label for r in readings.run_readings(doc)] == ["buffer=5", "buffer=50"]  # no runs of its own
    measures = {r.label: r for r in readings.measure_readings(doc)}
    assert list(measures) == ["spread=flows", "spread=flows+buffer=5", "spread=flows+buffer=50"]
    alone, crossed = measures["spread=flows"], measures["spread=flows+buffer=5"]
    assert alone.runs == readings.BASELINE and not alone.runs_anew
    assert crossed.runs == "buffer=5" and crossed.metrics == {"e2e_delay_ms_mean": "e2e_delay_ms_flow_mean"}


def test_an_interaction_of_two_path_choices_and_a_measure_choice_runs_the_path_pair(tmp_path):
    doc = load(tmp_path, choices=[BUFFER, DELAY, SPREAD], interactions=[["buffer", "delay", "spread"]])
    labels = [r.label for r in readings.run_readings(doc)]
    assert labels[-2:] == ["buffer=5+delay=2ms", "buffer=50+delay=2ms"]
    runs = {r.runs for r in readings.measure_readings(doc) if "+" in r.label}
    assert runs == {"buffer=5+delay=2ms", "buffer=50+delay=2ms"}


def test_the_sensitivity_table_judges_a_measure_reading_on_its_metric_and_ranks_rows(tmp_path):

    claim = {
        "id": "c",
        "kind": "value",
        "source": "T",
        "experiment": "tiny",
        "metric": "e2e_delay_ms_mean",
        "expected": 10,
        "pass": {"rel": 0.1},
        "drift": {"rel": 0.3},
        "row": "Table 1, RED",
    }
    other = {**claim, "id": "d", "metric": "e2e_packets", "expected": 4}
    doc = load(tmp_path, choices=[SPREAD], claims=[claim, other])
    frame = pd.DataFrame(
        [
            {"experiment": "tiny", "flows_n": 1, "seed": s, "run_key": f"k{s}", "scope": "all", "metric": m, "value": v}
            for s in (1, 2)
            for m, v in (("e2e_delay_ms_mean", 20.0), ("e2e_delay_ms_flow_mean", 10.0), ("e2e_packets", 4.0))
        ]
    )
    rows = table(doc, {"tiny": Measured(frame)}, {})
    got = {(r.claim, r.reading): (r.verdict, r.inherited) for r in rows.itertuples()}
    assert got[("c", "baseline")] == ("fail", False) and got[("c", "spread=flows")] == ("pass", False)
    assert got[("d", "spread=flows")] == ("pass", True)  # e2e_packets is not replaced: the baseline's verdict
    ranking = row_ranking(rows)
    assert ranking.iloc[0][["reading", "holds", "passes", "distance"]].tolist() == ["spread=flows", 2, 2, 0.0]
    assert ranking.iloc[1][["reading", "holds", "distance"]].tolist() == ["baseline", 1, 0.5]
    markdown = "\n".join(paper_markdown(doc, rows))
    assert "**Table 1, RED** (2 claims)" in markdown and contains_row(markdown, "| spread=flows | 2 of 2 | 2 | 0.00 |")
    assert contains_row(
        markdown, "| d | **pass** 4 ± 0 | - | none |"
    )  # the inherited verdict is not shown as a reading of its own


def test_a_reading_whose_table_is_absent_is_not_run_and_one_with_nothing_to_measure_is_missing(tmp_path):

    claim = {
        "id": "c",
        "kind": "value",
        "source": "T",
        "experiment": "tiny",
        "metric": "e2e_delay_ms_mean",
        "expected": 10,
        "pass": {"rel": 0.1},
        "drift": {"rel": 0.3},
    }
    doc = load(tmp_path, choices=[BUFFER], claims=[claim])

    def frame(metric):
        return pd.DataFrame(
            [
                {
                    "experiment": "tiny",
                    "flows_n": 1,
                    "seed": s,
                    "run_key": f"k{s}",
                    "scope": "all",
                    "metric": metric,
                    "value": 20.0,
                }
                for s in (1, 2)
            ]
        )

    # buffer=5 ran but measured another metric; buffer=50's table is not in the folder
    rows = table(doc, {"tiny": Measured(frame("e2e_delay_ms_mean"))}, {"buffer=5": {"tiny": Measured(frame("other"))}})
    got = dict(zip(rows["reading"], rows["verdict"], strict=True))
    assert got == {"baseline": "fail", "buffer=5": "missing", "buffer=50": NOT_RUN}
    assert classify(got) == "fails" and flips(got) == []  # neither is evidence
    markdown = "\n".join(paper_markdown(doc, rows))
    assert contains_row(markdown, "| c | **fail** 20 ± 0 | **missing** | **not run** | none |"), markdown


def test_a_row_is_ranked_only_over_the_readings_that_concern_it(tmp_path):

    rows = pd.DataFrame(
        [
            {"row": "R", "reading": "baseline", "claim": "c", "verdict": "fail", "distance": 1.0, "inherited": False},
            {"row": "R", "reading": "other=x", "claim": "c", "verdict": "fail", "distance": 1.0, "inherited": True},
            {"row": "R", "reading": "mine=y", "claim": "c", "verdict": "pass", "distance": 0.1, "inherited": False},
        ]
    )
    assert row_ranking(rows)["reading"].tolist() == ["mine=y", "baseline"]


def test_a_diagnostic_is_judged_under_every_reading_and_listed_apart_from_the_counts(tmp_path):

    claim = {
        "id": "c",
        "kind": "value",
        "source": "T",
        "experiment": "tiny",
        "metric": "e2e_delay_ms_mean",
        "expected": 10,
        "pass": {"rel": 0.1},
        "drift": {"rel": 0.3},
    }
    diagnostic = {**claim, "id": "d", "class": "diagnostic"}
    sanity = {**claim, "id": "s", "class": "sanity"}
    doc = load(tmp_path, choices=[SPREAD], claims=[claim, diagnostic, sanity])
    frame = pd.DataFrame(
        [
            {"experiment": "tiny", "flows_n": 1, "seed": s, "run_key": f"k{s}", "scope": "all", "metric": m, "value": v}
            for s in (1, 2)
            for m, v in (("e2e_delay_ms_mean", 20.0), ("e2e_delay_ms_flow_mean", 10.0))
        ]
    )
    rows = table(doc, {"tiny": Measured(frame)}, {})
    assert set(zip(rows["claim"], rows["class"], strict=True)) == {("c", "reproduction"), ("d", "diagnostic")}
    markdown = "\n".join(paper_markdown(doc, rows))
    assert "**Depends on the reading** (1): `c`: holds under spread=flows." in markdown, "the diagnostic is not counted"
    assert "- `d`: holds under spread=flows (pass)." in markdown
    baseline_only = "\n".join(paper_markdown(doc, rows[rows["reading"] == "baseline"]))
    assert "- `d`: holds under none of the 1 readings measured." in baseline_only


def test_an_alternative_declared_after_the_verdicts_is_marked_in_both_reports(tmp_path):

    late = {**SPREAD, "alternatives": [{**SPREAD["alternatives"][0], "post_hoc": "the delays looked per-flow"}]}
    claim = {
        "id": "c",
        "kind": "value",
        "source": "T",
        "experiment": "tiny",
        "metric": "e2e_delay_ms_mean",
        "expected": 10,
        "pass": {"rel": 0.1},
        "drift": {"rel": 0.3},
    }
    frame = pd.DataFrame(
        [
            {"experiment": "tiny", "flows_n": 1, "seed": s, "run_key": f"k{s}", "scope": "all", "metric": m, "value": v}
            for s in (1, 2)
            for m, v in (("e2e_delay_ms_mean", 20.0), ("e2e_delay_ms_flow_mean", 10.0))
        ]
    )
    marked, unmarked = [], []
    for name, choice, out in (("late", late, marked), ("pre", SPREAD, unmarked)):
        (tmp_path / name).mkdir()
        doc = load(tmp_path / name, choices=[choice], claims=[claim])
        rows = table(doc, {"tiny": Measured(frame)}, {})
        out.append("\n".join(paper_markdown(doc, rows)))
        out.append("\n".join(choice_lines(doc)))
    mark = "declared post hoc, after the verdicts, because the delays looked per-flow"
    assert "**Readings declared after the verdicts were seen**" in marked[0]
    assert f"- `spread=flows`; {mark}." in marked[0] and mark in marked[1]
    assert not any("post hoc" in text or "after the verdicts" in text for text in unmarked)


def _two_schemes(tmp_path, choice) -> tuple[dict, Path]:
    """minimal.yaml with an axis `scheme` switching the agent between stock NewReno and the BQM sender."""
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["experiments"]["tiny"]["matrix"]["product"]["scheme"] = {
        "levels": {
            "stock": {"flows.tcp.agent.class": "Agent/TCP/Newreno"},
            "bqm": {"flows.tcp.agent.class": "Agent/TCP/Newreno/BQM"},
        }
    }
    doc["choices"] = [choice]
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    return doc, path


LAYOUT = {
    "id": "layout",
    "what": "pattern layout",
    "choice": "ruler",
    "why": "t",
    "path": "flows.tcp.agent.knobs.pattern_",
    "where": {"scheme": "bqm"},
    "alternatives": [{"label": "adjacent", "value": "0 3 1 3 2 3 2 3", "why": "t"}],
}


def test_a_choice_with_where_changes_only_the_cells_it_names(tmp_path, ns_binary):
    """A knob only the BQM sender has: the stock cells keep the baseline's params (and runs)."""
    _, path = _two_schemes(tmp_path, LAYOUT)
    doc = load_mod.load(path)
    references.check_knobs(doc, path, ns_binary)  # no reading puts pattern_ on stock NewReno
    (reading,) = readings.run_readings(doc)
    base = {tuple(r.labels.values()): r for r in expand(doc, path, ["tiny"])}
    alt = {tuple(r.labels.values()): r for r in expand(doc, path, ["tiny"], reading)}
    assert sorted(alt) == sorted(base) and len(alt) == 4
    for labels, run in alt.items():
        knobs = run.params["flows"][0]["agent"]["knobs"]
        if "bqm" in labels:
            assert knobs["pattern_"] == "0 3 1 3 2 3 2 3"
        else:
            assert run.params == base[labels].params


def test_a_choice_without_where_that_breaks_other_cells_is_refused(tmp_path, ns_binary):
    _, path = _two_schemes(tmp_path, {k: v for k, v in LAYOUT.items() if k != "where"})
    doc = load_mod.load(path)
    with pytest.raises(ConfigError, match="reading layout=adjacent.*pattern_"):
        references.check_knobs(doc, path, ns_binary)


def test_a_choice_s_where_names_levels(tmp_path):
    _, path = _two_schemes(tmp_path, {**LAYOUT, "where": {"scheme": "BQM"}})
    with pytest.raises(ConfigError, match=r"choices\[0\]\.where\.scheme: 'BQM' is not a level; levels: bqm, stock"):
        load_mod.load(path)


BOTH_BUFFERS = {
    "id": "buffers",
    "what": "every buffer",
    "choice": "default",
    "why": "t",
    "alternatives": [
        {"label": "small", "why": "small", "set": {"queues.RED.knobs.limit_": 5, "queues.DT.knobs.limit_": 5}}
    ],
}


def test_one_alternative_sets_several_queues_in_each_experiment_that_uses_one(tmp_path):
    """A set over several named queues (every RED variant of a file) applies wherever one of them is used; each
    experiment's runs change only in the queue they use."""
    doc = load(tmp_path, choices=[BOTH_BUFFERS])
    doc["claims"].append({**doc["claims"][0], "id": "other_claim", "experiment": "other"})
    (reading,) = readings.run_readings(doc)
    assert sorted(readings.experiments_of(doc, reading)) == ["other", "tiny"]
    for name, queue in (("tiny", "Queue/RED"), ("other", "Queue/DropTail")):
        (run, *_) = expand(doc, "exp.yaml", [name], reading)
        assert run.params["core_queue"]["class"] == queue
        assert run.params["core_queue"]["knobs"]["limit_"] == 5


def test_a_set_naming_an_undefined_queue_is_refused(tmp_path):
    choice = {
        **BOTH_BUFFERS,
        "alternatives": [{**BOTH_BUFFERS["alternatives"][0], "set": {"queues.NOPE.knobs.limit_": 5}}],
    }
    with pytest.raises(ConfigError, match="queues.NOPE"):
        load(tmp_path, choices=[choice])


def test_an_alternative_runs_only_where_its_own_paths_apply(tmp_path):
    """Two alternatives of one choice that set different queues' knobs: each reading runs only in the experiments
    that use its queue; the choice as a whole reaching both does not make either reading run in both (it would
    judge the other experiment's claims on its baseline runs as if under that reading)."""
    per_queue = {
        "id": "buffers",
        "what": "buffers",
        "choice": "default",
        "why": "t",
        "alternatives": [
            {"label": "red_5", "set": {"queues.RED.knobs.limit_": 5}, "why": "RED's"},
            {"label": "dt_5", "set": {"queues.DT.knobs.limit_": 5}, "why": "DT's"},
        ],
    }
    doc = load(tmp_path, choices=[per_queue])
    doc["claims"].append({**doc["claims"][0], "id": "other_claim", "experiment": "other"})
    by_label = {r.label: r for r in readings.run_readings(doc)}
    assert readings.experiments_of(doc, by_label["buffers=red_5"]) == ["tiny"]
    assert readings.experiments_of(doc, by_label["buffers=dt_5"]) == ["other"]


def test_only_a_measured_verdict_flips_a_measured_baseline():
    from experiments.verdicts.sensitivity import flips

    verdicts = {"baseline": "pass", "a=1": "fail", "b=1": "missing", "c=1": "incomplete", "d=1": "pass", "e=1": "drift"}
    assert flips(verdicts) == ["a=1", "e=1"]
    assert flips({"baseline": "missing", "a=1": "fail", "d=1": "pass"}) == []
