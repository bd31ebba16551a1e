"""The stdio transport: what it does beyond the SDK's, through a real `kenning serve`, and its pieces."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from kenning.entry.stdio_transport import _Replies, initialize_request

KENNING = str(Path(sys.executable).with_name("kenning"))


class _Stream:
    def __init__(self, events: list[str]) -> None:
        self.events = events

    async def send(self, item: SimpleNamespace) -> None:
        self.events.append(f"sent {item.message.id}")


def _reply(request_id: int) -> SimpleNamespace:
    return SimpleNamespace(message=SimpleNamespace(id=request_id))


@pytest.mark.anyio
async def test_the_start_up_work_runs_once_after_the_first_answer_is_sent() -> None:
    events: list[str] = []
    replies = _Replies(_Stream(events), lambda: events.append("warm-up"))
    assert events == []
    await replies.send(_reply(1))
    await replies.send(_reply(2))
    assert events == ["sent 1", "warm-up", "sent 2"]


@pytest.mark.anyio
async def test_it_knows_which_requests_are_still_unanswered() -> None:
    replies = _Replies(_Stream([]), None)
    await replies.all_answered()  # nothing asked: nothing to wait for
    replies.expect(1)
    replies.expect(2)
    await replies.send(_reply(1))
    assert not replies._idle.is_set()
    replies.forget(2)  # a request the client cancelled gets no answer
    await replies.all_answered()


def test_requests_sent_just_before_the_input_ends_are_still_answered(tmp_path: Path) -> None:
    """The SDK would cancel the write still running when stdin closes; it is answered, and kept."""
    remember = {"name": "remember", "arguments": {"content": "Backups run at 02:00 UTC"}}
    lines = [
        initialize_request("pipe"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": remember},
    ]
    env = {
        **os.environ,
        "KENNING_STORAGE__DB_PATH": str(tmp_path / "p.db"),
        "KENNING_EMBEDDINGS__PROVIDER": "none",
    }
    done = subprocess.run(
        [KENNING, "serve"],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3], done.stderr
    stored = answers[3]["result"]["structuredContent"]
    assert answers[3]["result"]["isError"] is False and stored["status"] == "stored"
    found = subprocess.run(
        [KENNING, "get", stored["id"]], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert json.loads(found.stdout)["content"] == "Backups run at 02:00 UTC"
