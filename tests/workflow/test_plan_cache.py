"""The plan cache (experiments/workflow/plan_cache.py): planned once per content, read back after, planned anew
whenever anything it reads changes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from experiments.planning.profiles import Settings
from experiments.workflow import plan_cache

MINIMAL = Path(__file__).resolve().parents[1] / "configs" / "minimal.yaml"


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """A copy of the minimal file, a cache of its own, and a count of the real plans made."""
    monkeypatch.setenv("NS2REPRO_CACHE", str(tmp_path / "cache"))
    config = tmp_path / "minimal.yaml"
    shutil.copy(MINIMAL, config)
    made = []
    real = plan_cache.plan

    def counting(settings, ns_binary=None):
        made.append(settings)
        return real(settings, ns_binary)

    monkeypatch.setattr(plan_cache, "plan", counting)
    return config, made


def settings(config: Path, **extra) -> Settings:
    return Settings.from_config({"experiment_files": [str(config)], **extra})


def test_the_second_plan_is_read_back_equal(setup):
    config, made = setup
    first = plan_cache.cached_plan(settings(config))
    second = plan_cache.cached_plan(settings(config))
    assert len(made) == 1
    assert second.files == first.files and second.docs == first.docs
    assert second.total_runs() == first.total_runs() and list(second.expansions) == list(first.expansions)


@pytest.mark.parametrize("change", ["file", "settings"])
def test_a_changed_input_plans_again(setup, change):
    config, made = setup
    first_runs = plan_cache.cached_plan(settings(config)).total_runs()
    if change == "file":
        config.write_text(config.read_text().replace("seeds: {count: 1}", "seeds: {count: 3}"))
        assert "seeds: {count: 3}" in config.read_text()
        again = plan_cache.cached_plan(settings(config))
    else:
        again = plan_cache.cached_plan(settings(config, batch_size=7))
    assert len(made) == 2
    if change == "file":
        assert again.total_runs() == 3 * first_runs


def test_a_damaged_cache_file_is_planned_again(setup):
    config, made = setup
    plan_cache.cached_plan(settings(config))
    (cached,) = (Path(plan_cache.cache_root()) / "plans").glob("*.pickle")
    cached.write_bytes(cached.read_bytes()[:100])
    plan_cache.cached_plan(settings(config))
    assert len(made) == 2


def test_a_bad_file_is_not_cached(setup):
    config, made = setup
    config.write_text(config.read_text().replace("paper:", "papper:", 1))
    with pytest.raises(Exception, match="papper"):
        plan_cache.cached_plan(settings(config))
    assert not list((Path(plan_cache.cache_root()) / "plans").glob("*.pickle"))


def test_only_the_newest_plans_are_kept(setup):
    config, made = setup
    folder = Path(plan_cache.cache_root()) / "plans"
    folder.mkdir(parents=True)
    for i in range(plan_cache.KEEP + 3):
        old = folder / f"old{i:02d}.pickle"
        old.write_bytes(b"")
        os.utime(old, ns=(i * 10**9, i * 10**9))  # old00 the oldest
    plan_cache.cached_plan(settings(config))
    kept = sorted(p.name for p in folder.glob("*.pickle"))
    assert len(made) == 1 and len(kept) == plan_cache.KEEP
    assert [name for name in kept if not name.startswith("old")] != [], "the plan just made is kept"
    assert "old04.pickle" in kept and not {f"old{i:02d}.pickle" for i in range(4)} & set(kept), "the oldest go"
