"""Stages are timed only inside `watching()`, nested ones counted in both."""

from __future__ import annotations

import threading
import time

from kenning.services.stages import stage, watching


def _busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_nothing_is_recorded_without_a_watcher() -> None:
    with stage("embed"):
        _busy(0.001)
    with watching() as tally:
        pass
    assert tally.as_ms() == {}


def test_stages_add_up_and_nest() -> None:
    with watching() as tally, stage("service"):
        for _ in range(2):
            with stage("bm25"):
                _busy(0.002)
        with stage("sleep"):
            time.sleep(0.01)
    found = tally.as_ms()
    assert found["bm25"]["count"] == 2 and found["service"]["count"] == 1
    assert found["bm25"]["wall_ms"] >= 4.0
    assert found["service"]["wall_ms"] >= found["bm25"]["wall_ms"] + found["sleep"]["wall_ms"]
    assert found["sleep"]["cpu_ms"] < found["sleep"]["wall_ms"] / 2  # sleeping costs no CPU
    assert found["bm25"]["cpu_ms"] > 0


def test_a_watcher_sees_only_its_own_thread() -> None:
    def elsewhere() -> None:
        with stage("other"):
            _busy(0.001)

    with watching() as tally:
        worker = threading.Thread(target=elsewhere)  # a plain thread starts with an empty context
        worker.start()
        worker.join()
    assert "other" not in tally.as_ms()
