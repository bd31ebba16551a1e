"""Supersede chains, conflict judgments and links at the service level (fake embedder)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from conftest import CALLER, OTHER
from kenning.core.conflict import ConflictThresholds
from kenning.core.entities import AliasDictionary
from kenning.core.errors import ConflictError, InvalidInput, NotFound
from kenning.core.validation import MemoryDraft
from kenning.services import consistency
from kenning.services.deps import ConflictPolicy
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest


def test_a_supersede_cycle_is_refused_and_nothing_changes(app: Kenning) -> None:
    a = app.remember(CALLER, MemoryDraft(content="alpha plan one")).record
    b = app.remember(CALLER, MemoryDraft(content="beta plan two", supersedes=a.id)).record
    c = app.remember(CALLER, MemoryDraft(content="gamma plan three", supersedes=b.id)).record
    with pytest.raises(InvalidInput, match="cycle"):
        consistency.supersede(app.deps, CALLER, c.id, a.id, reason="test")
    with pytest.raises(InvalidInput, match="itself"):
        consistency.supersede(app.deps, CALLER, c.id, c.id, reason="test")
    assert app.get(CALLER, c.id).state.value == "active"
    assert app.chain(CALLER, c.id).history == [b.id, a.id]
    assert app.chain(CALLER, a.id).superseded_by == [b.id, c.id]


def test_supersedes_across_namespaces_is_not_found(app: Kenning) -> None:
    theirs = app.remember(OTHER, MemoryDraft(content="their fact")).record
    with pytest.raises(NotFound):
        app.remember(CALLER, MemoryDraft(content="my fact", supersedes=theirs.id))
    assert app.status(CALLER).memories_in_namespace == 0


def test_merge_creates_one_memory_that_supersedes_both(app: Kenning) -> None:
    old = app.remember(CALLER, MemoryDraft(content="The cache TTL is 60 seconds", tags=["cache"])).record
    new = app.remember(CALLER, MemoryDraft(content="The cache TTL is 30 seconds", tags=["perf"]))
    [flag] = new.conflicts
    resolution = app.resolve_conflict(
        CALLER,
        flag.id,
        "merge",
        merged_content="The cache TTL is 30 seconds in prod, 60 in staging",
    )
    merged = app.get(CALLER, resolution.merged_id or "")
    assert sorted(merged.tags) == ["cache", "perf"]
    assert {app.get(CALLER, old.id).state.value, app.get(CALLER, new.record.id).state.value} == {"superseded"}
    with pytest.raises(ConflictError):
        app.resolve_conflict(CALLER, flag.id, "keep_both")
    actions = [e.action for e in app.deps.store.audit_log(old.id)]
    assert "resolve_conflict" in actions and "superseded" in actions


def test_resolve_needs_a_winner_from_the_pair(app: Kenning) -> None:
    app.remember(CALLER, MemoryDraft(content="Standup is at 9:30"))
    flagged = app.remember(CALLER, MemoryDraft(content="Standup is at 10:00")).conflicts[0]
    with pytest.raises(InvalidInput, match="winner"):
        app.resolve_conflict(CALLER, flagged.id, "supersede", winner="01J0000000000000000000000Z")
    with pytest.raises(InvalidInput, match="merged_content"):
        app.resolve_conflict(CALLER, flagged.id, "merge")
    assert [c.status for c in app.conflicts(CALLER)] == ["open"]


def test_a_pair_is_flagged_only_once_even_when_the_content_repeats(app: Kenning) -> None:
    app.remember(CALLER, MemoryDraft(content="Deploys happen on Tuesdays"))
    first = app.remember(CALLER, MemoryDraft(content="Deploys happen on Thursdays"))
    assert len(first.conflicts) == 1 and first.conflicts[0].evidence["changed_values"] == {
        "older": ["Tuesdays"],
        "newer": ["Thursdays"],
    }
    again = app.remember(CALLER, MemoryDraft(content="deploys happen on thursdays"))
    assert again.status == "reinforced" and again.conflicts == []
    assert len(app.conflicts(CALLER, status=None)) == 1


def test_links_are_typed_and_validated(app: Kenning) -> None:
    a = app.remember(CALLER, MemoryDraft(content="Disk full on broker")).record
    b = app.remember(CALLER, MemoryDraft(content="Consumer lag alert")).record
    edge = app.link(CALLER, a.id, b.id, "causes", 0.8)
    assert (edge.type.value, edge.weight) == ("causes", 0.8)
    with pytest.raises(InvalidInput, match="supersedes edges"):
        app.link(CALLER, a.id, b.id, "supersedes")
    with pytest.raises(InvalidInput, match="itself"):
        app.link(CALLER, a.id, a.id, "related")
    with pytest.raises(InvalidInput, match="weight"):
        app.link(CALLER, a.id, b.id, "related", 3.0)
    explored = app.explore_graph(CALLER, b.id)
    assert [(s.record.id, s.edge, s.direction) for s in explored.steps] == [(a.id, "causes", "in")]


def test_episodes_are_never_merged_or_flagged(app: Kenning) -> None:
    first = app.remember(CALLER, MemoryDraft(content="Jon: Thanks!", type="turn", session_id="s"))
    second = app.remember(CALLER, MemoryDraft(content="Jon: thanks !!", type="turn", session_id="s"))
    third = app.remember(
        CALLER, MemoryDraft(content="Jon: Deploys are on Tuesday", type="turn", session_id="s")
    )
    fourth = app.remember(
        CALLER, MemoryDraft(content="Jon: Deploys are on Thursday", type="turn", session_id="s")
    )
    assert [o.status for o in (first, second, third, fourth)] == ["stored"] * 4
    assert fourth.conflicts == []


def test_entity_filters_go_through_the_alias_dictionary(make_app: Callable[..., Kenning]) -> None:
    app = make_app()
    app.deps = replace(app.deps, aliases=AliasDictionary.from_mapping({"PostgreSQL": ["postgres", "pg"]}))
    stored = app.remember(CALLER, MemoryDraft(content="Billing runs on pg 16 in eu-west")).record
    assert stored.entities == ["PostgreSQL"]
    found = app.recall(CALLER, RecallRequest(query="billing database", entities=["Postgres"]))
    assert [h.record.id for h in found.hits] == [stored.id]


def test_thresholds_are_per_model_settings(make_app: Callable[..., Kenning]) -> None:
    app = make_app()
    app.remember(CALLER, MemoryDraft(content="Standup is at 9:30"))
    assert app.remember(CALLER, MemoryDraft(content="Standup is at 10:00")).conflicts
    strict = make_app(name="strict.db")
    never = ConflictThresholds(duplicate=1.0, conflict_floor=1.0, related=1.0)
    strict.deps = replace(strict.deps, conflicts=ConflictPolicy(thresholds={"test": never}))
    strict.remember(CALLER, MemoryDraft(content="Standup is at 9:30"))
    assert strict.remember(CALLER, MemoryDraft(content="Standup is at 10:00")).conflicts == []


def test_status_counts_open_conflicts(app: Kenning) -> None:
    app.remember(CALLER, MemoryDraft(content="The cache TTL is 60 seconds"))
    flagged = app.remember(CALLER, MemoryDraft(content="The cache TTL is 30 seconds")).conflicts
    assert app.status(CALLER).open_conflicts == 1
    app.resolve_conflict(CALLER, flagged[0].id, "keep_both")
    assert app.status(CALLER).open_conflicts == 0
