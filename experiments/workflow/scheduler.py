"""One pending re-evaluation of Snakemake's scheduler, not one per scheduling pass (issue 49, target 3).

Snakemake 9's scheduler (snakemake/scheduling/job_scheduler.py, pinned in requirements) ends every pass that found
ready jobs by starting a `threading.Timer` that wakes it again after the `--max-jobs-per-timespan` span (default
100 per 1 s), whether or not a wake-up is already pending. A job that finishes wakes it too, and that pass starts a
timer of its own: each finished job adds one more timer chain that re-arms itself every second for as long as jobs
are waiting. In a sweep of thousands of batch jobs the main process then runs pass after pass, each one statting
the inputs of every ready job and starting a thread: in the five-paper `sensitivity-all`, py-spy found half of
its samples in `_schedule_reevalutation` and `update_input_sizes` (bench/scheduler_wakeups.py measures the cost);
upstream's "Snakemake very slow on large workflow" (snakemake/snakemake#2354) reads the same.

`one_pending_reevaluation` replaces that method with one that starts a timer only when none is pending. The
scheduler still looks again within the span after every pass (the rate limit it serves is kept), and at once when a
job finishes (the job's own release); what goes is the duplicate wake-ups. Applied by workflows/common.smk.
"""

from __future__ import annotations

import threading

from snakemake.scheduling.job_scheduler import JobScheduler

ORIGINAL = JobScheduler._schedule_reevalutation  # the name is Snakemake's, misspelt


def _schedule_once(self: JobScheduler, delay: float) -> None:
    """Release the scheduler's semaphore after `delay` seconds, unless a release is already on its way."""
    with _LOCK:
        if getattr(self, "_ns2repro_reevaluation", None) is not None:
            return

        def release() -> None:
            with _LOCK:
                self._ns2repro_reevaluation = None
            self._open_jobs.release()

        timer = threading.Timer(delay, release)
        timer.daemon = True  # nothing to wait for at exit: the scheduler has stopped looking
        self._ns2repro_reevaluation = timer
    timer.start()


_LOCK = threading.Lock()


def one_pending_reevaluation() -> None:
    """Patch Snakemake's scheduler in this process (idempotent)."""
    JobScheduler._schedule_reevalutation = _schedule_once
