"""experiments.store.lock on its own: one holder per results folder, named to the second; dropped when the
holder goes (as the kernel does for a killed process); other folders are independent."""

from __future__ import annotations

import os
import re

import pytest

from experiments.store import lock as results_lock
from experiments.store.layout import WORKFLOW_LOCK


def test_one_holder_per_folder_and_the_second_is_told_who(tmp_path):
    first = results_lock.hold(tmp_path / "results")
    with pytest.raises(results_lock.ResultsBusy) as busy:
        results_lock.hold(tmp_path / "results")  # another open file: flock refuses it even in this process
    assert re.fullmatch(
        rf"{tmp_path}/results: another snakemake is running on this results folder \(pid {os.getpid()}, since "
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\); wait for it to finish or stop it, then run the same command again",
        str(busy.value),
    )
    other = results_lock.hold(tmp_path / "other")  # another folder is not held
    first.close()  # what the kernel does when the holder dies, kill -9 included
    again = results_lock.hold(tmp_path / "results")
    assert (tmp_path / "results" / WORKFLOW_LOCK).read_text().startswith(f"pid {os.getpid()},")
    again.close()
    other.close()
