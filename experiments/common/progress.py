"""Progress of long work: items done of a total, the time elapsed and the time left.

One reporter serves every long job: the sweep (runs done of all planned, appended to each run's line) and an
aggregation (metrics of runs done, a line now and then). Each caller words its own line from a `Count`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


def hms(seconds: float) -> str:
    """A duration as h:mm:ss, for progress lines."""
    return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"


@dataclass(frozen=True)
class Count:
    """Where the work stands after an item: what a progress line says."""

    done: int
    total: int
    elapsed: float  # seconds since the reporter was made
    eta: float | None  # seconds left: None when nothing is left or no item was timed yet
    due: bool  # a line is due now (Progress's `every`)
    costed: int = 0  # items done that cost something (timed items: runs simulated, not found cached)
    # seconds left if the items left cost what the items done did on average, the free ones included (timed only)
    eta_at_share: float | None = None

    @property
    def final(self) -> bool:
        return self.done >= self.total


class Progress:
    """Items done of `total`, shared by the threads that do them (a sweep's batch jobs are threads of one Snakemake
    process).

    `advance(seconds)` counts an item done. With `timed` items, each comes with what it cost, or None when it cost
    nothing worth counting (a run found cached), and the time left is the items left times the mean cost of the
    costed items, `workers` at a time: an estimate as if every item left had to be done; and, as `eta_at_share`, at
    the share of the items done that cost anything (a sweep whose runs readings share finds many made: at best a
    hint, as the shared ones come late). Without, the time left
    extrapolates the pace so far (elapsed time per item done). `every` rate-limits the lines of work that does many
    quick items: a line is due at most every `every` seconds, and on the last item once any line was due."""

    def __init__(
        self,
        total: int,
        workers: int = 1,
        every: float = 0.0,
        timed: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.total, self.workers, self.every, self.timed, self.clock = total, max(workers, 1), every, timed, clock
        self.start = self.last = clock()
        self.done = self.costed = 0
        self.cost = 0.0
        self.shown = False
        self._lock = threading.Lock()

    def advance(self, seconds: float | None = None) -> Count:
        with self._lock:
            self.done += 1
            now = self.clock()
            if not self.timed:
                self.costed, self.cost = self.done, now - self.start
            elif seconds is not None:
                self.costed += 1
                self.cost += seconds
            left = self.total - self.done
            due = now - self.last >= self.every or (left <= 0 and self.shown)
            if due:
                self.last, self.shown = now, True
            eta = left * self.cost / self.costed / self.workers if self.costed and left > 0 else None
            at_share = left * self.cost / self.done / self.workers if self.timed and eta is not None else None
            return Count(self.done, self.total, now - self.start, eta, due, self.costed, at_share)
