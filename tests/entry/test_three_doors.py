"""One scenario through each door an agent may use: MCP over stdio (a spawned `kenning serve`), MCP
over Streamable HTTP and REST (one `kenning serve --http`). The transcripts, ids aside, are equal."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from http_server import live_server

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

KENNING = str(Path(sys.executable).with_name("kenning"))
Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


async def scenario(call: Call) -> list[Any]:
    """remember, recall, a conflict, its judgement, forget; what an agent sees at each step."""
    seen: list[Any] = []
    old = await call("remember", {"content": "We use Redis for session storage in the auth service"})
    new = await call(
        "remember", {"content": "We no longer use Redis for session storage in the auth service"}
    )
    seen.append((old["status"], new["status"], len(new["conflicts"])))
    [conflict] = new["conflicts"]
    seen.append((conflict["evidence"]["polarity_flip"], conflict["older_id"] == old["id"]))
    listed = await call("conflicts", {})
    seen.append([c["id"] == conflict["id"] for c in listed["conflicts"]])
    judged = await call(
        "resolve_conflict", {"conflict_id": conflict["id"], "decision": "supersede", "winner": new["id"]}
    )
    seen.append((judged["superseded"] == [old["id"]], judged["kept"] == [new["id"]]))
    found = await call("recall", {"query": "what do we use for session storage", "limit": 5})
    seen.append([(r["id"] == new["id"], r["content"], r["type"], r["trust"]) for r in found["results"]])
    gone = await call("forget", {"id": new["id"]})
    seen.append((gone["action"], gone["state"]))
    after = await call("recall", {"query": "what do we use for session storage", "limit": 5})
    seen.append([r["content"] for r in after["results"]])
    status = await call("status", {})
    seen.append((status["open_conflicts"], status["memories_in_namespace"]))
    return seen


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    content: dict[str, Any] = result.structured_content
    return content


async def test_stdio_mcp_over_http_and_rest_tell_the_same_story(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "KENNING_STORAGE__DB_PATH": str(tmp_path / "stdio.db"),
        "KENNING_SERVER__NAMESPACE": "team",
        "KENNING_LIFECYCLE__INTERVAL_HOURS": "0",
    }
    params = StdioServerParameters(command=KENNING, args=["serve"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def over_stdio(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            return _structured(await session.call_tool(tool, args))

        stdio = await scenario(over_stdio)

    with live_server(tmp_path / "http") as server:
        mcp_token, rest_token = (
            server.token("via-mcp", write="team-mcp"),
            server.token("via-rest", write="team-rest"),
        )
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {mcp_token}"}, timeout=60) as http,
            streamable_http_client(f"{server.url}/mcp", http_client=http) as (read, write, *_),
            ClientSession(read, write) as remote,
        ):
            await remote.initialize()

            async def over_http(tool: str, args: dict[str, Any]) -> dict[str, Any]:
                return _structured(await remote.call_tool(tool, args))

            mcp_http = await scenario(over_http)

        async with httpx.AsyncClient(
            base_url=f"{server.url}/api/v1", headers={"Authorization": f"Bearer {rest_token}"}, timeout=60
        ) as client:

            async def over_rest(tool: str, args: dict[str, Any]) -> dict[str, Any]:
                answer = await client.post(f"/{tool}", json=args)
                assert answer.status_code == 200, answer.text
                body: dict[str, Any] = answer.json()
                return body

            rest = await scenario(over_rest)

    assert stdio[0] == ("stored", "stored", 1) and stdio[4][0][0] is True
    assert stdio == mcp_http == rest
