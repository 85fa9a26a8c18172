"""The driver's flow stop times, coarser flows.tsv samples and sampled queue variables (DESIGN.md §2, §5.2, §5.5)."""

from __future__ import annotations

from pathlib import Path

from tests.tcl.test_tcl_driver import read_flows, read_monitor, read_trace

VARS_HEADER = "time\tvar\tvalue"


def read_vars(run_dir: Path) -> list[tuple[str, str, float]]:
    lines = (run_dir / "queue_vars.tsv").read_text().splitlines()
    assert lines[0] == VARS_HEADER
    return [(t, var, float(value)) for t, var, value in (line.split("\t") for line in lines[1:])]


def sent_after(run_dir: Path, fid: int, time: float) -> list[int]:
    """Sequence numbers of fid's data packets entering their entry link's queue after `time`."""
    return [
        int(f[10])
        for f in read_trace(run_dir)
        if f[0] == "+" and f[7] == str(fid) and float(f[1]) > time and f[4] == "tcp"
    ]


def test_a_stopped_flow_sends_no_new_data(koo_params, run_driver):
    params = koo_params("RED")
    params["flows"][0]["stop"] = 4.0
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    before = [int(f[10]) for f in read_trace(run_dir) if f[0] == "+" and f[7] == "1" and float(f[1]) <= 4.0]
    after = sent_after(run_dir, 1, 4.0)
    assert before, "the flow sent before its stop"
    # What was sent in its last window may still be retransmitted; nothing beyond it is sent.
    assert all(seq <= max(before) for seq in after), f"new data after stop: {sorted(set(after))[-5:]}"
    assert sent_after(run_dir, 2, 4.0), "the other flows go on"
    flows = [row for row in read_flows(run_dir) if row["fid"] == "2"]
    assert int(flows[-1]["delivered_bytes"]) > int(next(r for r in flows if r["time"] == "4.000000")["delivered_bytes"])


def test_without_a_stop_the_run_is_unchanged(koo_params, run_driver):
    params = koo_params("RED")
    base, base_dir = run_driver(params, "base")
    params["flows"][0]["stop"] = params["duration"]  # stopping at the very end changes nothing measured
    stopped, stopped_dir = run_driver(params, "stopped")
    assert base.returncode == stopped.returncode == 0
    for name in ("queue_monitor.tsv", "flows.tsv", "packets.tr"):
        assert (base_dir / name).read_bytes() == (stopped_dir / name).read_bytes(), name


def test_flows_tsv_every_kth_tick_and_the_last(koo_params, run_driver):
    params = koo_params("RED", duration=2.5)
    params["monitors"]["flow_sample_interval"] = 1.0
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    assert [r["time"] for r in read_monitor(run_dir)][::10] == ["0.000000", "1.000000", "2.000000"]
    times = sorted({r["time"] for r in read_flows(run_dir)})
    assert times == ["0.000000", "1.000000", "2.000000", "2.500000"]


def test_queue_vars_are_sampled_with_the_queue(koo_params, run_driver):
    params = koo_params("RED")
    params["monitors"]["queue_vars"] = ["ave_", "cur_max_p_"]
    result, run_dir = run_driver(params)
    assert result.returncode == 0, result.stderr
    rows = read_vars(run_dir)
    ticks = [r["time"] for r in read_monitor(run_dir)]
    assert [t for t, var, _ in rows if var == "ave_"] == ticks
    assert [t for t, var, _ in rows if var == "cur_max_p_"] == ticks
    ave = [v for _, var, v in rows if var == "ave_"]
    assert ave[0] == 0 and max(ave) > 0, "the average starts empty and grows"
    # byte mode, limit 300 x 500 B: the average (bytes) never exceeds the buffer
    assert max(ave) <= 300 * 500
    # non-adaptive RED: Max_p is 1/linterm_ (= 1) from the first packet on
    assert {v for _, var, v in rows[2:] if var == "cur_max_p_"} == {1.0}
