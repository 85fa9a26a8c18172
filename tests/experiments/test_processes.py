"""experiments/common/processes.py: pieces of a job in processes of their own give what one at a time gives."""

import math
import os

from experiments.common.processes import in_processes


def test_results_come_in_the_items_order_whatever_starts_first():
    items = [1, 4, 9, 16, 25]
    assert in_processes(math.isqrt, items, 1) == [1, 2, 3, 4, 5]
    assert in_processes(math.isqrt, items, 2) == [1, 2, 3, 4, 5]
    assert in_processes(math.isqrt, items, 2, cost=lambda n: n) == [1, 2, 3, 4, 5], "the largest started first"


def test_more_than_one_worker_runs_elsewhere_and_one_runs_here():
    here = os.getpid()
    assert in_processes(_pid, [0, 1], 1) == [here, here]
    elsewhere = in_processes(_pid, [0, 1, 2], 2)
    assert here not in elsewhere


def _pid(_: int) -> int:
    return os.getpid()
