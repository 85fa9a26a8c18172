"""Independent pieces of one job's work (a paper's sensitivity table, a headline's specification curve) in processes
of their own, as many at a time as the job's threads: results in the order of the items, the same as one at a time.

Spawned, not forked: Snakemake runs a `run:` job in a thread of its own process, and a fork there copies locks other
threads hold."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any


def in_processes(
    work: Callable[..., Any], items: Sequence, workers: int, cost: Callable[[Any], float] | None = None
) -> list:
    """[work(item) for item in items]; with workers > 1 and more than one item, in that many processes (`work`
    picklable: a module's function, or a functools.partial of one), the items `cost` ranks highest started first,
    so that the longest is not begun last."""
    workers = min(workers, len(items))
    if workers <= 1:
        return [work(item) for item in items]
    order = sorted(range(len(items)), key=lambda i: -cost(items[i])) if cost else range(len(items))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {i: pool.submit(work, items[i]) for i in order}
        return [futures[i].result() for i in range(len(items))]
