"""langchain-mcp-adapters against a running Kenning, in the examples' client environment.

test_examples runs this with examples/.venv's Python, since the adapter needs mcp<2 and this project
mcp>=2.3, so it cannot be imported by the test process itself. It loads the tools over Streamable
HTTP with one token, calls remember with another, and prints one JSON object:
{"tools": [names], "remember": {"result": text} or {"error": what was raised}}.

    python adapter_probe.py URL TOOLS_TOKEN REMEMBER_TOKEN CONTENT
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx
from langchain_mcp_adapters.client import MultiServerMCPClient  # type: ignore[import-not-found,unused-ignore]


def connect(url: str, token: str) -> Any:
    return MultiServerMCPClient(
        {
            "kenning": {
                "transport": "streamable_http",
                "url": url,
                "headers": {"Authorization": f"Bearer {token}"},
            }
        }
    )


def described(exc: BaseException) -> str:
    """What a client sees: an HTTP refusal comes as httpx's error inside the transport's exception groups."""
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code} {exc.response.headers.get('www-authenticate', '')}"
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(described(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


async def probe(url: str, tools_token: str, remember_token: str, content: str) -> dict[str, Any]:
    listed = await connect(url, tools_token).get_tools()
    remember = {tool.name: tool for tool in await connect(url, remember_token).get_tools()}["remember"]
    try:
        outcome = {"result": str(await remember.ainvoke({"content": content}))}
    except Exception as exc:
        outcome = {"error": described(exc)}
    return {"tools": [tool.name for tool in listed], "remember": outcome}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(probe(*sys.argv[1:5]))))
