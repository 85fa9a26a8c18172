"""The Tcl driver (DESIGN.md §1-5): params.json in; meta.json, packets.tr, queue_monitor.tsv, flows.tsv out."""

from __future__ import annotations

import json
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import pytest

DRIVER = Path(__file__).resolve().parents[2] / "tcl" / "driver.tcl"
# fid 4's sink is a LossMonitor: sinks.tsv and sink_gaps.tsv
OUTPUTS = [
    "meta.json",
    "packets.tr",
    "queue_monitor.tsv",
    "flows.tsv",
    "tcp_counters.tsv",
    "sinks.tsv",
    "sink_gaps.tsv",
]
FLOWS_HEADER = "time\tfid\tdelivered_bytes\tcwnd\tssthresh\tretransmits"
TSV_HEADER = (
    "time\tlink\tsize_bytes\tsize_packets\tarrivals_packets\tarrivals_bytes"
    "\tdepartures_packets\tdepartures_bytes\tdrops_packets\tdrops_bytes"
)


def read_meta(run_dir: Path) -> dict:
    return json.loads((run_dir / "meta.json").read_text())


def read_trace(run_dir: Path) -> list[list[str]]:
    with open(run_dir / "packets.tr") as f:
        return [line.split() for line in f]


def read_monitor(run_dir: Path) -> list[dict]:
    lines = (run_dir / "queue_monitor.tsv").read_text().splitlines()
    assert lines[0] == TSV_HEADER
    names = lines[0].split("\t")
    rows = [dict(zip(names, line.split("\t"), strict=True)) for line in lines[1:]]
    for row in rows:
        for name in names[2:]:
            row[name] = int(row[name])
    return rows


def link_names(meta: dict) -> dict[tuple[str, str], str]:
    """(from, to) node ids as printed in traces -> link name."""
    return {(str(link["from"]), str(link["to"])): link["name"] for link in meta["links"]}


def events_by_link(run_dir: Path) -> dict[str, Counter]:
    names = link_names(read_meta(run_dir))
    counts: dict[str, Counter] = defaultdict(Counter)
    for f in read_trace(run_dir):
        counts[names[(f[2], f[3])]][f[0]] += 1
    return counts


# ---- one shared RED dumbbell run ----


def test_outputs_are_written_and_nothing_is_printed(red_run):
    assert sorted(p.name for p in red_run.iterdir()) == sorted(["params.json", *OUTPUTS])


def test_meta_names_nodes_links_and_flows(red_run):
    meta = read_meta(red_run)
    assert meta["schema"] == "ns2-repro/run-meta/1"
    assert meta["nodes"] == {
        "core": [0, 1],
        "sources": {"1": 2, "2": 4, "3": 6, "4": 8},
        "sinks": {"1": 3, "2": 5, "3": 7, "4": 9},
    }
    assert meta["links"][0] == {"name": "core0", "from": 0, "to": 1, "role": "core", "traced": True, "monitored": True}
    for fid in "1234":
        src, dst = meta["nodes"]["sources"][fid], meta["nodes"]["sinks"][fid]
        entry = {"name": f"entry{fid}", "from": src, "to": 0, "role": "entry", "fid": int(fid)}
        exit_ = {"name": f"exit{fid}", "from": 1, "to": dst, "role": "exit", "fid": int(fid)}
        assert {**entry, "traced": True, "monitored": False} in meta["links"]
        assert {**exit_, "traced": True, "monitored": False} in meta["links"]
    assert len(meta["links"]) == 9
    assert meta["flows"] == [
        {"fid": 1, "kind": "ftp", "group": "", "source": 2, "sink": 3},
        {"fid": 2, "kind": "ftp", "group": "", "source": 4, "sink": 5},
        {"fid": 3, "kind": "ftp", "group": "", "source": 6, "sink": 7},
        {"fid": 4, "kind": "pareto", "group": "", "source": 8, "sink": 9},
    ]


def test_trace_lines_are_on_exactly_the_traced_links(red_run):
    meta = read_meta(red_run)
    names = link_names(meta)
    seen = set()
    for fields in read_trace(red_run):
        assert len(fields) == 12
        assert fields[0] in "+-rd"
        seen.add(names[(fields[2], fields[3])])  # KeyError: a link meta.json does not name
    assert seen == {link["name"] for link in meta["links"] if link["traced"]}


def test_each_flows_data_enters_on_its_entry_link_and_leaves_on_its_exit_link(red_run):
    meta = read_meta(red_run)
    names = link_names(meta)
    entered: dict[str, set] = defaultdict(set)
    received: dict[str, set] = defaultdict(set)
    for event, _, a, b, ptype, size, _, fid, _, _, _, uid in read_trace(red_run):
        link = names[(a, b)]
        if ptype in ("tcp", "pareto") and int(size) >= 500:  # data, not the 40-byte SYN
            if event == "+" and link == f"entry{fid}":
                entered[fid].add(uid)
            elif event == "r" and link == f"exit{fid}":
                received[fid].add(uid)
            assert link in ("core0", f"entry{fid}", f"exit{fid}"), "a flow's packets stay on its own path"
    for fid in "1234":
        assert received[fid], f"flow {fid} delivered nothing"
        assert received[fid] <= entered[fid]
        assert len(received[fid]) > 0.9 * len(entered[fid])


def test_queue_monitor_samples_every_interval_to_the_end(red_run):
    rows = read_monitor(red_run)
    assert [r["time"] for r in rows] == [f"{i / 10:.6f}" for i in range(101)]
    assert {r["link"] for r in rows} == {"core0"}
    for before, after in zip(rows, rows[1:], strict=False):
        for counter in ("arrivals_packets", "arrivals_bytes", "departures_packets", "departures_bytes"):
            assert after[counter] >= before[counter]
        assert after["drops_packets"] >= before["drops_packets"]
        assert after["drops_bytes"] >= before["drops_bytes"]
    for r in rows:  # every arrival is still queued, has left or was dropped
        assert r["arrivals_packets"] == r["departures_packets"] + r["drops_packets"] + r["size_packets"]
        assert r["arrivals_bytes"] == r["departures_bytes"] + r["drops_bytes"] + r["size_bytes"]
    assert rows[-1]["arrivals_packets"] > 10_000


def test_queue_monitor_agrees_with_the_trace(red_run):
    last = read_monitor(red_run)[-1]
    core0 = events_by_link(red_run)["core0"]
    assert core0["+"] == last["arrivals_packets"]
    assert core0["-"] == last["departures_packets"]
    assert core0["d"] == last["drops_packets"]


def test_meta_holds_set_knobs_and_defaults(red_run):
    knobs = read_meta(red_run)["knobs"]
    red = knobs["core_queue"]
    assert red["class"] == "Queue/RED"
    set_in_params = {"queue_in_bytes_": "1", "limit_": "300", "mean_pktsize_": "500", "thresh_": "60"}
    set_in_params |= {"maxthresh_": "240", "linterm_": "1", "q_weight_": "0.002"}
    assert red["values"].items() >= set_in_params.items()
    assert red["values"].items() >= {"gentle_": "1", "setbit_": "0", "wait_": "1", "drop_tail_": "1"}.items()
    assert red["values"]["thresh_queue_"] == "30000", "derived by RED at simulation start: 60 packets * 500 bytes"
    assert "doubleq_" not in red["values"] and "id" not in red["values"], "class defaults with no binding"
    assert "blocked_" in red["values"], "inherited from Queue"
    assert knobs["edge_queue"]["class"] == "Queue/DropTail"
    assert knobs["edge_queue"]["values"].items() >= {"limit_": "1000", "mean_pktsize_": "500"}.items()
    for fid in "123":
        flow = knobs["flows"][fid]
        assert flow["agent"]["class"] == "Agent/TCP/Newreno"
        agent = flow["agent"]["values"]
        assert agent.items() >= {"packetSize_": "500", "window_": "50", "ecn_": "1", "fid_": fid}.items()
        assert agent.items() >= {"maxburst_": "0", "windowInit_": "2", "tcpTick_": "0.01"}.items()
        assert flow["sink"]["class"] == "Agent/TCPSink" and flow["sink"]["values"]["packetSize_"] == "40"
        assert flow["app"] == {"class": "Application/FTP", "values": {}}
    pareto = knobs["flows"]["4"]
    assert pareto["app"]["class"] == "Application/Traffic/Pareto"
    assert pareto["app"]["values"] == {
        "burst_time_": "0.01",
        "idle_time_": "0.01",
        "packetSize_": "500",
        "rate_": "5000000",  # written as "5Mb"
        "shape_": "1.3",
    }
    assert pareto["agent"]["values"]["fid_"] == "4"


# ---- runs of their own ----


def test_unset_knobs_hold_ns2_defaults(koo_params, run_driver):
    params = koo_params("RED", duration=1.0)
    params["core_queue"]["knobs"] = {}
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    red = read_meta(run_dir)["knobs"]["core_queue"]["values"]
    assert red.items() >= {"mean_pktsize_": "500", "limit_": "50", "queue_in_bytes_": "1", "linterm_": "10"}.items()
    # thresh_ 0 (the default) asks RED to choose its thresholds when the simulation starts;
    # meta.json shows the values in force then.
    assert (red["thresh_"], red["maxthresh_"]) == ("6.25", "18.75")


def test_chain_of_four_core_nodes(koo_params, run_driver):
    result, run_dir = run_driver(koo_params("DropTail", kind="chain", core_nodes=4, duration=3.0))
    assert result.returncode == 0, result.stderr
    meta = read_meta(run_dir)
    assert meta["nodes"]["core"] == [0, 1, 2, 3]
    core = [link for link in meta["links"] if link["role"] == "core"]
    assert [(c["name"], c["from"], c["to"]) for c in core] == [("core0", 0, 1), ("core1", 1, 2), ("core2", 2, 3)]
    assert all(c["monitored"] and c["traced"] for c in core)
    assert all(link["from"] == 3 for link in meta["links"] if link["role"] == "exit")
    counts = events_by_link(run_dir)
    assert all(counts[f"core{j}"]["r"] > 0 for j in range(3))
    assert all(counts[f"exit{fid}"]["r"] > 0 for fid in range(1, 5))
    rows = read_monitor(run_dir)
    assert len(rows) == 31 * 3
    assert [r["link"] for r in rows[:3]] == ["core0", "core1", "core2"]
    for j in range(3):
        assert rows[-3 + j]["arrivals_packets"] == counts[f"core{j}"]["+"]


def test_tiny_droptail_buffer_drops_packets(koo_params, run_driver):
    params = koo_params("DropTail", duration=3.0)
    params["core_queue"]["knobs"] = {"limit_": 5}
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    drops = events_by_link(run_dir)["core0"]["d"]
    assert drops > 0
    assert read_monitor(run_dir)[-1]["drops_packets"] == drops
    assert read_meta(run_dir)["knobs"]["core_queue"]["values"]["limit_"] == "5"


@pytest.mark.parametrize("queue", ["DropTail", "PI"])
def test_koo_queues_in_byte_mode(queue, koo_params, run_driver):
    result, run_dir = run_driver(koo_params(queue, duration=3.0))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    values = read_meta(run_dir)["knobs"]["core_queue"]["values"]
    assert values.items() >= {"queue_in_bytes_": "1", "limit_": "300", "mean_pktsize_": "500"}.items()
    assert events_by_link(run_dir)["core0"]["r"] > 0


def test_cbr_flow(koo_params, run_driver):
    params = koo_params(duration=2.0)
    params["flows"][3] |= {"kind": "cbr", "app": {"class": "Application/Traffic/CBR", "knobs": {"rate_": "1Mb"}}}
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    cbr = [f for f in read_trace(run_dir) if f[4] == "cbr"]
    assert {f[7] for f in cbr} == {"4"}
    assert read_meta(run_dir)["knobs"]["flows"]["4"]["app"]["values"]["rate_"] == "1000000"


def test_same_params_same_bytes_other_seed_other_trace(koo_params, run_driver):
    first, a = run_driver(koo_params(duration=5.0), "a")
    second, b = run_driver(koo_params(duration=5.0), "b")
    third, c = run_driver(koo_params(duration=5.0, seed=4), "c")
    assert first.returncode == second.returncode == third.returncode == 0
    for name in OUTPUTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "packets.tr").read_bytes() != (c / "packets.tr").read_bytes()


def test_works_from_any_directory_with_a_relative_run_dir(koo_params, ns_binary, tmp_path):
    run_dir = tmp_path / "runs" / "x"
    run_dir.mkdir(parents=True)
    (run_dir / "params.json").write_text(json.dumps(koo_params(duration=0.5)))
    result = subprocess.run([ns_binary, DRIVER, "runs/x"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert all((run_dir / name).is_file() for name in OUTPUTS)


def test_samples_stop_at_the_last_interval_before_the_end(koo_params, run_driver):
    params = koo_params(duration=1.0)
    params["monitors"]["queue_sample_interval"] = 0.3
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    assert [r["time"] for r in read_monitor(run_dir)] == ["0.000000", "0.300000", "0.600000", "0.900000"]


# ---- bad parameters: one line on stderr, exit 3, no outputs ----


def set_at(params: dict, path: list, value) -> None:
    for key in path[:-1]:
        params = params[key]
    if value is DELETE:
        del params[path[-1]]
    else:
        params[path[-1]] = value


DELETE = object()
BAD = [
    (
        ["flows", 3, "app", "knobs", "burst-time_"],
        0.5,
        "flows[3].app.knobs.burst-time_: unknown knob of Application/Traffic/Pareto; "
        "known: burst_time_, idle_time_, packetSize_, rate_, shape_",
    ),
    (
        ["core_queue", "knobs", "thresh"],
        60,
        "core_queue.knobs.thresh: unknown knob of Queue/RED; "
        "known: thresh_, bytes_, maxthresh_, ave_, curq_ (the 5 closest of 41)",
    ),
    (
        ["core_queue", "knobs", "doubleq_"],
        True,
        "core_queue.knobs.doubleq_: unknown knob of Queue/RED (a class default ns-2 never binds, so it has no "
        "effect); known: curq_, debug_, gentle_, ave_, beta_ (the 5 closest of 41)",
    ),
    (
        ["core_queue", "class"],
        "Queue/REDD",
        'core_queue.class: unknown class "Queue/REDD" (must be a subclass of Queue); '
        "known: Queue/RED, Queue/LRED, Queue/RED/PD, Queue/REM, Queue/dsRED (the 5 closest of 34)",
    ),
    (
        ["flows", 0, "agent", "class"],
        "Agent/TCP/NewReno",
        'flows[0].agent.class: unknown class "Agent/TCP/NewReno" (must be Agent/TCP or a subclass); '
        "known: Agent/TCP/Newreno, Agent/TCP/Reno, Agent/TCP/Newreno/FS, Agent/TCP/Newreno/BQM, Agent/TCP/Int "
        "(the 5 closest of 32)",
    ),
    (["topology", "kind"], "star", 'topology.kind: unknown topology kind "star"; known: chain, dumbbell'),
    (["flows", 1, "kind"], "tcp", 'flows[1].kind: unknown flow kind "tcp"; known: cbr, exponential, ftp, http, pareto'),
    (
        ["flows", 2, "sink"],
        DELETE,
        "flows[2].sink: missing required field; known: required fields of flows[2]: fid, kind, start, agent, sink",
    ),
    (
        ["seed"],
        DELETE,
        "seed: missing required field; "
        "known: required fields of params.json: schema, seed, duration, topology, core_queue, flows, monitors",
    ),
    (
        ["monitors", "queue_sample_intervall"],
        0.1,
        "monitors.queue_sample_intervall: unknown field; "
        "known: core_log, flow_sample_interval, packet_headers, packet_trace, queue_sample_interval, queue_vars",
    ),
    (
        ["monitors", "queue_vars"],
        ["avg_"],
        'monitors.queue_vars: Queue/RED has no variable "avg_"; known: variables the queue binds '
        "(e.g. RED's ave_, cur_max_p_; see meta.json's core queue knobs)",
    ),
    (
        ["monitors", "flow_sample_interval"],
        0.25,
        "monitors.flow_sample_interval: 0.25 s is not a whole multiple of queue_sample_interval (0.1 s); "
        "known: k x 0.1 for a whole k >= 1",
    ),
    (["flows", 0, "stop"], 0.0, 'flows[0].stop: bad value "0.0"; known: a number > 0'),
    (["flows", 2, "stop"], 11, "flows[2].stop: stops at 11; known: start (0.0) < stop <= duration (10.0)"),
    (
        ["flows", 0, "agent", "knobs", "window_"],
        "abc",
        'flows[0].agent.knobs.window_: "abc" is not a number; '
        "known: numbers, true/false, times like 10ms, rates like 5Mb (default: 20)",
    ),
    (
        ["flows", 0, "agent", "knobs", "packetSize_"],
        1.5,
        'flows[0].agent.knobs.packetSize_: ns-2 stores 1 for "1.5"; '
        "known: values this knob holds unchanged, like the default 1000",
    ),
    (
        ["flows", 3, "app", "knobs", "rate_"],
        "10ms",
        'flows[3].app.knobs.rate_: ns-2 stores 10000000 for "10ms"; '
        "known: values this knob holds unchanged, like the default 64Kb",
    ),
    (
        ["flows", 3, "agent", "knobs", "fid_"],
        7,
        "flows[3].agent.knobs.fid_: set by the driver: it is the flow's fid; known: the other knobs of Agent/UDP",
    ),
    (
        ["topology", "core_nodes"],
        3,
        "topology.core_nodes: a dumbbell has 2 core nodes, not 3; known: 2 (use kind chain for more)",
    ),
    (["seed"], 0, 'seed: bad value "0"; known: an integer >= 1'),
    (
        ["topology", "core_link", "bandwidth"],
        "10Mbx",
        'topology.core_link.bandwidth: bad rate "10Mbx"; known: a number with an optional unit, e.g. 10Mb, 1.5Gb, 64Kb',
    ),
    (["flows", 1, "fid"], 1, "flows[1].fid: fid 1 is used twice; known: a positive integer no other flow uses"),
    (
        ["flows", 0, "enter"],
        1,
        "flows[0]: enters at core router 1 and leaves at 1; known: enter != leave, both in 0..1 "
        "(the core routers; enter > leave for a reverse flow)",
    ),
    (
        ["topology", "core_links"],
        [{}, {}],
        "topology.core_links: not a list of 1 links; known: one {bandwidth, delay, queue} object per core link "
        "(core_nodes - 1)",
    ),
    (["monitors", "packet_trace"], "no", 'monitors.packet_trace: bad value "no"; known: true, false, text'),
    (
        ["flows", 0, "http"],
        {},
        "flows[0].http: not a field of a ftp flow; known: http flows have http (and no app); other flows have app",
    ),
    (
        ["topology", "sink_loss"],
        {"class": "Queue/RED", "knobs": {}},
        'topology.sink_loss.class: unknown class "Queue/RED" (must be ErrorModel or a subclass); known: '
        "ErrorModel, ErrorModel/Expo, ErrorModel/List, ErrorModel/Trace, ErrorModel/Uniform (the 5 closest of 12)",
    ),
]


@pytest.mark.parametrize(("path", "value", "line"), BAD, ids=[".".join(map(str, p)) for p, _, _ in BAD])
def test_bad_parameter(path, value, line, koo_params, run_driver, tmp_path):
    params = koo_params()
    set_at(params, path, value)
    stale = tmp_path / "run"
    stale.mkdir()
    for name in OUTPUTS:  # outputs of an earlier run must not survive either
        (stale / name).write_text("stale")
    result, run_dir = run_driver(params)
    assert result.returncode == 3
    assert result.stderr == f"ns2-repro: {line}\n"
    assert result.stdout == ""
    assert sorted(p.name for p in run_dir.iterdir()) == ["params.json"]


def test_unreadable_params_exit_3(ns_binary, tmp_path):
    result = subprocess.run([ns_binary, DRIVER, tmp_path], capture_output=True, text=True)
    assert result.returncode == 3
    assert result.stderr.startswith("ns2-repro: params.json: cannot be read")
    (tmp_path / "params.json").write_text("{not json")
    result = subprocess.run([ns_binary, DRIVER, tmp_path], capture_output=True, text=True)
    assert (result.returncode, result.stderr.splitlines()[0][:37]) == (3, "ns2-repro: params.json: not a JSON ob")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.json"]


# ---- flows.tsv, runs without a packet trace, multi-bottleneck chains, error models ----


def read_flows(run_dir: Path) -> list[dict]:
    lines = (run_dir / "flows.tsv").read_text().splitlines()
    assert lines[0] == FLOWS_HEADER
    names = lines[0].split("\t")
    return [dict(zip(names, line.split("\t"), strict=True)) for line in lines[1:]]


def test_flows_tsv_samples_each_tcp_flow_at_every_tick(red_run):
    rows = read_flows(red_run)
    times = [r["time"] for r in read_monitor(red_run)]
    assert [r["time"] for r in rows] == [t for t in times for _ in range(3)], "TCP flows 1-3, not the Pareto flow"
    assert [r["fid"] for r in rows[:6]] == ["1", "2", "3", "1", "2", "3"]
    trace = read_trace(red_run)
    meta = read_meta(red_run)
    for fid in ("1", "2", "3"):
        delivered = [int(r["delivered_bytes"]) for r in rows if r["fid"] == fid]
        assert delivered[0] == 0 and delivered == sorted(delivered) and delivered[-1] > 0
        assert all(d % 500 == 0 for d in delivered), "whole packets of packetSize_ 500"
        sink = str(meta["nodes"]["sinks"][fid])
        received = {f[10] for f in trace if f[0] == "r" and f[3] == sink and f[4] == "tcp"}
        # in-order delivery acknowledged by the end: at most every distinct packet received
        assert 0.9 * 500 * len(received) <= delivered[-1] <= 500 * len(received)
        assert float(rows[-1]["cwnd"]) >= 1


COUNTERS_HEADER = (
    "fid\ttimeouts\tfast_retransmits\tretransmitted_packets\tcongestion_responses\twireless_responses"
    "\tearly_retransmits"
)


def read_counters(run_dir: Path) -> list[dict]:
    lines = (run_dir / "tcp_counters.tsv").read_text().splitlines()
    assert lines[0] == COUNTERS_HEADER
    names = lines[0].split("\t")
    return [dict(zip(names, line.split("\t"), strict=True)) for line in lines[1:]]


def test_tcp_counters_tsv_holds_each_tcp_flows_counters_at_the_end(red_run):
    """One row per flow of flows.tsv (not the Pareto flow), ns-2's counters at the end: retransmitted_packets is the
    last retransmits sample (nrexmitpack_ both); the BQM columns are `nan` for NewReno."""
    rows = read_counters(red_run)
    assert [r["fid"] for r in rows] == ["1", "2", "3"]
    last = {r["fid"]: r for r in read_flows(red_run)}
    for row in rows:
        assert row["retransmitted_packets"] == last[row["fid"]]["retransmits"]
        timeouts, fast, packets = (int(row[k]) for k in ("timeouts", "fast_retransmits", "retransmitted_packets"))
        assert 0 <= fast <= packets and 0 <= timeouts <= packets
        assert (row["congestion_responses"], row["wireless_responses"], row["early_retransmits"]) == (
            "nan",
            "nan",
            "nan",
        )
    assert any(int(r["fast_retransmits"]) > 0 for r in rows), "RED's drops are recovered by fast retransmits"


def test_without_packet_trace_the_simulation_is_the_same(koo_params, run_driver):
    with_trace, a = run_driver(koo_params(duration=3.0), "a")
    params = koo_params(duration=3.0)
    params["monitors"]["packet_trace"] = False
    without, b = run_driver(params, "b")
    assert with_trace.returncode == without.returncode == 0, without.stderr
    assert not (b / "packets.tr").exists()
    for name in ("queue_monitor.tsv", "flows.tsv", "meta.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def multi_bottleneck(koo_params) -> dict:
    """R1..R4 in a line: flow 1 enters at R1, flows 2-3 at R3 over slower, longer access links."""
    params = koo_params("DropTail", kind="chain", core_nodes=4, duration=3.0)
    params["flows"] = params["flows"][:3]
    params["topology"]["core_links"] = [
        {"bandwidth": "5Mb", "queue": {"class": "Queue/RED", "knobs": {"thresh_": 10, "maxthresh_": 30}}},
        {"bandwidth": "20Mb", "delay": "5ms"},
        {},
    ]
    for flow in params["flows"][1:]:
        flow |= {
            "group": "cross",
            "enter": 2,
            "edge_link": {"bandwidth": "10Mb", "delay": "12ms", "queue": {"class": "Queue/DropTail", "knobs": {}}},
        }
    params["flows"][0]["group"] = "main"
    return params


def test_flows_enter_and_leave_where_their_group_says(koo_params, run_driver):
    result, run_dir = run_driver(multi_bottleneck(koo_params))
    assert result.returncode == 0, result.stderr
    meta = read_meta(run_dir)
    links = {link["name"]: link for link in meta["links"]}
    assert (links["entry1"]["to"], links["entry2"]["to"], links["entry3"]["to"]) == (0, 2, 2)
    assert {links[f"exit{fid}"]["from"] for fid in (1, 2, 3)} == {3}
    assert [f["group"] for f in meta["flows"]] == ["main", "cross", "cross"]
    queues = meta["knobs"]["core_queues"]
    assert [q["class"] for q in queues] == ["Queue/RED", "Queue/DropTail", "Queue/DropTail"]
    assert queues[0]["values"]["thresh_"] == "10" and meta["knobs"]["core_queue"] == queues[0]
    tcp_fids = {
        link: {
            f[7]
            for f in read_trace(run_dir)
            if f[0] == "r" and f[4] == "tcp" and (f[2], f[3]) == (str(links[link]["from"]), str(links[link]["to"]))
        }
        for link in ("core0", "core2")
    }
    assert tcp_fids == {"core0": {"1"}, "core2": {"1", "2", "3"}}


def test_sink_loss_drops_packets_on_the_links_into_sinks(koo_params, run_driver):
    params = koo_params("DropTail", duration=3.0)
    params["topology"]["sink_loss"] = {"class": "ErrorModel", "knobs": {"rate_": 0.05}}
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    counts = events_by_link(run_dir)
    drops = sum(counts[f"exit{fid}"]["d"] for fid in range(1, 5))
    received = sum(counts[f"exit{fid}"]["r"] for fid in range(1, 5))
    assert 0.03 < drops / (drops + received) < 0.07, "about 5 % of the packets into sinks"
    assert counts["core0"]["d"] == 0 and all(counts[f"entry{fid}"]["d"] == 0 for fid in range(1, 5))
    model = read_meta(run_dir)["knobs"]["sink_loss"]
    assert model["class"] == "ErrorModel" and float(model["values"]["rate_"]) == 0.05


# ---- the HTTP object model (flow kind http) ----

HTTP = {"mean_bytes": 10000, "shape": 1.2, "min_bytes": 1000, "max_bytes": 2000000, "bound": "resample", "idle": 0.5}


def http_params(koo_params, bound="resample") -> dict:
    params = koo_params("DropTail", duration=20.0)
    params["flows"] = params["flows"][:1]
    for fid in (2, 3):
        params["flows"].append(
            {
                "fid": fid,
                "kind": "http",
                "start": 0.1 * fid,
                "group": "web",
                "agent": {"class": "Agent/TCP/Newreno", "knobs": {"packetSize_": 1000, "windowInit_": 1}},
                "sink": {"class": "Agent/TCPSink", "knobs": {}},
                "http": {**HTTP, "bound": bound},
            }
        )
    return params


def read_objects(run_dir: Path) -> list[dict]:
    lines = (run_dir / "objects.tsv").read_text().splitlines()
    assert lines[0] == "fid\tobject\tstart\tend\tbytes\tdelivered"
    return [dict(zip(lines[0].split("\t"), line.split("\t"), strict=True)) for line in lines[1:]]


def test_http_flows_send_one_object_per_connection_with_idle_gaps(koo_params, run_driver):
    result, run_dir = run_driver(http_params(koo_params))
    assert result.returncode == 0, result.stderr
    objects = read_objects(run_dir)
    for fid in ("2", "3"):
        mine = [o for o in objects if o["fid"] == fid]
        assert len(mine) > 10 and [int(o["object"]) for o in mine] == list(range(1, len(mine) + 1))
        assert float(mine[0]["start"]) == pytest.approx(0.1 * int(fid))
        assert all(1000 <= int(o["bytes"]) <= 2000000 for o in mine)
        finished = [o for o in mine if o["end"] != "nan"]
        assert len(finished) >= len(mine) - 1 and all(o["end"] != "nan" for o in mine[:-1])
        for before, after in zip(mine, mine[1:], strict=False):  # the next object starts idle s after the last ack
            assert float(after["start"]) == pytest.approx(float(before["end"]) + 0.5, abs=1e-6)
        assert all(float(o["end"]) > float(o["start"]) for o in finished)
        # the client has the object before the server hears so: at least the ACK's one-way propagation earlier
        ack_way = 0.001 + 0.010 + 0.001  # client edge, core, server edge (koo_params' propagation delays)
        assert all(float(o["start"]) < float(o["delivered"]) <= float(o["end"]) - ack_way for o in finished)
        assert all(o["delivered"] == "nan" for o in mine if o["end"] == "nan")
    # every object's data reaches the client: the trace's http-flow bytes at the sink cover the objects sent
    meta = read_meta(run_dir)
    assert set(meta["knobs"]["flows"]["2"]) == {"agent", "sink"}, "no application: the driver sends each object"
    assert [f["kind"] for f in meta["flows"]] == ["ftp", "http", "http"]
    sink = str(meta["nodes"]["sinks"]["2"])
    delivered = sum(int(f[5]) - 40 for f in read_trace(run_dir) if f[0] == "r" and f[3] == sink and f[4] == "tcp")
    sent = sum(int(o["bytes"]) for o in read_objects(run_dir) if o["fid"] == "2" and o["end"] != "nan")
    assert delivered >= sent - 1000 * sum(1 for o in objects if o["fid"] == "2"), "whole packets of 1000 B"


def test_http_clip_keeps_sizes_at_the_bounds(koo_params, run_driver):
    params = http_params(koo_params, bound="clip")
    for flow in params["flows"][1:]:
        flow["http"] |= {"min_bytes": 5000, "max_bytes": 6000}
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    sizes = {int(o["bytes"]) for o in read_objects(run_dir)}
    assert sizes <= set(range(5000, 6001)) and {5000, 6000} <= sizes
