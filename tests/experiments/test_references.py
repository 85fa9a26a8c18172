"""experiments/references/check.py: metrics, figure and table entries, ns-2 classes and knobs checked before any run.

The bad-file corpus (tests/configs/bad/, run by test_config_errors.py) shows each message end to end; these are
the finer cases.
"""

from __future__ import annotations

import copy
import textwrap
from pathlib import Path

import pytest

from experiments.common.files import sha256_file
from experiments.config.errors import ConfigError
from experiments.config.load import load
from experiments.references import check as references
from experiments.references.ns_knobs import SCRIPT, KnobCatalog

REPO = Path(__file__).resolve().parents[2]
MINIMAL = load(REPO / "tests" / "configs" / "minimal.yaml")


def minimal(**changes) -> dict:
    """The minimal file, loaded, with top-level sections replaced."""
    return {**copy.deepcopy(MINIMAL), **changes}


def claim(metric: str, **extra) -> dict:
    return {
        "id": "c",
        "kind": "value",
        "source": "s",
        "experiment": "tiny",
        "metric": metric,
        "expected": 1,
        "pass": {"abs": 0.5},  # a band that leaves 0 out (test_a_pass_band_holding_zero_needs_a_reason)
        "drift": {"abs": 2},
        **extra,
    }


def figure(**extra) -> dict:
    return {"id": "f", "experiment": "tiny", "module": "figures.generic", "function": "metric_vs_axis", **extra}


def check(doc: dict, ns_binary: Path | None = None) -> None:
    references.check(doc, "f.yaml", ns_binary)


def error(doc: dict, ns_binary: Path | None = None) -> str:
    with pytest.raises(ConfigError) as raised:
        check(doc, ns_binary)
    message = str(raised.value)
    assert message.startswith("f.yaml: ") and "\n" not in message
    return message


def with_monitors(doc: dict, **monitors) -> dict:
    doc["experiments"]["tiny"]["scenario"]["monitors"].update(monitors)
    return doc


def test_the_minimal_file_passes(capsys):
    check(MINIMAL)
    assert "class and knob names not checked" in capsys.readouterr().err


@pytest.mark.parametrize("config_file", sorted((REPO / "configs").glob("*.yaml")), ids=lambda p: p.stem)
def test_shipped_configs_pass_every_check(config_file, ns_binary):
    references.check(load(config_file), config_file, ns_binary)


# --- metrics -----------------------------------------------------------------


def test_a_misspelt_metric_gets_the_nearest_name():
    message = error(minimal(claims=[claim("fairness_jian")]))
    assert "claims[0].metric: unknown metric 'fairness_jian'; did you mean 'fairness_jain'?" in message


def test_a_patterned_metric_outside_its_family_is_unknown():
    assert "unknown metric 'core_drop_hint_le12_pct'" in error(minimal(claims=[claim("core_drop_hint_le12_pct")]))


def test_a_scope_the_metric_lacks():
    message = error(minimal(claims=[claim("cwnd_mean")]))
    assert "cwnd_mean has no scope 'all'; its scopes: flow<fid>" in message


def test_a_flow_scope_where_the_metric_has_one():
    check(minimal(claims=[claim("cwnd_mean", scope="flow1")]))


def test_a_link_metric_beyond_the_last_core_link():
    doc = minimal(figures=[figure(metric="utilization_pct", x="flows_n")])
    references.check_metric(
        "utilization_pct",
        "core0",
        MINIMAL["experiments"]["tiny"]["scenario"],
        MINIMAL["experiments"]["tiny"],
        "w",
        Path("f.yaml"),
    )
    with pytest.raises(ConfigError, match="the scenario's core links are core0..core0"):
        references.check_metric(
            "utilization_pct",
            "core1",
            MINIMAL["experiments"]["tiny"]["scenario"],
            MINIMAL["experiments"]["tiny"],
            "w",
            Path("f.yaml"),
        )
    assert "has no scope 'all'" in error(doc)  # metric_vs_axis reads scope all


def test_needs_the_packet_trace():
    doc = with_monitors(minimal(), packet_trace=False)
    assert "e2e_delay_ms_mean needs the packet trace" in error(doc)
    check(with_monitors(minimal(claims=[claim("bottleneck_queue_pkts_mean")]), packet_trace=False))


def test_needs_core_log():
    assert "needs `monitors.core_log`" in error(minimal(claims=[claim("core_utilization")]))
    check(with_monitors(minimal(claims=[claim("core_utilization")]), core_log={"interval": 1}))


def test_needs_a_flow_group_of_the_right_kind():
    assert "no flow group of kind http" in error(minimal(claims=[claim("objects_completed")]))
    doc = minimal(claims=[claim("objects_completed", scope="group:tcp")])
    doc["experiments"]["tiny"]["scenario"]["flows"]["web"] = {
        **doc["experiments"]["tiny"]["scenario"]["flows"]["tcp"],
        "kind": "http",
    }
    assert "objects_completed of group:tcp needs a flow group of kind http; 'tcp' is ftp" in error(doc)
    doc["claims"][0]["scope"] = "group:web"
    check(doc)


def with_fec_flow(doc: dict, sink: str = "Agent/LossMonitor", **experiment) -> dict:
    doc["experiments"]["tiny"]["scenario"]["flows"]["fec"] = {
        "kind": "exponential",
        "agent": {"class": "Agent/UDP"},
        "sink": {"class": sink},
    }
    doc["experiments"]["tiny"].update(experiment)
    return doc


def test_sink_metrics_need_a_loss_monitor():
    message = error(minimal(claims=[claim("sink_loss_pct")]))
    assert "needs a UDP flow group whose sink is an Agent/LossMonitor" in message
    doc = with_fec_flow(minimal(claims=[claim("sink_loss_pct", scope="group:fec")]), sink="Agent/Null")
    assert "sink_loss_pct of group:fec needs its sink to be an Agent/LossMonitor" in error(doc)
    check(with_fec_flow(minimal(claims=[claim("sink_loss_pct", scope="group:fec")])))


def test_fec_metrics_name_a_measured_code():
    doc = with_fec_flow(minimal(claims=[claim("fec_plr_16_1_pct")]))
    assert "[16, 1] is not in the experiment's fec_blocks; measured: none (no fec_blocks)" in error(doc)
    doc = with_fec_flow(minimal(claims=[claim("fec_blocks_16_1")]), fec_blocks=[[16, 4], [8, 2]])
    assert "[16, 1] is not in the experiment's fec_blocks; measured: [16, 4], [8, 2]" in error(doc)
    check(with_fec_flow(minimal(claims=[claim("fec_plr_data_8_2_pct")]), fec_blocks=[[16, 4], [8, 2]]))


def test_variance_windows_must_be_measured():
    doc = with_monitors(minimal(), core_log={"interval": 1})
    doc["experiments"]["tiny"]["duration"] = 1000
    for good in ("core_drops_per_s_var@0-100", "core_drops_per_s_var@500-1000", "core_drops_per_s_var@0-1000"):
        check({**doc, "claims": [claim(good)]})
    for bad in ("core_drops_per_s_var@50-150", "core_drops_per_s_var@0-200", "core_drops_per_s_var@1000-1500"):
        assert "is not a measured window" in error({**doc, "claims": [claim(bad)]})


def trace_axis_doc(**claim_extra) -> dict:
    """The packet trace off in the baseline; an axis `trace` turns it on at level 'on'."""
    doc = with_monitors(minimal(claims=[claim("e2e_delay_ms_mean", **claim_extra)]), packet_trace=False)
    doc["experiments"]["tiny"]["matrix"]["product"]["trace"] = {
        "path": "monitors.packet_trace",
        "levels": {"off": False, "on": True},
    }
    return doc


def test_a_need_a_free_axis_turns_on_is_judged_by_the_baseline():
    assert "needs the packet trace" in error(trace_axis_doc())


def test_a_need_met_at_the_level_the_entry_fixes():
    check(trace_axis_doc(where={"trace": "on"}))


# --- figure and table entries ------------------------------------------------


def test_a_generic_figure_passes():
    check(minimal(figures=[figure(metric="e2e_delay_ms_mean", x="flows_n", hue="flows_n", levels=[2, 1])]))


@pytest.mark.parametrize(
    "entry,fragment",
    [
        (figure(metric="goodput_Bps", x="flows_n", hue="queue"), "figures[0].hue: 'queue' is not an axis of tiny"),
        (figure(metric="goodput_Bps", x="flows_n", levels=[5]), "'5' is not a level of any axis of tiny"),
        (figure(function="draw"), "figures.generic has no function 'draw'"),
        (figure(function="select"), "figures.generic has no function 'select'"),  # imported, not defined there
        (figure(metric="goodput_Bps", x="flows_n", scope="web"), "'web' is not a flow group of tiny"),
        (figure(function="distribution", module="figures.pisa_pimc", table="core_drop"), "unknown table 'core_drop'"),
        (figure(function="distribution", module="figures.pisa_pimc", table="core_drops"), "core_drops needs"),
    ],
)
def test_bad_figure_entries(entry, fragment):
    assert fragment in error(minimal(figures=[entry]))


def test_a_table_entry_is_checked_like_a_figure():
    assert "tables[0].function" in error(minimal(tables=[figure(function="nothing_here")]))


def test_the_default_module_is_the_paper_s():
    entry = {"id": "f", "experiment": "tiny", "function": "fig7"}
    message = error(minimal(tables=[entry]))  # paper `minimal`: no figures/minimal.py
    assert "tables[0].experiment: no module figures.minimal" in message
    check(minimal(paper="koo_aqm", tables=[entry]))


def test_top_level_functions_are_read_without_importing(tmp_path):
    source = tmp_path / "mod.py"
    source.write_text(
        textwrap.dedent("""
        import matplotlib_that_is_not_installed
        def drawn(): pass
        def _helper():
            def inner(): pass
        class Panel:
            def method(self): pass
        lambda_value = lambda: None
    """)
    )
    assert references.top_level_functions(source) == ["drawn", "_helper"]


# --- ns-2 classes and knobs ---------------------------------------------------


@pytest.fixture
def knob_cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("NS2REPRO_CACHE", str(tmp_path))
    return tmp_path / "knobs"


def test_knob_names_are_asked_once_and_cached_by_the_binary_s_hash(ns_binary, knob_cache, monkeypatch):
    catalog = KnobCatalog(ns_binary)
    catalog.ensure({"Queue/RED", "Agent/TCP/Newreno", "Queue/NoSuchQueue"})
    assert "thresh_" in catalog.knobs("Queue/RED")["knobs"]
    assert "doubleq_" in catalog.knobs("Queue/RED")["unbound"]  # a class default RED never binds
    assert "Queue/PI/PISA" in catalog.descendants("Queue/PI") and not catalog.is_class("Queue/NoSuchQueue")
    (cached,) = knob_cache.iterdir()
    assert cached.name == f"{catalog.cache.stem}.json"
    # keyed by the binary's sha256 and the start of the asking script's (experiments/ns_knobs.tcl): a script that
    # asks about more classes (Mac, for the wireless topology) must not read an older answer
    binary, script = cached.stem.split("-")
    assert (binary, script) == (sha256_file(ns_binary), sha256_file(SCRIPT)[:12])

    def no_ns(self, classes):
        raise AssertionError(f"ns asked again for {classes}")

    monkeypatch.setattr(KnobCatalog, "_ask", no_ns)
    again = KnobCatalog(ns_binary)
    again.ensure({"Queue/RED", "Queue/NoSuchQueue"})  # all known, or known not to be classes: no ns run
    assert again.knobs("Agent/TCP/Newreno") == catalog.knobs("Agent/TCP/Newreno")


def test_a_misspelt_knob_of_a_named_queue(ns_binary, knob_cache):
    doc = minimal()
    doc["queues"]["RED"]["knobs"]["q_wieght_"] = 0.002
    assert "queues.RED.knobs.q_wieght_: unknown knob of Queue/RED; known: q_weight_" in error(doc, ns_binary)


def test_an_inline_core_queue_and_an_abstract_base(ns_binary, knob_cache):
    doc = minimal()
    doc["experiments"]["tiny"]["scenario"]["core_queue"] = {"class": "Queue", "knobs": {}}
    message = error(doc, ns_binary)
    assert "experiments.tiny.scenario.core_queue.class: unknown class 'Queue' (must be a subclass of Queue)" in message


def test_a_sink_of_the_wrong_family(ns_binary, knob_cache):
    doc = minimal()
    doc["experiments"]["tiny"]["scenario"]["flows"]["tcp"]["sink"] = {"class": "Agent/Null"}
    assert "sink.class: unknown class 'Agent/Null' (must be Agent/TCPSink or a subclass)" in error(doc, ns_binary)


def test_application_and_error_model_knobs(ns_binary, knob_cache):
    doc = minimal()
    scenario = doc["experiments"]["tiny"]["scenario"]
    app = {"class": "Application/Traffic/Pareto", "knobs": {"burst-time_": 1}}
    scenario["flows"]["udp"] = {
        "kind": "pareto",
        "count": 1,
        "start": 0,
        "agent": {"class": "Agent/UDP"},
        "sink": {"class": "Agent/Null"},
        "app": app,
    }
    assert "flows.udp.app.knobs.burst-time_: unknown knob of Application/Traffic/Pareto" in error(doc, ns_binary)
    scenario["flows"]["udp"]["app"]["knobs"] = {"burst_time_": 0.01}
    scenario["topology"]["sink_loss"] = {"class": "ErrorModel", "knobs": {"rate": 0.01}}
    assert "topology.sink_loss.knobs.rate: unknown knob of ErrorModel" in error(doc, ns_binary)


def test_gaimd_needs_its_knobs_on_the_agent_class(ns_binary, knob_cache):
    doc = minimal()
    doc["experiments"]["tiny"]["scenario"]["flows"]["tcp"]["gaimd"] = {"beta": 0.875, "strict": True}
    check(doc, ns_binary)


def test_a_matrix_level_that_sets_a_class(ns_binary, knob_cache):
    doc = minimal()
    doc["experiments"]["tiny"]["matrix"]["product"]["variant"] = {
        "levels": {"reno": {"flows.tcp.agent.class": "Agent/TCP/Reno"}, "bad": {"flows.tcp.agent.class": "Agent/UDP"}}
    }
    message = error(doc, ns_binary)
    assert message.startswith("f.yaml: experiments.tiny.matrix.variant.levels.bad: with this level, scenario.flows")
    assert "unknown class 'Agent/UDP' (must be Agent/TCP or a subclass)" in message


def test_a_matrix_level_that_sets_a_knob_of_a_named_queue(ns_binary, knob_cache):
    doc = minimal()
    doc["experiments"]["tiny"]["matrix"]["product"]["w"] = {"path": "queues.RED.knobs.q_weigth_", "levels": [0.1]}
    message = error(doc, ns_binary)
    assert "matrix.w.levels.0.1: with this level, queues.RED.knobs.q_weigth_: unknown knob of Queue/RED" in message


def test_a_combination_of_levels_is_checked_per_cell(ns_binary, knob_cache):
    doc = minimal()
    doc["experiments"]["tiny"]["matrix"]["product"] = {
        "agent": {"path": "flows.tcp.agent", "levels": {"sack": {"class": "Agent/TCP/Sack1"}}},
        "window": {"path": "flows.tcp.agent.knobs", "levels": {"w": {"window_": 10, "max_ssthresh_": 8}}},
    }
    check(doc, ns_binary)
    doc["experiments"]["tiny"]["matrix"]["product"]["agent"]["levels"]["vegas"] = {"class": "Agent/TCP/Vegas"}
    doc["experiments"]["tiny"]["matrix"]["product"]["window"]["levels"]["w"]["v_alpha_"] = 1
    message = error(doc, ns_binary)  # Vegas binds v_alpha_, Sack1 does not
    assert (
        "experiments.tiny.matrix at agent=sack, window=w: with these levels, scenario.flows.tcp.agent.knobs.v_alpha_"
        in message
    )


def test_a_knob_valid_only_with_the_class_another_axis_sets(ns_binary, knob_cache):
    doc = minimal()
    doc["experiments"]["tiny"]["matrix"]["product"] = {
        "agent": {"path": "flows.tcp.agent.class", "levels": ["Agent/TCP/Vegas"]},
        "alpha": {"path": "flows.tcp.agent.knobs", "levels": {"a1": {"v_alpha_": 1}, "a2": {"v_alpha_": 2}}},
    }
    check(doc, ns_binary)


def test_without_a_binary_the_knobs_are_not_checked(capsys, tmp_path):
    doc = minimal()
    doc["queues"]["RED"]["knobs"]["q_wieght_"] = 0.002
    check(doc, tmp_path / "no-ns")
    assert capsys.readouterr().err.count("\n") == 1


def test_a_pass_band_holding_zero_needs_a_reason():
    """A value claim whose pass band holds 0 would pass a run where nothing happened: refused, unless it says why a
    0 agrees with the paper, or its metric can never be 0 (Jain's index is at least 1/n)."""
    zero_tolerant = claim("bottleneck_drop_pct", **{"pass": {"abs": 1}})
    assert error(minimal(claims=[zero_tolerant])) == (
        "f.yaml: claims[0].pass: ±1 around 1 passes a measured 0 of bottleneck_drop_pct; allowed: a pass band that "
        "leaves 0 out, or zero_passes: why a 0 agrees with the paper"
    )
    check(minimal(claims=[{**zero_tolerant, "zero_passes": "the paper prints 0"}]))
    check(minimal(claims=[claim("fairness_jain", **{"pass": {"abs": 1}})]))
    bound = {"kind": "bound", "bound": "below", "threshold": 1, "drift_threshold": 2}
    check(minimal(claims=[claim("bottleneck_drop_pct", **bound)]))  # only value claims have a band around a value
