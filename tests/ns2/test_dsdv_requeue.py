"""ns2-patches/0025: DSDV's routing update hands each queued packet to recv() once.

The fixture is one run of configs/bqm.yaml's DSDV reading (24 connections among 20 mobile nodes, ModifiedBQM,
seed 5: a cell of both nodes_p16 and connections_p16; its params.json as the planner wrote it). Stock ns-2.35
hung in it at about 75 s of simulated time, DSDV_Agent::processUpdate queueing the same packets again on the
queue it was emptying. With the patch the run ends, and the packets that still had no route are traced as
dropped for that reason.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

DATA = Path(__file__).parent / "data" / "dsdv_requeue_params.json"
DRIVER = Path(__file__).resolve().parents[2] / "tcl" / "driver.tcl"


def test_the_run_that_hung_ends_and_traces_its_unroutable_packets(ns_binary, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    params = json.loads(DATA.read_text())
    assert params["topology"]["routing"] == "DSDV"
    (run_dir / "params.json").write_text(json.dumps(params))
    # stock ns-2.35 never ends this run; ours takes about a second (the timeout turns a hang into a failure)
    proc = subprocess.run([str(ns_binary), str(DRIVER), str(run_dir)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    flows = (run_dir / "flows.tsv").read_text().splitlines()
    assert float(flows[-1].split("\t")[0]) >= params["duration"] - 1, "the flow samples reach the run's end"
    drops = (run_dir / "drops.tr").read_text().splitlines()
    requeued = [line for line in drops if " RTR " in line and " NRTE " in line]
    assert requeued, "the packets queued again (no route after the stale update) are traced as NRTE drops"
