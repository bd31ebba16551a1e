"""The stdio transport's own pieces, apart from a server."""

from __future__ import annotations

import pytest

from kenning.entry.stdio_transport import _Then

pytestmark = pytest.mark.anyio


class _Stream:
    def __init__(self, events: list[str]) -> None:
        self.events = events

    async def send(self, item: str) -> None:
        self.events.append(f"sent {item}")

    async def aclose(self) -> None:
        self.events.append("closed")


async def test_the_start_up_work_runs_once_after_the_first_answer_is_sent() -> None:
    events: list[str] = []
    stream = _Then(_Stream(events), lambda: events.append("warm-up"))
    assert events == []
    await stream.send("initialize result")
    await stream.send("tools/list result")
    await stream.aclose()
    assert events == ["sent initialize result", "warm-up", "sent tools/list result", "closed"]
