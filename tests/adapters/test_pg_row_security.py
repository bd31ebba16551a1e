"""Row-level security on PostgreSQL: the database itself keeps pools apart, so a query of ours that
forgets its pool predicate still returns nothing of a pool outside the transaction's scope."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from kenning.adapters.pg_store import PostgresStore, pools_literal
from kenning.core.errors import NotFound
from kenning.core.records import AuditEntry, Edge, EdgeType
from kenning.ports.store import pools_in_scope
from records import audit, record
from store_backends import ID1, ID2, ID3, MODEL, unit


@pytest.fixture
def pg_store(pg_url: str) -> Iterator[PostgresStore]:
    store = PostgresStore(pg_url)
    # Outside any scope (the operator): one memory in each of two pools, and one more in the first.
    store.insert(
        record(ID1, "alpha plans the launch", namespace="a"), [unit(1, 0, 0)], audit("remember", ID1)
    )
    store.insert(record(ID3, "alpha ships on Monday", namespace="a"), [unit(1, 1, 0)], audit("remember", ID3))
    other = AuditEntry(at=100.0, actor="b", namespace="b", action="remember", memory_id=ID2, detail={})
    store.insert(record(ID2, "beta keeps the secret plan", namespace="b"), [unit(0, 1, 0)], other)
    store.add_edge(Edge(ID1, ID3, EdgeType.SUPPORTS, 1.0, 100.0), audit("link", ID1))
    yield store
    store.close()


def test_reads_without_a_pool_predicate_see_only_the_pools_in_scope(pg_store: PostgresStore) -> None:
    assert pg_store.namespaces() == ["a", "b"]  # the operator sees every pool
    with pools_in_scope(["a"]):
        # Each of these reads by id alone, or over the whole table: no pool predicate in our SQL.
        assert pg_store.namespaces() == ["a"]
        assert pg_store.get(ID2) is None and list(pg_store.get_many([ID1, ID2])) == [ID1]
        assert pg_store.audit_log(ID2) == [] and pg_store.vectors_of(MODEL, [ID2]) == {}
        assert [memory_id for memory_id, _ in pg_store.records_for_vectors(MODEL, all_records=True)] == [
            ID1,
            ID3,
        ]
        assert sum(len(batch.records) for batch in pg_store.dump()) == 2
    with pools_in_scope(["b"]):
        assert pg_store.edges_of([ID1, ID3]) == [] and pg_store.get(ID1) is None
    with pools_in_scope([]):
        assert pg_store.namespaces() == [] and pg_store.stats(None).total == 0


def test_writes_cannot_reach_a_pool_outside_the_scope(pg_store: PostgresStore) -> None:
    with pools_in_scope(["a"]):
        with pytest.raises(NotFound):
            pg_store.delete(ID2, audit("purge", ID2))
        pg_store.touch([ID2], 200.0)
    assert (pg_store.get(ID2) or record(ID2, "")).access_count == 0  # the touch found no row to change


def test_a_raw_query_with_no_predicate_returns_nothing_without_a_scope_and_cannot_write_elsewhere(
    pg_store: PostgresStore, pg_url: str
) -> None:
    with psycopg.connect(pg_url) as conn:
        # Kenning's own role, no pools named: not one row, however the query is written.
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (0,)
        conn.execute("SELECT set_config('kenning.pools', %s, true)", (pools_literal(["a"]),))
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (2,)
        assert conn.execute("SELECT count(*) FROM audit WHERE namespace = 'b'").fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute("UPDATE memories SET namespace = 'b' WHERE id = %s", (ID1,))
    with psycopg.connect(pg_url) as conn:
        conn.execute("SELECT set_config('kenning.pools', %s, true)", (pools_literal(["a"]),))
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute(
                "INSERT INTO maintenance_runs (namespace, started_at, finished_at, report) "
                "VALUES ('b', 1, 2, '{}')"
            )


def test_every_pooled_table_forces_row_level_security(pg_store: PostgresStore) -> None:
    assert pg_store.index_problems() == []


def test_pool_names_reach_the_database_as_they_are(pg_url: str) -> None:
    names = ["team", 'odd"name', "back\\slash", "a,b", "x y"]
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT %s::text[]", (pools_literal(names),)).fetchone() == (names,)
