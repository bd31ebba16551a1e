"""Work handed to yielding threads runs at a lower CPU priority than the thread that waits for it."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from kenning.adapters.yielding_threads import YieldingThreads


def _where() -> tuple[int, int]:
    me = threading.get_native_id()
    return me, os.getpriority(os.PRIO_PROCESS, me)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a priority per thread is Linux's")
def test_the_work_runs_on_a_thread_some_steps_below_the_callers_priority() -> None:
    threads = YieldingThreads(2, 7, name="test-yield")
    try:
        caller, caller_priority = _where()
        worker, worker_priority = threads.run(_where)
        assert worker != caller
        assert worker_priority == min(19, caller_priority + 7)
        assert _where() == (caller, caller_priority)  # the caller's own priority is untouched
    finally:
        threads.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a priority per thread is Linux's")
def test_no_steps_leave_the_priority_alone() -> None:
    threads = YieldingThreads(1, 0, name="test-yield")
    try:
        assert threads.run(_where)[1] == _where()[1]
    finally:
        threads.close()


def test_the_result_and_the_error_come_back_to_the_caller() -> None:
    threads = YieldingThreads(1, 5, name="test-yield")

    def fails() -> None:
        raise RuntimeError("engine broke")

    try:
        assert threads.run(lambda: 6 * 7) == 42
        with pytest.raises(RuntimeError, match="engine broke"):
            threads.run(fails)
        assert threads.run(lambda: "still serving") == "still serving"
    finally:
        threads.close()


@pytest.mark.parametrize("niceness", [-1, 20])
def test_a_niceness_out_of_range_is_refused(niceness: int) -> None:
    with pytest.raises(ValueError, match=r"niceness must be 0\.\.19"):
        YieldingThreads(1, niceness, name="test-yield")
