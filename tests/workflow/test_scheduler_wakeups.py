"""Snakemake's scheduler wakes once per span, not once per finished job and span (experiments/workflow/scheduler.py):
the pinned Snakemake starts a timer at the end of every pass, each finished job's pass adds a chain, and the
chains re-arm each other for as long as jobs wait. Patched, many passes leave one timer pending, which wakes the
scheduler once and can be armed again after."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

from snakemake.scheduling.job_scheduler import JobScheduler

from experiments.workflow import scheduler

REPO = Path(__file__).resolve().parents[2]


def passes(method, count: int, delay: float) -> tuple[int, threading.Semaphore]:
    """`count` scheduling passes ending within the span; how many wake-ups reach the scheduler's semaphore."""
    fake = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    for _ in range(count):
        method(fake, delay)
    time.sleep(delay + 0.5)
    woken = 0
    while fake._open_jobs.acquire(blocking=False):
        woken += 1
    return woken, fake


def test_the_pinned_snakemake_wakes_once_per_pass_and_the_patch_once_per_span(monkeypatch):
    stock, _ = passes(scheduler.ORIGINAL, 50, 0.2)
    assert stock == 50, "the pinned Snakemake no longer arms one timer per pass: is the patch still needed?"
    patched, fake = passes(scheduler._schedule_once, 50, 0.2)
    assert patched == 1
    again, _ = passes(scheduler._schedule_once, 3, 0.2)
    assert again == 1, "once a wake-up came, the next pass arms another"
    assert fake._ns2repro_reevaluation is None


def test_the_workflow_applies_it(monkeypatch):
    monkeypatch.setattr(JobScheduler, "_schedule_reevalutation", scheduler.ORIGINAL)
    scheduler.one_pending_reevaluation()
    assert JobScheduler._schedule_reevalutation is scheduler._schedule_once
    assert "scheduler.one_pending_reevaluation()" in (REPO / "workflows" / "common.smk").read_text()
