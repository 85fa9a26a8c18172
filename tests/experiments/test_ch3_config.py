"""configs/psand.yaml's Chapter 3 (§3.2) against the thesis: Table 3.1's grid and numbers, and thresholds that
mean what they say on the queue they are set on."""

from __future__ import annotations

from pathlib import Path

from experiments.config.load import load

PSAND = load(Path(__file__).resolve().parents[2] / "configs" / "psand.yaml")
EXPERIMENTS = PSAND["experiments"]


def test_table_3_1_is_every_cell_and_every_column():
    axes = EXPERIMENTS["table3_1"]["matrix"]["product"]
    assert axes["min_th"]["levels"] == [0.0, 5.0, 9.75]
    assert axes["max_th"]["levels"] == [10.5, 15.0, 20.0, 35.0]
    claims = [c for c in PSAND["claims"] if c["experiment"] == "table3_1" and c["kind"] == "value"]
    assert len(claims) == 12 * 6  # the table's cells x columns; the orderings of §3.4 on it come beside them
    assert {(c["where"]["max_th"], c["where"]["min_th"]) for c in claims} == {
        (mx, mn) for mx in axes["max_th"]["levels"] for mn in axes["min_th"]["levels"]
    }
    queue = PSAND["queues"]["PSAND_t31"]["knobs"]
    assert (queue["coef_"], queue["gamma_"], queue["top_"]) == (1, 1, 0.5)


def test_no_stock_red_threshold_is_zero():
    """Stock RED reads thresh_ 0 as 'automatic' (max(5, target delay x C / 2)): a 0 on ARED would run another
    threshold than the axis label says. PSAND's patch makes 0 literal, so only PSAND may take it."""
    for name, experiment in EXPERIMENTS.items():
        for axis in experiment["matrix"]["product"].values():
            levels = list(axis["levels"].values()) if isinstance(axis["levels"], dict) else axis["levels"]
            assignments = [{axis["path"]: v} for v in levels] if "path" in axis else levels
            for sets in assignments:
                for path, value in sets.items():
                    if str(path).endswith("knobs.thresh_") and value == 0:
                        queue = str(path).split(".")[1]
                        assert PSAND["queues"][queue]["class"] == "Queue/RED/PSAND", (name, path)
