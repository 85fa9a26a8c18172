"""The driver's LossMonitor logs (sinks.tsv, sink_gaps.tsv: DESIGN.md §5.6) against the packet trace, and the
exponential flow kind as a Poisson source."""

from __future__ import annotations

import statistics
from pathlib import Path

from tests.tcl.test_tcl_driver import read_trace


def read_tsv(path: Path) -> list[dict]:
    lines = path.read_text().splitlines()
    names = lines[0].split("\t")
    return [dict(zip(names, line.split("\t"), strict=True)) for line in lines[1:]]


def congested(koo_params, queue: str = "DropTail"):
    """Koo's setup (fid 4: Pareto over UDP into an Agent/LossMonitor) on a 2 Mb/s core, so that fid 4 loses."""
    params = koo_params(queue, duration=8.0)
    params["topology"]["core_link"]["bandwidth"] = "2Mb"
    return params


def test_gaps_are_the_packets_the_trace_drops(koo_params, run_driver):
    result, run_dir = run_driver(congested(koo_params))
    assert result.returncode == 0, result.stderr
    rows = read_tsv(run_dir / "sinks.tsv")
    assert {row["fid"] for row in rows} == {"4"}  # only the flow whose sink is a LossMonitor
    last = rows[-1]
    assert last["time"] == "8.000000"
    lost = set()
    for gap in read_tsv(run_dir / "sink_gaps.tsv"):
        assert gap["fid"] == "4"
        lost |= set(range(int(gap["first"]), int(gap["first"]) + int(gap["count"])))
    expected = int(last["expected"])
    dropped = {int(f[10]) for f in read_trace(run_dir) if f[0] == "d" and f[7] == "4"}
    assert len(lost) > 20, "the setup must make fid 4 lose packets"
    assert lost == {seq for seq in dropped if seq < expected}
    # UDP numbers from 0: every sequence number below expected was received or is in a gap
    assert int(last["packets"]) + len(lost) == expected
    sizes = {int(f[5]) for f in read_trace(run_dir) if f[0] == "r" and f[7] == "4"}
    assert int(last["bytes"]) == int(last["packets"]) * sizes.pop()


def test_a_run_without_loss_monitors_has_no_sink_files(koo_params, run_driver):
    params = koo_params("DropTail", duration=1.0)
    params["flows"][3]["sink"] = {"class": "Agent/Null", "knobs": {}}
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    assert not (run_dir / "sinks.tsv").exists()
    assert not (run_dir / "sink_gaps.tsv").exists()


def test_exponential_kind_with_no_bursts_is_poisson(koo_params, run_driver):
    """ns-2's manual: Application/Traffic/Exponential with burst_time_ 0 and a large rate_ is a Poisson source;
    10 s at a mean gap of 10 ms: about 1000 packets, exponential gaps (coefficient of variation 1)."""
    params = koo_params("DropTail", duration=10.0)
    params["flows"][3] = {
        "fid": 4,
        "kind": "exponential",
        "start": 0.0,
        "agent": {"class": "Agent/UDP", "knobs": {"packetSize_": 573}},
        "sink": {"class": "Agent/LossMonitor", "knobs": {}},
        "app": {
            "class": "Application/Traffic/Exponential",
            "knobs": {"packetSize_": 573, "burst_time_": 0, "idle_time_": 0.01, "rate_": "1Gb"},
        },
    }
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    first_seen = {}  # uid -> time it entered its first queue (the source's access link)
    for f in read_trace(run_dir):
        if f[0] == "+" and f[7] == "4":
            first_seen.setdefault(f[11], float(f[1]))
    sent = sorted(first_seen.values())
    assert 1000 - 4 * 32 < len(sent) < 1000 + 4 * 32
    gaps = [b - a for a, b in zip(sent, sent[1:], strict=False)]
    assert abs(statistics.mean(gaps) - 0.01) < 0.001
    assert 0.9 < statistics.stdev(gaps) / statistics.mean(gaps) < 1.1
