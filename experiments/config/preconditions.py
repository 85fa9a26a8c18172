"""A file's `preconditions` as claims: each makes one sanity claim of kind bound per experiment it names (id
<id>_<experiment>), marked `precondition` with its id, so that the verdicts can void the runs beyond it for the
experiment's other claims (experiments/verdicts/preconditions.py). Expanded once the schema has passed and before
the claims are checked, so that the claims it makes are checked as written ones are."""

from __future__ import annotations

from pathlib import Path

from experiments.config.errors import ConfigError

MARK = "precondition"  # the key a precondition's claims carry (its id); the schema refuses it in a written claim


def expand(doc: dict, path: Path) -> None:
    """Append each precondition's claims to `doc['claims']`; ConfigError naming an unknown experiment."""
    claims = doc.setdefault("claims", [])
    for index, pre in enumerate(doc.get("preconditions", [])):
        for exp in pre["experiments"]:
            if exp not in doc["experiments"]:
                known = ", ".join(doc["experiments"])
                raise ConfigError(
                    f"{path}: preconditions[{index}].experiments: unknown experiment '{exp}'; known: {known}"
                )
            claims.append(
                {
                    "id": f"{pre['id']}_{exp}",
                    "class": "sanity",
                    "kind": "bound",
                    "source": "the runs (a precondition)",
                    "text": pre["what"],
                    "experiment": exp,
                    "metric": pre["metric"],
                    "bound": pre["bound"],
                    "threshold": pre["threshold"],
                    "drift_threshold": pre["drift_threshold"],
                    "combine": "all",
                    MARK: pre["id"],
                }
            )


def claim_where(doc: dict, index: int) -> str:
    """Where an error about claims[index] points: a precondition's claim names the precondition the file wrote."""
    claim = doc["claims"][index]
    if MARK not in claim:
        return f"claims[{index}]"
    written = next(i for i, pre in enumerate(doc.get("preconditions", [])) if pre["id"] == claim[MARK])
    return f"preconditions[{written}] (its claim on {claim['experiment']})"
