"""The run keys of tests/configs/fingerprint.yaml are pinned: a refactoring of the core package must leave every
run's key, every batch job's identity and every aggregate job's identity as they were, or every run of every
results folder is simulated again (and every job rerun).

tests/configs/fingerprint.keys.json holds them, under the default and the smoke profile, for the baseline and each
reading that makes runs (fixed digests stand for the Tcl sources, the ns binary and the parsers: the test is about
how params are resolved). When a change of the keys is intended (a new params field, say), regenerate it with
`python tests/experiments/test_run_key_fingerprint.py > tests/configs/fingerprint.keys.json` and say so in the
commit: every run will be simulated again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # run as a script from anywhere: this checkout's package

from experiments.planning.profiles import Settings  # noqa: E402
from experiments.planning.runkey import run_key  # noqa: E402
from experiments.workflow.plan import plan  # noqa: E402

CONFIG = REPO / "tests" / "configs" / "fingerprint.yaml"
GOLDEN = REPO / "tests" / "configs" / "fingerprint.keys.json"


def fingerprint() -> dict:
    out = {}
    for profile, cfg in (("default", {}), ("smoke", {"smoke": True})):
        the_plan = plan(Settings.from_config({**cfg, "experiment_files": [str(CONFIG)], "batch_size": 4}), None)
        for (paper, experiment, reading), runs in the_plan.expansions.items():
            batches = range(the_plan.batches[(paper, experiment, reading)])
            out[f"{profile} {experiment} {reading}"] = {
                "runs": [[run.labels, run.seed, run_key(run.params, "tcl", "ns", "parsers")] for run in runs.runs()],
                "batches": [the_plan.batch_identity(paper, experiment, i, reading) for i in batches],
                "aggregate": the_plan.aggregate_identity(paper, experiment, reading),
            }
    return out


def test_run_keys_and_job_identities_are_as_pinned():
    golden = json.loads(GOLDEN.read_text())
    now = json.loads(json.dumps(fingerprint()))  # labels and numbers as JSON keeps them
    assert now.keys() == golden.keys()
    for name in golden:
        assert now[name] == golden[name], f"{name}: run keys or job identities changed (the docstring says what to do)"


def test_the_fingerprint_covers_every_kind_of_reading_and_both_topologies():
    golden = json.loads(GOLDEN.read_text())
    readings = {name.split(" ", 2)[2] for name in golden}
    assert {"baseline", "buffer=small", "window=big", "buffer=small+window=big", "thresholds=shifted"} <= readings
    assert {name.split(" ")[1] for name in golden} == {"wired", "adhoc"}
    assert sum(len(entry["runs"]) for entry in golden.values()) > 100


if __name__ == "__main__":
    print(json.dumps(fingerprint(), indent=1, sort_keys=True))
