from __future__ import annotations

from collections.abc import Callable

import pytest

from conftest import CALLER, OTHER
from fakes import ManualClock
from kenning.core.errors import InvalidInput
from kenning.core.query import RecallHit
from kenning.core.validation import MemoryDraft
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest

FACTS = [
    ("The auth service uses PostgreSQL 16", "fact", ["proj:auth"]),
    ("We decided to deploy on Tuesdays only", "decision", ["ops"]),
    ("The user prefers tabs over spaces", "preference", []),
    ("A null pointer crash in billing was fixed by checking the invoice id", "bug", ["proj:billing"]),
    ("Redis is the session store", "fact", ["proj:auth"]),
]


@pytest.fixture
def filled(app: Kenning, clock: ManualClock) -> Kenning:
    for content, type_, tags in FACTS:
        app.remember(CALLER, MemoryDraft(content=content, type=type_, tags=tags))
        clock.advance(3600)
    return app


def ids(result: object) -> list[str]:
    return [hit.record.content for hit in result.hits]  # type: ignore[attr-defined]


def test_recall_finds_by_keywords_and_explains_each_channel(filled: Kenning) -> None:
    result = filled.recall(CALLER, RecallRequest(query="which database does auth use"))
    top = result.hits[0]
    assert top.record.content == "The auth service uses PostgreSQL 16"
    channels = {c.channel: c for c in top.channels}
    assert {"bm25", "dense"} <= set(channels)
    assert channels["bm25"].rank == 1 and channels["bm25"].score > 0
    # Second-stage adjustments explain themselves too, with rank 0.
    assert channels["coverage"].rank == 0 and channels["coverage"].score > 0
    assert result.channels_used == ["bm25", "dense"]
    assert result.degraded == []


def test_type_filter_includes_subtypes(filled: Kenning) -> None:
    result = filled.recall(CALLER, RecallRequest(query="crash", types=["error"]))
    assert ids(result) == ["A null pointer crash in billing was fixed by checking the invoice id"]


def test_tag_and_time_filters(filled: Kenning, clock: ManualClock) -> None:
    result = filled.recall(CALLER, RecallRequest(query="store", tags=["proj:auth"]))
    assert set(ids(result)) == {"The auth service uses PostgreSQL 16", "Redis is the session store"}
    since = clock.now() - 2.5 * 3600
    recent = filled.recall(CALLER, RecallRequest(query="", since=since))
    assert ids(recent) == [
        "Redis is the session store",
        "A null pointer crash in billing was fixed by checking the invoice id",
    ]


def test_other_namespaces_are_invisible(filled: Kenning) -> None:
    assert filled.recall(OTHER, RecallRequest(query="PostgreSQL")).hits == []


def test_paging_walks_all_results_without_repeats(filled: Kenning) -> None:
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = filled.recall(CALLER, RecallRequest(query="the", limit=2, offset=offset, touch=False))
        seen.extend(hit.record.id for hit in page.hits)
        offset = page.next_offset
    assert len(seen) == len(set(seen)) == len(FACTS)


def test_token_budget_bounds_the_page_and_points_to_the_rest(app: Kenning) -> None:
    for index in range(5):
        app.remember(CALLER, MemoryDraft(content=f"Release checklist item {index}: " + "verify " * 60))
    result = app.recall(CALLER, RecallRequest(query="release checklist", limit=5, token_budget=200))
    assert 1 <= len(result.hits) < 5
    assert result.used_tokens <= 200
    assert result.next_offset == len(result.hits)


def test_a_memory_larger_than_the_budget_is_truncated_not_dropped(app: Kenning) -> None:
    app.remember(CALLER, MemoryDraft(content="Architecture notes: " + "layers " * 400))
    result = app.recall(CALLER, RecallRequest(query="architecture notes", token_budget=60))
    assert len(result.hits) == 1 and result.hits[0].truncated
    assert result.used_tokens <= 60


def test_recall_counts_access_after_ranking_and_read_only_recall_does_not(filled: Kenning) -> None:
    before = filled.recall(CALLER, RecallRequest(query="Redis session", touch=False))
    top = before.hits[0].record
    assert top.access_count == 0
    touching = filled.recall(CALLER, RecallRequest(query="Redis session"))
    # The access this recall records cannot reorder its own answer...
    assert [h.record.id for h in touching.hits] == [h.record.id for h in before.hits]
    assert filled.get(CALLER, top.id).access_count == 1
    # ...but it strengthens what it returned, for later recalls (reinforced by use).
    again = filled.recall(CALLER, RecallRequest(query="Redis session", touch=False))
    strength = {h.record.id: _channel(h, "strength") for h in again.hits}
    earlier = {h.record.id: _channel(h, "strength") for h in before.hits}
    assert strength[top.id] > earlier[top.id]


def test_archived_memories_are_hidden_unless_asked_for(filled: Kenning) -> None:
    target = filled.recall(CALLER, RecallRequest(query="tabs over spaces")).hits[0].record
    filled.forget(CALLER, target.id)
    assert target.id not in [h.record.id for h in filled.recall(CALLER, RecallRequest(query="tabs")).hits]
    shown = filled.recall(CALLER, RecallRequest(query="tabs", states=["active", "archived"]))
    assert target.id in [h.record.id for h in shown.hits]


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (RecallRequest(query="x", limit=0), "limit"),
        (RecallRequest(query="x", limit=10**9), "limit"),
        (RecallRequest(query="x", offset=-1), "offset"),
        (RecallRequest(query="x", token_budget=1), "token_budget"),
        (RecallRequest(query="x" * 3000), "query"),
        (RecallRequest(query="x", types=["nope"]), "type"),
        (RecallRequest(query="x", states=["gone"]), "states"),
        (RecallRequest(query="x", since=10.0, until=5.0), "until"),
    ],
)
def test_bad_recall_arguments_are_named(filled: Kenning, request_: RecallRequest, field: str) -> None:
    with pytest.raises(InvalidInput) as info:
        filled.recall(CALLER, request_)
    assert info.value.field == field


def test_keyword_only_store_still_recalls_and_reports_it(make_app: Callable[..., Kenning]) -> None:
    app = make_app(None)
    app.remember(CALLER, MemoryDraft(content="Feature flags live in LaunchDarkly"))
    result = app.recall(CALLER, RecallRequest(query="feature flags"))
    assert ids(result) == ["Feature flags live in LaunchDarkly"]
    assert result.degraded == ["keyword_only: embedding provider is 'none'"]


def test_recall_can_require_a_minimum_trust(app: Kenning) -> None:
    said = app.remember(CALLER, MemoryDraft(content="The build server is ci-7", trust="user_stated")).record
    guessed = app.remember(
        CALLER, MemoryDraft(content="The build server might be ci-9", trust="agent_inferred")
    ).record
    everything = {h.record.id for h in app.recall(CALLER, RecallRequest(query="build server")).hits}
    assert everything == {said.id, guessed.id}
    trusted = app.recall(CALLER, RecallRequest(query="build server", min_trust="tool_observed"))
    assert [h.record.id for h in trusted.hits] == [said.id]
    with pytest.raises(InvalidInput) as info:
        app.recall(CALLER, RecallRequest(query="build server", min_trust="gossip"))
    assert info.value.field == "trust"


def _channel(hit: RecallHit, name: str) -> float:
    return next(c.score for c in hit.channels if c.channel == name)


def test_pages_are_cut_from_one_ranking_never_repeating_or_skipping(app: Kenning, clock: ManualClock) -> None:
    """How deep each channel searches decides the candidates, so it must not depend on the page."""
    words = "dinner lunch party home garden film trip budget review cat plants car music book".split()
    drafts = [
        MemoryDraft(
            content=" ".join(words[(i * 7 + k * 3) % len(words)] for k in range(6)) + f" note {i}",
            event_time=clock.now() - (i % 90) * 86400 - 60,
        )
        for i in range(260)
    ]
    app.remember_many(CALLER, drafts)
    query = "dinner party at home last month"

    def ids(offset: int, limit: int) -> list[str]:
        request = RecallRequest(query=query, limit=limit, offset=offset, token_budget=50_000, touch=False)
        return [hit.record.id for hit in app.recall(CALLER, request).hits]

    whole = ids(0, 100)
    paged: list[str] = []
    for offset in range(0, 161, 7):
        paged += ids(offset, 7)
    assert paged[:100] == whole
    assert len(set(paged)) == len(paged) > 150  # past the first hundred too: nothing twice
