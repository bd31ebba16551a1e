"""Adversarial input on the raw stdio transport: every case gets its documented treatment, the server
keeps answering, and nothing already stored changes."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

KENNING = str(Path(sys.executable).with_name("kenning"))


class RawServer:
    """`kenning serve` driven by hand-written JSON-RPC lines, so malformed frames can be sent too."""

    def __init__(self, db: Path) -> None:
        env = {**os.environ, "KENNING_STORAGE__DB_PATH": str(db), "KENNING_EMBEDDINGS__PROVIDER": "none"}
        self.proc = subprocess.Popen(
            [KENNING, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        assert self.proc.stdout is not None
        stdout = self.proc.stdout

        def pump() -> None:
            for line in stdout:
                self.lines.put(line)

        threading.Thread(target=pump, daemon=True).start()
        self.next_id = 100
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "adversary", "version": "1"},
                },
            }
        )
        assert self.receive() is not None
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any] | bytes) -> None:
        raw = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 30) -> dict[str, Any] | None:
        try:
            found: dict[str, Any] = json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            return None
        return found

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        self.next_id += 1
        self.send(
            {
                "jsonrpc": "2.0",
                "id": self.next_id,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        )
        while True:
            answer = self.receive()
            assert answer is not None, f"no answer to {tool}"
            if answer.get("id") == self.next_id:
                return answer

    def error_text(self, tool: str, arguments: Any) -> str:
        answer = self.call(tool, arguments)
        if "error" in answer:  # a protocol error: malformed request
            return str(answer["error"]["message"])
        result = answer["result"]
        assert result["isError"] is True, result
        return str(result["content"][0]["text"])

    def memories(self) -> int:
        result = self.call("status", {})["result"]
        return int(result["structuredContent"]["memories_in_namespace"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    raw = RawServer(tmp_path_factory.mktemp("adversarial") / "a.db")
    answer = raw.call("remember", {"content": "The canonical fact that must survive every attack"})
    assert answer["result"]["isError"] is False
    yield raw
    raw.close()


REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("remember", {"content": ""}, "empty"),
    ("remember", {"content": " \t\n "}, "empty"),
    ("remember", {"content": "x" * 16_001}, "16000"),
    ("remember", {"content": "nul\u0000inside"}, "NUL"),
    ("remember", {"content": "ok", "type": "wish"}, "valid types"),
    ("remember", {"content": "ok", "importance": 7}, "between 0 and 1"),
    ("remember", {"content": "ok", "importance": "high"}, "importance"),
    ("remember", {"content": "ok", "tags": "not-a-list"}, "tags"),
    ("remember", {"content": "ok", "tags": [f"t{i}" for i in range(33)]}, "32"),
    ("remember", {"content": "ok", "tags": ["x" * 65]}, "64"),
    ("remember", {"content": "ok", "context": "c" * 2_001}, "2000"),
    ("remember", {"content": "ok", "source": "s" * 1_001}, "1000"),
    ("remember", {"content": "ok", "event_time": "the day after never"}, "event_time"),
    ("remember", {"content": "ok", "trust": "rumour"}, "trust"),
    ("remember", {"content": "ok", "supersedes": "nope"}, "supersedes"),
    ("remember", {"tags": ["no-content"]}, "content"),
    ("recall", {"query": "x", "limit": 10**9}, "limit"),
    ("recall", {"query": "x", "limit": -1}, "limit"),
    ("recall", {"query": "x", "offset": 10**12}, "offset"),
    ("recall", {"query": "x", "token_budget": 1}, "token_budget"),
    ("recall", {"query": "q" * 2_001}, "2000"),
    ("recall", {"query": "x", "since": "2026-01-02", "until": "2026-01-01"}, "until"),
    ("get", {"id": 12345}, "id"),
    ("get", {"id": "../../etc/passwd"}, "id"),
    ("update", {"id": "01J0000000000000000000000Z", "version": 1, "content": "y"}, "not_found"),
    ("forget", {"id": "01J0000000000000000000000Z", "mode": "shred"}, "mode"),
    ("explore_graph", {"id": "01J0000000000000000000000Z", "depth": 99}, "depth"),
    ("no_such_tool", {}, "no_such_tool"),
]


@pytest.mark.parametrize(("tool", "arguments", "named"), REFUSED, ids=[f"{t}-{n}" for t, _, n in REFUSED])
def test_bad_arguments_are_refused_clearly_and_change_nothing(
    server: RawServer, tool: str, arguments: dict[str, Any], named: str
) -> None:
    assert named in server.error_text(tool, arguments)
    assert server.memories() == 1


@pytest.mark.parametrize(
    "frame",
    [
        b"\xff\xfe\xfd not utf-8 at all",
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"',
        b"null",
        b"[]",
        b'{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "remember", "arguments": '
        + b'{"content": "deep", "metadata": '
        + b'{"a": ' * 3000
        + b"1"
        + b"}" * 3000
        + b"}}}",
        b'{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "remember", "arguments": '
        + b'{"content": "'
        + b"z" * 3_000_000
        + b'"}}}',
    ],
    ids=["invalid-utf8", "truncated-json", "null", "empty-batch", "deep-nesting", "3MB-line"],
)
def test_malformed_frames_do_not_stop_the_server(server: RawServer, frame: bytes) -> None:
    server.send(frame)
    assert server.memories() == 1


@pytest.mark.parametrize(
    ("frame", "request_id", "code"),
    [
        (
            b'{"jsonrpc": "2.0", "id": 21, "method": "tools/call", "params": {"name": "recall", '
            b'"arguments": {"query": "\\ud800"}}}',
            21,
            -32700,
        ),
        (
            b'{"jsonrpc": "2.0", "id": 22, "method": "ping", "params": {"x": '
            + b"[" * 2000
            + b"]" * 2000
            + b"}}",
            22,
            -32700,
        ),
        (b'{"jsonrpc": "2.0", "id": "t-23", "method": "tools/list"', "t-23", -32700),
        (b"\xff\xfe\xfd not utf-8 at all", None, -32700),
        (
            b'{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "update", "arguments": '
            b'{"id": "01J0000000000000000000000Z", "content": "\\ud83d"}}, "id": 25}',
            25,
            -32700,
        ),
        (b"null", None, -32600),
        (b'{"jsonrpc": "2.0", "id": 24, "method": 5}', 24, -32600),
    ],
    ids=["lone-surrogate", "2000-deep", "truncated", "invalid-utf8", "id-last", "null", "not-a-request"],
)
def test_a_frame_that_is_not_a_request_gets_a_json_rpc_error_reply(
    server: RawServer, frame: bytes, request_id: int | str | None, code: int
) -> None:
    """JSON-RPC 2.0 §5: invalid JSON is answered with -32700 and an invalid request with -32600,
    carrying the request's id when it can be read. A client must not wait for a reply that never comes."""
    server.send(frame)
    server.next_id += 1
    server.send({"jsonrpc": "2.0", "id": server.next_id, "method": "ping"})
    replies: list[dict[str, Any]] = []
    while not replies or replies[-1].get("id") != server.next_id:
        answer = server.receive()
        assert answer is not None, "no answer to the ping"
        replies.append(answer)
    errors = [r for r in replies if "error" in r and r.get("id") == request_id]
    assert errors and errors[0]["error"]["code"] == code, replies
    assert server.memories() == 1


def test_nfc_and_nfd_spellings_are_the_same_memory(server: RawServer) -> None:
    nfc = unicodedata.normalize("NFC", "Café menu changes on Mondays")
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfc != nfd
    first = server.call("remember", {"content": nfc})["result"]["structuredContent"]
    second = server.call("remember", {"content": nfd, "verbose": True})["result"]["structuredContent"]
    assert second["status"] == "reinforced" and second["id"] == first["id"]
    assert second["memory"]["content"] == nfc
    server.call("forget", {"id": first["id"], "mode": "purge", "confirm": True})


def test_four_byte_characters_count_as_characters_at_the_limit(server: RawServer) -> None:
    at_limit = server.call("remember", {"content": "😀" * 16_000, "verbose": True})["result"]
    assert at_limit["isError"] is False
    assert len(at_limit["structuredContent"]["memory"]["content"]) == 16_000
    assert "16000" in server.error_text("remember", {"content": "😀" * 16_001})
    server.call("forget", {"id": at_limit["structuredContent"]["id"], "mode": "purge", "confirm": True})
    assert server.memories() == 1


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("remember", {"content": "coerced importance", "importance": "0.9"}, "importance"),
        ("forget", {"id": "01J00000000000000000000000", "confirm": "true", "mode": "purge"}, "confirm"),
        ("update", {"id": "01J00000000000000000000000", "version": True, "content": "x"}, "version"),
        ("recall", {"query": "fact", "limit": "5"}, "limit"),
    ],
)
def test_a_number_or_flag_of_the_wrong_type_is_refused_not_coerced(
    server: RawServer, tool: str, arguments: dict[str, Any], field: str
) -> None:
    before = server.memories()
    assert field in server.error_text(tool, arguments)
    assert server.memories() == before
