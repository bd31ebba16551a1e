from __future__ import annotations

import pytest

from conftest import CALLER, OTHER
from fakes import ManualClock
from kenning.core.errors import ConflictError, InvalidInput, NotFound
from kenning.core.validation import MemoryDraft
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest
from kenning.services.records import MemoryPatch


def test_get_of_another_namespace_looks_exactly_like_a_missing_id(app: Kenning) -> None:
    memory = app.remember(CALLER, MemoryDraft(content="Our Sentry DSN rotates monthly")).record
    with pytest.raises(NotFound) as theirs:
        app.get(OTHER, memory.id)
    with pytest.raises(NotFound) as missing:
        app.get(CALLER, "01J0000000000000000000000Z")
    assert type(theirs.value) is type(missing.value)
    with pytest.raises(InvalidInput) as bad:
        app.get(CALLER, "not-an-id")
    assert bad.value.field == "id"


def test_update_changes_content_reindexes_and_bumps_the_version(app: Kenning, clock: ManualClock) -> None:
    memory = app.remember(CALLER, MemoryDraft(content="The API listens on port 5432")).record
    clock.advance(10)
    out = app.update(CALLER, memory.id, 1, MemoryPatch(content="The API listens on port 6543", tags=["ops"]))
    assert out.changed == ["content", "tags"]
    assert out.record.version == 2 and out.record.updated_at == clock.now()
    hits = app.recall(CALLER, RecallRequest(query="6543")).hits
    assert hits[0].record.id == memory.id and hits[0].record.content.endswith("6543")
    assert "5432" not in [c.channel for c in hits[0].channels]


def test_update_with_a_stale_version_is_a_conflict_and_changes_nothing(app: Kenning) -> None:
    memory = app.remember(CALLER, MemoryDraft(content="Cache TTL is 60 seconds")).record
    app.update(CALLER, memory.id, 1, MemoryPatch(importance=0.9))
    with pytest.raises(ConflictError) as info:
        app.update(CALLER, memory.id, 1, MemoryPatch(content="Cache TTL is 5 seconds"))
    assert info.value.details["current_version"] == 2
    assert "version" in info.value.message
    stored = app.get(CALLER, memory.id)
    assert stored.content == "Cache TTL is 60 seconds" and stored.version == 2


def test_update_to_content_another_memory_has_is_refused(app: Kenning) -> None:
    a = app.remember(CALLER, MemoryDraft(content="alpha")).record
    b = app.remember(CALLER, MemoryDraft(content="beta")).record
    with pytest.raises(ConflictError) as info:
        app.update(CALLER, b.id, 1, MemoryPatch(content="Alpha"))
    assert info.value.details["existing_id"] == a.id
    assert app.get(CALLER, b.id).content == "beta"


def test_update_refuses_states_that_have_their_own_operations(app: Kenning) -> None:
    memory = app.remember(CALLER, MemoryDraft(content="x1")).record
    with pytest.raises(InvalidInput) as info:
        app.update(CALLER, memory.id, 1, MemoryPatch(state="superseded"))
    assert info.value.field == "state"
    archived = app.update(CALLER, memory.id, 1, MemoryPatch(state="archived")).record
    assert archived.state.value == "archived"
    assert app.update(CALLER, memory.id, 2, MemoryPatch(state="active")).record.state.value == "active"


def test_forget_archives_by_default_and_is_idempotent(app: Kenning) -> None:
    memory = app.remember(CALLER, MemoryDraft(content="Temporary workaround: pin numpy")).record
    assert app.forget(CALLER, memory.id).action == "archived"
    assert app.forget(CALLER, memory.id).action == "already_archived"
    assert app.get(CALLER, memory.id).state.value == "archived"
    actions = [e.action for e in app.deps.store.audit_log(memory.id)]
    assert actions == ["remember", "archive"]


def test_purge_needs_confirmation_then_deletes_and_is_audited(app: Kenning) -> None:
    memory = app.remember(CALLER, MemoryDraft(content="Wrong fact to remove")).record
    with pytest.raises(InvalidInput) as info:
        app.forget(CALLER, memory.id, mode="purge")
    assert info.value.field == "confirm"
    assert app.get(CALLER, memory.id).state.value == "active"
    assert app.forget(CALLER, memory.id, mode="purge", confirm=True, reason="wrong").action == "purged"
    with pytest.raises(NotFound):
        app.get(CALLER, memory.id)
    entry = app.deps.store.audit_log(memory.id)[-1]
    assert entry.action == "purge" and entry.detail["reason"] == "wrong"
    assert "Wrong fact" not in str(entry.detail)


def test_forget_rejects_unknown_modes_and_other_tenants(app: Kenning) -> None:
    memory = app.remember(CALLER, MemoryDraft(content="mine")).record
    with pytest.raises(InvalidInput):
        app.forget(CALLER, memory.id, mode="shred")
    with pytest.raises(NotFound):
        app.forget(OTHER, memory.id, mode="purge", confirm=True)
    assert app.get(CALLER, memory.id).state.value == "active"
