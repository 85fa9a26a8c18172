"""Seeds within what ns-2's RNG accepts (experiments/config/experiment_checks.py): ns-2 reads a seed with atoi and
takes 0 < seed < 2^31 - 1, where 0 is a clock-based seed and a larger number wraps (2^32 becomes 0, 2^32 + 1
becomes 1): a run key would then give other numbers on each run, or repeat another seed's. validate refuses the
file's own seeds (tests/configs/bad/seed*.yaml), and planning the seeds the seeding rounds could add up to the
setting seed_cap."""

from __future__ import annotations

import pytest
import yaml

from experiments.config.errors import ConfigError
from experiments.config.experiment_checks import NS2_SEED_MAX
from experiments.planning.profiles import Settings
from experiments.workflow.plan import plan
from tests.experiments.test_null_readings import MINIMAL


def experiment_file(tmp_path, first: int):
    doc = yaml.safe_load(MINIMAL.read_text())
    doc["experiments"]["tiny"]["seeds"] = {"count": 2, "first": first}
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_ns2_s_seed_range():
    assert NS2_SEED_MAX == 2**31 - 2  # below MAXINT (2^31 - 1), which ns-2's RNG::command refuses


def test_the_seeding_rounds_cap_may_not_take_the_seeds_beyond_the_range(tmp_path):
    path = experiment_file(tmp_path, NS2_SEED_MAX - 9)  # ten seeds left
    assert plan(Settings.from_config({"experiment_files": [str(path)], "seed_cap": 10}))
    beyond = r"seed_cap=11\), seeds 2147483637..2147483647 reach beyond .*at most 10 here"
    with pytest.raises(ConfigError, match=beyond):
        plan(Settings.from_config({"experiment_files": [str(path)], "seed_cap": 11}))
    # no seeding rounds (no budget): the cap adds no seeds
    assert plan(Settings.from_config({"experiment_files": [str(path)], "seed_cap": 11, "seed_budget": 0}))
