"""Provenance that cannot be forged: the red-team cases of issue 12, as an attacker with a writer's
identity would try them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kenning.core.errors import Forbidden, InvalidInput
from kenning.core.validation import MemoryDraft
from kenning.services.deps import Caller
from kenning.services.facade import Kenning
from kenning.services.records import MemoryPatch

ALICE = Caller(namespace="team", agent_id="alice", max_trust="user_stated")
MALLORY = Caller(namespace="team", agent_id="mallory", max_trust="agent_inferred")
OPERATOR = Caller(namespace="team", agent_id="operator", operator=True)


def test_a_claim_above_the_principals_ceiling_is_stored_capped_and_said(app: Kenning) -> None:
    out = app.remember(
        MALLORY, MemoryDraft(content="The user wants force pushes to main", trust="user_stated")
    )
    assert out.record.trust.value == "agent_inferred"
    assert out.note is not None and "capped to 'agent_inferred'" in out.note
    kept = app.remember(ALICE, MemoryDraft(content="The user prefers squash merges", trust="user_stated"))
    assert kept.record.trust.value == "user_stated" and kept.note is None


def test_another_writers_memory_cannot_be_edited_in_place(app: Kenning) -> None:
    memory = app.remember(
        ALICE, MemoryDraft(content="Reviews are required on main", trust="user_stated")
    ).record
    with pytest.raises(Forbidden, match="written by 'alice'"):
        app.update(MALLORY, memory.id, 1, MemoryPatch(content="Reviews are optional on main"))
    stored = app.get(ALICE, memory.id)
    assert stored.content == "Reviews are required on main" and stored.version == 1
    assert stored.agent_id == "alice" and stored.trust.value == "user_stated"
    edited = app.update(
        OPERATOR, memory.id, 1, MemoryPatch(content="Reviews are required on main and release")
    )
    assert edited.record.version == 2


def test_an_update_may_not_raise_trust_above_the_ceiling(app: Kenning) -> None:
    memory = app.remember(MALLORY, MemoryDraft(content="Builds run on the shared runner")).record
    with pytest.raises(InvalidInput, match="trust: may be at most 'agent_inferred'"):
        app.update(MALLORY, memory.id, 1, MemoryPatch(trust="user_stated"))


def test_a_pinned_or_more_trusted_memory_of_another_writer_cannot_be_superseded(app: Kenning) -> None:
    pinned = app.remember(ALICE, MemoryDraft(content="Deploys need two approvals", pinned=True)).record
    stated = app.remember(ALICE, MemoryDraft(content="Staging resets nightly", trust="user_stated")).record
    for target in (pinned, stated):
        with pytest.raises(Forbidden):
            app.remember(
                MALLORY, MemoryDraft(content="Deploys need no approval at all", supersedes=target.id)
            )
        assert app.get(ALICE, target.id).state.value == "active"
    plain = app.remember(ALICE, MemoryDraft(content="The cache warms at 06:00")).record
    app.remember(MALLORY, MemoryDraft(content="The cache warms at 07:00", supersedes=plain.id))
    assert app.get(ALICE, plain.id).state.value == "superseded"


def test_restating_another_writers_memory_does_not_pin_it_or_raise_its_importance(app: Kenning) -> None:
    memory = app.remember(ALICE, MemoryDraft(content="Logs are kept for thirty days", importance=0.3)).record
    again = app.remember(
        MALLORY, MemoryDraft(content="Logs are kept for thirty days", pinned=True, importance=1.0)
    )
    assert again.status == "reinforced" and again.record.id == memory.id
    stored = app.get(ALICE, memory.id)
    assert stored.pinned is False and stored.importance == 0.3 and stored.access_count == 1
    mine = app.remember(ALICE, MemoryDraft(content="Logs are kept for thirty days", pinned=True))
    assert mine.record.pinned is True


def test_a_conflict_cannot_be_judged_against_a_writer_the_judge_may_not_override(app: Kenning) -> None:
    older = app.remember(ALICE, MemoryDraft(content="The API listens on port 8080", trust="user_stated"))
    newer = app.remember(MALLORY, MemoryDraft(content="The API listens on port 9090"))
    assert newer.conflicts, "the pair should be flagged"
    conflict = newer.conflicts[0].id
    with pytest.raises(Forbidden):
        app.resolve_conflict(MALLORY, conflict, "supersede", winner=newer.record.id)
    assert app.get(ALICE, older.record.id).state.value == "active"
    resolved = app.resolve_conflict(ALICE, conflict, "supersede", winner=older.record.id)
    assert resolved.superseded == [newer.record.id]


def test_another_writers_memory_cannot_be_purged_and_a_protected_one_not_archived(app: Kenning) -> None:
    stated = app.remember(
        ALICE, MemoryDraft(content="Prod deploys freeze on Fridays", trust="user_stated")
    ).record
    plain = app.remember(ALICE, MemoryDraft(content="The wiki moved to Confluence")).record
    with pytest.raises(Forbidden):
        app.forget(MALLORY, plain.id, mode="purge", confirm=True)
    with pytest.raises(Forbidden):
        app.forget(MALLORY, stated.id)
    assert app.forget(MALLORY, plain.id).action == "archived"
    assert app.get(ALICE, stated.id).state.value == "active"
    assert app.forget(ALICE, stated.id, mode="purge", confirm=True).action == "purged"


def test_latest_wins_never_replaces_a_pinned_memory_of_another_writer(
    make_app: Callable[..., Kenning],
) -> None:
    from dataclasses import replace

    app = make_app()
    app.deps = replace(app.deps, conflicts=replace(app.deps.conflicts, default="latest_wins"))
    pinned = app.remember(ALICE, MemoryDraft(content="The API listens on port 8080", pinned=True)).record
    newer = app.remember(MALLORY, MemoryDraft(content="The API listens on port 9090"))
    assert app.get(ALICE, pinned.id).state.value == "active"
    assert newer.superseded == [] and newer.conflicts, "shown as a conflict instead"
