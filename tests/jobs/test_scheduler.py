"""Background maintenance: due namespaces only, one run per interval across processes."""

from __future__ import annotations

import time

import pytest

from conftest import CALLER, OTHER
from fakes import ManualClock
from kenning.core.decay import DAY
from kenning.core.validation import MemoryDraft
from kenning.jobs.scheduler import MaintenanceScheduler
from kenning.services.facade import Kenning


def test_each_namespace_runs_once_per_interval(app: Kenning, clock: ManualClock) -> None:
    app.remember(CALLER, MemoryDraft(content="a note in team a", importance=0.1))
    app.remember(OTHER, MemoryDraft(content="a note in team b", importance=0.1))
    clock.advance(200 * DAY)
    scheduler = MaintenanceScheduler(app, interval_hours=12)
    assert scheduler.due() == ["team-a", "team-b"]
    reports = scheduler.run_due()
    assert [(r.namespace, r.dry_run, r.counts.get("archive")) for r in reports] == [
        ("team-a", False, 1),
        ("team-b", False, 1),
    ]
    assert scheduler.due() == []
    # A second process's scheduler reads the same kept runs and does not repeat them.
    assert MaintenanceScheduler(app, interval_hours=12).run_due() == []
    clock.advance(12 * 3600)
    assert scheduler.due() == ["team-a", "team-b"]


def test_a_namespace_whose_lease_is_held_is_skipped_not_failed(app: Kenning, clock: ManualClock) -> None:
    app.remember(CALLER, MemoryDraft(content="a note in team a"))
    app.deps.store.acquire_lease("maintenance:team-a", "another-process", clock.now(), 600)
    assert MaintenanceScheduler(app, interval_hours=1).run_due() == []


def test_the_background_thread_starts_and_stops(app: Kenning) -> None:
    scheduler = MaintenanceScheduler(app, interval_hours=1, check_every_s=0.01)
    app.remember(CALLER, MemoryDraft(content="something"))
    scheduler.start()
    for _ in range(500):
        if not scheduler.due():
            break
        time.sleep(0.01)
    scheduler.stop()
    assert scheduler.due() == []  # it ran in the background


@pytest.mark.parametrize("hours", [0, -5, 10**6])
def test_nonsense_intervals_are_refused(app: Kenning, hours: float) -> None:
    with pytest.raises(ValueError, match="interval_hours"):
        MaintenanceScheduler(app, interval_hours=hours)
