"""Each retrieval stage changes ranking the way it claims to, and explains itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest

from conftest import CALLER
from fakes import ManualClock
from kenning.core.records import AuditEntry, Edge, EdgeType
from kenning.core.validation import MemoryDraft
from kenning.services.deps import RetrievalParams
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest


def only(app: Kenning, channels: tuple[str, ...], stages: tuple[str, ...]) -> Kenning:
    app.deps = replace(app.deps, retrieval=replace(RetrievalParams(), channels=channels, stages=stages))
    return app


def contents(app: Kenning, query: str, **options: object) -> list[str]:
    result = app.recall(CALLER, RecallRequest(query=query, touch=False, **options))  # type: ignore[arg-type]
    return [hit.record.content for hit in result.hits]


def channel_names(app: Kenning, query: str, content: str) -> set[str]:
    result = app.recall(CALLER, RecallRequest(query=query, touch=False))
    return {c.channel for hit in result.hits if hit.record.content == content for c in hit.channels}


def test_the_turn_after_a_matching_question_is_lifted(app: Kenning) -> None:
    turns = ["Ann: where should the team trip go next month?", "Bo: Edinburgh would be lovely", "Ann: ok"]
    app.remember_many(CALLER, [MemoryDraft(content=t, type="turn", session_id="s1") for t in turns])
    app.remember(CALLER, MemoryDraft(content="Edinburgh office closes early on Fridays"))
    only(app, ("bm25",), ())
    assert "Bo: Edinburgh would be lovely" not in contents(app, "team trip next month", limit=2)
    only(app, ("bm25",), ("conversation",))
    assert contents(app, "team trip next month", limit=2)[1] == "Bo: Edinburgh would be lovely"
    assert "conversation" in channel_names(app, "team trip next month", "Bo: Edinburgh would be lovely")


def test_the_same_speakers_next_turn_is_lifted(app: Kenning) -> None:
    turns = [
        ("Ann", "Ann: I adopted a beagle puppy last week"),
        ("Bo", "Bo: wow, what is that like?"),
        ("Ann", "Ann: he chews every shoe in the flat"),
        ("Bo", "Bo: classic"),
    ]
    app.remember_many(
        CALLER, [MemoryDraft(content=t, type="turn", subject=who, session_id="s1") for who, t in turns]
    )
    only(app, ("bm25",), ("conversation",))
    assert "Ann: he chews every shoe in the flat" not in contents(app, "adopted beagle puppy")
    only(app, ("bm25",), ("continuation",))
    assert contents(app, "adopted beagle puppy") == [
        "Ann: I adopted a beagle puppy last week",
        "Ann: he chews every shoe in the flat",
    ]
    assert "continuation" in channel_names(
        app, "adopted beagle puppy", "Ann: he chews every shoe in the flat"
    )


def test_turns_of_a_session_get_context_vectors(app: Kenning) -> None:
    app.remember_many(CALLER, [MemoryDraft(content=f"turn {i}", session_id="s9") for i in range(3)])
    app.remember(CALLER, MemoryDraft(content="turn 3", session_id="s9"))
    app.remember(CALLER, MemoryDraft(content="no session"))
    vectors = app.status(CALLER).vectors_by_model
    assert vectors == {"test:hashing:128": 5, "test:hashing:128#context": 3, "test:hashing:128#window": 3}


def test_a_turn_gets_its_window_when_the_next_turn_arrives(app: Kenning) -> None:
    """The window of a turn is the turn before, the turn, and the turn after, wherever they were written."""
    texts = ["Ann: guess what I adopted", "Bo: a puppy?!", "Ann: yes, a beagle", "Bo: lovely"]
    first = app.remember_many(CALLER, [MemoryDraft(content=t, session_id="s1") for t in texts[:3]])
    last = app.remember(CALLER, MemoryDraft(content=texts[3], session_id="s1"))
    ids = [o.record.id for o in first] + [last.record.id]
    model = app.deps.embeddings.model_id()
    assert model is not None
    windows = app.deps.store.vectors_of(f"{model}#window", ids)
    assert set(windows) == set(ids[:3])  # the newest turn waits for its successor
    expected = {
        ids[0]: "\n".join(texts[0:2]),  # the first turn of a session has no turn before
        ids[1]: "\n".join(texts[0:3]),
        ids[2]: "\n".join(texts[1:4]),  # its successor came in a later write
    }
    embedded = app.deps.embeddings.passages(list(expected.values()))
    assert embedded is not None
    for memory_id, row in zip(expected, embedded[1], strict=True):
        assert np.allclose(windows[memory_id], row, atol=1e-6)


def test_a_statement_outranks_a_question_with_the_same_words(app: Kenning) -> None:
    app.remember(
        CALLER, MemoryDraft(content="Does anyone know if the deploy window is on Tuesday this quarter?")
    )
    app.remember(CALLER, MemoryDraft(content="The deploy window is on Tuesday."))
    only(app, ("bm25",), ("question",))
    assert contents(app, "deploy window Tuesday")[0] == "The deploy window is on Tuesday."


def test_a_time_phrase_in_the_query_favours_memories_from_then(app: Kenning, clock: ManualClock) -> None:
    app.remember(
        CALLER,
        MemoryDraft(content="Sprint review notes: demo went well", event_time=clock.now() - 40 * 86400),
    )
    app.remember(
        CALLER,
        MemoryDraft(content="Sprint review notes: demo went badly", event_time=clock.now() - 8 * 86400),
    )
    only(app, ("bm25",), ("time",))
    assert contents(app, "sprint review notes last week")[0] == "Sprint review notes: demo went badly"
    assert contents(app, "sprint review notes last month")[0] == "Sprint review notes: demo went well"


def test_a_named_day_brings_its_memories_in_even_below_the_candidate_depth(
    app: Kenning, clock: ManualClock
) -> None:
    day = 86400.0
    named = clock.now() - 200 * day
    # More better-worded matches on other days than any channel searches deep (101).
    app.remember_many(
        CALLER,
        [
            MemoryDraft(
                content=f"Dinner party number {n}: dinner, dinner and more dinner",
                event_time=named - (n + 2) * day,
            )
            for n in range(110)
        ],
    )
    app.remember(CALLER, MemoryDraft(content="We cooked dinner at home", event_time=named + 3600))
    app.remember(CALLER, MemoryDraft(content="Lunch at home", event_time=named + 7200))
    when = datetime.fromtimestamp(named, tz=UTC).strftime("%d %B %Y")
    only(app, ("bm25",), ())
    assert "We cooked dinner at home" not in contents(app, f"dinner on {when}", limit=100)
    only(app, ("bm25",), ("time",))
    assert contents(app, f"dinner on {when}", limit=2)[0] == "We cooked dinner at home"
    best = app.recall(CALLER, RecallRequest(query=f"dinner on {when}", limit=2, touch=False)).hits[0]
    explained = {c.channel: c.rank for c in best.channels}
    # Found only by the search inside the named day, and said so: its rank there, and the bonus.
    assert explained["bm25 in range"] == 1 and "bm25" not in explained and "time" in explained


def test_what_happened_on_a_named_day_may_be_told_a_little_later(app: Kenning, clock: ManualClock) -> None:
    day = 86400.0
    named = clock.now() - 30 * day
    app.remember(CALLER, MemoryDraft(content="We watched a film: the trilogy", event_time=named - 5 * day))
    app.remember(CALLER, MemoryDraft(content="Last night we watched a film", event_time=named + day + 3600))
    when = datetime.fromtimestamp(named, tz=UTC).strftime("%d %B %Y")
    only(app, ("bm25",), ())
    assert contents(app, f"watched a film on {when}")[0] == "We watched a film: the trilogy"
    only(app, ("bm25",), ("time",))
    assert contents(app, f"watched a film on {when}")[0] == "Last night we watched a film"
    assert contents(app, f"watched a film on {when}")[1] == "We watched a film: the trilogy"


def test_graph_neighbours_of_a_hit_are_brought_in_but_filters_still_apply(
    app: Kenning, clock: ManualClock
) -> None:
    hit = app.remember(CALLER, MemoryDraft(content="Kafka consumer lag alert fired", tags=["ops"])).record
    cause = app.remember(CALLER, MemoryDraft(content="Broker disk was full", tags=["ops"])).record
    other = app.remember(CALLER, MemoryDraft(content="Ticket opened with vendor", tags=["vendor"])).record
    for target in (cause, other):
        app.deps.store.add_edge(
            Edge(src=hit.id, dst=target.id, type=EdgeType.CAUSES, weight=1.0, created_at=clock.now()),
            AuditEntry(
                at=clock.now(),
                actor="t",
                namespace=CALLER.namespace,
                action="link",
                memory_id=hit.id,
                detail={},
            ),
        )
    only(app, ("bm25",), ())
    assert contents(app, "consumer lag alert") == ["Kafka consumer lag alert fired"]
    only(app, ("bm25",), ("graph",))
    assert set(contents(app, "consumer lag alert")) == {
        "Kafka consumer lag alert fired",
        "Broker disk was full",
        "Ticket opened with vendor",
    }
    assert set(contents(app, "consumer lag alert", tags=["ops"])) == {
        "Kafka consumer lag alert fired",
        "Broker disk was full",
    }
    assert "graph" in channel_names(app, "consumer lag alert", "Broker disk was full")


def test_an_edge_to_a_missing_memory_is_refused(app: Kenning, clock: ManualClock) -> None:
    from kenning.core.errors import NotFound

    hit = app.remember(CALLER, MemoryDraft(content="exists")).record
    with pytest.raises(NotFound):
        app.deps.store.add_edge(
            Edge(src=hit.id, dst="01J0000000000000000000000Z", type=EdgeType.RELATED, weight=1, created_at=0),
            AuditEntry(at=0, actor="t", namespace="n", action="link", memory_id=hit.id, detail={}),
        )


def test_full_pipeline_is_independent_of_question_order(make_app: Callable[..., Kenning]) -> None:
    app = make_app()
    for index in range(12):
        app.remember(
            CALLER, MemoryDraft(content=f"Service {index} runs on port {8000 + index}", session_id="s")
        )
    queries = ["which port for service 3", "service 7 port", "port 8005"]
    forward = [contents(app, q) for q in queries]
    backward = [contents(app, q) for q in reversed(queries)][::-1]
    assert forward == backward
