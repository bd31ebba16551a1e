"""The MemoryStore contract. Every backend runs these; add a backend to BACKENDS to include it."""

from __future__ import annotations

import itertools
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kenning.adapters.sqlite_schema import LATEST_VERSION, MIGRATIONS, migrate
from kenning.adapters.sqlite_store import SqliteStore
from kenning.core import bm25
from kenning.core.errors import ConflictError, ContractBroken, NotFound
from kenning.core.query import Filters
from kenning.core.records import MemoryState, Trust
from kenning.ports.store import MemoryStore, StoredVector
from records import audit, record
from store_backends import ID1, ID2, ID3, MODEL, unit


def test_insert_then_get_round_trips_every_field(store: MemoryStore) -> None:
    original = record(
        ID1,
        "Deploys happen on Tuesdays",
        tags=["ops", "proj:ci"],
        entities=["GitHub"],
        context="prod",
        importance=0.9,
        source="chat",
        subject="ann",
        session_id="s1",
        valid_from=50.0,
        valid_to=500.0,
        metadata={"k": [1, 2]},
    )
    store.insert(original, [unit(1, 0, 0)], audit("remember", ID1))
    assert store.get(ID1) == original
    assert store.get_many([ID1, ID2]) == {ID1: original}
    assert store.find_by_hash("ns", original.content_hash) == original
    assert store.find_by_hash("other", original.content_hash) is None


def test_same_content_twice_in_one_namespace_is_a_conflict_and_changes_nothing(store: MemoryStore) -> None:
    store.insert(record(ID1, "same"), [], audit("remember", ID1))
    with pytest.raises(ConflictError):
        store.insert(record(ID2, "same"), [], audit("remember", ID2))
    assert store.get(ID2) is None
    assert [e.action for e in store.audit_log(ID2)] == []
    store.insert(record(ID2, "same", namespace="elsewhere"), [], audit("remember", ID2))
    assert store.get(ID2) is not None


def test_replace_checks_the_version_and_leaves_the_record_alone_on_mismatch(store: MemoryStore) -> None:
    store.insert(record(ID1, "port is 5432"), [unit(1, 0, 0)], audit("remember", ID1))
    stale = replace(record(ID1, "port is 6543"), version=2)
    with pytest.raises(ConflictError) as info:
        store.replace(
            stale, expected_version=7, revector=True, vectors=[unit(0, 1, 0)], audit=audit("update", ID1)
        )
    assert info.value.details["current_version"] == 1
    stored = store.get(ID1)
    assert stored is not None and stored.content == "port is 5432"
    store.replace(
        stale, expected_version=1, revector=True, vectors=[unit(0, 1, 0)], audit=audit("update", ID1)
    )
    stored = store.get(ID1)
    assert stored is not None and stored.content == "port is 6543" and stored.version == 2
    assert store.search_words("6543", Filters(namespace="ns"), 5)[0][0] == ID1
    assert store.search_words("5432", Filters(namespace="ns"), 5) == []
    best_id, best_score = store.search_vectors(unit(0, 1, 0).values, MODEL, Filters(namespace="ns"), 5).hits[
        0
    ]
    assert best_id == ID1
    assert best_score == pytest.approx(1.0)


def test_each_vector_kind_of_a_query_is_searched_at_once_as_it_would_be_alone(store: MemoryStore) -> None:
    other = "test:model:context"
    store.insert(
        record(ID1, "port is 5432"),
        [unit(1, 0, 0), StoredVector(other, unit(0, 1, 0).values)],
        audit("remember", ID1),
    )
    store.insert(record(ID2, "port is 6543"), [unit(0, 1, 0)], audit("remember", ID2))  # no context kind
    query, where = unit(1, 1, 0).values, Filters(namespace="ns")
    both = store.search_vector_kinds(query, [MODEL, other, "test:unknown"], where, 5, include=[ID2])
    assert set(both) == {MODEL, other, "test:unknown"}
    for model, found in both.items():
        alone = store.search_vectors(query, model, where, 5, include=[ID2])
        assert (found.hits, found.extra) == (alone.hits, alone.extra)
    assert sorted(i for i, _ in both[MODEL].hits) == [ID1, ID2]
    assert [i for i, _ in both[other].hits] == [ID1] and both["test:unknown"].hits == []


def test_replace_of_a_missing_record_is_not_found(store: MemoryStore) -> None:
    with pytest.raises(NotFound):
        store.replace(record(ID1, "x"), expected_version=1, revector=False, vectors=[], audit=audit("u", ID1))


def test_delete_removes_record_and_indexes_but_keeps_the_audit_trail(store: MemoryStore) -> None:
    store.insert(record(ID1, "ephemeral secret plan"), [unit(1, 0, 0)], audit("remember", ID1))
    store.delete(ID1, audit("purge", ID1))
    assert store.get(ID1) is None
    assert store.search_words("ephemeral", Filters(namespace="ns"), 5) == []
    assert store.search_vectors(unit(1, 0, 0).values, MODEL, Filters(namespace="ns"), 5).hits == []
    assert [e.action for e in store.audit_log(ID1)] == ["remember", "purge"]
    with pytest.raises(NotFound):
        store.delete(ID1, audit("purge", ID1))


def test_searches_stay_inside_the_namespace_and_state(store: MemoryStore) -> None:
    store.insert(record(ID1, "redis cache eviction"), [unit(1, 0, 0)], audit("r", ID1))
    store.insert(
        record(ID2, "redis cache eviction policy", namespace="other"), [unit(1, 0, 0)], audit("r", ID2)
    )
    store.insert(
        record(ID3, "redis cache sizing", state=MemoryState.ARCHIVED), [unit(1, 0, 0)], audit("r", ID3)
    )
    active = Filters(namespace="ns")
    assert [i for i, _ in store.search_words("redis", active, 10)] == [ID1]
    assert [i for i, _ in store.search_vectors(unit(1, 0, 0).values, MODEL, active, 10).hits] == [ID1]
    both = Filters(namespace="ns", states=(MemoryState.ACTIVE, MemoryState.ARCHIVED))
    assert {i for i, _ in store.search_words("redis", both, 10)} == {ID1, ID3}
    assert {i for i, _ in store.search_vectors(unit(1, 0, 0).values, MODEL, both, 10).hits} == {ID1, ID3}


def test_structured_filters_apply_to_every_channel(store: MemoryStore) -> None:
    store.insert(
        record(ID1, "use ruff for lint", tags=["lang:python"], type="decision", event_time=10.0),
        [unit(1, 0, 0)],
        audit("r", ID1),
    )
    store.insert(
        record(
            ID2, "use eslint for lint", tags=["lang:js"], type="fact", event_time=20.0, entities=["ESLint"]
        ),
        [unit(0.9, 0.1, 0)],
        audit("r", ID2),
    )
    by_tag = Filters(namespace="ns", tags=("lang:js",))
    assert [i for i, _ in store.search_words("lint", by_tag, 10)] == [ID2]
    assert [i for i, _ in store.search_vectors(unit(1, 0, 0).values, MODEL, by_tag, 10).hits] == [ID2]
    by_type = Filters(namespace="ns", types=("decision",))
    assert [i for i, _ in store.search_words("lint", by_type, 10)] == [ID1]
    by_time = Filters(namespace="ns", since=15.0)
    assert [i for i, _ in store.search_vectors(unit(1, 0, 0).values, MODEL, by_time, 10).hits] == [ID2]
    by_entity = Filters(namespace="ns", entities=("eslint",))
    assert [i for i, _ in store.search_words("lint", by_entity, 10)] == [ID2]
    assert [i for i, _ in store.search_recent(Filters(namespace="ns"), 10)] == [ID2, ID1]


def test_word_search_finds_the_best_that_pass_a_filter_that_most_matches_fail(store: MemoryStore) -> None:
    # Sixty memories say "lint" once to ten times among the same number of words (more is better);
    # only the six weakest are tagged. Then forty that tie exactly, written in the reverse of id order.
    for n in range(60):
        text = " ".join(["lint"] * (n % 10 + 1) + ["word"] * (10 - n % 10) + [f"w{n}"])
        tags = ["weak"] if n % 10 == 0 and n < 60 else []
        memory_id = f"01J00000000000000000001{n:03d}"
        store.insert(record(memory_id, text, tags=tags), [], audit("r", memory_id))
    for n in reversed(range(40)):
        memory_id = f"01J00000000000000000002{n:03d}"
        store.insert(record(memory_id, f"tie z{n:02d}", tags=["tie"]), [], audit("r", memory_id))
    weak = store.search_words("lint", Filters(namespace="ns", tags=("weak",)), 3)
    assert len(weak) == 3 and all(i.startswith("01J00000000000000000001") for i, _ in weak)
    assert [s for _, s in weak] == sorted((s for _, s in weak), reverse=True)
    best = store.search_words("lint", Filters(namespace="ns"), 4)
    assert {int(i[-3:]) % 10 for i, _ in best} == {9}  # the ten-times ones, none of the tagged
    tied = store.search_words("tie", Filters(namespace="ns", tags=("tie",)), 3)
    assert [i for i, _ in tied] == [f"01J00000000000000000002{n:03d}" for n in range(3)]


def test_vector_search_orders_by_cosine_and_only_uses_the_asked_model(store: MemoryStore) -> None:
    store.insert(record(ID1, "a"), [unit(1, 0, 0)], audit("r", ID1))
    store.insert(record(ID2, "b"), [unit(1, 1, 0)], audit("r", ID2))
    store.insert(
        record(ID3, "c"), [StoredVector(model="other:model", values=unit(1, 0, 0).values)], audit("r", ID3)
    )
    hits = store.search_vectors(unit(1, 0, 0).values, MODEL, Filters(namespace="ns"), 10).hits
    assert [i for i, _ in hits] == [ID1, ID2]
    assert hits[0][1] == pytest.approx(1.0) and hits[1][1] == pytest.approx(0.7071, abs=1e-3)


def test_cjk_channel_matches_without_spaces_including_one_and_two_characters(store: MemoryStore) -> None:
    store.insert(record(ID1, "我们的数据库端口是5432"), [], audit("r", ID1))
    store.insert(record(ID2, "東京のオフィスは月曜日に休みです"), [], audit("r", ID2))
    store.insert(record(ID3, "배포는 화요일에 합니다"), [], audit("r", ID3))
    ns = Filters(namespace="ns")
    assert store.search_cjk("数据库", ns, 5)[0][0] == ID1
    assert store.search_cjk("端口", ns, 5)[0][0] == ID1
    assert store.search_cjk("東京", ns, 5)[0][0] == ID2
    assert store.search_cjk("배포", ns, 5)[0][0] == ID3
    assert [i for i, _ in store.search_cjk("库", ns, 5)] == [ID1]
    assert store.search_cjk("plain english", ns, 5) == []


def test_touch_counts_accesses_without_changing_the_version(store: MemoryStore) -> None:
    store.insert(record(ID1, "x"), [], audit("r", ID1))
    store.touch([ID1, ID1], 500.0)
    stored = store.get(ID1)
    assert stored is not None
    assert (stored.access_count, stored.last_accessed_at, stored.version) == (1, 500.0, 1)


def test_stats_report_counts_and_missing_vectors(store: MemoryStore) -> None:
    store.insert(record(ID1, "x"), [unit(1, 0, 0)], audit("r", ID1))
    store.insert(record(ID2, "y", state=MemoryState.ARCHIVED), [], audit("r", ID2))
    stats = store.stats(MODEL)
    assert stats.total == 2
    assert stats.by_state == {"active": 1, "archived": 1}
    assert stats.vectors_by_model == {MODEL: 1}
    assert all(rows == 2 for rows in stats.index_rows.values())  # each derived index has each record
    assert stats.backend  # status names it
    assert any("1 memories have no vector" in problem for problem in stats.health)


def test_audit_log_is_append_only(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.db")
    store.insert(record(ID1, "x"), [], audit("remember", ID1))
    store.close()
    conn = sqlite3.connect(tmp_path / "a.db")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM audit")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE audit SET actor = 'mallory'")
    conn.close()


def test_a_second_connection_sees_new_and_archived_vectors(tmp_path: Path) -> None:
    first, second = SqliteStore(tmp_path / "shared.db"), SqliteStore(tmp_path / "shared.db")
    try:
        ns = Filters(namespace="ns")
        assert second.search_vectors(unit(1, 0, 0).values, MODEL, ns, 5).hits == []
        first.insert(record(ID1, "x"), [unit(1, 0, 0)], audit("r", ID1))
        assert [i for i, _ in second.search_vectors(unit(1, 0, 0).values, MODEL, ns, 5).hits] == [ID1]
        stored = first.get(ID1)
        assert stored is not None
        first.replace(
            replace(stored, state=MemoryState.ARCHIVED, version=2),
            expected_version=1,
            revector=False,
            vectors=[],
            audit=audit("archive", ID1),
        )
        assert second.search_vectors(unit(1, 0, 0).values, MODEL, ns, 5).hits == []
    finally:
        first.close()
        second.close()


def test_schema_version_is_recorded_and_reopening_does_not_migrate_twice(tmp_path: Path) -> None:
    SqliteStore(tmp_path / "v.db").close()
    store = SqliteStore(tmp_path / "v.db")
    assert store.schema_version == LATEST_VERSION
    store.close()
    conn = sqlite3.connect(tmp_path / "v.db")
    assert conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] == LATEST_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_a_failing_vector_write_rolls_back_the_whole_record(store: MemoryStore) -> None:
    store.insert(record(ID1, "first"), [unit(1, 0, 0)], audit("remember", ID1))
    wrong_dim = StoredVector(model=MODEL, values=np.ones(5, dtype=np.float32))
    with pytest.raises(ContractBroken):
        store.insert(record(ID2, "second with a broken vector"), [wrong_dim], audit("remember", ID2))
    assert store.get(ID2) is None
    assert store.search_words("broken", Filters(namespace="ns"), 5) == []
    assert store.audit_log(ID2) == []
    assert store.stats(MODEL).total == 1


def test_vector_search_reports_the_score_scale_and_included_ids(store: MemoryStore) -> None:
    store.insert(record(ID1, "a"), [unit(1, 0, 0)], audit("r", ID1))
    store.insert(record(ID2, "b"), [unit(0, 1, 0)], audit("r", ID2))
    store.insert(record(ID3, "c", namespace="other"), [unit(1, 0, 0)], audit("r", ID3))
    found = store.search_vectors(unit(1, 0, 0).values, MODEL, Filters(namespace="ns"), 1, include=[ID2, ID3])
    assert [i for i, _ in found.hits] == [ID1]
    assert found.extra == {ID2: pytest.approx(0.0, abs=1e-6)}
    assert found.mean == pytest.approx(0.5) and found.std == pytest.approx(0.5)


def test_an_old_store_is_migrated_in_place_without_losing_rows(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")
    first = MIGRATIONS[0]
    assert isinstance(first, str)
    conn.executescript(first)
    conn.execute("INSERT INTO schema_version VALUES (1, 0)")
    conn.close()
    old = SqliteStore(tmp_path / "old.db")
    old.insert(record(ID1, "kept across the upgrade"), [], audit("remember", ID1))
    assert old.schema_version == LATEST_VERSION
    old.close()
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    assert migrate(conn) == LATEST_VERSION
    versions = [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version")]
    assert versions == list(range(1, LATEST_VERSION + 1))
    conn.close()
    reopened = SqliteStore(tmp_path / "old.db")
    assert reopened.get(ID1) is not None
    reopened.close()


def test_regression_quick_check_null_value_in_memory_tags(store: MemoryStore, tmp_path: Path) -> None:
    """SQLite 3.40 reported 'NULL value in memory_tags.seq' for healthy stores with tags (schema v4 fix)."""
    store.insert(record(ID1, "tagged", tags=["ops", "proj:x"], entities=["Kafka"]), [], audit("r", ID1))
    assert store.index_problems() == []


def test_subjects_named_finds_subjects_of_the_namespace_only_ignoring_case(store: MemoryStore) -> None:
    store.insert(record(ID1, "likes tea", subject="Melanie"), [], audit("remember", ID1))
    store.insert(
        record(ID2, "likes coffee", namespace="other", subject="Caroline"), [], audit("remember", ID2)
    )
    assert store.subjects_named("ns", ["pets", "MELANIE", "caroline"]) == ["melanie"]
    assert store.subjects_named("other", ["caroline"]) == ["caroline"]


def test_session_tail_is_the_newest_turns_of_a_session_oldest_first(store: MemoryStore) -> None:
    # Written out of order: the tail follows event time, not write order.
    store.insert(record(ID2, "second", session_id="s1", event_time=20.0), [], audit("remember", ID2))
    store.insert(record(ID1, "first", session_id="s1", event_time=10.0), [], audit("remember", ID1))
    store.insert(record(ID3, "third", session_id="s1", event_time=30.0), [], audit("remember", ID3))
    assert [r.content for r in store.session_tail("ns", "s1", 2)] == ["second", "third"]
    assert [r.content for r in store.session_tail("ns", "s1", 5)] == ["first", "second", "third"]
    assert store.session_tail("ns", "other", 2) == []
    assert store.session_tail("elsewhere", "s1", 2) == []


def test_put_vectors_adds_and_replaces_what_later_searches_see(store: MemoryStore) -> None:
    window = f"{MODEL}#window"
    ns = Filters(namespace="ns")
    store.insert(record(ID1, "first"), [unit(1, 0, 0)], audit("remember", ID1))
    store.insert(record(ID2, "second"), [unit(0, 1, 0)], audit("remember", ID2))
    assert store.search_vectors(unit(1, 0, 0).values, window, ns, 5).hits == []
    store.put_vectors(ID1, [replace(unit(1, 0, 0), model=window)])  # a search already built the matrix
    assert [i for i, _ in store.search_vectors(unit(1, 0, 0).values, window, ns, 5).hits] == [ID1]
    store.put_vectors(ID1, [replace(unit(0, 0, 1), model=window)])
    hits = store.search_vectors(unit(0, 0, 1).values, window, ns, 5).hits
    assert [i for i, _ in hits] == [ID1]  # replaced, not added twice
    assert hits[0][1] == pytest.approx(1.0)
    assert [i for i, _ in store.search_vectors(unit(0, 1, 0).values, MODEL, ns, 1).hits] == [ID2]
    with pytest.raises(NotFound):
        store.put_vectors(ID3, [unit(1, 0, 0)])


def test_conflict_numbers_count_within_a_namespace(store: MemoryStore) -> None:
    ids = [f"01J00000000000000000000{i:03d}" for i in range(6)]
    for memory_id, namespace in zip(ids, ["a", "a", "b", "b", "a", "a"], strict=True):
        store.insert(record(memory_id, f"memory {memory_id}", namespace=namespace), [], audit("x", memory_id))
    assert store.record_conflict("a", ids[0], ids[1], {}, 1.0) == 1
    assert store.record_conflict("b", ids[2], ids[3], {}, 1.0) == 1  # b's first, whatever a holds
    assert store.record_conflict("a", ids[4], ids[5], {}, 1.0) == 2
    assert store.record_conflict("a", ids[1], ids[0], {}, 1.0) is None  # the same pair again
    first_of_b = store.get_conflict("b", 1)
    assert first_of_b is not None and {first_of_b.first_id, first_of_b.second_id} == {ids[2], ids[3]}
    assert store.get_conflict("b", 2) is None
    store.close_conflict("b", 1, "keep_both", 2.0, audit("resolve_conflict", ids[2]))
    assert store.count_conflicts("a", "open") == 2 and store.count_conflicts("b", "open") == 0
    with pytest.raises(ConflictError):
        store.close_conflict("b", 2, "keep_both", 2.0, audit("resolve_conflict", ids[2]))


def test_conflicts_recorded_before_numbering_are_numbered_per_namespace(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")
    for version in range(1, 9):
        script = MIGRATIONS[version - 1]
        assert isinstance(script, str)
        conn.executescript(script)
        conn.execute("INSERT INTO schema_version VALUES (?, 0)", (version,))
    for namespace, pair in (("a", "12"), ("b", "34"), ("a", "56")):
        conn.execute(
            "INSERT INTO conflicts (namespace, first_id, second_id, evidence, status, created_at) "
            "VALUES (?, ?, ?, '{}', 'open', 0)",
            (namespace, pair[0], pair[1]),
        )
    conn.close()
    store = SqliteStore(tmp_path / "old.db")
    assert [c.id for c in store.conflicts("a", status=None, limit=10, offset=0)] == [1, 2]
    assert [c.id for c in store.conflicts("b", status=None, limit=10, offset=0)] == [1]
    store.close()


def test_a_namespace_s_stats_count_nothing_of_other_namespaces(store: MemoryStore) -> None:
    store.insert(record(ID1, "mine"), [unit(1, 0, 0)], audit("r", ID1))
    store.insert(record(ID2, "theirs", namespace="other"), [unit(0, 1, 0)], audit("r", ID2))
    store.insert(record(ID3, "theirs too", namespace="other"), [unit(0, 0, 1)], audit("r", ID3))
    mine = store.stats(MODEL, "ns")
    assert mine.total == 1 and all(rows == 1 for rows in mine.index_rows.values())
    assert mine.vectors_by_model == {MODEL: 1} and mine.by_namespace == {"ns": 1}
    assert not mine.health
    # its own bytes: "mine" and its tags, entities and metadata as stored, and one 3-float vector
    assert mine.record_bytes == len("mine") + len("[]") * 2 + len("{}") + 3 * 4
    assert store.stats(MODEL, "other").record_bytes > mine.record_bytes


def test_a_namespace_s_word_scores_do_not_move_when_another_namespace_writes(store: MemoryStore) -> None:
    store.insert(record(ID1, "postgres backups run nightly"), [], audit("r", ID1))
    store.insert(record(ID2, "the redis cache is warmed at start"), [], audit("r", ID2))
    mine = Filters(namespace="ns")
    before = store.search_words("postgres nightly redis", mine, 10)
    for index in range(30):  # another tenant writes the same words, many times over
        other_id = f"01J00000000000000000000{index:03d}"
        store.insert(
            record(other_id, f"postgres postgres nightly {index}", namespace="other"),
            [],
            audit("r", other_id),
        )
    assert store.search_words("postgres nightly redis", mine, 10) == before
    assert [i for i, _ in before] == [ID1, ID2]
    assert store.search_words("postgres", Filters(namespace="nobody-wrote-here"), 10) == []


def test_shared_text_tables_of_schema_9_are_split_per_namespace(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    store.insert(record(ID1, "kafka brokers on three nodes"), [], audit("r", ID1))
    store.insert(record(ID2, "kafka topics are compacted", namespace="other"), [], audit("r", ID2))
    store.close()
    conn = sqlite3.connect(path, isolation_level=None)  # back to schema 9: one shared pair of tables
    conn.execute(
        "CREATE VIRTUAL TABLE fts_words USING fts5 (content, tags, entities, context, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    conn.execute("CREATE VIRTUAL TABLE fts_trigram USING fts5 (content, tokenize = 'trigram')")
    for number in (1, 2):
        conn.execute(
            "INSERT INTO fts_words (rowid, content, tags, entities, context) "
            f"SELECT rowid, content, tags, entities, context FROM fts_words_{number}"
        )
        conn.execute(
            f"INSERT INTO fts_trigram (rowid, content) SELECT rowid, content FROM fts_trigram_{number}"
        )
        conn.execute(f"DROP TABLE fts_words_{number}_vocab")
        conn.execute(f"DROP TABLE fts_words_{number}")
        conn.execute(f"DROP TABLE fts_trigram_{number}")
    conn.execute("DROP TABLE text_indexes")
    conn.execute("DELETE FROM schema_version WHERE version > 9")
    conn.close()
    store = SqliteStore(path)
    try:
        assert store.schema_version == LATEST_VERSION
        assert [i for i, _ in store.search_words("kafka", Filters(namespace="ns"), 10)] == [ID1]
        assert [i for i, _ in store.search_words("kafka", Filters(namespace="other"), 10)] == [ID2]
        stats = store.stats(None)
        assert stats.index_rows == {"text_rows": 2, "trigram_rows": 2} and not stats.health
    finally:
        store.close()


def test_a_conflict_number_is_never_given_twice_even_after_a_purge(store: MemoryStore) -> None:
    ids = [f"01J00000000000000000000{i:03d}" for i in range(6)]
    for memory_id in ids:
        store.insert(record(memory_id, f"memory {memory_id}"), [], audit("x", memory_id))
    assert store.record_conflict("ns", ids[0], ids[1], {}, 1.0) == 1
    assert store.record_conflict("ns", ids[2], ids[3], {}, 1.0) == 2
    store.delete(ids[3], audit("purge", ids[3]))
    assert store.record_conflict("ns", ids[4], ids[5], {}, 1.0) == 3


def test_word_search_ranks_alike_however_the_filter_is_written(store: MemoryStore) -> None:
    """Ties included (equal texts score equally and order by id), past archived memories that match
    best: a filter every memory passes gives the same ranking as the plain one, at every limit."""
    topics = ["billing retries", "billing port", "search latency", "billing owner retries"]
    for index in range(60):
        text = f"{topics[index % len(topics)]} note {index % 7}"
        state = MemoryState.ARCHIVED if index % 5 == 0 else MemoryState.ACTIVE
        memory_id = f"01J{index:023d}"
        store.insert(record(memory_id, f"{text} {memory_id}", state=state), [], audit("remember", memory_id))
    for index in range(2):  # two that score better than all the rest: the top few are read first
        memory_id = f"01K{index:023d}"
        text = f"billing retries billing retries {memory_id}"
        store.insert(record(memory_id, text), [], audit("remember", memory_id))
    plain = Filters(namespace="ns")
    spelled_out = Filters(namespace="ns", trusts=tuple(Trust))  # passes all, but narrows in form
    for limit in (1, 3, 4, 10, 17, 40, 100):
        found = store.search_words("billing retries", plain, limit)
        assert found == store.search_words("billing retries", spelled_out, limit)
        assert len(found) == min(limit, 38)  # 47 memories hold "billing", 9 of them archived
        assert {memory_id for memory_id, _ in found[:2]} <= {f"01K{i:023d}" for i in range(2)}
        assert all(a[1] >= b[1] for a, b in itertools.pairwise(found))


def test_the_next_turn_of_a_session_is_the_next_one_the_filters_pass(store: MemoryStore) -> None:
    turns = [f"01S{i:023d}" for i in range(4)]
    for index, memory_id in enumerate(turns):
        state = MemoryState.ARCHIVED if index == 1 else MemoryState.ACTIVE
        turn = record(memory_id, f"turn {index}", session_id="s1", event_time=100.0 + index, state=state)
        store.insert(turn, [], audit("remember", memory_id))
    store.insert(record(ID1, "said outside any session"), [], audit("remember", ID1))
    found = store.session_successors([turns[0], turns[2], turns[3], ID1, turns[0]], Filters(namespace="ns"))
    assert found == {turns[0]: turns[2], turns[2]: turns[3]}  # past the archived turn; none after the last
    everything = Filters(namespace="ns", states=(MemoryState.ACTIVE, MemoryState.ARCHIVED))
    assert store.session_successors([turns[0]], everything) == {turns[0]: turns[1]}


def test_a_large_pool_is_searched_for_the_rarest_words_of_the_query(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = {
        ID1: "the kafka brokers restart nightly",
        ID2: "the billing service restarts weekly",
        ID3: "the search service restarts hourly",
    }
    for memory_id, text in texts.items():
        store.insert(record(memory_id, text), [], audit("remember", memory_id))
    both = Filters(namespace="ns")
    assert {hit[0] for hit in store.search_words("kafka restart", both, 10)} == {ID1, ID2, ID3}
    monkeypatch.setattr(bm25, "SEARCHED_MAX", 2)  # three memories now make a large pool
    assert [hit[0] for hit in store.search_words("kafka restart", both, 10)] == [ID1]
    assert [
        hit[0] for hit in store.search_words("restart", both, 10)
    ] != []  # the rarest word is always searched


def test_a_word_search_finds_what_its_filters_pass_however_much_outranks_it(store: MemoryStore) -> None:
    archived = [f"01J00000000000000000000{n:03d}" for n in range(60)]
    for memory_id in archived:  # short, so each scores above the long ones
        text = f"kafka note {memory_id}"
        store.insert(record(memory_id, text, state=MemoryState.ARCHIVED), [], audit("remember", memory_id))
    long_ones = {ID1: "kafka " + "and other words " * 20, ID2: "kafka " + "with more words " * 20}
    for memory_id, text in long_ones.items():
        store.insert(record(memory_id, text), [], audit("remember", memory_id))
    found = store.search_words("kafka", Filters(namespace="ns"), 2)
    assert sorted(hit[0] for hit in found) == [ID1, ID2]


def test_a_changed_text_is_found_by_its_new_characters_only(store: MemoryStore) -> None:
    first = record(ID1, "我们周五部署新版本")
    store.insert(first, [], audit("remember", ID1))
    changed = replace(first, content="东京的服务器在周二重启", content_hash="h2", version=2)
    store.replace(changed, expected_version=1, revector=False, vectors=[], audit=audit("update", ID1))
    active = Filters(namespace="ns")
    assert [hit[0] for hit in store.search_cjk("周二重启", active, 5)] == [ID1]
    assert store.search_cjk("部署新版", active, 5) == []
