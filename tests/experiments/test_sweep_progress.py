"""The sweep's progress and ETA appended to each run's progress line."""

from pathlib import Path

from experiments.common.progress import Progress
from experiments.simulate.batch import sweep_text
from experiments.simulate.execute import Outcome
from experiments.workflow.plan import Plan
from experiments.workflow.targets import runs_for_targets


def outcome(status: str, seconds: float) -> Outcome:
    return Outcome(run=None, key="k", directory=Path(), status=status, seconds=seconds)


def test_cached_runs_count_as_done_and_the_eta_comes_from_the_runs_simulated():
    sweep = Progress(total=10, workers=2)

    def progress(done: Outcome) -> str:  # as run_batch counts each outcome
        return sweep_text(sweep.advance(done.seconds if done.status == "ran" else None))

    assert progress(outcome("cached", 0.0)) == "sweep 1/10 runs, 0 ran"  # nothing simulated yet: no estimate
    # 8 left x 20 s / 2 cores if all run; at the share so far (20 s over 2 runs done), 8 x 10 s / 2
    assert (
        progress(outcome("ran", 20.0)) == "sweep 2/10 runs, 1 ran; ETA 0:00:40 at that share, 0:01:20 if all left run"
    )
    # 7 left: x 30 s / 2 if all run, x 60 s / 3 done / 2 at that share
    assert (
        progress(outcome("ran", 40.0)) == "sweep 3/10 runs, 2 ran; ETA 0:01:10 at that share, 0:01:45 if all left run"
    )
    for _ in range(7):
        last = progress(outcome("cached", 0.0))
    assert last == "sweep 10/10 runs, 2 ran"


def test_the_sweep_counts_the_runs_the_targets_ask_for():

    expansions = {
        ("p", "e", "baseline"): [1, 2, 3],
        ("p", "e", "k=4"): [1, 2],
        ("p", "f", "baseline"): [1],
        ("p", "f", "k=4"): [1, 2, 3, 4],
    }
    plan = Plan(files={}, expansions=expansions, docs={}, readings={})

    def total(*targets):
        return runs_for_targets(plan, "out/res", list(targets))

    assert total() == total("reproduce-all") == total("out/res/REPORT.md") == 4  # the baselines
    assert total("reproduce-all", "sensitivity-all") == 10
    assert total("out/res/p/f/readings/k=4/metrics.parquet") == 4  # that reading only
    assert total("out/res/p/e/metrics.parquet", "out/res/p/e/readings/k=4/batches/0.json") == 5
    assert total("out/res/p/f/metrics.parquet", "reproduce-all") == 4  # f's baseline is among the baselines
    assert total("elsewhere/readings/x") == 10  # a readings path we cannot place: every expansion


def test_a_figure_or_table_target_counts_its_experiments_runs():

    expansions = {
        ("p", "e", "baseline"): [1, 2, 3],
        ("p", "e", "k=4"): [1, 2],
        ("p", "f", "baseline"): [1],
        ("p", "g", "baseline"): [1, 2, 3, 4, 5],
    }
    doc = {
        "figures": [{"id": "fig1", "experiment": "e"}, {"id": "fig2", "experiment": "f", "reference": "e"}],
        "tables": [{"id": "table1", "experiment": "g"}],
    }
    plan = Plan(files={}, expansions=expansions, docs={"p": doc}, readings={})

    def total(*targets):
        return runs_for_targets(plan, "out/res", list(targets))

    assert total("out/res/p/figures/fig1.png") == 3, "a figure counts its experiment's baseline only"
    assert total("out/res/p/figures/fig2.png") == 4, "and its reference's"
    assert total("out/res/p/figures/fig1.png", "out/res/p/tables/table1.md") == 8
    assert total("out/res/p/figures/unknown.png") == 9, "an unknown figure: every baseline, as before"


def test_a_plan_counts_its_baselines_apart(tmp_path):

    expansions = {("p", "e", "baseline"): [1, 2, 3], ("p", "e", "k=4"): [1, 2]}  # anything with a length
    plan = Plan(files={}, expansions=expansions, docs={}, readings={})
    assert plan.total_runs() == 5 and plan.total_runs(readings=False) == 3
