"""The guard's rules that need no server: host parsing, origins, limits, and what it never lets by."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import anyio
import pytest

from kenning.entry.http_guard import FailedLogins, Guard, Limits, _without_port, policy_for
from kenning.services.deps import Caller

POLICY = policy_for(
    "127.0.0.1",
    allowed_hosts=["memory.example.com"],
    allowed_origins=[],
    max_body_bytes=1000,
    requests_per_minute=3,
    concurrent_requests=1,
)


@pytest.mark.parametrize(
    ("host", "bare"),
    [
        ("localhost:8765", "localhost"),
        ("[::1]:80", "[::1]"),
        ("[::1]", "[::1]"),
        ("[::1]x", "[::1]x"),
        ("Memory.Example.com", "memory.example.com"),
        ("a:b:c", "a:b:c"),
    ],
)
def test_a_host_header_loses_its_port_and_nothing_else(host: str, bare: str) -> None:
    assert _without_port(host) == bare


def test_limits_count_the_rate_and_what_is_in_flight_per_principal() -> None:
    limits = Limits(POLICY)
    assert limits.admit("a", 0.0) is None
    assert limits.admit("a", 0.1) == 1.0  # one in flight already
    assert limits.admit("a", 0.1, in_flight=False) is None  # a listening stream counts for the rate only
    limits.release("a")
    assert limits.admit("a", 0.2) is None
    limits.release("a")
    wait = limits.admit("a", 0.3)  # the fourth in the minute
    assert wait is not None and 59 <= wait <= 60
    assert limits.admit("b", 0.3) is None
    assert limits.admit("a", 61.0) is None  # a new minute


def test_failed_logins_block_an_address_for_the_rest_of_its_minute() -> None:
    failures = FailedLogins(per_minute=2)
    failures.add("10.0.0.1", 0.0)
    assert failures.blocked("10.0.0.1", 1.0) is None
    failures.add("10.0.0.1", 1.0)
    assert failures.blocked("10.0.0.1", 2.0) == 58.0 and failures.blocked("10.0.0.2", 2.0) is None
    assert failures.blocked("10.0.0.1", 60.5) is None


def test_a_websocket_is_closed_and_never_reaches_the_app() -> None:
    reached: list[Any] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope)

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(dict(message))

    async def receive() -> MutableMapping[str, Any]:
        return {"type": "websocket.connect"}

    def authenticate(token: str) -> Caller:
        raise AssertionError("no token is looked at")

    guard = Guard(app, policy=POLICY, authenticate=authenticate)
    scope = {"type": "websocket", "path": "/mcp", "headers": [(b"host", b"localhost:8765")]}
    anyio.run(guard, scope, receive, send)
    assert reached == [] and sent == [{"type": "websocket.close", "code": 1008}]
