"""A part of an experiment file (experiments/config/cut.py): what a chapter run alone plans and judges.

The part must plan, for each kept experiment and each reading, exactly the runs the whole file plans there (so
the two share a results folder run by run), keep only claims, choices and headlines its runs can decide, and be
written whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from experiments.cli import main
from experiments.config import cut
from experiments.config.errors import ConfigError
from experiments.config.load import load, read_yaml
from experiments.config.readings import experiments_of, run_readings
from experiments.planning.expansion import Expansion

ROOT = Path(__file__).resolve().parents[2]
PSAND = ROOT / "configs" / "psand.yaml"
KOO = ROOT / "configs" / "koo_aqm.yaml"
CH5 = ["fec_flows", "fec_block_size"]


@pytest.fixture(scope="module")
def ch5(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("cut") / "psand_ch5.yaml"
    cut.write(PSAND, CH5, out)
    return out, load(out)


def test_the_part_keeps_its_experiments_and_what_reads_only_them(ch5):
    _, part = ch5
    whole = load(PSAND)
    assert list(part["experiments"]) == CH5
    assert {c["id"] for c in part["claims"]} == {c["id"] for c in whole["claims"] if c["experiment"] in CH5}
    assert {f["id"] for f in part["figures"]} == {f["id"] for f in whole["figures"] if f["experiment"] in CH5}
    for choice in part["choices"]:
        assert set(choice.get("experiments", CH5)) <= set(CH5)
    # The whole file's two Ch. 5 headlines are tested by Ch. 5's claims alone; the other seven read other chapters.
    assert [h["id"] for h in part["headlines"]] == ["ch5_loss_before_after", "ch5_when_red_helps"]
    assert [p["experiments"] for p in part["preconditions"]] == [CH5]


def test_the_part_plans_the_whole_files_runs_for_its_experiments(ch5):
    out, part = ch5
    whole = load(PSAND)

    def runs(doc: dict, path: Path) -> dict:
        planned = {}
        for name in CH5:
            planned[("baseline", name)] = [(r.seed, r.params) for r in Expansion(doc, path, name).runs()]
        for reading in run_readings(doc):
            for name in experiments_of(doc, reading):
                if name in CH5:
                    expansion = Expansion(doc, path, name, reading)
                    planned[(reading.label, name)] = [(r.seed, r.params) for r in expansion.runs()]
        return planned

    assert runs(part, out) == runs(whole, PSAND)


def test_a_part_leaves_out_what_reaches_into_other_experiments(tmp_path):
    """Chapter 4's Topo_same alone: its tables drawn beside Topo_diff go, a claim no longer suspects BLUE's freeze
    time on Topo_diff, and a choice keeps only the alternatives that change Topo_same's runs."""
    whole = read_yaml(PSAND)
    part = cut.write(PSAND, ["aqm_same"], tmp_path / "topo_same.yaml")
    assert any(t.get("reference") == "aqm_diff" for t in whole["tables"] if t["experiment"] == "aqm_same")
    assert all(item.get("reference") in (None, "aqm_same") for item in part.get("tables", []) + part["figures"])
    ids = {c["id"] for c in part["choices"] if "id" in c}
    assert "blue_freeze" not in ids
    assert any("blue_freeze" in c.get("suspects", []) for c in whole["claims"] if c["experiment"] == "aqm_same")
    assert all(set(c.get("suspects", [])) <= ids for c in part["claims"])
    gentle = next(c for c in whole["choices"] if c.get("id") == "gentle_segment")
    kept = next((c for c in part["choices"] if c.get("id") == "gentle_segment"), None)
    assert kept is None or len(kept["alternatives"]) < len(gentle["alternatives"])
    load(tmp_path / "topo_same.yaml")


def test_a_measure_choice_keeps_the_metrics_the_parts_claims_read():
    doc = read_yaml(PSAND)
    part = cut.cut(doc, CH5, PSAND)
    read = {c["metric"] for c in part["claims"]} | {p["metric"] for p in doc["preconditions"]}
    measure = [c for c in part["choices"] if any("metrics" in a for a in c.get("alternatives", []))]
    whole_measure = [c for c in doc["choices"] if any("metrics" in a for a in c.get("alternatives", []))]
    assert len(measure) < len(whole_measure)  # Table 3.1's full-queue reading, say, reads no Ch. 5 claim
    for choice in measure:
        for alt in choice["alternatives"]:
            assert alt["metrics"] and set(alt["metrics"]) <= read


def test_an_unknown_experiment_is_one_line_naming_the_file_and_what_it_has(tmp_path, capsys):
    out = tmp_path / "part.yaml"
    assert main(["cut", str(KOO), "--experiments", "chain", "nope", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert str(KOO) in err and "nope" in err and "single_bottleneck" in err
    assert list(tmp_path.iterdir()) == []


def test_a_part_that_fails_its_checks_is_not_written(tmp_path):
    out = tmp_path / "part.yaml"

    def refuse(path: Path) -> None:
        raise ConfigError(f"{path}: claims[0]: refused")

    with pytest.raises(ConfigError, match=r"part\.yaml: the part of .* is not a valid file: .*part\.yaml: claims"):
        cut.write(KOO, ["chain"], out, check=refuse)
    assert list(tmp_path.iterdir()) == []


def test_the_command_line_writes_a_file_that_validates(tmp_path, capsys):
    out = tmp_path / "koo_chain.yaml"
    assert main(["cut", str(KOO), "--experiments", "chain", "--output", str(out)]) == 0
    assert "1 experiments" in capsys.readouterr().out
    part = yaml.safe_load(out.read_text())
    assert list(part["experiments"]) == ["chain"]
    assert part["paper"] == "koo_aqm"  # its tables land where the whole file's do
    assert all(c["experiment"] == "chain" for c in part["claims"])


def test_a_claim_on_a_kept_experiment_keeps_only_the_figures_the_part_draws(tmp_path):
    """Fig. 2.4-2.6's late-window claims are judged on step_up_late but cite Fig. 2.3-2.6, drawn from step_up: cut
    without step_up, they stay (their runs are in the part) and cite no figure the part lacks."""
    whole = read_yaml(PSAND)
    late = {c["id"]: c for c in whole["claims"] if c["experiment"] == "step_up_late"}
    assert any("fig2_3_6" in c.get("figures", []) for c in late.values())
    part = cut.write(PSAND, ["load", "step_up_late"], tmp_path / "load.yaml")
    drawn = {a["id"] for section in ("figures", "tables") for a in part.get(section, [])}
    assert "fig2_3_6" not in drawn
    kept = {c["id"]: c for c in part["claims"] if c["experiment"] == "step_up_late"}
    assert set(kept) == set(late)
    assert all(set(c.get("figures", [])) <= drawn for c in part["claims"])
    with_step_up = cut.cut(whole, ["load", "step_up", "step_up_late"], PSAND)
    assert any("fig2_3_6" in c.get("figures", []) for c in with_step_up["claims"] if c["id"] in late)
