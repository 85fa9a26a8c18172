"""The results folder's paths, one place (experiments/store/layout.py): what it builds, it can place again."""

from __future__ import annotations

from pathlib import Path

from experiments.config.experiment_checks import RESERVED_EXPERIMENT_NAMES
from experiments.config.readings import BASELINE
from experiments.store import layout

RESULTS = Path("out/res")


def test_an_experiment_s_files_are_placed_under_their_reading():
    for reading in (BASELINE, "buffer=6+edge_delay=2ms"):
        for path in [
            layout.experiment_table(RESULTS, "p", "e", "metrics", reading),
            layout.batch_record(RESULTS, "p", "e", 3, reading),
        ]:
            assert layout.place_of(RESULTS, path) == ("p", "e", reading), path
    assert layout.experiment_dir(RESULTS, "p", "e", "k=4") == RESULTS / "p" / "e" / "readings" / "k=4"


def test_figures_and_tables_are_placed_as_artifacts_and_the_rest_nowhere():
    for kind, suffixes in layout.ARTIFACT_KINDS.items():
        for suffix in suffixes:
            assert layout.place_of(RESULTS, layout.artifact(RESULTS, "p", kind, "fig1", suffix)) == (
                "artifact",
                "p",
                "fig1",
            )
    for elsewhere in (layout.report_md(RESULTS), Path("reproduce-all"), Path("other/p/e/metrics.parquet")):
        assert layout.place_of(RESULTS, elsewhere) == (), elsewhere


def test_a_run_s_failure_and_lock_sit_beside_it_and_outside_runs():
    run = layout.run_dir(RESULTS, "abc")
    assert run.parent == layout.runs_dir(RESULTS)
    assert layout.failed_dir(run) == layout.runs_dir(RESULTS) / "abc.failed"
    assert layout.key_lock(run).parent.parent == RESULTS and layout.key_lock(run).parent != layout.runs_dir(RESULTS)


def test_an_experiment_may_not_take_the_name_of_a_paper_s_outputs():
    """config refuses these names (it comes before the store and cannot import it): the same set."""
    assert set(RESERVED_EXPERIMENT_NAMES) == set(layout.ARTIFACT_KINDS)
