"""The JSON Schema of experiment files (configs/experiment.schema.json) and its errors as one line each: the key
path and what is allowed.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from experiments.config.errors import ConfigError

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "configs" / "experiment.schema.json"


@cache
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


def key_path(parts) -> str:
    """experiments.exp1.seeds.count / claims[3].expected"""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _subschema_properties(error: jsonschema.ValidationError) -> list[str]:
    return sorted(error.schema.get("properties", {}))


def describe_error(error: jsonschema.ValidationError) -> str:
    """The message part of one schema error, with what is allowed."""
    where = key_path(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = _subschema_properties(error)
        extras = sorted(set(error.instance) - set(allowed), key=str)  # YAML reads a key `null` as None
        if allowed and extras:
            key = extras[0]
            near = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
            hint = f"did you mean '{near[0]}'? " if near else ""
            return f"{key_path([*error.absolute_path, key])}: unknown key '{key}'; {hint}allowed: {', '.join(allowed)}"
    if error.validator == "required":
        return f"{where}: {error.message}"
    if error.validator == "enum":
        allowed = ", ".join(map(str, error.validator_value))
        return f"{where}: {error.instance!r} is not allowed; allowed: {allowed}"
    if "propertyNames" in error.schema_path:
        return f"{where}: invalid name {error.instance!r}; names must match {error.validator_value}"
    if error.validator == "pattern":
        return f"{where}: {error.instance!r} does not match the required form {error.validator_value}"
    if error.validator == "type":
        return f"{where}: {error.instance!r} has the wrong type; expected {error.validator_value}"
    return f"{where}: {error.message}"


def _best_error(errors: list[jsonschema.ValidationError]) -> jsonschema.ValidationError:
    """The deepest, most specific error (oneOf/anyOf are opened up to their causes)."""
    return jsonschema.exceptions.best_match(errors)


def _integer(checker, instance) -> bool:
    """An integer is an int: JSON Schema's integer also admits 2.0, which a seed count or a level then carries on
    as a float (range(2.0) fails after validation)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


def _pattern(validator, pattern, instance, schema):
    """A pattern anchored with `$` must match to the string's end: Python's `$` (jsonschema matches with re.search)
    also matches before a final newline, which let "fig7\n" pass as an id."""
    if not validator.is_type(instance, "string"):
        return
    found = re.search(pattern, instance)
    if not found or (pattern.endswith("$") and found.end() != len(instance)):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    validators={"pattern": _pattern},
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _integer),
)


def validate_schema(doc: Any, path: Path) -> None:
    validator = StrictValidator(schema())
    errors = list(validator.iter_errors(doc))
    if errors:
        raise ConfigError(f"{path}: {describe_error(_best_error(errors))}")
