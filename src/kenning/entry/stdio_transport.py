"""MCP over stdio where every request gets an answer, including one that does not parse.

The SDK's stdio reader hands a line it cannot parse (a lone surrogate escape such as "\\ud800",
nesting deeper than the parser allows, a cut-off object) to the session, which logs and drops it:
the client waits for a reply that never comes. JSON-RPC 2.0 wants an error response instead, with
the request's id when it can be read and null otherwise: -32700 for invalid JSON, -32600 for JSON
that is not a request.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# The id of a request whose JSON did not parse: the '"id":' member of the outermost object, looked
# for in the first _SCAN characters (an "id" inside the arguments is not the request's).
_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\\n]|\\.){0,200}")')
_SCAN = 65536


# How long the end of input waits for the answers to requests still running (a long write).
DRAIN_S = 120.0


async def serve_stdio(server: MCPServer, after_first_answer: Callable[[], None] | None = None) -> None:
    """Serve `server` on stdin/stdout. `after_first_answer` runs once the first answer (the client's
    `initialize`) is written: start-up work that can wait, such as loading the model, waits for it
    and does not slow the answer down by competing for the interpreter.

    At the end of input, the requests already read are answered before the server stops: the SDK
    cancels whatever still runs when its input ends, so a client that writes its last request and
    closes stdin (`printf ... | kenning serve`) would otherwise get no answer to it."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCNotification, JSONRPCRequest
    from pydantic import ValidationError

    lowlevel = server._lowlevel_server  # the SDK offers no public way to wrap its streams
    async with stdio_server() as (read_stream, raw_write_stream):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        replies = _Replies(raw_write_stream, after_first_answer)
        write_stream = cast(Any, replies)

        async def answer_unreadable() -> None:
            async with send:
                async for item in read_stream:
                    if isinstance(item, ValidationError):
                        await write_stream.send(SessionMessage(error_reply(item)))
                        continue
                    message = item.message if isinstance(item, SessionMessage) else None
                    if isinstance(message, JSONRPCRequest):
                        replies.expect(message.id)
                    elif (
                        isinstance(message, JSONRPCNotification)
                        and message.method == "notifications/cancelled"
                    ):
                        replies.forget((message.params or {}).get("requestId"))  # never answered
                    await send.send(item)
                with anyio.move_on_after(DRAIN_S):
                    await replies.all_answered()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(answer_unreadable)
            await lowlevel.run(receive, write_stream, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()


class _Replies:
    """The write side of stdio, watched: it knows which requests are still unanswered, and calls
    `first` once, after the first message is sent."""

    def __init__(self, stream: Any, first: Callable[[], None] | None) -> None:
        import anyio

        self._stream = stream
        self._first = first
        self._open: set[int | str] = set()
        self._idle = anyio.Event()
        self._idle.set()

    def expect(self, request_id: int | str) -> None:
        import anyio

        if not self._open:
            self._idle = anyio.Event()
        self._open.add(request_id)

    def forget(self, request_id: Any) -> None:
        self._open.discard(request_id)
        if not self._open:
            self._idle.set()

    async def all_answered(self) -> None:
        await self._idle.wait()

    async def send(self, item: Any) -> None:
        await self._stream.send(item)
        answered = getattr(getattr(item, "message", None), "id", None)
        if answered is not None and getattr(item.message, "method", None) is None:
            self.forget(answered)  # a response or an error, not a request of the server's own
        if self._first is not None:
            first, self._first = self._first, None
            first()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def __aenter__(self) -> _Replies:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stream.__aexit__(*exc)


def initialize_request(client: str, request_id: int = 1) -> dict[str, Any]:
    """The first request a stdio client sends: what our own checks and benches send to `kenning serve`."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": client, "version": "0"},
        },
    }


def error_reply(error: Any) -> Any:
    """The JSON-RPC error response to a line that failed validation as a JSON-RPC message."""
    from mcp import types

    details = error.errors()
    raw = details[0].get("input") if details else None
    invalid_json = any(d.get("type") == "json_invalid" for d in details)
    message = details[0]["msg"] if details else "invalid message"
    request_id: int | str | None = None
    if isinstance(raw, str):
        request_id = top_level_id(raw)
    else:
        # JSON that parsed: a "missing field" error carries the whole message, id included.
        for detail in details:
            given = detail.get("input")
            if isinstance(given, dict) and isinstance(given.get("id"), int | str):
                request_id = given["id"]
                break
    code = PARSE_ERROR if invalid_json else INVALID_REQUEST
    text = f"{'Parse error' if invalid_json else 'Invalid Request'}: {message[:200]}"
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=text))


def top_level_id(raw: str) -> int | str | None:
    depth, in_string, escaped = 0, False, False
    for index, char in enumerate(raw[:_SCAN]):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            if depth == 1:
                found = _ID.match(raw, index)
                if found:
                    token = found.group(1)
                    return int(token) if token[0] != '"' else token[1:-1]
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return None
