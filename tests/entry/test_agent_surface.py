"""What an agent pays for an answer: lean results, a compact text block, a small tool listing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from fakes import HashingEmbedder
from kenning.adapters.sqlite_store import SqliteStore
from kenning.core.text import estimate_tokens
from kenning.core.validation import MemoryDraft
from kenning.entry.mcp_server import build_server
from kenning.ports.clock import SystemClock
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning

pytestmark = pytest.mark.anyio
CALLER = Caller("team", "agent")
LEAN = {"id", "type", "content", "score", "why", "trust", "pool", "time", "flags"}


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    gate = EmbeddingGate(HashingEmbedder, configured="test")
    app = Kenning(Deps(store=SqliteStore(tmp_path / "s.db"), embeddings=gate, clock=SystemClock()))
    for content in (
        "The billing service stores invoices in PostgreSQL 16",
        "Deploys to production need two approvals",
        "The billing team meets on Tuesdays at ten",
    ):
        app.remember(CALLER, MemoryDraft(content=content, tags=["billing"]))
    async with Client(build_server(app, lambda: CALLER)) as connected:
        yield connected
    app.close()


def _text(result: object) -> str:
    return "".join(getattr(block, "text", "") for block in getattr(result, "content", []))


async def test_a_recall_result_carries_what_an_agent_uses_and_verbose_the_rest(client: Client) -> None:
    lean = await client.call_tool("recall", {"query": "where are billing invoices stored", "limit": 2})
    assert not lean.is_error and lean.structured_content is not None
    first = lean.structured_content["results"][0]
    assert set(first) == LEAN
    assert first["content"] == "The billing service stores invoices in PostgreSQL 16"
    assert first["pool"] == "team" and "bm25 #1" in first["why"] and "#0" not in first["why"]
    query = {"query": "where are billing invoices stored", "verbose": True}
    verbose = await client.call_tool("recall", query)
    assert verbose.structured_content is not None
    full = verbose.structured_content["results"][0]
    assert full["memory"]["agent_id"] == "agent" and full["memory"]["version"] == 1
    assert {c["channel"] for c in full["channels"]} >= {"bm25", "dense"}
    assert verbose.structured_content["channels"]


async def test_the_text_block_is_a_compact_rendering_and_used_tokens_counts_it(client: Client) -> None:
    found = await client.call_tool("recall", {"query": "billing", "limit": 3})
    text = _text(found)
    assert found.structured_content is not None
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)  # not a second copy of the JSON
    for hit in found.structured_content["results"]:
        assert hit["id"] in text and hit["content"] in text
    assert "not instructions" in text
    assert found.structured_content["used_tokens"] == estimate_tokens(text)
    structured = json.dumps(found.structured_content)
    content = sum(len(h["content"]) for h in found.structured_content["results"])
    results = len(found.structured_content["results"])
    overhead = len(structured) + len(text) - 2 * content - 2 * len(found.structured_content["notice"])
    assert overhead < 500 * results  # per result, both blocks together: it was over 4,000


async def test_a_budget_bounds_the_rendered_answer(client: Client) -> None:
    for budget in (50, 120, 200):
        found = await client.call_tool("recall", {"query": "billing", "token_budget": budget})
        assert found.structured_content is not None
        assert found.structured_content["used_tokens"] == estimate_tokens(_text(found))
        assert found.structured_content["used_tokens"] <= max(budget, 90)  # a header and the notice at least
    assert len(found.structured_content["results"]) < 3 and found.structured_content["next_offset"]


async def test_remember_answers_with_the_id_and_what_happened_not_the_record(client: Client) -> None:
    stored = await client.call_tool("remember", {"content": "The billing service moved to PostgreSQL 17"})
    assert stored.structured_content is not None
    assert "memory" not in stored.structured_content
    assert stored.structured_content["status"] == "stored" and stored.structured_content["type"] == "fact"
    assert _text(stored).startswith(f"stored {stored.structured_content['id']}")
    verbose = await client.call_tool("remember", {"content": "Invoices are kept ten years", "verbose": True})
    assert verbose.structured_content is not None
    assert verbose.structured_content["memory"]["content"] == "Invoices are kept ten years"


async def test_the_tool_listing_is_small_and_without_source_indentation(client: Client) -> None:
    tools = (await client.list_tools()).tools
    listing = json.dumps(
        [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools], separators=(",", ":")
    )
    assert len(listing.encode()) <= 20_000
    for tool in tools:
        assert "\n        " not in (tool.description or "")
        assert '"title":"' not in json.dumps(tool.input_schema, separators=(",", ":"))
    recall = next(t for t in tools if t.name == "recall")
    assert recall.output_schema is not None and "results" in recall.output_schema["properties"]


async def test_recall_without_a_query_lists_the_newest(client: Client) -> None:
    listed = await client.call_tool("recall", {"limit": 2})
    assert not listed.is_error and listed.structured_content is not None
    assert [r["content"] for r in listed.structured_content["results"]] == [
        "The billing team meets on Tuesdays at ten",
        "Deploys to production need two approvals",
    ]


async def test_the_prompt_capability_offers_a_real_prompt(client: Client) -> None:
    prompts = (await client.list_prompts()).prompts
    assert [p.name for p in prompts] == ["start_task"]
    got = await client.get_prompt("start_task", {"task": "migrate billing to PostgreSQL 17"})
    text = got.messages[0].content.text  # type: ignore[union-attr]
    assert "recall" in text and "migrate billing to PostgreSQL 17" in text


async def test_other_tools_answer_with_compact_json_without_nulls(client: Client) -> None:
    stored = await client.call_tool("remember", {"content": "The cache TTL is 5 seconds"})
    assert stored.structured_content is not None
    got = await client.call_tool("get", {"id": stored.structured_content["id"]})
    text = _text(got)
    assert "\n" not in text and ": " not in text and "null" not in text
    assert got.structured_content is not None and got.structured_content["context"] is None
    parsed = json.loads(text)
    assert parsed["content"] == "The cache TTL is 5 seconds" and "context" not in parsed
