"""Parsers against real ns-2 runs, checked with a plain line-by-line Python reading of the same files.

Two runs: `dumbbell_run.tcl` (this directory; laid out like the driver's, with losses on an entry link too) and the
pipeline's own driver, tcl/driver.tcl, on a small params.json (DESIGN.md section 2).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from parsers import SCHEMAS, parse_run

SCRIPT = Path(__file__).with_name("dumbbell_run.tcl")
DRIVER = Path(__file__).resolve().parents[2] / "tcl" / "driver.tcl"
_FTP = {
    "kind": "ftp",
    "start": 0.0,
    "agent": {"class": "Agent/TCP/Newreno", "knobs": {"packetSize_": 500, "window_": 50}},
    "sink": {"class": "Agent/TCPSink", "knobs": {}},
    "app": {"class": "Application/FTP", "knobs": {}},
}
DRIVER_PARAMS = {
    "schema": "ns2-repro/run-params/2",
    "seed": 7,
    "duration": 3.0,
    "topology": {
        "kind": "chain",
        "core_nodes": 3,
        "core_link": {"bandwidth": "2Mb", "delay": "10ms"},
        "edge_link": {"bandwidth": "100Mb", "delay": "1ms", "queue": {"class": "Queue/DropTail", "knobs": {}}},
    },
    # setbit_: RED marks the ECN-capable flow 2 (journeys' `marked`) and drops flow 1's packets
    "core_queue": {"class": "Queue/RED", "knobs": {"limit_": 20, "setbit_": True, "q_weight_": 0.02}},
    "flows": [
        {"fid": 1, **_FTP},
        {**_FTP, "fid": 2, "agent": {**_FTP["agent"], "knobs": {**_FTP["agent"]["knobs"], "ecn_": 1}}},
    ]
    + [
        {
            "fid": 3,
            "kind": "cbr",
            "start": 0.5,
            "agent": {"class": "Agent/UDP", "knobs": {"packetSize_": 500}},
            "sink": {"class": "Agent/Null", "knobs": {}},
            "app": {"class": "Application/Traffic/CBR", "knobs": {"packetSize_": 500, "rate_": "1Mb"}},
        }
    ],
    # text: this file checks the parsers of ns-2's text trace (test_packet_log.py: packets.log against it)
    "monitors": {"queue_sample_interval": 0.1, "packet_trace": "text"},
}
CONTEXT = {"paper": "test", "experiment": "dumbbell", "labels": {"queue": "RED"}, "seed": 7, "run_key": "real"}


def meta_of_script() -> dict:
    """dumbbell_run.tcl creates C0=0, C1=1, then S_fid = 2*fid, R_fid = 2*fid+1 for fid 1..3."""
    links = [{"name": "core0", "from": 0, "to": 1, "role": "core", "traced": True, "monitored": True}]
    for fid in (1, 2, 3):
        links.append({"name": f"entry{fid}", "from": 2 * fid, "to": 0, "role": "entry", "fid": fid, "traced": True})
        links.append({"name": f"exit{fid}", "from": 1, "to": 2 * fid + 1, "role": "exit", "fid": fid, "traced": True})
    return {"schema": "ns2-repro/run-meta/1", "links": links}


@pytest.fixture(scope="module", params=["script", "driver"])
def real_run(ns_binary, tmp_path_factory, request) -> Path:
    run = tmp_path_factory.mktemp("runs") / "real"
    run.mkdir()
    if request.param == "script":
        shutil.copy(SCRIPT, run)
        subprocess.run([str(ns_binary), SCRIPT.name], cwd=run, check=True, capture_output=True, timeout=120)
        (run / "meta.json").write_text(json.dumps(meta_of_script()))
    else:
        (run / "params.json").write_text(json.dumps(DRIVER_PARAMS))
        subprocess.run([str(ns_binary), str(DRIVER), str(run)], check=True, capture_output=True, timeout=120)
    return run


def reference(trace: Path, meta: dict):
    """Journeys, hops and flow sums by reading the trace line by line with dicts: slow and obvious."""
    names = {(lk["from"], lk["to"]): lk for lk in meta["links"]}
    sums, journeys, hops = Counter(), {}, {}
    with open(trace) as f:
        for line in f:
            event, t, src, dst, ptype, size, flags, fid, _s, _d, seq, uid = line.split()
            t, size, fid, uid = float(t), int(size), int(fid), int(uid)
            sums[fid, event, "packets"] += 1
            sums[fid, event, "bytes"] += size
            link = names.get((int(src), int(dst)), {"name": f"{src}->{dst}", "role": None})
            role = link["role"]
            if event == "+" and role == "entry":
                journeys[uid] = {
                    "fid": fid,
                    "uid": uid,
                    "seq": int(seq),
                    "ptype": ptype,
                    "size": size,
                    "t_enter": t,
                    "t_exit": None,
                    "delay": None,
                    "dropped": False,
                    "drop_time": None,
                    "drop_link": None,
                    "marked": False,
                    "flow": link["fid"],
                }
            elif event == "r" and role == "exit" and uid in journeys and journeys[uid]["flow"] == link["fid"]:
                journeys[uid].update(t_exit=t, delay=t - journeys[uid]["t_enter"], marked=flags[4] == "E")
            elif event == "d" and uid in journeys:
                journeys[uid].update(dropped=True, drop_time=t, drop_link=link["name"])
            if role == "core":
                key = (link["name"], uid)
                if event == "+":
                    hops[key] = {
                        "link": link["name"],
                        "fid": fid,
                        "uid": uid,
                        "size": size,
                        "t_enqueue": t,
                        "t_dequeue": None,
                        "queue_delay": None,
                        "dropped": False,
                    }
                elif event == "-" and key in hops:
                    hops[key].update(t_dequeue=t, queue_delay=t - hops[key]["t_enqueue"])
                elif event == "d" and key in hops:
                    hops[key]["dropped"] = True
    journeys = sorted(
        ({k: v for k, v in j.items() if k != "flow"} for j in journeys.values()), key=lambda j: (j["t_enter"], j["uid"])
    )
    hops = sorted(hops.values(), key=lambda h: (h["t_enqueue"], h["link"], h["uid"]))
    return journeys, hops, sums


@pytest.fixture(scope="module", params=[{"workers": 1}, {"workers": 2, "block_size": 4096}], ids=["1range", "2ranges"])
def parsed(real_run, tmp_path_factory, request):
    out = tmp_path_factory.mktemp("parquet")
    written = parse_run(real_run, out, CONTEXT, **request.param)
    data = {}
    for kind, path in written.items():
        table = pq.read_table(path)
        data[kind] = table.select(SCHEMAS[kind].names).to_pylist()  # without the context columns
    return data


def test_real_run_has_every_case(real_run, parsed):
    journeys = parsed["journeys"]
    assert len(journeys) > 500
    assert {j["drop_link"] for j in journeys} >= {None, "core0"}  # RED losses
    if (real_run / SCRIPT.name).exists():
        assert "entry3" in {j["drop_link"] for j in journeys}  # losses on an entry link
    else:
        assert {h["link"] for h in parsed["hops"]} == {"core0", "core1"}  # a chain of 3 core nodes
        assert {j["fid"] for j in journeys if j["marked"]} == {2}  # CE marks reach only the ECN-capable flow
    assert any(j["t_exit"] is None and not j["dropped"] for j in journeys)  # in flight when the run stops


def test_real_run_matches_line_by_line_reading(real_run, parsed):
    journeys, hops, sums = reference(real_run / "packets.tr", json.loads((real_run / "meta.json").read_text()))
    assert parsed["journeys"] == journeys
    assert parsed["hops"] == hops
    assert {(r["fid"], r["event"], "packets"): r["packets"] for r in parsed["flow_sums"]} | {
        (r["fid"], r["event"], "bytes"): r["bytes"] for r in parsed["flow_sums"]
    } == dict(sums)


def test_real_run_queue_table_is_the_tsv(real_run, parsed):
    lines = (real_run / "queue_monitor.tsv").read_text().splitlines()
    rows = [line.split("\t") for line in lines[1:]]
    assert len({r[1] for r in rows}) * 31 == len(rows)  # every 0.1 s from 0 to 3.0 inclusive, per monitored link
    assert [[f"{r['time']:.6f}", r["link"], *(str(v) for v in list(r.values())[2:])] for r in parsed["queue"]] == rows
    last = [r for r in parsed["queue"] if r["link"] == "core0"][-1]
    core0_drops = sum(1 for h in parsed["hops"] if h["dropped"] and h["link"] == "core0")
    assert last["drops_packets"] == core0_drops  # the monitor and the trace agree on the core link's losses


def test_real_run_flows_table_is_the_tsv(real_run, parsed):
    if not (real_run / "flows.tsv").is_file():  # dumbbell_run.tcl samples no TCP senders
        assert "flows" not in parsed
        return
    lines = (real_run / "flows.tsv").read_text().splitlines()
    assert lines[0].split("\t") == SCHEMAS["flows"].names
    rows = [line.split("\t") for line in lines[1:]]
    assert len(rows) == 31 * 2  # every 0.1 s from 0 to 3.0 inclusive, per FTP flow (fid 1 and 2; not the CBR)
    flows = parsed["flows"]
    assert [(f"{r['time']:.6f}", r["fid"]) for r in flows] == [(r[0], int(r[1])) for r in rows]
    assert [r["delivered_bytes"] for r in flows] == [int(r[2]) for r in rows]
    assert [r["cwnd"] for r in flows] == [float(r[3]) for r in rows]
    last = {r["fid"]: r for r in flows if r["time"] == flows[-1]["time"]}
    for fid, row in last.items():  # the receiver got at most what the data packets that left the core carried
        delivered = sum(j["size"] - 40 for j in parsed["journeys"] if j["fid"] == fid and j["t_exit"] is not None)
        assert 0 < row["delivered_bytes"] <= delivered


def test_real_untraced_driver_run_gives_queue_and_flows(ns_binary, tmp_path):
    run = tmp_path / "untraced"
    run.mkdir()
    params = {**DRIVER_PARAMS, "monitors": {"queue_sample_interval": 0.1, "packet_trace": False}}
    (run / "params.json").write_text(json.dumps(params))
    subprocess.run([str(ns_binary), str(DRIVER), str(run)], check=True, capture_output=True, timeout=120)
    assert not (run / "packets.tr").exists() and (run / "flows.tsv").is_file()
    written = parse_run(run, tmp_path / "out", CONTEXT)
    assert sorted(written) == ["flows", "queue", "tcp_counters"]
    counters = pq.read_table(written["tcp_counters"]).to_pylist()
    assert [row["fid"] for row in counters] == [1, 2] and all(row["congestion_responses"] is None for row in counters)
    flows = pq.read_table(written["flows"])
    assert flows.num_rows == 31 * 2 and sorted(set(flows["fid"].to_pylist())) == [1, 2]
