"""Background maintenance for a long-running server: each namespace, when its last run is old enough.

Every server process may run a scheduler (each agent spawns its own stdio server), so the decision is
made from the store, not the process: a namespace is due when its last kept run finished more than an
interval ago, and the lease in `maintain` stops two processes from running it at once.
"""

from __future__ import annotations

import logging
import threading

from kenning.core.errors import KenningError
from kenning.services.deps import Caller
from kenning.services.facade import Kenning
from kenning.services.lifecycle import ACTOR, MaintenanceReport, MaintenanceRequest

logger = logging.getLogger(__name__)


class MaintenanceScheduler:
    def __init__(self, app: Kenning, *, interval_hours: float, check_every_s: float = 600.0) -> None:
        if not 0 < interval_hours <= 24 * 366:
            raise ValueError(f"interval_hours must be above 0 and at most a year, not {interval_hours}")
        self.app = app
        self.interval_s = interval_hours * 3600.0
        self.check_every_s = min(check_every_s, self.interval_s)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def due(self) -> list[str]:
        return self.app.namespaces_due(self.interval_s)

    def run_due(self) -> list[MaintenanceReport]:
        reports = []
        for namespace in self.due():
            if self._stop.is_set():
                break
            try:
                report = self.app.maintain(
                    Caller(namespace, ACTOR), MaintenanceRequest(dry_run=False), cancelled=self._stop.is_set
                )
            except KenningError as exc:  # another process holds the lease, or the store is busy: next time
                logger.info("maintenance of %s skipped: %s", namespace, exc.message)
                continue
            logger.info("maintenance of %s: %s in %.2f s", namespace, report.counts, report.seconds)
            reports.append(report)
        return reports

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="kenning-maintenance", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 60.0) -> None:
        """Ask a run in progress to end after its current group (each is one transaction) and wait."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def _loop(self) -> None:
        while not self._stop.wait(self.check_every_s):
            try:
                self.run_due()
            except Exception:  # a bug in one run must not end background maintenance for good
                logger.exception("background maintenance failed")


def start_scheduler(app: Kenning, interval_hours: float) -> MaintenanceScheduler | None:
    """A running scheduler, or None when background maintenance is off (an interval of 0)."""
    if interval_hours <= 0:
        return None
    scheduler = MaintenanceScheduler(app, interval_hours=interval_hours)
    scheduler.start()
    return scheduler
