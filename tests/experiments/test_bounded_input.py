"""Input that asks for unbounded work is refused before the work grows (issue 51): what a bad file in
tests/configs/bad/ cannot express (a pipe, /dev/zero, workflow settings), and the limits' margin over the shipped
files (each limit at least ten times what the largest of them asks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from experiments.config import bounds
from experiments.config.errors import ConfigError
from experiments.config.load import MAX_YAML_DEPTH, MAX_YAML_NODES, load
from experiments.config.readings import experiments_of, run_readings
from experiments.planning.expansion import Expansion
from experiments.planning.profiles import Settings

REPO = Path(__file__).resolve().parents[2]
LIMIT = "an experiment file may be at most 4 MiB (is it the experiment file?)"


def validate(path: str, cwd: Path, stdin=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments", "validate", path],
        cwd=cwd,
        stdin=stdin,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=120,  # before: read until memory ran out
    )


def test_dev_zero_is_refused_by_what_is_read_not_by_its_size(tmp_path):
    """/dev/zero has size 0 to stat, so the size guard let it through and it was read whole: forever."""
    result = validate("/dev/zero", tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [f"error: /dev/zero: more than 4 MiB to read; {LIMIT}"]
    assert list(tmp_path.iterdir()) == []


def test_an_endless_pipe_is_read_only_to_the_limit(tmp_path):
    """A pipe (here /dev/stdin fed by a process that never stops) has size 0 too: read up to the limit, refused."""
    writer = subprocess.Popen(["yes", "# a comment line of a file that never ends"], stdout=subprocess.PIPE)
    try:
        result = validate("/dev/stdin", tmp_path, stdin=writer.stdout)
    finally:
        writer.kill()
        writer.wait()
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [f"error: /dev/stdin: more than 4 MiB to read; {LIMIT}"]
    assert list(tmp_path.iterdir()) == []


def test_a_file_of_exactly_the_limit_is_read(tmp_path):
    """The limit is a size that may be read: a 4 MiB file of comments is an empty document, not too large."""
    path = tmp_path / "exp.yaml"
    path.write_bytes(b"#" * (4 * 1024 * 1024 - 1) + b"\n")
    with pytest.raises(ConfigError, match="empty file"):
        load(path)


@pytest.mark.parametrize(
    "cfg, message",
    [
        ({"batch_size": 2.0}, "batch_size=2.0 is not allowed; allowed: an integer of at least 1"),
        ({"seed_cap": 2.0}, "seed_cap=2.0 is not allowed; allowed: an integer of at least 1, or paper"),
        ({"seed_cap": 0}, "seed_cap=0 is not allowed; allowed: an integer of at least 1, or paper"),
        ({"batch_size": 0}, "batch_size=0 is not allowed; allowed: an integer of at least 1"),
        ({"batch_size": "x"}, "batch_size='x' is not allowed; allowed: an integer of at least 1"),
        ({"smoke_duration": 0}, "smoke_duration=0 is not allowed; allowed: a finite number above 0"),
        ({"results": ""}, "results='' is not allowed; allowed: a text with more than spaces"),
        ({"results": " "}, "results=' ' is not allowed; allowed: a text with more than spaces"),
        ({"results": None}, "results= (no value) is not allowed; allowed: a text with more than spaces"),
        ({"profile_name": ""}, "profile_name='' is not allowed"),
        ({"experiment_files": ""}, "experiment_files='' is not allowed; allowed: a text with more than spaces, or"),
        ({"experiment_files": []}, "experiment_files=[] is not allowed"),
        ({"experiment_files": None}, "experiment_files= (no value) is not allowed"),
        ({"experiment_files": ["configs/bqm.yaml", ""]}, "experiment_files=['configs/bqm.yaml', ''] is not allowed"),
    ],
)
def test_every_setting_is_checked_in_one_line_naming_what_it_allows(cfg, message):
    """Before: an integer setting took 2.0 (the plan then failed with a stack), an empty `results` wrote into the
    working folder, an empty `experiment_files` ran every configs/*.yaml, and seed_cap=0 was called "not a yes/no
    value"."""
    with pytest.raises(ConfigError) as caught:
        Settings.from_config(cfg)
    assert str(caught.value).startswith(f"workflow config: {message}")
    assert "\n" not in str(caught.value)


def _largest_asked(path: Path) -> dict[str, float]:
    """What a shipped file asks for, as validation checks it: every cell under every reading, applied."""
    doc = load(path)
    cells = {name: bounds.matrix_cells(exp) for name, exp in doc["experiments"].items()}
    asked = {
        "cell checks": 0,
        "runs": sum(
            cells[name] * max(exp["seeds"]["count"], exp["seeds"].get("paper", 0))
            for name, exp in doc["experiments"].items()
        ),
        "readings": bounds.reading_count(doc),
        "flows": 0,
        "nodes": 0,
        "moves": 0,
    }
    expansions = [Expansion(doc, path, name) for name in doc["experiments"]]
    expansions += [Expansion(doc, path, name, r) for r in run_readings(doc) for name in experiments_of(doc, r)]
    for runs in expansions:
        asked["cell checks"] += len(runs.checked)
        for cell in runs.checked:
            scenario, _ = runs.applied(cell)
            asked["flows"] = max(asked["flows"], sum(g.get("count", 1) for g in scenario["flows"].values()))
            topology = scenario["topology"]
            if topology["kind"] == "wireless":
                asked["nodes"] = max(asked["nodes"], topology["nodes"])
                waypoint = topology["placement"].get("random_waypoint")
                if waypoint:
                    moves = bounds.waypoint_moves(topology["nodes"], topology["area"], waypoint, runs.exp["duration"])
                    asked["moves"] = max(asked["moves"], moves)
    return asked


def test_the_limits_are_ten_times_what_the_shipped_files_ask():
    """A limit is a guard against a mistake, never a constraint on a real sweep: the largest shipped file asks for at
    most a tenth of each."""
    limits = {
        "cell checks": bounds.MAX_CELL_CHECKS,
        "runs": bounds.MAX_RUNS,
        "readings": bounds.MAX_READINGS,
        "flows": bounds.MAX_FLOWS,
        "nodes": bounds.MAX_WIRELESS_NODES,
        "moves": bounds.MAX_WAYPOINT_MOVES,
    }
    largest = dict.fromkeys(limits, 0.0)
    for path in sorted((REPO / "configs").glob("*.yaml")):
        for key, value in _largest_asked(path).items():
            largest[key] = max(largest[key], value)
    for key, limit in limits.items():
        assert largest[key] * 10 <= limit, f"{key}: the shipped files ask for {largest[key]}, the limit is {limit}"


def test_the_yaml_limits_are_far_above_what_the_shipped_files_expand_to():
    """Nodes (aliases expanded) ten times, nesting four times: the deepest shipped file nests about ten levels."""
    import yaml

    def extent(node, depth=1):
        children = {
            yaml.MappingNode: lambda n: [x for pair in n.value for x in pair],
            yaml.SequenceNode: lambda n: n.value,
        }.get(type(node), lambda n: [])(node)
        sizes = [extent(child, depth + 1) for child in children]
        return 1 + sum(s for s, _ in sizes), max([depth, *(d for _, d in sizes)])

    for path in sorted((REPO / "configs").glob("*.yaml")):
        nodes, depth = extent(yaml.compose(path.read_text(), Loader=yaml.SafeLoader))
        assert nodes * 10 <= MAX_YAML_NODES and depth * 4 <= MAX_YAML_DEPTH, (path.name, nodes, depth)
