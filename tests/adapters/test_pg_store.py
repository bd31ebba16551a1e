"""What the PostgreSQL store does beyond the shared contract: word statistics kept exact by the
database, the bounded word search of a large pool, migrations of an older schema, and several server
processes on one database."""

from __future__ import annotations

from dataclasses import replace

import psycopg
import pytest

from kenning.adapters import pg_store as pg_store_module
from kenning.adapters.pg_schema import COUNT_WORDS, MIGRATIONS
from kenning.adapters.pg_store import PostgresStore
from kenning.core.query import Filters
from kenning.core.records import AuditEntry, MemoryState
from kenning.ports.store import StateChange, pools_in_scope
from records import audit, record
from store_backends import ID1, ID2, ID3, MODEL, unit

ACTIVE = Filters(namespace="ns")


def _counts(url: str) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    with psycopg.connect(url) as conn:
        conn.execute("SELECT set_config('kenning.all_pools', 'on', true)")
        stats = conn.execute("SELECT namespace, lexeme, docs FROM word_stats WHERE docs > 0 ORDER BY 1, 2")
        totals = conn.execute("SELECT namespace, docs, words FROM word_totals WHERE docs > 0 ORDER BY 1")
        return stats.fetchall(), totals.fetchall()


def _recounted(url: str) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    with psycopg.connect(url) as conn:
        conn.execute("SELECT set_config('kenning.all_pools', 'on', true)")
        conn.execute(COUNT_WORDS)
        conn.commit()
    return _counts(url)


def test_word_statistics_stay_what_a_fresh_count_gives_through_every_kind_of_write(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.insert(record(ID1, "deploys run on Fridays", tags=["ops"]), [unit(1, 0, 0)], audit("remember", ID1))
    store.insert(record(ID2, "deploys of the billing API", namespace="other"), [], audit("remember", ID2))
    store.insert(record(ID3, "billing runs nightly"), [], audit("remember", ID3))
    changed = replace(record(ID1, "deploys run on Tuesdays", tags=["ops", "deploy"]), version=2)
    store.replace(changed, expected_version=1, revector=False, vectors=[], audit=audit("update", ID1))
    store.change_states([StateChange(ID3, MemoryState.ARCHIVED, 1)], 200.0, "a", "archive")
    store.delete(ID2, audit("purge", ID2))
    kept = _counts(pg_url)
    assert ("ns", "tuesday", 1) in kept[0] and not any(row[1] == "friday" for row in kept[0])
    assert kept == _recounted(pg_url) and [row[:2] for row in kept[1]] == [("ns", 2)]
    assert store.stats(None).index_rows == {"word_postings": sum(int(str(row[2])) for row in kept[0])}
    dumped = list(store.dump())
    store.load(iter(dumped), replace=True)  # a bulk load counts once, at its end
    assert _counts(pg_url) == kept
    store.close()


def test_a_database_at_schema_1_is_migrated_and_its_word_statistics_counted(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.insert(record(ID1, "the quarterly report is due Monday"), [], audit("remember", ID1))
    store.close()
    with psycopg.connect(pg_url) as conn:  # back to schema 1: no statistics tables, version 1
        conn.execute("SELECT set_config('kenning.all_pools', 'on', true)")
        conn.execute("DROP TRIGGER memories_count_words ON memories")
        conn.execute("DROP TABLE word_postings, word_stats, word_totals")
        conn.execute("CREATE INDEX memories_words ON memories USING gin (words)")
        conn.execute("DROP FUNCTION kenning_count_words")
        conn.execute("DROP TABLE char_postings")
        conn.execute("DELETE FROM schema_version WHERE version > 1")
    reopened = PostgresStore(pg_url)
    assert reopened.schema_version == len(MIGRATIONS) == 4
    assert [hit[0] for hit in reopened.search_words("quarterly report", ACTIVE, 5)] == [ID1]
    reopened.close()


def test_a_write_acknowledged_by_one_process_is_read_by_another_at_once(pg_url: str) -> None:
    first, second = PostgresStore(pg_url), PostgresStore(pg_url)
    first.insert(record(ID1, "the VPN gateway is vpn2"), [unit(1, 0, 0)], audit("remember", ID1))
    assert second.get(ID1) is not None
    assert [hit[0] for hit in second.search_words("vpn gateway", ACTIVE, 5)] == [ID1]
    assert second.search_vectors(unit(1, 0, 0).values, MODEL, ACTIVE, 5).hits[0][0] == ID1
    second.change_states([StateChange(ID1, MemoryState.ARCHIVED, 1)], 200.0, "a", "archive")
    assert first.search_vectors(unit(1, 0, 0).values, MODEL, ACTIVE, 5).hits == []
    first.close()
    second.close()


def test_an_access_to_a_row_another_transaction_holds_is_kept_and_lands_within_its_pools(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.insert(record(ID1, "the VPN gateway is vpn2", namespace="a"), [], audit("remember", ID1))
    store.insert(record(ID2, "beta's secret plan", namespace="b"), [], audit("remember", ID2))
    with psycopg.connect(pg_url) as holder:  # another process, in the middle of writing ID1
        holder.execute("SELECT set_config('kenning.all_pools', 'on', true)")
        holder.execute("SELECT 1 FROM memories WHERE id = %s FOR UPDATE", (ID1,))
        with pools_in_scope(["a"]):
            store.touch([ID1, ID2], 300.0)  # returns at once: ID1 is held, ID2 is not a's to touch
        holder.rollback()
    assert (store.get(ID1) or record(ID1, "")).access_count == 0
    with pools_in_scope(["b"]):  # a write in another pool's call applies what was kept, under a's pools
        entry = AuditEntry(at=300.0, actor="b", namespace="b", action="remember", memory_id=ID3, detail={})
        store.insert(record(ID3, "gamma", namespace="b"), [], entry)
    assert (store.get(ID1) or record(ID1, "")).access_count == 1
    assert (store.get(ID2) or record(ID2, "")).access_count == 0
    store.close()


def test_a_large_pool_measures_the_spread_of_cosine_on_a_sample_and_ranks_alike(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = PostgresStore(pg_url)
    for n in range(60):
        memory_id = f"01J00000000000000000000{n:03d}"
        store.insert(
            record(memory_id, f"memory {n}"), [unit(1, n / 10, (n % 7) / 3)], audit("remember", memory_id)
        )
    query = unit(1, 2, 0).values
    exact = store.search_vectors(query, MODEL, ACTIVE, 5)
    monkeypatch.setattr(pg_store_module, "_SPREAD_SAMPLE", 20)  # 60 memories is now a large pool
    sampled = store.search_vectors(query, MODEL, ACTIVE, 5)
    assert sampled.hits == exact.hits and 0.0 <= sampled.std <= 1.0 and -1.0 <= sampled.mean <= 1.0
    assert store.search_vectors(query, MODEL, ACTIVE, 5) == sampled  # the same sample every time
    store.close()
