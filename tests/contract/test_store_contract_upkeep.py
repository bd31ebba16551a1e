"""The MemoryStore contract, continued: edges, audit, the supersede and session links, maintenance
(state changes, deletions, consolidation groups, runs, leases), the operator's upkeep (indexes,
vectors, backup and restore). Every backend runs these too; the last test checks that the two files
together call every method of the port, so a method added later cannot be left out."""

from __future__ import annotations

import ast
import inspect
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.adapters.sqlite_store import SqliteStore
from kenning.core.errors import ConflictError, ContractBroken, NotFound
from kenning.core.query import Filters, passes
from kenning.core.records import AuditEntry, Edge, EdgeType, MemoryState, Restatement, Trust
from kenning.ports.store import DumpBatch, GroupChange, MemoryStore, StateChange
from records import audit, record
from store_backends import ID1, ID2, ID3, MODEL, unit

ID4, ID5 = "01J0000000000000000000000D", "01J0000000000000000000000E"
ACTIVE = Filters(namespace="ns", states=(MemoryState.ACTIVE,))


def seeded(store: MemoryStore, *ids: str) -> None:
    for position, memory_id in enumerate(ids):
        store.insert(
            record(memory_id, f"memory number {position} about deploys", created_at=100.0 + position),
            [unit(1, position, 0)],
            audit("remember", memory_id),
        )


def test_an_edge_joins_two_existing_memories_and_is_found_from_either_end(store: MemoryStore) -> None:
    seeded(store, ID1, ID2, ID3)
    store.add_edge(Edge(ID1, ID2, EdgeType.CAUSES, 0.5, 100.0), audit("link", ID1))
    store.add_edge(Edge(ID1, ID2, EdgeType.CAUSES, 0.9, 101.0), audit("link", ID1))  # replaces it
    assert store.edges_of([ID2]) == [Edge(ID1, ID2, EdgeType.CAUSES, 0.9, 101.0)]
    assert store.edges_of([ID1]) == store.edges_of([ID2]) and store.edges_of([ID3]) == []
    with pytest.raises(NotFound):
        store.add_edge(Edge(ID1, ID4, EdgeType.RELATED, 0.5, 100.0), audit("link", ID1))


def test_supersede_links_entities_and_writers_are_found_within_their_namespace(store: MemoryStore) -> None:
    store.insert(record(ID1, "The VPN is vpn1", entities=["vpn"], agent_id="ann"), [], audit("remember", ID1))
    store.insert(
        record(ID2, "The VPN is vpn2", entities=["VPN"], supersedes=ID1, agent_id="ann", created_at=200.0),
        [],
        audit("remember", ID2),
    )
    store.insert(
        record(ID3, "The VPN is vpn3", entities=["vpn"], namespace="other"), [], audit("remember", ID3)
    )
    assert store.superseded_by(ID1) == [ID2] and store.superseded_by(ID2) == []
    assert store.memories_with_entity("ns", "Vpn", 10) == [ID2, ID1]  # newest first, any case
    assert store.memories_with_entity("ns", "vpn", 1) == [ID2]
    assert [r.id for r in store.written_by("ns", "ann", 100.0, 200.0)] == [ID1]  # [since, until)
    assert [r.id for r in store.written_by("ns", "ann", 0.0, 1e9)] == [ID1, ID2]
    assert store.written_by("other", "ann", 0.0, 1e9) == []
    assert store.namespaces() == ["ns", "other"]


def test_audit_entries_keep_the_newest_of_each_memory_and_actions_are_counted(store: MemoryStore) -> None:
    seeded(store, ID1, ID2)
    for at in (110.0, 120.0, 130.0):
        store.touch([ID1], at)
        store.add_edge(
            Edge(ID1, ID2, EdgeType.RELATED, at / 1000, at), AuditEntry(at, "a", "ns", "link", ID1, {})
        )
    entries = store.audit_entries([ID1, ID2], ["link", "remember"], per_memory=2)
    assert [(e.memory_id, e.action, e.at) for e in entries] == [
        (ID2, "remember", 100.0),
        (ID1, "link", 120.0),
        (ID1, "link", 130.0),
    ]
    assert store.count_actions("ns", "a", ["link"], since=115.0) == 2
    assert store.count_actions("ns", "a", ["link", "remember"], since=0.0) == 5
    assert store.count_actions("ns", "someone else", ["link"], since=0.0) == 0


def test_a_restatement_is_kept_with_its_memory_and_counted_once_per_text(store: MemoryStore) -> None:
    seeded(store, ID1)
    current = store.get(ID1)
    assert current is not None
    said = Restatement(
        content="Deploys: memory number 0", agent_id="bob", at=150.0, trust="agent_inferred", similarity=0.93
    )
    for version in (1, 2):
        store.replace(
            replace(current, version=version + 1, access_count=version),
            expected_version=version,
            revector=False,
            vectors=[],
            audit=audit("reinforce", ID1),
            restatement=replace(said, at=150.0 + version),
        )
    kept, count = store.restatements(ID1, 5)
    assert count == 1 and len(kept) == 1
    assert kept[0].content == said.content and kept[0].agent_id == "bob" and kept[0].times == 2


def test_state_changes_and_deletions_skip_whatever_changed_since_it_was_read(store: MemoryStore) -> None:
    seeded(store, ID1, ID2, ID3)
    store.touch([ID2], 150.0)  # used since the maintenance read it (access count 0)
    archive = [
        StateChange(ID1, MemoryState.ARCHIVED, expected_version=1, expected_access=0, detail={"why": "cold"}),
        StateChange(ID2, MemoryState.ARCHIVED, expected_version=1, expected_access=0),
    ]
    assert store.change_states(archive, 200.0, "maintenance", "archive") == [ID1]
    assert store.get(ID1).state is MemoryState.ARCHIVED  # type: ignore[union-attr]
    assert store.get(ID2).state is MemoryState.ACTIVE  # type: ignore[union-attr]
    assert store.audit_log(ID1)[-1].detail == {"from_state": "active", "to_state": "archived", "why": "cold"}
    assert [r.id for r in store.scan("ns", [MemoryState.ARCHIVED])] == [ID1]
    assert [r.id for r in store.scan("ns", [MemoryState.ACTIVE, MemoryState.ARCHIVED])] == [ID1, ID2, ID3]
    stale = StateChange(ID3, MemoryState.ARCHIVED, expected_version=7)
    gone = StateChange(ID3, MemoryState.ARCHIVED, expected_version=1, expected_access=0)
    assert store.delete_many([stale], 210.0, "maintenance", "delete") == []
    assert store.delete_many([gone], 210.0, "maintenance", "delete") == [ID3]
    assert store.get(ID3) is None and store.audit_log(ID3)[-1].action == "delete"
    assert [found for found, _ in store.search_words("deploys", ACTIVE, 10)] == [ID2]


def test_a_consolidation_group_is_written_whole_or_not_at_all(store: MemoryStore) -> None:
    seeded(store, ID1, ID2, ID3)
    summary = record(ID4, "Summary: deploys, twice", type="summary", created_at=300.0)
    sources = [
        StateChange(i, MemoryState.SUPERSEDED, expected_version=1, expected_access=0) for i in (ID1, ID2)
    ]
    group = GroupChange(
        sources=sources,
        audit=audit("consolidate", ID4),
        summary=summary,
        summary_vectors=[unit(1, 1, 0)],
        edges=[
            Edge(ID4, ID1, EdgeType.DERIVED_FROM, 1.0, 300.0),
            Edge(ID4, ID2, EdgeType.DERIVED_FROM, 1.0, 300.0),
        ],
    )
    store.touch([ID2], 250.0)  # one source was used meanwhile: nothing of the group is written
    with pytest.raises(ConflictError):
        store.apply_group(group, 300.0, "maintenance", "consolidate")
    assert store.get(ID4) is None and store.get(ID1).state is MemoryState.ACTIVE  # type: ignore[union-attr]
    fresh = replace(group, sources=[replace(s, expected_access=1) if s.id == ID2 else s for s in sources])
    store.apply_group(fresh, 300.0, "maintenance", "consolidate")
    assert store.get(ID4) == summary
    assert {store.get(i).state for i in (ID1, ID2)} == {MemoryState.SUPERSEDED}  # type: ignore[union-attr]
    assert len(store.edges_of([ID4])) == 2 and store.vectors_of(MODEL, [ID4])


def test_maintenance_runs_are_kept_per_namespace_newest_first_and_a_lease_has_one_holder(
    store: MemoryStore,
) -> None:
    first = store.save_run("ns", 100.0, 110.0, {"archived": 1})
    second = store.save_run("ns", 200.0, 210.0, {"archived": 2})
    store.save_run("other", 300.0, 310.0, {"archived": 3})
    assert second != first
    runs = store.runs("ns", 5)
    assert [(run["id"], run["started_at"], run["archived"]) for run in runs] == [
        (second, 200.0, 2),
        (first, 100.0, 1),
    ]
    assert len(store.runs("ns", 1)) == 1
    assert store.acquire_lease("maintain:ns", "worker-1", now=100.0, ttl_s=60.0) is None
    assert store.acquire_lease("maintain:ns", "worker-2", now=120.0, ttl_s=60.0) == "worker-1"
    assert store.acquire_lease("maintain:ns", "worker-1", now=130.0, ttl_s=60.0) is None  # renewed
    assert store.acquire_lease("maintain:ns", "worker-2", now=191.0, ttl_s=60.0) is None  # expired
    store.release_lease("maintain:ns", "worker-1")  # not the holder: nothing happens
    assert store.acquire_lease("maintain:ns", "worker-1", now=192.0, ttl_s=60.0) == "worker-2"
    store.release_lease("maintain:ns", "worker-2")
    assert store.acquire_lease("maintain:ns", "worker-1", now=193.0, ttl_s=60.0) is None


def test_vectors_are_listed_by_model_and_rebuilt_indexes_find_the_same(store: MemoryStore) -> None:
    seeded(store, ID1, ID2)
    store.insert(record(ID3, "a memory without a vector about deploys"), [], audit("remember", ID3))
    assert store.records_for_vectors(MODEL, all_records=False) == [
        (ID3, "a memory without a vector about deploys")
    ]
    assert [i for i, _ in store.records_for_vectors(MODEL, all_records=True)] == [ID1, ID2, ID3]
    found = store.vectors_of(MODEL, [ID1, ID3, ID4])
    assert list(found) == [ID1] and np.allclose(found[ID1], unit(1, 0, 0).values)
    assert store.vectors_of("other:model", [ID1]) == {}
    before = store.search_words("deploys", ACTIVE, 10)
    assert store.rebuild_text_indexes() == 3
    assert store.search_words("deploys", ACTIVE, 10) == before and store.index_problems() == []


def test_a_backup_restores_every_record_vector_and_conflict(store: MemoryStore, tmp_path: Path) -> None:
    seeded(store, ID1, ID2)
    number = store.record_conflict("ns", ID1, ID2, {"reasons": ["value changed"]}, 150.0)
    copy = tmp_path / "backup.db"
    store.backup_to(copy)
    store.delete(ID1, audit("purge", ID1))
    store.insert(record(ID3, "written after the backup"), [], audit("remember", ID3))
    store.restore_from(copy)
    assert store.get(ID1) is not None and store.get(ID3) is None
    assert list(store.vectors_of(MODEL, [ID1, ID2])) == [ID1, ID2]
    assert [c.id for c in store.conflicts_of([ID1])] == [number]
    hits = store.search_vectors(unit(1, 0, 0).values, MODEL, ACTIVE, 1)
    assert hits.hits[0][0] == ID1  # the restored vectors are searched, not the ones before


def test_a_dump_loads_into_an_empty_store_of_either_backend_and_reads_back_the_same(
    store: MemoryStore, tmp_path: Path
) -> None:
    seeded(store, ID1, ID2, ID3)
    store.add_edge(Edge(ID1, ID2, EdgeType.SUPPORTS, 0.5, 120.0), audit("link", ID1))
    store.record_conflict("ns", ID1, ID3, {"reasons": ["value changed"]}, 150.0)
    store.replace(
        replace(store.get(ID2) or record(ID2, "x"), importance=0.9, version=2),
        expected_version=1,
        revector=False,
        vectors=[],
        audit=audit("update", ID2),
        restatement=Restatement("said again", "b", 130.0, "agent_inferred", 0.97, 1, 130.0, "b"),
    )
    store.save_run("ns", 1.0, 2.0, {"archived": 1})
    before = list(store.dump(batch_size=2))
    assert sum(len(b.records) for b in before) == 3 and sum(len(b.audit) for b in before) == 5
    embedded = SqliteStore(tmp_path / "copy.db")
    assert embedded.load(iter(before), replace=False) == 3
    with pytest.raises(ConflictError, match="not empty"):
        store.load(embedded.dump(), replace=False)
    after = list(embedded.dump(batch_size=2))
    embedded.close()
    assert _flat(after) == _flat(before)
    assert store.load(iter(after), replace=True) == 3  # a restore: replaced whole, nothing doubled
    assert _flat(list(store.dump())) == _flat(before)
    assert store.search_words("deploys", ACTIVE, 10) and store.conflicts_of([ID1])[0].id == 1


def _flat(batches: list[DumpBatch]) -> dict[str, list[object]]:
    """Every row of a dump by kind, with vectors as plain lists (arrays do not compare with ==)."""
    out: dict[str, list[object]] = {}
    for batch in batches:
        for kind in DumpBatch.__slots__:
            rows = getattr(batch, kind)
            if kind == "vectors":
                rows = [(memory_id, v.model, v.values.tolist()) for memory_id, v in rows]
            out.setdefault(kind, []).extend(rows)
    return out


def test_the_contract_calls_every_method_of_the_port() -> None:
    """A method added to the port without a contract test would let a second backend differ there."""
    methods = {
        name for name, _ in inspect.getmembers(MemoryStore, inspect.isfunction) if not name.startswith("_")
    }
    called: set[str] = set()
    for path in Path(__file__).parent.glob("test_store_contract*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = node.func.value
                if isinstance(target, ast.Name) and target.id == "store":
                    called.add(node.func.attr)
    assert len(methods) > 40 and sorted(methods - called) == []


_RECORDS = [
    record(
        f"01J00000000000000000000{n:03d}",
        f"memory {n}",
        namespace=("ns", "other", "third")[n % 3],
        state=(MemoryState.ACTIVE, MemoryState.ARCHIVED, MemoryState.QUARANTINED)[n % 5 % 3],
        type=("fact", "decision", "error")[n % 7 % 3],
        tags=[t for t in ("ops", "db", "ci") if (n >> ("ops", "db", "ci").index(t)) & 1],
        entities=[e for e in ("Kafka", "postgres") if n % (2 + ("Kafka", "postgres").index(e)) == 0],
        agent_id=("ann", "bob")[n % 2],
        session_id=("s1", "s2", None)[n % 3],
        event_time=100.0 + 10 * n,
        trust=tuple(Trust)[n % 4],
    )
    for n in range(24)
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pools=st.lists(st.sampled_from(["ns", "other", "third"]), min_size=1, max_size=3, unique=True),
    states=st.lists(st.sampled_from(list(MemoryState)), min_size=1, max_size=3, unique=True),
    types=st.lists(st.sampled_from(["fact", "decision", "error"]), max_size=2, unique=True),
    tags=st.lists(st.sampled_from(["ops", "db", "ci"]), max_size=2, unique=True),
    entities=st.lists(st.sampled_from(["kafka", "POSTGRES", "Kafka"]), max_size=1),
    agent=st.sampled_from([None, "ann", "bob"]),
    session=st.sampled_from([None, "s1", "s2"]),
    since=st.sampled_from([None, 150.0, 200.0]),
    until=st.sampled_from([None, 250.0, 400.0]),
    trusts=st.lists(st.sampled_from(list(Trust)), max_size=2, unique=True),
)
def test_a_structured_filter_means_the_same_in_the_store_and_in_core(
    store: MemoryStore,
    pools: list[str],
    states: list[MemoryState],
    types: list[str],
    tags: list[str],
    entities: list[str],
    agent: str | None,
    session: str | None,
    since: float | None,
    until: float | None,
    trusts: list[Trust],
) -> None:
    """The rule is written twice (the store's query, core.query.passes for memories reached another
    way): both must keep exactly the same memories."""
    if store.get(_RECORDS[0].id) is None:
        for item in _RECORDS:
            store.insert(item, [], audit("remember", item.id))
    filters = Filters(
        namespace=pools[0],
        also_pools=tuple(pools[1:]),
        states=tuple(states),
        types=tuple(types),
        tags=tuple(tags),
        entities=tuple(entities),
        agent_id=agent,
        session_id=session,
        since=since,
        until=until,
        trusts=tuple(trusts),
    )
    in_store = {found for found, _ in store.search_recent(filters, 100)}
    assert in_store == {item.id for item in _RECORDS if passes(item, filters)}


def test_tag_sets_and_belief_candidates_are_read_without_the_rest(store: MemoryStore) -> None:
    store.insert(record(ID1, "tagged and used", tags=["ops", "db"], created_at=101.0), [], audit("r", ID1))
    store.insert(record(ID2, "untagged, joined by supports"), [], audit("r", ID2))
    store.insert(record(ID3, "an episode, used", type="episode", tags=["ops"]), [], audit("r", ID3))
    store.insert(record(ID4, "archived", tags=["ops"], state=MemoryState.ARCHIVED), [], audit("r", ID4))
    store.insert(record(ID5, "never used, never linked", tags=["ci"], namespace="other"), [], audit("r", ID5))
    store.touch([ID1, ID3, ID4], 150.0)
    store.add_edge(Edge(ID3, ID2, EdgeType.SUPPORTS, 1.0, 150.0), audit("link", ID3))
    assert store.tagged("ns") == [(ID1, ["ops", "db"], 101.0), (ID3, ["ops"], 100.0)]
    assert store.tagged("other") == [(ID5, ["ci"], 100.0)]
    assert [r.id for r in store.belief_candidates("ns", ["fact", "decision"])] == [ID1, ID2]
    assert [r.id for r in store.belief_candidates("ns", ["episode"])] == [ID3]
    assert store.belief_candidates("other", ["fact"]) == [] and store.belief_candidates("ns", []) == []


def test_a_file_that_is_no_backup_is_refused_and_the_store_kept(store: MemoryStore, tmp_path: Path) -> None:
    seeded(store, ID1)
    bogus = tmp_path / "notes.db"
    bogus.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(ContractBroken, match="not a Kenning backup"):
        store.restore_from(bogus)
    assert store.get(ID1) is not None and bogus.read_bytes().startswith(b"this is not")
