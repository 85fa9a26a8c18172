"""The driver's wireless topology (DESIGN.md §2-4.1, tcl/lib/wireless.tcl): 802.11 nodes on a flat grid, each a
router of an ad hoc routing protocol with an interface queue of class core_queue; flows between two of them.

Every run is a static line of 4 nodes at y = 250 in a 1000 x 500 m grid, 200 m apart (ns-2's default radio reaches
250 m: only neighbours hear each other, so node 0 -> node 3 is 3 hops), AODV, and one NewReno transfer from node 0
to node 3 from time 0, for 20 s. ns-2's wireless code prints a few lines of its own on stdout and stderr in normal
operation (DESIGN.md §2: god's node count, the channel's carrier-sense distance), so runs are not checked for
silence; a bad parameter must still give one line on stderr (DESIGN.md §1).
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest
from test_tcl_driver import read_counters  # one reader of tcp_counters.tsv for both files

from parsers.wireless_drops import read_wireless_drops

DRIVER = Path(__file__).resolve().parents[2] / "tcl" / "driver.tcl"
OUTPUTS = ["meta.json", "queue_monitor.tsv", "flows.tsv", "tcp_counters.tsv", "drops.tr"]
# Every file the driver may write (tcl/driver.tcl's OUTPUTS): none may survive a refused run.
ALL_OUTPUTS = [*OUTPUTS, "packets.tr", "objects.tsv", "core_bins.tsv", "core_drops.tsv", "core_delays.tsv"]
FLOWS_HEADER = "time\tfid\tdelivered_bytes\tcwnd\tssthresh\tretransmits"
QUEUE_HEADER = (
    "time\tlink\tsize_bytes\tsize_packets\tarrivals_packets\tarrivals_bytes"
    "\tdepartures_packets\tdepartures_bytes\tdrops_packets\tdrops_bytes\n"
)
PACKET = 512  # the TCP agent's packetSize_
TCP = {
    "fid": 1,
    "kind": "ftp",
    "start": 0.0,
    "source_node": 0,
    "sink_node": 3,
    "agent": {"class": "Agent/TCP/Newreno", "knobs": {"packetSize_": PACKET, "window_": 32}},
    "sink": {"class": "Agent/TCPSink", "knobs": {}},
    "app": {"class": "Application/FTP", "knobs": {}},
}


def line_params(spacing: float = 200.0, nodes: int = 4, seed: int = 1, duration: float = 20.0, **topology) -> dict:
    """A static line of `nodes` nodes `spacing` m apart from x = 10, y = 250; one NewReno flow 0 -> 3."""
    return {
        "schema": "ns2-repro/run-params/2",
        "seed": seed,
        "duration": duration,
        "topology": {
            "kind": "wireless",
            "area": [1000, 500],
            "tracks": [{"x": 10 + spacing * i, "y": 250, "moves": []} for i in range(nodes)],
            "routing": "AODV",
            "mac": {"class": "Mac/802_11", "knobs": {"dataRate_": "2Mb"}},
            "radio_range": 250,
            **topology,
        },
        "core_queue": {"class": "Queue/DropTail/PriQueue", "knobs": {"limit_": 50}},
        "flows": [copy.deepcopy(TCP)],
        "monitors": {"queue_sample_interval": 1.0, "packet_trace": False},
    }


def run(ns_binary: Path, params: dict, run_dir: Path) -> subprocess.CompletedProcess:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "params.json").write_text(json.dumps(params, indent=2))
    return subprocess.run([str(ns_binary), str(DRIVER), str(run_dir)], capture_output=True, text=True, timeout=300)


def ran(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 0, result.stderr
    assert "ns2-repro" not in result.stderr, result.stderr


def read_flows(run_dir: Path) -> list[dict]:
    lines = (run_dir / "flows.tsv").read_text().splitlines()
    assert lines[0] == FLOWS_HEADER
    return [dict(zip(lines[0].split("\t"), line.split("\t"), strict=True)) for line in lines[1:]]


def delivered(run_dir: Path) -> list[int]:
    return [int(row["delivered_bytes"]) for row in read_flows(run_dir)]


def read_meta(run_dir: Path) -> dict:
    return json.loads((run_dir / "meta.json").read_text())


@pytest.fixture(scope="module")
def line_run(ns_binary, tmp_path_factory) -> Path:
    """The 3-hop AODV line with MAC dataRate_ 2Mb, shared by the read-only tests."""
    run_dir = tmp_path_factory.mktemp("wireless") / "run"
    ran(run(ns_binary, line_params(), run_dir))
    return run_dir


@pytest.fixture
def run_in(ns_binary, tmp_path):
    """run_in(params, name="run") -> (CompletedProcess, run dir)."""

    def _run(params: dict, name: str = "run"):
        return run(ns_binary, params, tmp_path / name), tmp_path / name

    return _run


# ---- one shared run ----


def test_a_wireless_run_writes_drops_tr_and_no_packet_trace(line_run):
    assert sorted(p.name for p in line_run.iterdir()) == sorted(["params.json", *OUTPUTS])
    # no core links, so no queue monitor rows: the header only (DESIGN.md §2)
    assert (line_run / "queue_monitor.tsv").read_text() == QUEUE_HEADER


def test_flows_tsv_delivery_grows_over_three_hops(line_run):
    rows = read_flows(line_run)
    assert [r["time"] for r in rows] == [f"{t:.6f}" for t in range(21)]
    assert {r["fid"] for r in rows} == {"1"}
    got = delivered(line_run)
    assert got[0] == 0 and got == sorted(got)
    assert got[-1] > 100 * PACKET, "the transfer crosses the three hops"
    assert got[10] < got[-1], "and keeps delivering in the run's second half"
    assert all(d % PACKET == 0 for d in got), "whole packets of packetSize_"


def test_meta_json_has_a_wireless_section_with_the_mac_knobs_in_force(line_run):
    meta = read_meta(line_run)
    assert meta["nodes"] == {"core": [], "sources": {"1": 0}, "sinks": {"1": 3}}, "node i is ns-2 node i"
    assert meta["links"] == []
    assert meta["flows"] == [{"fid": 1, "kind": "ftp", "group": "", "source": 0, "sink": 3}]
    wireless = meta["wireless"]
    assert (wireless["nodes"], wireless["routing"]) == (4, "AODV")
    mac = wireless["mac"]
    assert mac["class"] == "Mac/802_11"
    assert mac["values"]["dataRate_"] == "2000000", "written as 2Mb"
    assert mac["values"]["basicRate_"] == "1000000", "ns-2.35's default 1Mb, not set"
    ifq = wireless["ifq"]
    assert ifq["class"] == "Queue/DropTail/PriQueue" and ifq["values"]["limit_"] == "50"
    assert meta["knobs"]["core_queue"] == ifq, "core_queue is node 0's interface queue"
    agent = meta["knobs"]["flows"]["1"]["agent"]
    assert agent["class"] == "Agent/TCP/Newreno"
    assert agent["values"].items() >= {"packetSize_": "512", "window_": "32", "fid_": "1"}.items()
    assert "edge_queue" not in meta["knobs"] and "sink_loss" not in meta["knobs"]


def test_drops_tr_holds_the_cmu_drop_lines_of_the_four_nodes(line_run):
    lines = (line_run / "drops.tr").read_text().splitlines()
    assert lines, "802.11 on a 3-hop chain loses packets (link-layer failures, collisions)"
    assert all(line.split()[0] in ("D", "M") for line in lines)
    table = read_wireless_drops(line_run / "drops.tr")
    assert table.num_rows == sum(line.startswith("D ") for line in lines)
    assert set(table["node"].to_pylist()) <= {0, 1, 2, 3}
    assert all(0 <= t <= 20 for t in table["time"].to_pylist())
    assert set(table["ptype"].to_pylist()) <= {"tcp", "ack", "AODV", "ARP"}


# ---- runs of their own ----


def test_bqm_interface_queues_with_the_bqm_sender_and_receiver(run_in):
    params = line_params()
    params["core_queue"] = {"class": "Queue/DropTail/PriQueue/BQM", "knobs": {"limit_": 50}}
    params["flows"][0]["agent"]["class"] = "Agent/TCP/Newreno/BQM"
    params["flows"][0]["sink"]["class"] = "Agent/TCPSink/BQM"
    result, run_dir = run_in(params)
    ran(result)
    meta = read_meta(run_dir)
    assert meta["wireless"]["ifq"]["class"] == "Queue/DropTail/PriQueue/BQM"
    flow = meta["knobs"]["flows"]["1"]
    assert (flow["agent"]["class"], flow["sink"]["class"]) == ("Agent/TCP/Newreno/BQM", "Agent/TCPSink/BQM")
    assert delivered(run_dir)[-1] > 100 * PACKET


def test_interface_queue_and_mac_knobs_reach_every_node(run_in):
    params = line_params(duration=2.0)
    params["core_queue"]["knobs"] = {"limit_": 7}
    params["topology"]["mac"]["knobs"] = {"dataRate_": "11Mb", "RTSThreshold_": 3000}
    result, run_dir = run_in(params)
    ran(result)
    wireless = read_meta(run_dir)["wireless"]
    assert wireless["ifq"]["values"]["limit_"] == "7"
    assert (wireless["mac"]["values"]["dataRate_"], wireless["mac"]["values"]["RTSThreshold_"]) == ("11000000", "3000")


def test_nodes_out_of_radio_range_deliver_nothing(run_in):
    result, run_dir = run_in(line_params(spacing=300.0))  # 300 m > the radio's 250 m
    ran(result)
    assert set(delivered(run_dir)) == {0}
    drops = read_wireless_drops(run_dir / "drops.tr").to_pylist()
    assert drops, "the source drops its packets: no route"
    assert {(d["node"], d["layer"], d["reason"], d["ptype"]) for d in drops} == {(0, "RTR", "NRTE", "tcp")}


def test_dsdv_delivers_over_one_hop(run_in):
    params = line_params(routing="DSDV")
    params["flows"][0]["sink_node"] = 1
    result, run_dir = run_in(params)
    ran(result)
    assert read_meta(run_dir)["wireless"]["routing"] == "DSDV"
    assert delivered(run_dir)[-1] > 100 * PACKET


def test_a_node_moving_out_of_range_cuts_the_flow(run_in):
    params = line_params()
    params["topology"]["tracks"][3]["moves"] = [[5.0, 990.0, 250.0, 100.0]]  # 610 -> 990 m from 5 s, 100 m/s
    result, run_dir = run_in(params)
    ran(result)
    got = delivered(run_dir)
    assert got[5] > 0 and got[-1] == got[10], "delivery stops once node 3 is 380 m from node 2"
    lines = (run_dir / "drops.tr").read_text().splitlines()
    assert [line.split()[:3] for line in lines if line.startswith("M ")] == [["M", "5.00000", "3"]]


def test_same_params_same_bytes_other_seed_other_drops(run_in):
    params = line_params()
    params["topology"]["tracks"][3]["moves"] = [[8.0, 700.0, 300.0, 2.0]]
    first, a = run_in(params, "a")
    second, b = run_in(copy.deepcopy(params), "b")
    third, c = run_in({**copy.deepcopy(params), "seed": 2}, "c")
    for result in (first, second, third):
        ran(result)
    for name in ("flows.tsv", "drops.tr", "meta.json", "queue_monitor.tsv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "drops.tr").stat().st_size > 0
    # 802.11's backoff and the routing agents' jitter draw from the default RNG, seeded by the run's seed
    assert (a / "drops.tr").read_bytes() != (c / "drops.tr").read_bytes()


# ---- bad parameters: one line on stderr, exit 3, no outputs ----


def set_at(params: dict, path: list, value) -> None:
    for key in path[:-1]:
        params = params[key]
    params[path[-1]] = value


BAD = [
    (
        ["topology", "routing"],
        "DSR",
        'topology.routing: unknown or unsupported routing "DSR"; '
        "known: AODV, DSDV (DSR needs CMUPriQueue, no Queue; TORA needs IMEP)",
    ),
    (
        ["core_queue"],
        {"class": "Queue/DropTail", "knobs": {}},
        'core_queue.class: unknown class "Queue/DropTail" (must be Queue/DropTail/PriQueue or a subclass); '
        "known: Queue/DropTail/PriQueue, Queue/DropTail/PriQueue/BQM",
    ),
    (
        ["topology", "tracks", 1, "moves"],
        [[1.0, 1000, 100, 5]],
        "topology.tracks[1].moves[0].x: 1000 is not inside the grid; known: 0 < x < 1000 (topology.area)",
    ),
    (
        ["topology", "tracks", 2, "x"],
        1001,
        "topology.tracks[2].x: 1001 lies outside the grid; known: 0 ..= 1000 (topology.area)",
    ),
    (
        ["flows", 0, "enter"],
        0,
        "flows[0].enter: not a field of a flow on a wireless topology; known: source_node, sink_node",
    ),
    (
        ["flows", 0, "sink_node"],
        0,
        "flows[0]: source_node and sink_node are the same node; known: two different nodes",
    ),
    (
        ["flows", 0, "sink_node"],
        4,
        "flows[0].sink_node: node 4 does not exist; known: 0..3 (topology.tracks)",
    ),
    (
        ["topology", "phy"],
        {"class": "Phy/WirelessPhy", "knobs": {"freq_": 2.4e9}},
        "topology.phy.knobs.freq_: read only when the interface is made (its wavelength); "
        "known: CPThresh_, CSThresh_, L_, Pt_, RXThresh_",
    ),
    (
        ["topology", "phy"],
        {"class": "Phy/WirelessPhy", "knobs": {"Pt_": "strong"}},
        'topology.phy.knobs.Pt_: bad value "strong"; known: a number > 0',
    ),
    (
        ["topology", "loss"],
        {"class": "ErrorModel", "knobs": {"rate_": 2}},
        "topology.loss.knobs.rate_: 2 is not a probability; known: 0 ..= 1 (the share of packets lost)",
    ),
    (
        ["topology", "loss"],
        {"class": "ErrorModel", "knobs": {"rate_": 0.1, "markecn_": True}},
        "topology.loss.knobs.markecn_: set by the driver: topology.loss drops what it corrupts (no ECN marks); "
        "known: the other knobs of ErrorModel",
    ),
    (
        ["topology", "loss"],
        {"class": "Queue/DropTail", "knobs": {}},
        'topology.loss.class: unknown class "Queue/DropTail" (must be ErrorModel or a subclass); known: ',
    ),
    (
        ["monitors", "packet_trace"],
        True,
        "monitors.packet_trace: a wireless run has no wired packet trace; "
        "known: false (its drops go to drops.tr, its flows to flows.tsv)",
    ),
]


def refused(result: subprocess.CompletedProcess, run_dir: Path, line: str) -> None:
    assert result.returncode == 3, result.stderr
    if line.endswith("known: "):  # the list of known values is long: only its start is checked
        assert result.stderr.startswith(f"ns2-repro: {line}") and result.stderr.count("\n") == 1, result.stderr
    else:
        assert result.stderr == f"ns2-repro: {line}\n", "one line on stderr (DESIGN.md §1)"
    assert sorted(p.name for p in run_dir.iterdir()) == ["params.json"]


BAD_IDS = [
    "routing-dsr",
    "ifq-not-a-priqueue",
    "move-onto-the-border",
    "start-outside-the-grid",
    "enter-on-wireless",
    "source-is-sink",
    "sink-node-missing",
    "phy-freq",
    "phy-not-a-number",
    "loss-rate-above-1",
    "loss-marks-ecn",
    "loss-not-an-error-model",
    "packet-trace",
]


@pytest.mark.parametrize(("path", "value", "line"), BAD, ids=BAD_IDS)
def test_bad_wireless_parameter(path, value, line, run_in, tmp_path):
    params = line_params()
    set_at(params, path, value)
    stale = tmp_path / "run"
    stale.mkdir()
    for name in ALL_OUTPUTS:  # outputs of an earlier run must not survive either
        (stale / name).write_text("stale")
    result, run_dir = run_in(params)
    refused(result, run_dir, line)


def test_packet_trace_defaults_to_true_and_is_refused(run_in):
    params = line_params()
    del params["monitors"]["packet_trace"]
    result, run_dir = run_in(params)
    refused(result, run_dir, BAD[-1][2])


def test_a_wired_flow_with_source_node_is_refused(koo_params, run_in):
    params = koo_params(duration=1.0)
    params["flows"][1]["source_node"] = 0
    result, run_dir = run_in(params)
    line = "flows[1].source_node: not a field of a flow on a wired topology; known: enter, leave (core routers)"
    refused(result, run_dir, line)


# ---- tcp_counters.tsv ----


def test_tcp_counters_of_a_newreno_flow(line_run):
    [row] = read_counters(line_run)
    assert row["fid"] == "1"
    assert row["retransmitted_packets"] == read_flows(line_run)[-1]["retransmits"]
    assert int(row["fast_retransmits"]) <= int(row["retransmitted_packets"])
    assert (row["congestion_responses"], row["wireless_responses"], row["early_retransmits"]) == ("nan", "nan", "nan")


def test_tcp_counters_of_a_bqm_flow_with_early_retransmits(run_in):
    params = line_params(loss={"class": "ErrorModel", "knobs": {"rate_": 0.02}})
    params["core_queue"] = {"class": "Queue/DropTail/PriQueue/BQM", "knobs": {"limit_": 50}}
    params["flows"][0]["agent"] = {"class": "Agent/TCP/Newreno/BQM", "knobs": {"packetSize_": PACKET, "window_": 32,
                                                                               "early_rexmit_": 1}}  # fmt: skip
    params["flows"][0]["sink"]["class"] = "Agent/TCPSink/BQM"
    result, run_dir = run_in(params)
    ran(result)
    [row] = read_counters(run_dir)
    values = {k: int(v) for k, v in row.items()}
    assert values["congestion_responses"] + values["wireless_responses"] > 0, "the random losses got responses"
    assert 0 < values["early_retransmits"] <= values["fast_retransmits"] <= values["retransmitted_packets"]


def test_no_tcp_flow_no_tcp_counters(run_in):
    result, run_dir = run_in(cbr_params())
    ran(result)
    assert not (run_dir / "flows.tsv").exists() and not (run_dir / "tcp_counters.tsv").exists()


# ---- AODV's purged packets (ns2-patches/0023) ----


def cbr_params(**topology) -> dict:
    """Three nodes 200 m apart; an 800 kb/s CBR flow 0 -> 2, more than two hops carry, so queues fill."""
    params = line_params(nodes=3, **topology)
    params["flows"] = [
        {
            "fid": 1,
            "kind": "cbr",
            "start": 1.0,
            "source_node": 0,
            "sink_node": 2,
            "agent": {"class": "Agent/UDP", "knobs": {"packetSize_": PACKET}},
            "sink": {"class": "Agent/Null", "knobs": {}},
            "app": {"class": "Application/Traffic/CBR", "knobs": {"packetSize_": PACKET, "rate_": "800kb"}},
        }
    ]
    return params


def test_packets_purged_after_a_link_broke_read_fil(run_in):
    """The driver sets Agent/AODV's purge_filter_: when node 1 walks away, the packets queued for it are dropped as
    RTR FIL, the ones the MAC gave up on as RTR CBK."""
    params = cbr_params()
    params["topology"]["tracks"][1]["moves"] = [[8.0, 210.0, 490.0, 100.0]]
    result, run_dir = run_in(params)
    ran(result)
    drops = read_wireless_drops(run_dir / "drops.tr").to_pylist()
    causes = {(d["layer"], d["reason"]) for d in drops}
    assert ("RTR", "FIL") in causes and ("RTR", "CBK") in causes, causes


# ---- topology.phy, topology.loss ----


def two_nodes(spacing: float, **topology) -> dict:
    params = line_params(spacing=spacing, nodes=2, **topology)
    params["flows"][0]["sink_node"] = 1
    return params


SHORT_RANGE = {"class": "Phy/WirelessPhy", "knobs": {"Pt_": 7.2150566e-3}}  # (100 / 250)^4 of ns-2's Pt_: 100 m


@pytest.mark.parametrize(("spacing", "phy", "reaches"), [(150, SHORT_RANGE, False), (90, SHORT_RANGE, True),
                                                         (150, None, True)])  # fmt: skip
def test_phy_pt_sets_the_radio_range(run_in, spacing, phy, reaches):
    params = two_nodes(spacing, **({"phy": phy} if phy else {}))
    result, run_dir = run_in(params)
    ran(result)
    assert (delivered(run_dir)[-1] > 100 * PACKET) == reaches
    meta = read_meta(run_dir)["wireless"]["phy"]
    assert meta["class"] == "Phy/WirelessPhy"
    assert float(meta["values"]["Pt_"]) == pytest.approx(phy["knobs"]["Pt_"] if phy else 0.28183815, rel=1e-9)
    if not reaches:
        drops = read_wireless_drops(run_dir / "drops.tr").to_pylist()
        assert {(d["layer"], d["reason"]) for d in drops} == {("RTR", "NRTE")}, "no route: node 1 is out of range"


LOSS = {"class": "ErrorModel", "knobs": {"rate_": 0.02}}


@pytest.fixture(scope="module")
def loss_runs(ns_binary, tmp_path_factory):
    """One hop, 2 nodes 200 m apart, with and without topology.loss at 2 %."""
    base = tmp_path_factory.mktemp("loss")
    out = {}
    for name, topology in (("clean", {}), ("lossy", {"loss": LOSS})):
        ran(run(ns_binary, two_nodes(200, **topology), base / name))
        out[name] = base / name
    return out


def test_the_loss_model_drops_above_the_mac_at_its_rate(loss_runs):
    lossy = loss_runs["lossy"]
    drops = read_wireless_drops(lossy / "drops.tr").to_pylist()
    lost = [d for d in drops if (d["layer"], d["reason"]) == ("LL", "LOSS")]
    assert lost and {d["ptype"] for d in lost} <= {"tcp", "ack", "AODV"}
    # data frames lose at node 1 (the receiver), ACKs at node 0; nothing else drops on a clean hop
    assert {d["node"] for d in lost if d["ptype"] == "tcp"} == {1}
    assert {d["node"] for d in lost if d["ptype"] == "ack"} <= {0}
    data_lost = sum(d["ptype"] == "tcp" for d in lost)
    [row] = read_counters(lossy)
    # every data packet the source sent reached node 1's model: the ones delivered (once) and the resends,
    # less the few still in flight at the end
    sent = read_flows(lossy)[-1]
    crossings = int(sent["delivered_bytes"]) // PACKET + int(row["retransmitted_packets"])
    assert 0.01 < data_lost / crossings < 0.03, (data_lost, crossings)
    lines = [line.split() for line in (lossy / "drops.tr").read_text().splitlines() if " LL LOSS " in line]
    assert lines and all(f[0] == "D" and f[2].startswith("_") and f[6] in ("tcp", "ack", "AODV") for f in lines)


def test_tcp_sees_the_losses_the_mac_cannot_repair(loss_runs):
    clean, lossy = loss_runs["clean"], loss_runs["lossy"]
    assert not any(" LL " in line for line in (clean / "drops.tr").read_text().splitlines())
    assert delivered(lossy)[-1] < delivered(clean)[-1]
    [row] = read_counters(lossy)
    [base] = read_counters(clean)
    assert int(row["retransmitted_packets"]) > int(base["retransmitted_packets"])
    assert int(row["fast_retransmits"]) + int(row["timeouts"]) > 0
    loss = read_meta(lossy)["wireless"]["loss"]
    assert loss["class"] == "ErrorModel" and float(loss["values"]["rate_"]) == 0.02
    assert "loss" not in read_meta(clean)["wireless"]


def test_the_loss_draws_leave_the_other_randomness_alone(run_in):
    """rate_ 0 draws from the loss model's own stream: the run is the run without the model, byte for byte."""
    first, a = run_in(two_nodes(200), "a")
    second, b = run_in(two_nodes(200, loss={"class": "ErrorModel", "knobs": {"rate_": 0}}), "b")
    ran(first)
    ran(second)
    for name in ("flows.tsv", "drops.tr", "tcp_counters.tsv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
