"""Threads that give way: work that can wait runs at a lower CPU priority than work someone waits on.

A write's embedding (tens of milliseconds of one core) and a recall's query embedding compete for
the same cores on a shared server. Run on these threads, the write's embedding takes a core only
when no recall wants it: on an idle machine it runs as fast as before, on a busy one the recall
goes first. Linux sets a priority per thread (its niceness); elsewhere the threads run as normal.
A thread cannot raise its priority again without privileges, so the work moves to threads of its
own instead of lowering the caller's."""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

NICENESS_MAX = 19  # the lowest priority Linux gives


def _give_way(niceness: int) -> None:
    if not sys.platform.startswith("linux") or niceness <= 0:
        return
    try:
        # On Linux a "process" priority named by a thread id is that thread's alone; a new thread
        # starts at its creator's, and gives up `niceness` steps from there.
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, min(NICENESS_MAX, os.getpriority(os.PRIO_PROCESS, me) + niceness))
    except OSError as exc:
        logger.warning("could not lower this thread's priority (%s); it runs at the normal one", exc)


class YieldingThreads:
    """`workers` threads `niceness` steps below their creator's priority (0: the same); `run` waits
    for its work to finish on one of them."""

    def __init__(self, workers: int, niceness: int, *, name: str) -> None:
        if not 0 <= niceness <= NICENESS_MAX:
            raise ValueError(f"niceness must be 0..{NICENESS_MAX}, not {niceness}")
        self._pool = ThreadPoolExecutor(
            max_workers=max(1, workers),
            thread_name_prefix=name,
            initializer=_give_way,
            initargs=(niceness,),
        )

    def run(self, work: Callable[[], T]) -> T:
        return self._pool.submit(work).result()

    def close(self) -> None:
        self._pool.shutdown(wait=True)
