"""Run keys: stable, and moved by every input that decides a run's bytes."""

from experiments.runkey import run_key, tcl_digest

PARAMS = {"seed": 1, "duration": 2.0, "flows": [{"fid": 1}]}


def test_key_is_stable_and_ignores_dict_order():
    assert run_key(PARAMS, "t", "n") == run_key({"flows": [{"fid": 1}], "duration": 2.0, "seed": 1}, "t", "n")
    assert len(run_key(PARAMS, "t", "n")) == 20


def test_key_moves_with_each_input():
    base = run_key(PARAMS, "t", "n")
    assert run_key({**PARAMS, "seed": 2}, "t", "n") != base
    assert run_key({**PARAMS, "duration": 2.5}, "t", "n") != base
    assert run_key(PARAMS, "t2", "n") != base
    assert run_key(PARAMS, "t", "n2") != base


def test_tcl_digest_covers_content_and_names(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "driver.tcl").write_text("puts a\n")
    (tmp_path / "lib" / "x.tcl").write_text("proc x {} {}\n")
    first = tcl_digest(tmp_path)
    assert tcl_digest(tmp_path) == first
    (tmp_path / "lib" / "x.tcl").write_text("proc x {} {return}\n")
    second = tcl_digest(tmp_path)
    assert second != first
    (tmp_path / "lib" / "x.tcl").rename(tmp_path / "lib" / "y.tcl")
    assert tcl_digest(tmp_path) != second
