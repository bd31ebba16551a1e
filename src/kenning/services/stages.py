"""Where a call's time goes: named stages, timed only while someone is watching (a bench).

`with stage("embed"):` costs one context-variable read when no one watches. Inside `watching()`,
each stage adds its wall time and the CPU time of the thread that ran it to the watcher's tally,
with what other threads spent on the call meanwhile (`credit`: work handed to a pool); a stage
inside another is counted in both (the outer one's time includes it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import TracebackType


@dataclass(slots=True)
class Tally:
    """Wall and CPU seconds per stage, and how often each ran, over one call (or several)."""

    wall: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    count: dict[str, int] = field(default_factory=dict)
    lent: float = 0.0  # CPU seconds other threads spent working for this call

    def cpu_mark(self) -> float:
        """This thread's CPU time plus what other threads spent for the call: the difference of two
        marks is what a stretch of the call cost."""
        return time.thread_time() + self.lent

    def add(self, name: str, wall: float, cpu: float) -> None:
        self.wall[name] = self.wall.get(name, 0.0) + wall
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu
        self.count[name] = self.count.get(name, 0) + 1

    def as_ms(self) -> dict[str, dict[str, float]]:
        return {
            name: {
                "wall_ms": round(self.wall[name] * 1000, 3),
                "cpu_ms": round(self.cpu[name] * 1000, 3),
                "count": self.count[name],
            }
            for name in self.wall
        }


_watcher: ContextVar[Tally | None] = ContextVar("kenning_stage_watcher", default=None)


class stage:  # noqa: N801 - used as a statement: `with stage("embed"):`
    """Times the block as the stage `name` when a watcher is active; does nothing otherwise."""

    __slots__ = ("_cpu", "_name", "_tally", "_wall")

    def __init__(self, name: str) -> None:
        self._name = name
        self._tally: Tally | None = None
        self._wall = 0.0
        self._cpu = 0.0

    def __enter__(self) -> None:
        self._tally = _watcher.get()
        if self._tally is not None:
            self._wall = time.perf_counter()
            self._cpu = self._tally.cpu_mark()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._tally is not None:
            self._tally.add(self._name, time.perf_counter() - self._wall, self._tally.cpu_mark() - self._cpu)


def credit(cpu: float) -> None:
    """Count `cpu` seconds that another thread spent working for the watched call as the call's own
    (run inside the call's context, e.g. `contextvars.copy_context().run`)."""
    tally = _watcher.get()
    if tally is not None:
        tally.lent += cpu


@contextmanager
def watching() -> Iterator[Tally]:
    """Collect the stages of everything run inside (threads started from here inherit the context
    only if they copy it: `anyio.to_thread` does)."""
    tally = Tally()
    token = _watcher.set(tally)
    try:
        yield tally
    finally:
        _watcher.reset(token)
