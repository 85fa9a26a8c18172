"""The workflow's settings (a profile's config, or --config) and the cut a profile makes of an experiment file:
the default profile's default_levels, the paper profile's replication counts, the smoke profile's one seed,
short runs and smoke_levels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import jsonschema
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from experiments.config.axes import label_text, level_labels
from experiments.config.errors import ConfigError
from experiments.config.load import load as load_file
from experiments.config.schema import StrictValidator, describe_error

# The settings' schema: every key, its type, default and meaning (snakemake.utils.validate reads it).
SETTINGS_SCHEMA = Path(__file__).resolve().parents[2] / "workflows" / "schemas" / "settings.schema.yaml"
TRUE = {True, "1", "true", "True", "yes", "on"}  # the schema's spellings of a yes (`--config` gives text)
REPLICATIONS = ("file", "paper")  # the schema's values of `replications`


@dataclass(frozen=True)
class Settings:
    """The workflow's settings (workflows/schemas/settings.schema.yaml says what each means)."""

    experiment_files: tuple[str, ...]
    results: Path
    batch_size: int
    smoke: bool
    smoke_duration: float
    keep_raw: bool
    profile_name: str
    parse: bool
    replications: str = "file"
    reading_cells: str = "all"
    seed_cap: int | str = 1  # a number, or "paper" (verdicts.seeding.experiment_seeds); 1 and 0: no seeding
    seed_budget: int = 0  # rounds (from_config takes the schema's default, the default profile's)
    readings: str = "all"  # or "null": sensitivity-all runs and judges the null readings alone
    run_cpu_limit: float = 3600.0  # CPU s a run's ns may use (0: none); not in any run key

    @classmethod
    def from_config(cls, cfg: dict) -> Settings:
        """Settings from Snakemake's config (a profile's settings file, `--config key=value`), checked against the
        schema, which also fills in the defaults: ConfigError (one line) for a key or value it does not allow."""
        cfg = dict(cfg)
        for key, value in cfg.items():  # the schema's number bounds let NaN through (every comparison is false)
            if isinstance(value, float) and not math.isfinite(value):
                raise ConfigError(f"workflow config: {key}={value} is not a finite number; allowed: a finite number")
        # Our validator first: Snakemake's counts 2.0 as an integer (`batch_size=2.0` then failed in the plan with
        # a stack) and matches a pattern with re.search.
        error = jsonschema.exceptions.best_match(StrictValidator(settings_schema()).iter_errors(cfg))
        if error is not None:
            raise ConfigError(f"workflow config: {setting_error(error, cfg)}")
        try:
            validate(cfg, str(SETTINGS_SCHEMA))  # fills in the defaults
        except WorkflowError as err:  # raised while handling the schema's ValidationError: its context
            cause = err.__context__
            raise ConfigError(f"workflow config: {setting_error(cause) if cause else err}") from None
        files = cfg.get("experiment_files") or sorted(str(p) for p in Path("configs").glob("*.yaml"))
        return cls(
            experiment_files=(files,) if isinstance(files, str) else tuple(files),
            results=Path(cfg["results"]),
            batch_size=cfg["batch_size"],
            smoke=cfg["smoke"] in TRUE,
            smoke_duration=float(cfg["smoke_duration"]),
            keep_raw=cfg["keep_raw"] in TRUE,
            profile_name=cfg["profile_name"],
            parse=cfg["parse"] in TRUE,
            replications=cfg["replications"],
            reading_cells=cfg["reading_cells"],
            seed_cap=cfg["seed_cap"],
            seed_budget=cfg["seed_budget"],
            readings=cfg["readings"],
            run_cpu_limit=float(cfg["run_cpu_limit"]),
        )


@cache
def settings_schema() -> dict:
    return yaml.safe_load(SETTINGS_SCHEMA.read_text())


def setting_error(error: jsonschema.ValidationError, cfg: dict | None = None) -> str:
    """One line naming the setting, its value (from `cfg`, where an error names an item of it) and what it
    allows."""
    if error.validator == "additionalProperties" or not error.absolute_path:
        return describe_error(error)  # an unknown key, with the nearest known one
    key = error.absolute_path[0]
    spec = settings_schema()["properties"].get(key, {})
    value = cfg[key] if cfg is not None and key in cfg else error.instance
    if spec.get("$ref", "").endswith("/yes_no"):
        return f"{key}={value!r} is not a yes/no value; use true or false"
    if spec.get("enum"):
        return describe_error(error)
    shown = " (no value)" if value is None else repr(value)  # `--config results=` gives None
    return f"{key}={shown} is not allowed; allowed: {_allowed(spec)}"


def _allowed(spec: dict) -> str:
    """What a setting's schema allows, in words."""
    if "$ref" in spec:
        spec = {**settings_schema()["$defs"][spec["$ref"].rpartition("/")[2]], **spec}
        del spec["$ref"]
    if "oneOf" in spec:
        return ", or ".join(_allowed(option) for option in spec["oneOf"])
    if "enum" in spec:
        return " or ".join(map(str, spec["enum"]))
    kind = spec.get("type")
    if kind == "integer":
        return f"an integer of at least {spec['minimum']}" if "minimum" in spec else "an integer"
    if kind == "number":
        return f"a finite number above {spec['exclusiveMinimum']}" if "exclusiveMinimum" in spec else "a number"
    if kind == "array":
        return f"a list of at least {spec.get('minItems', 0)}, each {_allowed(spec.get('items', {}))}"
    if kind == "string":
        return "a text with more than spaces" if "pattern" in spec else "a text"
    return str(kind)


def load(path: str | Path, settings: Settings) -> dict:
    """The validated experiment file, cut as the settings' profile asks (`cut`)."""
    return cut(load_file(path), settings)


def cut(doc: dict, settings: Settings) -> dict:
    """A loaded experiment file (config.load's result) cut as the profile asks, in place: the default profile's
    default_levels or the paper profile's seeds.paper, and on the smoke profile one seed, runs of at most
    smoke_duration seconds and smoke_levels. Returns it."""
    if settings.replications == "paper":
        for exp in doc["experiments"].values():
            exp["seeds"]["count"] = exp["seeds"].get("paper", exp["seeds"]["count"])
    else:
        for exp in doc["experiments"].values():
            subset_matrix(exp["matrix"], "default_levels")
    if settings.smoke:
        factors = {}
        for name, exp in doc["experiments"].items():
            subset_matrix(exp["matrix"], "smoke_levels")
            exp["seeds"]["count"] = 1
            factors[name] = factor = min(1.0, settings.smoke_duration / exp["duration"])
            exp["duration"] = min(exp["duration"], settings.smoke_duration)
            exp["warmup"] = min(exp["warmup"], exp["duration"] / 2)
            for group in exp["scenario"]["flows"].values():
                group["start"] = smoke_start(group.get("start", 0), factor, exp["duration"])
                if "stop" in group:  # the group's life shrinks with the run, as its start
                    group["stop"] = group["stop"] * factor
        smoke_choice_starts(doc, factors, settings.smoke_duration)
        for figure in doc["figures"]:  # a window of the run shrinks with it (Fig. 3.6's 50-100 s of 100 s)
            if "time_window" in figure:
                factor = factors[figure["experiment"]]
                figure["time_window"] = [round(t * factor, 9) for t in figure["time_window"]]
    return doc


def subset_matrix(matrix: dict, key: str) -> None:
    """Keeps only the levels that the axes naming `key` (default_levels or smoke_levels) list, a zip group at the
    same positions."""
    for axis in matrix["product"].values():
        if key in axis:
            axis["levels"] = _levels_at(axis, _positions(axis, key))
    for group in matrix["zip"]:
        for spec in [s for s in group.values() if key in s]:
            positions = _positions(spec, key)
            for axis in group.values():
                axis["levels"] = _levels_at(axis, positions)


def _positions(axis: dict, key: str) -> list[int]:
    wanted = {label_text(label) for label in axis[key]}
    return [i for i, label in enumerate(level_labels(axis)) if label_text(label) in wanted]


def _levels_at(axis: dict, positions: list[int]):
    levels = axis["levels"]
    if isinstance(levels, dict):
        items = list(levels.items())
        return dict(items[i] for i in positions)
    return [levels[i] for i in positions]


def smoke_choice_starts(doc: dict, factors: dict[str, float], duration: float) -> None:
    """An alternative that sets a flow group's start (e.g. a later start window) is compressed like the scenario's
    own, by the largest shortening among the experiments its choice names (all, if it names none)."""
    for choice in doc["choices"]:
        factor = min(factors[name] for name in choice.get("experiments", factors))
        for alt in choice.get("alternatives", []):
            if "value" in alt and _is_start(choice.get("path", "")):
                alt["value"] = smoke_start(alt["value"], factor, duration)
            for sets in [alt.get("set", {}), *(case["set"] for case in alt.get("cases", []))]:
                for path in [p for p in sets if _is_start(p)]:
                    sets[path] = smoke_start(sets[path], factor, duration)


def _is_start(path: str) -> bool:
    parts = path.split(".")
    return len(parts) == 3 and parts[0] == "flows" and parts[2] == "start"


def smoke_start(start, factor: float, duration: float):
    """A flow group's start in a run the smoke profile shortened by `factor`: unchanged if every flow still starts
    before the end, else compressed with the run (a window [0, 180) of a 300-s run becomes [0, 3) of 5 s). A
    staggered start is always compressed when the run is shortened: how many flows it starts is an axis's to say."""
    if isinstance(start, dict) and "first" in start:
        scaled = {key: round(start[key] * factor, 9) for key in ("first", "every")}
        return start if factor >= 1 else scaled
    if isinstance(start, dict):
        low, high = start["uniform"]
        return start if high < duration else {"uniform": [low * factor, high * factor]}
    return start if start < duration else start * factor
