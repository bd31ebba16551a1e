"""maintain through the facade on a real SQLite store: what is forgotten, consolidated, and what never is."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CALLER, OTHER
from fakes import HashingEmbedder, ManualClock
from kenning.adapters.sqlite_store import SqliteStore
from kenning.core.decay import DAY
from kenning.core.errors import BackendUnavailable, ConflictError, InvalidInput
from kenning.core.records import EdgeType, MemoryState
from kenning.core.validation import MemoryDraft
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning
from kenning.services.lifecycle import MaintenanceRequest
from kenning.services.recall import RecallRequest
from kenning.services.records import MemoryPatch

DRY = MaintenanceRequest(dry_run=True)
ARCHIVE = MaintenanceRequest(dry_run=False)
DELETE = MaintenanceRequest(dry_run=False, policy="delete")
OPERATOR = replace(CALLER, operator=True, console=True)  # only the operator switches deletion on for a run


def _open(path: Path, clock: ManualClock, **deps: object) -> Kenning:
    gate = EmbeddingGate(HashingEmbedder, configured="test")
    return Kenning(Deps(store=SqliteStore(path), embeddings=gate, clock=clock, **deps))  # type: ignore[arg-type]


def _state(app: Kenning, memory_id: str) -> str | None:
    record = app.deps.store.get(memory_id)
    return record.state.value if record is not None else None


def test_cold_unused_memories_are_archived_by_default_and_deleted_only_when_enabled(
    app: Kenning, clock: ManualClock
) -> None:
    weak = app.remember(CALLER, MemoryDraft(content="the lunch order was pizza", importance=0.2)).record
    clock.advance(200 * DAY)
    planned = app.maintain(CALLER, DRY)
    assert planned.counts.get("archive") == 1 and "delete" not in planned.counts
    line = next(a for a in planned.actions if a["id"] == weak.id)
    assert line["action"] == "archive" and "deletion is off" in line["reason"]
    assert _state(app, weak.id) == "active"  # a dry run changed nothing
    deleting = app.maintain(CALLER, MaintenanceRequest(dry_run=True, policy="delete"))
    assert deleting.counts.get("delete") == 1
    done = app.maintain(CALLER, ARCHIVE)
    assert done.counts == planned.counts and done.run_id is not None
    assert _state(app, weak.id) == "archived"
    # Archived is recoverable: findable on request, and restored by update.
    shown = app.recall(CALLER, RecallRequest(query="lunch pizza", states=["archived"]))
    assert [h.record.id for h in shown.hits] == [weak.id]
    record = app.get(CALLER, weak.id)
    app.update(CALLER, weak.id, record.version, MemoryPatch(state="active"))
    assert _state(app, weak.id) == "active"


def test_delete_policy_removes_only_the_never_used_weakest_and_audits_it(
    app: Kenning, clock: ManualClock
) -> None:
    never = app.remember(
        CALLER, MemoryDraft(content="temporary scratch note about a typo", importance=0.1)
    ).record
    used = app.remember(CALLER, MemoryDraft(content="the office wifi is called orbit", importance=0.1)).record
    assert [
        h.record.id for h in app.recall(CALLER, RecallRequest(query="office wifi orbit", limit=1)).hits
    ] == [used.id]
    clock.advance(300 * DAY)
    report = app.maintain(OPERATOR, DELETE)
    assert report.counts.get("delete") == 1 and report.counts.get("archive") == 1
    assert app.deps.store.get(never.id) is None
    assert _state(app, used.id) == "archived"
    assert [e.action for e in app.deps.store.audit_log(never.id)][-1] == "maintenance_delete"


def test_pinned_important_and_recent_memories_survive_a_deleting_run(
    app: Kenning, clock: ManualClock
) -> None:
    pinned = app.remember(
        CALLER, MemoryDraft(content="the root password lives in the vault", importance=0.0, pinned=True)
    ).record
    important = app.remember(CALLER, MemoryDraft(content="never deploy on fridays", importance=0.9)).record
    recent = app.remember(CALLER, MemoryDraft(content="the staging host is blue", importance=0.1)).record
    clock.advance(400 * DAY)
    app.recall(CALLER, RecallRequest(query="staging host blue"))
    clock.advance(5 * DAY)
    report = app.maintain(OPERATOR, DELETE)
    assert {_state(app, m.id) for m in (pinned, important, recent)} == {"active"}
    assert report.kept == {"pinned": 1, "important": 1, "used 5 days ago": 1}


def test_chain_protection_keeps_a_weak_memory_that_links_strong_ones(
    app: Kenning, clock: ManualClock
) -> None:
    bridge = app.remember(
        CALLER, MemoryDraft(content="ticket 42 links the outage to the cache", importance=0.1)
    ).record
    left = app.remember(CALLER, MemoryDraft(content="the outage hit checkout", importance=0.9)).record
    right = app.remember(CALLER, MemoryDraft(content="the cache evicts hourly", importance=0.9)).record
    for other in (left, right):
        app.link(CALLER, bridge.id, other.id, "related")
    clock.advance(365 * DAY)
    report = app.maintain(OPERATOR, DELETE)
    assert _state(app, bridge.id) == "active"
    assert report.kept.get("bridges 2 strong memories") == 1


def test_near_duplicates_become_one_memory_that_absorbs_the_others(app: Kenning, clock: ManualClock) -> None:
    first = app.remember(
        CALLER, MemoryDraft(content="The build cache lives on the nas volume", tags=["ci"])
    ).record
    # "too" reads as an addition, so the write path stored it; maintenance sees it adds nothing.
    second = app.remember(
        CALLER, MemoryDraft(content="The build cache lives on the nas volume too", tags=["nas"])
    )
    assert second.status == "stored"
    clock.advance(40 * DAY)
    report = app.maintain(CALLER, ARCHIVE)
    assert [(s["kind"], s["method"]) for s in report.summaries] == [("duplicates", "merge")]
    survivor, absorbed = report.summaries[0]["survivor"], report.summaries[0]["sources"]
    assert {survivor, *absorbed} == {first.id, second.record.id}
    kept = app.get(CALLER, survivor)
    assert kept.state is MemoryState.ACTIVE and set(kept.tags) == {"ci", "nas"}
    assert _state(app, absorbed[0]) == "superseded"
    assert app.chain(CALLER, absorbed[0]).superseded_by == [survivor]


def test_weak_related_memories_become_a_summary_that_links_to_its_sources(
    app: Kenning, clock: ManualClock
) -> None:
    first = app.remember(
        CALLER, MemoryDraft(content="The build cache lives on the nas volume", tags=["ci"], importance=0.3)
    ).record
    second = app.remember(
        CALLER,
        MemoryDraft(
            content="The build cache on the nas volume is backed up to s3 every night",
            tags=["nas"],
            importance=0.3,
        ),
    ).record
    clock.advance(40 * DAY)
    report = app.maintain(CALLER, ARCHIVE)
    assert [(s["kind"], s["method"]) for s in report.summaries] == [("related", "extractive")]
    summary = app.get(CALLER, report.summaries[0]["id"])
    assert summary.type == "summary" and set(summary.tags) == {"ci", "nas"}
    assert "lives on the nas volume" in summary.content and "backed up to s3" in summary.content
    assert {_state(app, first.id), _state(app, second.id)} == {"superseded"}
    links = {(e.type, e.dst) for e in app.deps.store.edges_of([summary.id]) if e.src == summary.id}
    for source in (first.id, second.id):
        assert (EdgeType.DERIVED_FROM, source) in links and (EdgeType.SUPERSEDES, source) in links
        assert summary.id in app.chain(CALLER, source).superseded_by
    # Recall finds the summary in place of its sources.
    found = app.recall(CALLER, RecallRequest(query="where is the build cache", touch=False))
    assert found.hits[0].record.id == summary.id


def test_contradicting_memories_are_never_merged(app: Kenning, clock: ManualClock) -> None:
    app.remember(CALLER, MemoryDraft(content="the staging database listens on port 5432", importance=0.1))
    app.remember(CALLER, MemoryDraft(content="the staging database listens on port 6543", importance=0.1))
    clock.advance(40 * DAY)
    report = app.maintain(CALLER, DRY)
    assert report.summaries == []


def test_old_episodes_are_summarised_per_session_and_the_turns_stay(app: Kenning, clock: ManualClock) -> None:
    turns = [
        app.remember(CALLER, MemoryDraft(content=text, type="turn", session_id="s-1")).record
        for text in ("we chose redis for sessions", "the migration runs on sunday", "alice owns the rollout")
    ]
    clock.advance(10 * DAY)
    assert app.maintain(CALLER, DRY).summaries == []  # not old yet
    clock.advance(30 * DAY)
    report = app.maintain(CALLER, ARCHIVE)
    assert [s["kind"] for s in report.summaries] == ["episodes"]
    summary = app.get(CALLER, report.summaries[0]["id"])
    assert summary.content.startswith("Session s-1") and "redis" in summary.content
    assert {_state(app, t.id) for t in turns} == {"active"}
    again = app.maintain(CALLER, ARCHIVE)
    assert again.summaries == []  # a session is summarised once
    # The summary is context for its turns, not their rival: with the turn found, it gives way.
    found = [
        h.record.id for h in app.recall(CALLER, RecallRequest(query="redis for sessions", touch=False)).hits
    ]
    assert found[0] == turns[0].id and summary.id not in found
    shown = app.recall(CALLER, RecallRequest(query="redis for sessions", types=["summary"], touch=False))
    assert [h.record.id for h in shown.hits] == [summary.id]


class _Summarizer:
    model_id = "test-summarizer"

    def __init__(self, fail: bool) -> None:
        self.fail = fail

    def summarize(self, texts: Sequence[str], max_chars: int) -> str:
        if self.fail:
            raise BackendUnavailable("summarizer down")
        return "Summary: " + "; ".join(texts)[: max_chars - 9]


@pytest.mark.parametrize("fail", [False, True])
def test_the_summarizer_hook_writes_summaries_and_its_failure_keeps_the_extractive_one(
    tmp_path: Path, clock: ManualClock, fail: bool
) -> None:
    app = _open(tmp_path / "s.db", clock, summarizer=_Summarizer(fail))
    try:
        for text in ("we chose redis for sessions", "the migration runs on sunday"):
            app.remember(CALLER, MemoryDraft(content=text, type="turn", session_id="s-9"))
        clock.advance(45 * DAY)
        report = app.maintain(CALLER, ARCHIVE)
        summary = app.get(CALLER, report.summaries[0]["id"])
        if fail:
            assert summary.content.startswith("Session s-9")
            assert summary.metadata["method"] == "extractive"
            assert any("summarizer failed" in note for note in report.notes)
        else:
            assert summary.content.startswith("Summary: ")
            assert summary.metadata["method"] == "test-summarizer"
    finally:
        app.close()


def test_a_second_maintainer_is_refused_while_the_lease_is_held(app: Kenning, clock: ManualClock) -> None:
    app.remember(CALLER, MemoryDraft(content="anything at all"))
    assert app.deps.store.acquire_lease("maintenance:team-a", "someone-else", clock.now(), 600) is None
    with pytest.raises(ConflictError) as caught:
        app.maintain(CALLER, ARCHIVE)
    assert "already running" in caught.value.message
    app.maintain(OTHER, ARCHIVE)  # another namespace is not blocked
    app.maintain(CALLER, DRY)  # a dry run needs no lease
    clock.advance(601)
    assert app.maintain(CALLER, ARCHIVE).run_id is not None  # an expired lease is taken over


def test_maintenance_on_a_store_held_by_another_writer_fails_clearly_and_loses_nothing(
    tmp_path: Path, clock: ManualClock
) -> None:
    path = tmp_path / "held.db"
    app = Kenning(
        Deps(
            store=SqliteStore(path, busy_timeout_s=0.05, write_retries=1),
            embeddings=EmbeddingGate(HashingEmbedder, configured="test"),
            clock=clock,
        )
    )
    try:
        kept = app.remember(CALLER, MemoryDraft(content="a weak memory", importance=0.1)).record
        clock.advance(200 * DAY)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(BackendUnavailable) as caught:
                app.maintain(CALLER, ARCHIVE)
            assert "busy" in caught.value.message
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert _state(app, kept.id) == "active"
        assert app.maintain(CALLER, ARCHIVE).counts.get("archive") == 1  # and it works once the lock is gone
    finally:
        app.close()


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (MaintenanceRequest(policy="purge"), "policy"),
        (MaintenanceRequest(steps=["defrag"]), "steps"),
        (MaintenanceRequest(steps=[]), "steps"),
    ],
)
def test_bad_maintenance_requests_name_the_field(
    app: Kenning, request_: MaintenanceRequest, field: str
) -> None:
    with pytest.raises(InvalidInput) as caught:
        app.maintain(CALLER, request_)
    assert caught.value.field == field


def test_the_kept_report_shows_in_status(app: Kenning, clock: ManualClock) -> None:
    assert app.status(CALLER, load_embedder=False).maintenance is None
    app.remember(CALLER, MemoryDraft(content="x marks the spot", importance=0.1))
    clock.advance(200 * DAY)
    app.maintain(CALLER, DRY)
    assert app.status(CALLER, load_embedder=False).maintenance is None  # dry runs keep nothing
    done = app.maintain(CALLER, ARCHIVE)
    last = app.status(CALLER, load_embedder=False).maintenance
    assert last is not None and last["id"] == done.run_id and last["counts"] == {"archive": 1, "summaries": 0}


def test_recall_reports_beliefs_and_the_listing_needs_two_independent_writers(
    app: Kenning, clock: ManualClock
) -> None:
    first = app.remember(
        CALLER, MemoryDraft(content="the api rate limit is 100 per minute", trust="user_stated")
    )
    one = app.recall(CALLER, RecallRequest(query="api rate limit", touch=False)).hits[0]
    assert one.belief is not None and one.belief.independent == 1 and not one.belief.surfaced
    assert app.beliefs(CALLER) == []
    clock.advance(60)
    again = app.remember(
        Caller(CALLER.namespace, "agent-2"), MemoryDraft(content="the api rate limit is 100 per minute")
    )
    assert again.status == "reinforced" and again.record.id == first.record.id
    listed = app.beliefs(CALLER)
    assert [v.record.id for v in listed] == [first.record.id]
    assert listed[0].belief.surfaced and listed[0].belief.independent == 2
    contradiction = app.remember(
        CALLER, MemoryDraft(content="the payments api has no rate limit", importance=0.5)
    )
    app.link(CALLER, contradiction.record.id, first.record.id, "contradicts")
    lowered = app.recall(CALLER, RecallRequest(query="api rate limit 100", touch=False)).hits[0]
    assert lowered.belief is not None and lowered.belief.contradicting == 1
    assert lowered.belief.confidence < listed[0].belief.confidence


def test_insights_name_the_memories_behind_each_card(app: Kenning, clock: ManualClock) -> None:
    ids = [
        app.remember(
            CALLER, MemoryDraft(content=f"incident {i} in payments", tags=["payments", "incident", "p1"])
        ).record.id
        for i in range(5)
    ]
    cards = app.insights(CALLER, kinds=["pattern"])
    assert len(cards) == 1 and sorted(cards[0].memory_ids) == sorted(ids)
    with pytest.raises(InvalidInput):
        app.insights(CALLER, kinds=["prophecy"])


# -- properties ------------------------------------------------------------------------------------

population = st.lists(
    st.tuples(
        st.floats(0.0, 1.0),  # importance
        st.integers(0, 400),  # days before the run it was written
        st.booleans(),  # pinned
        st.sampled_from(["fact", "preference", "error", "note", "turn"]),
        st.one_of(st.none(), st.integers(0, 400)),  # days before the run it was last recalled
    ),
    min_size=1,
    max_size=12,
)


def _populate(
    app: Kenning, clock: ManualClock, members: list[tuple[float, int, bool, str, int | None]]
) -> list[str]:
    start = clock.now()
    ids: list[str] = []
    for index, (importance, age, pinned, kind, _) in enumerate(members):
        clock.value = start - age * DAY
        draft = MemoryDraft(
            content=f"memory number {index} about topic {index % 3} with {kind}",
            type=kind,
            importance=importance,
            pinned=pinned,
            session_id="s" if kind == "turn" else None,
        )
        ids.append(app.remember(CALLER, draft).record.id)
    for memory_id, (_, age, _, _, recalled) in zip(ids, members, strict=True):
        if recalled is not None and recalled <= age:
            app.deps.store.touch([memory_id], start - recalled * DAY)
    clock.value = start
    return ids


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(population)
def test_a_dry_run_leaves_the_store_bytes_identical(
    tmp_path_factory: pytest.TempPathFactory, members: list[tuple[float, int, bool, str, int | None]]
) -> None:
    path = tmp_path_factory.mktemp("dry") / "k.db"
    clock = ManualClock()
    app = _open(path, clock)
    _populate(app, clock, members)
    app.close()
    before = path.read_bytes()
    app = _open(path, clock)
    report = app.maintain(CALLER, MaintenanceRequest(dry_run=True, policy="delete"))
    app.close()
    assert path.read_bytes() == before
    assert not Path(str(path) + "-wal").exists() or Path(str(path) + "-wal").stat().st_size == 0
    assert report.run_id is None


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(population)
def test_pinned_and_recently_recalled_memories_are_never_forgotten(
    tmp_path_factory: pytest.TempPathFactory, members: list[tuple[float, int, bool, str, int | None]]
) -> None:
    clock = ManualClock()
    app = _open(tmp_path_factory.mktemp("keep") / "k.db", clock)
    try:
        ids = _populate(app, clock, members)
        app.maintain(OPERATOR, DELETE)
        for memory_id, (importance, _, pinned, _, recalled) in zip(ids, members, strict=True):
            record = app.deps.store.get(memory_id)
            if pinned or (recalled is not None and recalled < 30) or importance >= 0.8:
                assert record is not None and record.state is MemoryState.ACTIVE
    finally:
        app.close()


def test_edges_are_read_for_more_ids_than_one_sql_statement_takes(make_app: Callable[..., Kenning]) -> None:
    """Maintenance reads the edges of a whole namespace at once; the store splits the ids into chunks."""
    app = make_app()
    a = app.remember(CALLER, MemoryDraft(content="alpha fact")).record
    b = app.remember(CALLER, MemoryDraft(content="beta fact")).record
    app.link(CALLER, a.id, b.id, "supports")
    found = app.deps.store.edges_of([f"{i:026d}" for i in range(900)] + [b.id])
    assert [(e.src, e.dst, e.type) for e in found] == [(a.id, b.id, EdgeType.SUPPORTS)]


def test_stating_a_consolidated_memory_again_brings_it_back_but_not_a_contradicted_one(
    app: Kenning, clock: ManualClock
) -> None:
    first = app.remember(
        CALLER, MemoryDraft(content="The build cache lives on the nas volume", importance=0.3)
    ).record
    app.remember(
        CALLER,
        MemoryDraft(
            content="The build cache on the nas volume is backed up to s3 every night", importance=0.3
        ),
    )
    clock.advance(40 * DAY)
    app.maintain(CALLER, ARCHIVE)
    assert _state(app, first.id) == "superseded"
    again = app.remember(
        CALLER, MemoryDraft(content="The build cache lives on the nas volume", importance=0.9)
    )
    assert again.status == "reinforced" and again.record.id == first.id
    assert _state(app, first.id) == "active" and again.note is not None and "superseded" in again.note
    # A memory superseded by a newer statement stays superseded when the old one is repeated.
    old = app.remember(CALLER, MemoryDraft(content="the api listens on port 8080")).record
    app.remember(CALLER, MemoryDraft(content="the api now listens on port 9090", supersedes=old.id))
    assert app.remember(CALLER, MemoryDraft(content="the api listens on port 8080")).status == "reinforced"
    assert _state(app, old.id) == "superseded"


def test_a_dry_run_can_explain_every_memory_including_the_kept_ones(app: Kenning, clock: ManualClock) -> None:
    ids = [
        app.remember(CALLER, MemoryDraft(content=f"note {word}", importance=0.2)).record.id for word in "abc"
    ]
    important = app.remember(
        CALLER, MemoryDraft(content="the key ceremony is in march", importance=0.9)
    ).record
    clock.advance(200 * DAY)
    short = app.maintain(CALLER, MaintenanceRequest(dry_run=True, steps=["forget"]))
    assert {line["id"] for line in short.actions} == set(ids)
    full = app.maintain(CALLER, MaintenanceRequest(dry_run=True, steps=["forget"], list_all=True))
    lines = {line["id"]: line for line in full.actions}
    assert set(lines) == {*ids, important.id}
    assert lines[important.id]["action"] == "keep" and "important" in lines[important.id]["reason"]


# -- regressions from the review: what happens between planning and applying -----------------------


def _related_pair(app: Kenning) -> tuple[str, str]:
    first = app.remember(
        CALLER,
        MemoryDraft(content="The build cache lives on the nas volume of project bluefalcon", importance=0.3),
    ).record
    second = app.remember(
        CALLER,
        MemoryDraft(
            content="The build cache on the nas volume is backed up to s3 every night", importance=0.3
        ),
    ).record
    return first.id, second.id


def _between_plan_and_apply(monkeypatch: pytest.MonkeyPatch, action: Callable[[], object]) -> None:
    from kenning.services import lifecycle

    original = lifecycle._Plan.apply

    def interrupted(self: lifecycle._Plan, go_on: Callable[[], bool]) -> None:
        action()
        original(self, go_on)

    monkeypatch.setattr(lifecycle._Plan, "apply", interrupted)


def test_regression_a_source_purged_mid_run_is_not_resurrected_in_a_summary(
    app: Kenning, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _related_pair(app)
    clock.advance(40 * DAY)
    _between_plan_and_apply(monkeypatch, lambda: app.forget(CALLER, first, mode="purge", confirm=True))
    report = app.maintain(CALLER, ARCHIVE)
    assert report.counts.get("summaries") == 0 and len(report.skipped) == 1 and first in report.skipped[0]
    assert [r.type for r in app.deps.store.scan(CALLER.namespace, list(MemoryState))] == ["fact"]
    assert _state(app, second) == "active"
    assert not [
        r for r in app.deps.store.scan(CALLER.namespace, list(MemoryState)) if "bluefalcon" in r.content
    ]


def test_regression_a_failure_inside_a_group_leaves_no_half_written_group(
    app: Kenning, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _related_pair(app)
    clock.advance(40 * DAY)
    store = app.deps.store

    def broken(*args: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "_bump_vector_epoch", broken)
    with pytest.raises(sqlite3.OperationalError):
        app.maintain(CALLER, ARCHIVE)
    monkeypatch.undo()
    assert {_state(app, first), _state(app, second)} == {"active"}
    assert len(store.scan(CALLER.namespace, list(MemoryState))) == 2  # no orphan summary
    assert app.maintain(CALLER, ARCHIVE).counts.get("summaries") == 1  # the next run does it whole


def test_regression_a_recall_mid_run_saves_the_memory_from_forgetting(
    app: Kenning, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    weak = app.remember(CALLER, MemoryDraft(content="the printer on floor two jams", importance=0.1)).record
    clock.advance(300 * DAY)
    _between_plan_and_apply(monkeypatch, lambda: app.recall(CALLER, RecallRequest(query="printer floor two")))
    report = app.maintain(OPERATOR, DELETE)
    assert _state(app, weak.id) == "active"
    assert "delete" not in report.counts and weak.id in report.skipped[0]
    assert app.status(CALLER, load_embedder=False).maintenance["counts"] == {"summaries": 0}  # type: ignore[index]


def test_regression_a_survivor_purged_mid_run_does_not_stop_the_rest_of_the_run(
    app: Kenning, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = app.remember(CALLER, MemoryDraft(content="The build cache lives on the nas volume")).record
    second = app.remember(CALLER, MemoryDraft(content="The build cache lives on the nas volume too")).record
    cold = app.remember(CALLER, MemoryDraft(content="a lunch order of pizza", importance=0.1)).record
    clock.advance(200 * DAY)
    planned = app.maintain(CALLER, DRY)
    survivor = planned.summaries[0]["survivor"]
    assert survivor in (first.id, second.id)
    _between_plan_and_apply(monkeypatch, lambda: app.forget(CALLER, survivor, mode="purge", confirm=True))
    report = app.maintain(CALLER, ARCHIVE)
    assert "merged" not in report.counts and report.skipped
    assert _state(app, cold.id) == "archived"  # forgetting still ran


def test_regression_consolidated_memories_that_were_recalled_are_never_deleted_with_their_summary(
    app: Kenning, clock: ManualClock
) -> None:
    first, _ = _related_pair(app)
    app.recall(CALLER, RecallRequest(query="build cache nas volume"))
    clock.advance(60 * DAY)
    done = app.maintain(CALLER, ARCHIVE)
    summary_id = done.summaries[0]["id"]
    assert app.get(CALLER, summary_id).access_count == 2  # it carries its sources' use
    clock.advance(400 * DAY)
    later = app.maintain(OPERATOR, DELETE)
    assert "delete" not in later.counts
    assert _state(app, summary_id) == "archived"
    assert app.chain(CALLER, first).superseded_by == [summary_id]


def test_a_summary_inherits_what_was_observed_of_the_memories_it_replaced(
    app: Kenning, clock: ManualClock
) -> None:
    first, _ = _related_pair(app)
    clock.advance(2 * DAY)
    again = app.remember(
        Caller(CALLER.namespace, "agent-2"),
        MemoryDraft(content="The build cache lives on the nas volume of project bluefalcon", importance=0.3),
    )
    assert again.status == "reinforced" and again.record.id == first
    clock.advance(40 * DAY)
    summary_id = app.maintain(CALLER, ARCHIVE).summaries[0]["id"]
    hit = app.recall(CALLER, RecallRequest(query="build cache nas volume", touch=False)).hits[0]
    assert hit.record.id == summary_id and hit.belief is not None
    assert hit.belief.supporting == 3 and hit.belief.independent == 2 and hit.belief.surfaced
    assert summary_id in [v.record.id for v in app.beliefs(CALLER)]


def test_an_agent_cannot_switch_deletion_on_for_itself(app: Kenning) -> None:
    with pytest.raises(InvalidInput, match="deletion is off"):
        app.maintain(CALLER, DELETE)
