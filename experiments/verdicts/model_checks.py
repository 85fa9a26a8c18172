"""Judging a file's `model_checks`: a paper-model number (experiments.paper_models.quantities) at the arguments the
file gives, against what the paper prints or states, by the check's tolerances (config.tolerances). No run is read,
so no reading changes them: they are judged once, and the report lists them apart from the claims."""

from __future__ import annotations

from dataclasses import dataclass

from experiments.config.tolerances import describe_tolerance, tolerance_verdict
from experiments.paper_models.quantities import QUANTITIES


@dataclass(frozen=True)
class ModelCheckVerdict:
    check: str
    cls: str  # calibrated, sanity, diagnostic
    source: str
    quantity: str  # the call, e.g. "pi_a(capacity=187.5, n_min=3, rtt_max=0.252, sampling_hz=170)"
    expected: float
    computed: float
    tolerance: str
    verdict: str  # pass, drift or fail
    note: str = ""


def call_text(check: dict) -> str:
    args = ", ".join(f"{name}={value:g}" for name, value in check["args"].items())
    return f"{check['quantity']}({args})"


def judge_model_check(check: dict) -> ModelCheckVerdict:
    computed = float(QUANTITIES[check["quantity"]](**check["args"]))
    tolerance = describe_tolerance(check["pass"]) + (
        f" (drift {describe_tolerance(check['drift'])})" if "drift" in check else ""
    )
    return ModelCheckVerdict(
        check["id"],
        check["class"],
        check["source"],
        call_text(check),
        check["expected"],
        computed,
        tolerance,
        tolerance_verdict(computed, check),
        check.get("note", ""),
    )


def judge_model_checks(doc: dict) -> list[ModelCheckVerdict]:
    """Every model check of the file, in its order."""
    return [judge_model_check(check) for check in doc.get("model_checks", [])]
