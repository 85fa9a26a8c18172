"""A part of an experiment file: some of its experiments, with what reads them and nothing that reads the rest.

A paper's whole file may need more runs than one machine makes in a sitting (Alemu's thesis under every reading,
on two cores: docs/PERFORMANCE.md). Its chapters can then run one at a time: the part's file plans only its experiments'
runs, into the same results folder as the whole (runs are shared by key, whatever file asked for them), and its
reports judge only what those runs can decide. What is kept of each section:

- figures, tables and claims of a kept experiment (a figure or table with a `reference` experiment only if that is
  kept too; a claim's suspects cut to the part's choices, its `figures` to the part's figures and tables: a claim
  judged on a kept experiment may cite a figure drawn from another, Alemu's late windows of Fig. 2.3-2.6 say);
- choices, with the experiments they name cut to the kept ones, and the alternatives of a path choice to those
  that change an experiment of the part a claim reads (a choice left with none goes); measure choices with their
  metrics cut to those the part's claims read; interactions whose choices are all kept;
- preconditions with their experiment lists cut; model checks (they read no runs);
- headlines whose claims are all kept: one tested in part would be judged on what happens to be in the part.

The part keeps the file's `paper`, so its tables land where the whole file's do; its seeding rounds spend their
budget on its own claims only, so its baseline verdicts may rest on more seeds than the whole file's would.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml

from experiments.config import readings
from experiments.config.errors import ConfigError
from experiments.config.load import load, read_yaml


def cut(doc: dict, keep: list[str], path: str | Path = "<file>") -> dict:
    """The part of `doc` (a file as read, before defaults) holding the experiments named in `keep`."""
    unknown = [name for name in keep if name not in doc["experiments"]]
    if unknown:
        raise ConfigError(
            f"{path}: experiments: no experiment {', '.join(unknown)} in the file; "
            f"it has: {', '.join(doc['experiments'])}"
        )
    kept = set(keep)
    part = dict(doc)
    part["experiments"] = {name: exp for name, exp in doc["experiments"].items() if name in kept}
    for section in ("figures", "tables", "claims"):
        if section in doc:  # a figure or table drawn beside a reference experiment needs that one too
            part[section] = [
                item for item in doc[section] if {item["experiment"], item.get("reference")} - {None} <= kept
            ]
    if "choices" in doc:
        read = {c["metric"] for c in part.get("claims", [])} | {p["metric"] for p in doc.get("preconditions", [])}
        listed = [_cut_measures(c, read) for c in (_cut_listed(c, kept) for c in doc["choices"]) if c is not None]
        part["choices"] = [c for c in listed if c is not None]  # _cut_alternatives reads the part's choices
        part["choices"] = [c for c in (_cut_alternatives(part, c) for c in part["choices"]) if c is not None]
    ids = {c["id"] for c in part.get("choices", []) if "id" in c}
    drawn = {a["id"] for section in ("figures", "tables") for a in part.get(section, [])}
    part["claims"] = [_cut_key(_cut_key(claim, "suspects", ids), "figures", drawn) for claim in part.get("claims", [])]
    if "interactions" in doc:
        part["interactions"] = [pair for pair in doc["interactions"] if set(pair) <= ids]
    if "preconditions" in doc:
        part["preconditions"] = [p for p in (_cut_listed(p, kept) for p in doc["preconditions"]) if p is not None]
    if "headlines" in doc:
        claims = {c["id"] for c in part.get("claims", [])}
        part["headlines"] = [h for h in doc["headlines"] if set(h["claims"]) <= claims]
    # a section left empty goes (the schema wants none empty), but `claims`, which every file has
    return {key: value for key, value in part.items() if value != [] or key == "claims"}


def _cut_alternatives(part: dict, choice: dict) -> dict | None:
    """A choice whose alternatives run (a path choice) keeps those that change an experiment of the part a claim
    reads (as references.check_path_alternatives asks of every file); None when none does. Other choices as they
    are: an axis choice's alternatives are levels its experiments run, a measure choice is cut by _cut_measures."""
    if "alternatives" not in choice or "axis" in choice or readings.is_measure_choice(choice):
        return choice
    alternatives = [
        alt
        for alt in choice["alternatives"]
        if readings.experiments_of(part, readings.Reading(label=choice["id"], choices=((choice["id"], alt["label"]),)))
    ]
    return {**choice, "alternatives": alternatives} if alternatives else None


def _cut_key(claim: dict, key: str, kept: set[str]) -> dict:
    """A claim with the ids listed under `key` cut to those of the part (the key dropped when none is left): a suspect
    that governs nothing in the part (BLUE's freeze time on the other topology, say) cannot explain the claim's
    verdict there, and a figure the part does not draw cannot show it."""
    if key not in claim:
        return claim
    listed = [name for name in claim[key] if name in kept]
    rest = {k: value for k, value in claim.items() if k != key}
    return {**rest, key: listed} if listed else rest


def _cut_measures(choice: dict, read: set[str]) -> dict | None:
    """A measure choice with each alternative's metrics cut to those the part's claims read (what a claim is judged
    on under it is unchanged), and alternatives left with none dropped; None when none is left. Other choices as
    they are."""
    if not readings.is_measure_choice(choice):
        return choice
    alternatives = []
    for alt in choice["alternatives"]:
        metrics = {old: new for old, new in alt["metrics"].items() if old in read}
        if metrics:
            alternatives.append({**alt, "metrics": metrics})
    return {**choice, "alternatives": alternatives} if alternatives else None


def _cut_listed(item: dict, kept: set[str]) -> dict | None:
    """A choice or precondition with its `experiments` cut to the kept ones; None when none is left."""
    if "experiments" not in item:
        return item
    listed = [name for name in item["experiments"] if name in kept]
    return {**item, "experiments": listed} if listed else None


def write(source: str | Path, keep: list[str], out: str | Path, check: Callable[[Path], object] = load) -> dict:
    """Write the part of file `source` holding `keep` to `out`, whole or not at all, once `check` (by default the
    file's own checks; the command line adds ns-2's) passed on it; returns the part."""
    load(source)  # the whole file first: its own errors name its own lines
    part = cut(read_yaml(Path(source)), keep, source)
    out = Path(out)
    header = (
        f"# A part of {source}: experiments {', '.join(keep)}, with what reads them\n"
        "# (python -m experiments cut; experiments/config/cut.py says what is kept). Made, not edited.\n"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(header + yaml.safe_dump(part, sort_keys=False, allow_unicode=True, width=120))
    try:
        check(tmp)
        tmp.replace(out)
    except ConfigError as err:
        problem = str(err).replace(str(tmp), str(out))
        raise ConfigError(f"{out}: the part of {source} is not a valid file: {problem}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return part
