"""A file's `model_checks`: a paper-model number (experiments.paper_models.quantities) against what the paper prints,
checked before any run (references.check), judged by its tolerances (verdicts.model_checks) and listed in both
reports apart from the claims."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from experiments.config.errors import ConfigError
from experiments.config.load import load
from experiments.paper_models import aqm_design, fec_model
from experiments.paper_models.quantities import QUANTITIES, fec_offset_step, pi_a
from experiments.references import check as references
from experiments.report.markdown import write_report
from experiments.verdicts.model_checks import judge_model_check, judge_model_checks

REPO = Path(__file__).resolve().parents[2]
MINIMAL = load(REPO / "tests" / "configs" / "minimal.yaml")
PI_ARGS = {"capacity": 187.5, "n_min": 3, "rtt_max": 0.252, "sampling_hz": 170}


def check_of(**extra) -> dict:
    return {
        "id": "m",
        "class": "diagnostic",
        "source": "§4.3",
        "quantity": "pi_a",
        "args": dict(PI_ARGS),
        "expected": 0.000344519,
        "pass": {"abs": 1e-9},
        **extra,
    }


def with_checks(*checks) -> dict:
    return {**copy.deepcopy(MINIMAL), "model_checks": list(checks)}


def test_the_quantities_are_the_paper_models_functions():
    assert pi_a(**PI_ARGS) == aqm_design.pi_gains(187.5, 3, 0.252, 170)[0]
    assert QUANTITIES["fec_sign_changes"](h=3) == fec_model.threshold(3).sign_changes
    assert fec_offset_step(4) == pytest.approx((fec_model.threshold(4).x_h - 4) - (fec_model.threshold(3).x_h - 3))


@pytest.mark.parametrize(
    "expected,tolerances,verdict",
    [
        (0.000344519, {"pass": {"abs": 1e-9}}, "pass"),
        (0.000344517, {"pass": {"abs": 1e-9}, "drift": {"abs": 1e-8}}, "drift"),
        (0.000344417, {"pass": {"abs": 1e-9}, "drift": {"abs": 1e-8}}, "fail"),
        (0.000344517, {"pass": {"abs": 1e-9}}, "fail"),
    ],
)
def test_a_check_passes_drifts_or_fails_by_its_tolerances(expected, tolerances, verdict):
    judged = judge_model_check({**check_of(expected=expected), **tolerances})
    assert judged.verdict == verdict
    assert judged.computed == pytest.approx(0.00034451949660)
    assert judged.quantity == "pi_a(capacity=187.5, n_min=3, rtt_max=0.252, sampling_hz=170)"


@pytest.mark.parametrize(
    "bad,message",
    [
        ({"quantity": "pi_c"}, "model_checks[0].quantity: unknown quantity 'pi_c'; allowed: pi_a, pi_b"),
        ({"args": {"capacity": 187.5, "n_min": 3}}, "model_checks[0].args: capacity, n_min given; pi_a takes capacity"),
        ({"id": "some_claim"}, "model_checks[0].id: 'some_claim' is already a claim's or a model check's id"),
    ],
)
def test_a_bad_check_is_refused_before_any_run(bad, message):
    doc = with_checks(check_of(**bad))
    if bad.get("id") == "some_claim":
        doc["claims"][0]["id"] = "some_claim"
    with pytest.raises(ConfigError) as raised:
        references.check(doc, "f.yaml", None)
    assert message in str(raised.value)


def test_psands_checks_hold_as_the_unit_tests_say():
    """The shipped file's checks: the design rules rebuild §4.3's printed a, b and LRED's two betas, and §5.5's
    model has one threshold per h (tests/experiments/test_aqm_design.py and test_fec_model.py check the same)."""
    judged = judge_model_checks(load(REPO / "configs" / "psand.yaml"))
    assert {m.check for m in judged} >= {"m_pi_a", "m_pi_b", "m_lred_beta", "m_lred_beta_fig44"}
    assert [m.verdict for m in judged] == ["pass"] * len(judged)


def test_report_md_lists_the_checks_apart_from_the_claims(tmp_path):
    doc = with_checks(check_of(id="pi_a_printed"), check_of(id="pi_a_wrong", expected=0.0003))
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"key": "k", "binary": {"sha256": "0" * 64}, "series": {"patches": []}}))
    write_report([doc], tmp_path / "results", manifest, tmp_path / "REPORT.md", "smoke")
    text = (tmp_path / "REPORT.md").read_text()
    assert "### Model checks (1 pass, 1 fail)" in text
    row = next(line for line in text.splitlines() if line.startswith("| pi_a_wrong "))
    assert "`pi_a(capacity=187.5, n_min=3, rtt_max=0.252, sampling_hz=170)`" in row and "**fail**" in row
    assert "0.000344519" in row and "0.0003 " in row
