"""Pools seen from a principal: it writes one, reads several, and changes only what it writes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from kenning.core.errors import Forbidden, InsufficientScope, NotFound
from kenning.core.validation import MemoryDraft
from kenning.ports.store import scoped_pools
from kenning.services.deps import Caller
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest
from store_backends import BACKENDS

WRITER = Caller(namespace="team", agent_id="alice")
READER = Caller(namespace="agent:bob", agent_id="bob", read_pools=("team",))
STRANGER = Caller(namespace="agent:eve", agent_id="eve")

# The isolation suite runs on each backend (PostgreSQL adds row-level security under the same rules).
pytestmark = pytest.mark.parametrize("backend", BACKENDS)


def test_a_reader_sees_the_team_pool_and_its_history_but_changes_nothing_there(app: Kenning) -> None:
    old = app.remember(WRITER, MemoryDraft(content="Deploys run on Fridays")).record
    mid = app.remember(WRITER, MemoryDraft(content="Deploys run on Thursdays", supersedes=old.id)).record
    new = app.remember(WRITER, MemoryDraft(content="Deploys run on Tuesdays", supersedes=mid.id)).record
    own = app.remember(READER, MemoryDraft(content="Bob deploys his sandbox by hand")).record
    found = app.recall(READER, RecallRequest(query="when do deploys run", limit=10))
    pools = {hit.record.id: hit.record.namespace for hit in found.hits}
    assert pools.get(new.id) == "team" and pools.get(own.id) == "agent:bob" and old.id not in pools
    assert app.chain(READER, new.id).history == [mid.id, old.id]
    with pytest.raises(Forbidden, match="read but do not write"):
        app.forget(READER, new.id)
    with pytest.raises(Forbidden, match="read but do not write"):
        app.remember(READER, MemoryDraft(content="Deploys run on Mondays", supersedes=new.id))
    assert app.status(READER).memories_in_namespace == 1  # its own pool's count


def test_a_stranger_cannot_tell_a_team_memory_from_a_missing_one(app: Kenning) -> None:
    kept = app.remember(WRITER, MemoryDraft(content="The VPN gateway is vpn.internal")).record
    assert app.recall(STRANGER, RecallRequest(query="vpn gateway", limit=10)).hits == []
    for action in (
        lambda: app.get(STRANGER, kept.id),
        lambda: app.chain(STRANGER, kept.id),
        lambda: app.forget(STRANGER, kept.id),
        lambda: app.explore_graph(STRANGER, kept.id),
    ):
        with pytest.raises(NotFound) as refused:
            action()
        assert "vpn" not in refused.value.message


def test_each_operation_needs_its_scope(app: Kenning) -> None:
    reader = Caller(namespace="team", agent_id="r", scopes=frozenset({"read"}))
    writer = Caller(namespace="team", agent_id="w", scopes=frozenset({"write"}))
    stored = app.remember(writer, MemoryDraft(content="Staging is at staging.internal")).record
    with pytest.raises(InsufficientScope, match="'write'"):
        app.remember(reader, MemoryDraft(content="x"))
    with pytest.raises(InsufficientScope, match="'read'"):
        app.recall(writer, RecallRequest(query="staging"))
    with pytest.raises(InsufficientScope, match="'admin'"):
        app.forget(writer, stored.id, mode="purge", confirm=True)
    assert app.get(reader, stored.id).id == stored.id


def test_a_recall_can_keep_to_some_of_the_pools_it_reads_and_to_no_other(app: Kenning) -> None:
    from kenning.core.errors import InvalidInput

    team = app.remember(WRITER, MemoryDraft(content="Releases are cut on Mondays")).record
    own = app.remember(READER, MemoryDraft(content="Bob cuts his sandbox releases on Mondays")).record
    every = {hit.record.id for hit in app.recall(READER, RecallRequest(limit=10)).hits}
    only_team = {hit.record.id for hit in app.recall(READER, RecallRequest(limit=10, pools=("team",))).hits}
    assert {team.id, own.id} <= every and only_team == {team.id}
    with pytest.raises(InvalidInput, match="pools"):
        app.recall(STRANGER, RecallRequest(limit=10, pools=("team",)))


def test_an_admin_of_a_pool_cannot_back_up_restore_or_switch_on_deletion(
    app: Kenning, tmp_path: Path
) -> None:
    from kenning.core.errors import InvalidInput
    from kenning.services.lifecycle import MaintenanceRequest

    admin = Caller(namespace="team", agent_id="lead", operator=True)  # as a token with the admin scope
    with pytest.raises(Forbidden):
        app.backup(admin, tmp_path / "copy.db")
    with pytest.raises(Forbidden):
        app.restore(admin, tmp_path / "copy.db")
    with pytest.raises(InvalidInput, match="deletion is off"):
        app.maintain(admin, MaintenanceRequest(dry_run=False, policy="delete"))


class _ScopeSpy:
    """A store that notes the pools each call was bound to, then passes the call on."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.scopes: set[tuple[str, ...] | None] = set()

    def __getattr__(self, name: str) -> object:
        method = getattr(self.inner, name)

        def call(*args: object, **kwargs: object) -> object:
            self.scopes.add(scoped_pools())
            return method(*args, **kwargs)

        return call


def test_every_store_call_of_a_principal_is_bound_to_its_pools_and_the_console_to_none(
    make_app: Callable[..., Kenning],
) -> None:
    plain = make_app()
    spy = _ScopeSpy(plain.deps.store)
    app = Kenning(replace(plain.deps, store=spy))  # type: ignore[arg-type]
    kept = app.remember(WRITER, MemoryDraft(content="Releases are cut on Wednesdays")).record
    app.recall(READER, RecallRequest(query="when are releases cut"))
    app.get(READER, kept.id)
    assert spy.scopes == {("team",), ("agent:bob", "team")}
    spy.scopes.clear()
    app.status(Caller(namespace="team", agent_id="cli", operator=True, console=True))
    assert spy.scopes == {None}
