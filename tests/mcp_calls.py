"""Calling tools through a real MCP client and unpacking results, shared by the acceptance tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import Client

from kenning.entry.compose import build_kenning, default_caller
from kenning.entry.mcp_server import build_server
from kenning.settings import load_settings


@asynccontextmanager
async def in_memory(overrides: dict[str, dict[str, object]]) -> AsyncIterator[Client]:
    """A client session, in memory, with the server object `kenning serve` builds from these settings."""
    settings = load_settings(overrides)
    app = build_kenning(settings)
    try:
        async with Client(build_server(app, lambda: default_caller(settings))) as client:
            yield client
    finally:
        app.close()


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A successful call's structured result; fails the test on a tool error."""
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content
    content: dict[str, Any] | None = result.structured_content
    assert content is not None
    return content


async def error(client: Client, tool: str, args: dict[str, Any]) -> str:
    """The text of a tool error; fails the test if the call succeeded."""
    result = await client.call_tool(tool, args)
    assert result.is_error, result.structured_content
    text = result.content[0].text  # type: ignore[union-attr]
    assert isinstance(text, str)
    return text
