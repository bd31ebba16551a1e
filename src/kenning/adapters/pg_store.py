"""The shared store: PostgreSQL with pgvector (HNSW, cosine, iterative scans), words stemmed into a
weighted tsvector and searched through postings ranked by core.bm25, Chinese, Japanese and Korean matched
by character, and row-level security per pool.

Every call runs in one transaction from a connection pool. The transaction first names the pools it may
touch (`ports.store.scoped_pools`, or every pool outside a scope), and the database's policies hold
each statement to them. Nothing is cached between calls except which vector models have an index, so
several server processes on one database see each other's writes as soon as they commit.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import errors, sql
from psycopg_pool import ConnectionPool, PoolTimeout

from kenning.adapters.pg_schema import (
    COUNT_WORDS,
    INDEX_LOCK,
    LATEST_VERSION,
    LEASE_LOCK,
    SECURED_TABLES,
    migrate,
)
from kenning.adapters.pg_url import redacted
from kenning.adapters.sql_dump import dump_batches
from kenning.adapters.sql_reads import SqlReads
from kenning.adapters.sql_rows import (
    COLUMN_COUNT,
    COLUMNS,
    CONFLICT_COLUMNS,
    RESTATEMENT_COLUMNS,
    audit_from_row,
    conflict_from_row,
    conflict_values,
    edge_from_row,
    filter_sql,
    record_from_row,
    restatement_from_row,
    restatement_values,
    row_values,
)
from kenning.core import bm25
from kenning.core.cjk_match import cjk_query, memory_grams, rank_cjk
from kenning.core.errors import BackendUnavailable, ConflictError, ContractBroken, Forbidden, NotFound
from kenning.core.query import Filters
from kenning.core.records import AuditEntry, Conflict, Edge, MemoryRecord, MemoryState, Restatement
from kenning.core.text import words
from kenning.ports.embedder import Vector
from kenning.ports.store import (
    DenseHits,
    DumpBatch,
    GroupChange,
    StateChange,
    StoredVector,
    StoreStats,
    scoped_pools,
)

logger = logging.getLogger(__name__)

_TEXT_CONFIG = "english"  # Snowball stems (FTS5 uses the older Porter); it also drops English stop words
_CJK_CANDIDATES = 400
# A memory's words, weighted by where they stand (content A, tags B, entities B, context C).
_WORDS = " || ".join(f"setweight(to_tsvector('{_TEXT_CONFIG}', %s), '{weight}')" for weight in "ABBC")
_PLACEHOLDERS = ", ".join(["%s"] * COLUMN_COUNT)
_UPDATE_COLUMNS = ", ".join(f"{name.strip()} = %s" for name in COLUMNS.split(",")[1:])
_EF_SEARCH_MIN = 64
_SPREAD_SAMPLE = 2_000  # rows over which the spread of cosine is measured, beyond which it is sampled
_WORD_COUNT = "(SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(w.v))"
_SET_WORDS = f"words = w.v, word_count = {_WORD_COUNT} FROM (SELECT {_WORDS} AS v) w"
_INSERT_RECORD = (
    f"INSERT INTO memories ({COLUMNS}, words, word_count) SELECT {_PLACEHOLDERS}, w.v, {_WORD_COUNT} "
    f"FROM (SELECT {_WORDS} AS v) w RETURNING seq"
)


class PostgresStore(SqlReads):
    """MemoryStore on a PostgreSQL database with the `vector` extension."""

    def __init__(self, url: str, *, max_connections: int = 8, timeout_s: float = 10.0) -> None:
        self.location = redacted(url)
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=int(timeout_s)) as conn:
                self.schema_version = migrate(conn)
        except psycopg.OperationalError as exc:
            raise BackendUnavailable(f"cannot reach PostgreSQL at {self.location}: {exc}") from exc
        except psycopg.errors.InsufficientPrivilege as exc:
            raise BackendUnavailable(
                f"PostgreSQL at {self.location} refused to set up Kenning's schema ({exc}); the database "
                "owner must run: CREATE EXTENSION vector;"
            ) from exc
        if self.schema_version > LATEST_VERSION:
            raise ContractBroken(
                f"database {self.location} has schema version {self.schema_version}, newer than this "
                f"Kenning understands ({LATEST_VERSION}); upgrade Kenning"
            )
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            timeout=timeout_s,
            kwargs={"autocommit": True},
            configure=register_vector,
            open=True,
            name="kenning",
        )
        self._indexed: dict[str, int] = {}  # vector model -> dimension, for models whose index exists
        # Accesses a recall could not record because another transaction held the row, by the pools the
        # recall was bound to: id -> (latest time, count). Applied by the next write or touch.
        self._touches: dict[tuple[str, ...] | None, dict[str, tuple[float, int]]] = {}
        self._touches_lock = threading.Lock()

    # -- transactions ---------------------------------------------------------------------------

    @contextmanager
    def _tx(self, *, repeatable: bool = False) -> Iterator[psycopg.Connection[Any]]:
        """One transaction bound to the pools in scope; database errors become Kenning's."""
        try:
            with self._pool.connection() as conn, conn.transaction():
                if repeatable:
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                _bind(conn, scoped_pools())
                yield conn
        except PoolTimeout as exc:
            raise BackendUnavailable(f"no free connection to {self.location}; retry later") from exc
        except (psycopg.OperationalError, errors.SerializationFailure, errors.DeadlockDetected) as exc:
            raise BackendUnavailable(f"PostgreSQL at {self.location}: {exc}") from exc
        except errors.InsufficientPrivilege as exc:  # a row outside the pools this call is bound to
            raise Forbidden(f"refused by the database's row-level security: {exc}") from exc

    def _read(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """One read in its own transaction; a shared statement's `?` placeholders become psycopg's."""
        with self._tx() as conn:
            return conn.execute(query.replace("?", "%s"), params).fetchall()

    # -- writes ---------------------------------------------------------------------------------

    def insert(
        self,
        record: MemoryRecord,
        vectors: Sequence[StoredVector],
        audit: AuditEntry,
        edges: Sequence[Edge] = (),
    ) -> None:
        try:
            with self._tx() as conn:
                self._apply_touches(conn)
                self._insert_in(conn, record, vectors, audit, edges)
        except errors.UniqueViolation as exc:
            raise ConflictError(
                f"a memory with the same content already exists in namespace {record.namespace!r}",
                content_hash=record.content_hash,
            ) from exc

    def _insert_in(
        self,
        conn: psycopg.Connection[Any],
        record: MemoryRecord,
        vectors: Sequence[StoredVector],
        audit: AuditEntry,
        edges: Sequence[Edge],
    ) -> None:
        row = conn.execute(_INSERT_RECORD, (*row_values(record), *_word_parts(record))).fetchone()
        seq = int(row[0]) if row else 0
        self._index(conn, [(seq, record)])
        for vector in vectors:
            self._put_vector(conn, seq, record.namespace, vector)
        self._put_edges(conn, edges)
        self._append_audit(conn, audit)

    def _put_edges(self, conn: psycopg.Connection[Any], edges: Sequence[Edge]) -> None:
        for e in edges:
            # An edge belongs to the pool of the memory it starts from.
            conn.execute(
                "INSERT INTO edges (src, dst, type, weight, created_at, namespace) "
                "SELECT %s, %s, %s, %s, %s, namespace FROM memories WHERE id = %s "
                "ON CONFLICT (src, dst, type) DO UPDATE SET weight = excluded.weight, "
                "created_at = excluded.created_at",
                (e.src, e.dst, e.type.value, e.weight, e.created_at, e.src),
            )

    def replace(
        self,
        record: MemoryRecord,
        *,
        expected_version: int,
        revector: bool,
        vectors: Sequence[StoredVector],
        audit: AuditEntry,
        restatement: Restatement | None = None,
    ) -> None:
        try:
            with self._tx() as conn:
                self._apply_touches(conn)
                seq = self._replace_in(conn, record, expected_version, revector, vectors, audit)
                if restatement is not None:
                    self._restate_in(conn, seq, record.namespace, restatement)
        except errors.UniqueViolation as exc:
            raise ConflictError(
                f"another memory in namespace {record.namespace!r} already has this content",
                content_hash=record.content_hash,
            ) from exc

    def _replace_in(
        self,
        conn: psycopg.Connection[Any],
        record: MemoryRecord,
        expected_version: int,
        revector: bool,
        vectors: Sequence[StoredVector],
        audit: AuditEntry,
    ) -> int:
        row = conn.execute(
            "SELECT seq, version, content FROM memories WHERE id = %s FOR UPDATE", (record.id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"no memory with id {record.id!r}", id=record.id)
        seq, stored_version = int(row[0]), int(row[1])
        if stored_version != expected_version:
            raise ConflictError(
                f"memory {record.id} is at version {stored_version}, not {expected_version}; "
                "get it again and retry",
                id=record.id,
                current_version=stored_version,
            )
        if str(row[2]) != record.content:
            # New words replace the old ones: restatements of the old words must not outlive them.
            conn.execute("DELETE FROM restatements WHERE seq = %s", (seq,))
        conn.execute(
            f"UPDATE memories SET {_UPDATE_COLUMNS}, {_SET_WORDS} WHERE seq = %s",
            (*row_values(record)[1:], *_word_parts(record), seq),
        )
        for table in ("memory_tags", "memory_entities", "char_postings"):
            conn.execute(sql.SQL("DELETE FROM {} WHERE seq = %s").format(sql.Identifier(table)), (seq,))
        self._index(conn, [(seq, record)])
        if revector:
            conn.execute("DELETE FROM vectors WHERE seq = %s", (seq,))
            for vector in vectors:
                self._put_vector(conn, seq, record.namespace, vector)
        self._append_audit(conn, audit)
        return seq

    def _restate_in(self, conn: psycopg.Connection[Any], seq: int, namespace: str, item: Restatement) -> None:
        conn.execute(
            "INSERT INTO restatements (seq, namespace, content, agent_id, at, trust, similarity, times, "
            "last_at, last_agent_id) VALUES (%s, %s, %s, %s, %s, %s, %s, 1, %s, %s) "
            "ON CONFLICT (seq, content) DO UPDATE SET times = restatements.times + 1, "
            "last_at = excluded.last_at, last_agent_id = excluded.last_agent_id",
            (
                seq,
                namespace,
                item.content,
                item.agent_id,
                item.at,
                item.trust,
                item.similarity,
                item.at,
                item.agent_id,
            ),
        )

    def restatements(self, memory_id: str, limit: int) -> tuple[list[Restatement], int]:
        with self._tx() as conn:
            rows = conn.execute(
                f"SELECT {RESTATEMENT_COLUMNS} FROM restatements r JOIN memories m ON m.seq = r.seq "
                "WHERE m.id = %s "
                "ORDER BY r.last_at DESC, r.rseq DESC LIMIT %s",
                (memory_id, limit),
            ).fetchall()
            total = conn.execute(
                "SELECT count(*) FROM restatements r JOIN memories m ON m.seq = r.seq WHERE m.id = %s",
                (memory_id,),
            ).fetchone()
        items = [restatement_from_row(r) for r in rows]
        return items, int(total[0]) if total else 0

    def delete(self, memory_id: str, audit: AuditEntry) -> None:
        with self._tx() as conn:
            row = conn.execute("SELECT seq FROM memories WHERE id = %s FOR UPDATE", (memory_id,)).fetchone()
            if row is None:
                raise NotFound(f"no memory with id {memory_id!r}", id=memory_id)
            self._delete_in(conn, int(row[0]), memory_id)
            self._append_audit(conn, audit)

    def _delete_in(self, conn: psycopg.Connection[Any], seq: int, memory_id: str) -> None:
        conn.execute("DELETE FROM edges WHERE src = %s OR dst = %s", (memory_id, memory_id))
        # The evidence of a conflict quotes both memories: a purge must not leave the text behind.
        conn.execute("DELETE FROM conflicts WHERE first_id = %s OR second_id = %s", (memory_id, memory_id))
        conn.execute("DELETE FROM memories WHERE seq = %s", (seq,))  # cascades to what derives from it

    def touch(self, memory_ids: Iterable[str], at: float) -> None:
        """Recorded at once for rows no other transaction holds; an access to a row being written is
        kept and applied by the next write or touch, so a recall never waits for another's write."""
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return
        with self._touches_lock:
            pending = self._touches.setdefault(scoped_pools(), {})
            for memory_id in ids:
                earlier = pending.get(memory_id)
                pending[memory_id] = (at, earlier[1] + 1 if earlier else 1)
        with self._tx() as conn:
            self._apply_touches(conn, wait=False)

    def _apply_touches(self, conn: psycopg.Connection[Any], *, wait: bool = True) -> None:
        """Apply the pending accesses, each under the pools of the call that recorded it (a recall may
        only touch what it could see), then bind the transaction to its own pools again."""
        with self._touches_lock:
            taken, self._touches = self._touches, {}
        if not taken:
            return
        lock = "FOR UPDATE OF m" if wait else "FOR UPDATE OF m SKIP LOCKED"
        try:
            for scope, accesses in taken.items():
                _bind(conn, scope)
                done = conn.execute(
                    "WITH t AS (SELECT * FROM unnest(%s::text[], %s::float8[], %s::int[]) AS t(id, at, n)), "
                    f"free AS (SELECT m.seq, t.at, t.n, m.id FROM memories m JOIN t ON t.id = m.id {lock}) "
                    "UPDATE memories SET last_accessed_at = free.at, access_count = access_count + free.n "
                    "FROM free WHERE memories.seq = free.seq RETURNING memories.id",
                    (list(accesses), [v[0] for v in accesses.values()], [v[1] for v in accesses.values()]),
                ).fetchall()
                if not wait:  # the rows another transaction held: the next write applies them in turn
                    applied = {str(r[0]) for r in done}
                    self._keep_touches({scope: {k: v for k, v in accesses.items() if k not in applied}})
        except BaseException:
            self._keep_touches(taken)
            raise
        finally:
            _bind(conn, scoped_pools())

    def _keep_touches(self, taken: dict[tuple[str, ...] | None, dict[str, tuple[float, int]]]) -> None:
        with self._touches_lock:
            for scope, accesses in taken.items():
                kept = self._touches.setdefault(scope, {})
                for memory_id, (at, count) in accesses.items():
                    later = kept.get(memory_id)
                    kept[memory_id] = (later[0], later[1] + count) if later else (at, count)

    def _index(self, conn: psycopg.Connection[Any], items: Sequence[tuple[int, MemoryRecord]]) -> None:
        """The tag, entity and character-posting rows of these (seq, record) pairs."""
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO char_postings (namespace, gram, seq) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                [
                    (record.namespace, gram, seq)
                    for seq, record in items
                    for gram in sorted(memory_grams(record.content))
                ],
            )
            cur.executemany(
                "INSERT INTO memory_tags (seq, tag, namespace) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                [(seq, t, record.namespace) for seq, record in items for t in record.tags],
            )
            cur.executemany(
                "INSERT INTO memory_entities (seq, entity, namespace) VALUES (%s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                [(seq, e.casefold(), record.namespace) for seq, record in items for e in record.entities],
            )

    def _put_vector(
        self, conn: psycopg.Connection[Any], seq: int, namespace: str, vector: StoredVector
    ) -> None:
        values = self._checked(conn, vector)
        conn.execute(
            "INSERT INTO vectors (seq, namespace, model, dim, vec) VALUES (%s, %s, %s, %s, %s)",
            (seq, namespace, vector.model, int(values.shape[0]), values),
        )

    def _checked(
        self, conn: psycopg.Connection[Any], vector: StoredVector, *, bulk: dict[str, int] | None = None
    ) -> np.ndarray:
        """The vector as one finite float32 row of the dimension its model has in this store. A bulk load
        passes the models it has seen (their indexes are built at its end)."""
        values = np.ascontiguousarray(vector.values, dtype=np.float32)
        if values.ndim != 1 or not np.all(np.isfinite(values)):
            raise ContractBroken(f"vector for model {vector.model} must be one finite row")
        if bulk is None:
            dim = self._ensure_index(conn, vector.model, int(values.shape[0]))
        elif vector.model in bulk:
            dim = bulk[vector.model]
        else:
            dim = bulk[vector.model] = self._ensure_index(
                conn, vector.model, int(values.shape[0]), create=False
            )
        if dim != values.shape[0]:
            raise ContractBroken(
                f"vector for model {vector.model} has dimension {values.shape[0]}; the store holds {dim}"
            )
        return values

    def _ensure_index(
        self, conn: psycopg.Connection[Any], model: str, dim: int, *, create: bool = True
    ) -> int:
        """The dimension the store holds for `model`; the first vector of a model creates its HNSW index
        (one per model: an index needs one dimension), unless a bulk load builds them at its end."""
        known = self._indexed.get(model)
        if known is not None:
            return known
        row = conn.execute("SELECT dim FROM vector_models WHERE model = %s", (model,)).fetchone()
        if row is None:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (INDEX_LOCK,))
            row = conn.execute("SELECT dim FROM vector_models WHERE model = %s", (model,)).fetchone()
        if row is None:
            name = "vectors_hnsw_" + hashlib.sha256(model.encode()).hexdigest()[:16]
            conn.execute(
                "INSERT INTO vector_models (model, dim, index_name) VALUES (%s, %s, %s)", (model, dim, name)
            )
            if create:
                conn.execute(_index_statement(name, dim, model))
            found = dim
        else:
            found = int(row[0])
        if create:  # a bulk load's models are remembered once their indexes exist
            self._indexed[model] = found
        return found

    def _build_indexes(self, conn: psycopg.Connection[Any]) -> None:
        """Every vector model's HNSW index built afresh from the rows (faster than one row at a time)."""
        conn.execute("SET LOCAL maintenance_work_mem = '2GB'")
        for model, dim, name in conn.execute("SELECT model, dim, index_name FROM vector_models").fetchall():
            conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(str(name))))
            conn.execute(_index_statement(str(name), int(dim), str(model)))
            self._indexed[str(model)] = int(dim)

    def _append_audit(self, conn: psycopg.Connection[Any], entry: AuditEntry) -> None:
        conn.execute(
            "INSERT INTO audit (at, actor, namespace, action, memory_id, detail) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (
                entry.at,
                entry.actor,
                entry.namespace,
                entry.action,
                entry.memory_id,
                json.dumps(entry.detail, ensure_ascii=False),
            ),
        )

    # -- reads ----------------------------------------------------------------------------------

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return {}
        rows = self._read(f"SELECT {COLUMNS} FROM memories WHERE id = ANY(%s)", (ids,))
        return {record.id: record for record in map(record_from_row, rows)}

    def session_successors(self, memory_ids: Sequence[str], filters: Filters) -> dict[str, str]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return {}
        where, params = filter_sql(filters, "%s")
        rows = self._read(
            "SELECT c.id, (SELECT m.id FROM memories m WHERE m.namespace = c.namespace "
            "AND m.session_id = c.session_id AND (m.event_time, m.seq) > (c.event_time, c.seq) "
            f"AND {where} ORDER BY m.event_time, m.seq LIMIT 1) FROM memories c "
            "WHERE c.id = ANY(%s) AND c.session_id IS NOT NULL",
            (*params, ids),
        )
        found = {str(r[0]): str(r[1]) for r in rows if r[1] is not None}
        return {memory_id: found[memory_id] for memory_id in ids if memory_id in found}

    def subjects_named(self, namespace: str, words: Sequence[str]) -> list[str]:
        asked = list(dict.fromkeys(w.casefold() for w in words))
        if not asked:
            return []
        rows = self._read(
            "SELECT w FROM unnest(%s::text[]) WITH ORDINALITY AS a(w, n) "
            "WHERE EXISTS (SELECT 1 FROM memories "
            "WHERE namespace = %s AND lower(subject) = a.w AND subject IS NOT NULL) ORDER BY n",
            (asked, namespace),
        )
        return [str(r[0]) for r in rows]

    def record_conflict(
        self, namespace: str, a: str, b: str, evidence: dict[str, Any], at: float
    ) -> int | None:
        first, second = sorted((a, b))
        with self._tx() as conn:
            # Only between two memories that are still active: one superseded meanwhile settles nothing.
            known = conn.execute(
                "SELECT 1 FROM conflicts WHERE namespace = %s AND first_id = %s AND second_id = %s",
                (namespace, first, second),
            ).fetchone()
            active = conn.execute(
                "SELECT count(*) FROM memories WHERE id IN (%s, %s) AND state = 'active'", (first, second)
            ).fetchone()
            if known is not None or active is None or int(active[0]) != 2:
                return None
            # The namespace's last number is kept apart, so a purged conflict's number is never reused.
            got = conn.execute(
                "INSERT INTO conflict_numbers (namespace, last) VALUES (%s, 1) ON CONFLICT (namespace) "
                "DO UPDATE SET last = conflict_numbers.last + 1 RETURNING last",
                (namespace,),
            ).fetchone()
            number = int(got[0]) if got else 0
            made = conn.execute(
                "INSERT INTO conflicts "
                "(namespace, number, first_id, second_id, evidence, status, created_at) "
                "VALUES (%s, %s, %s, %s, %s, 'open', %s) ON CONFLICT DO NOTHING RETURNING number",
                (namespace, number, first, second, json.dumps(evidence, ensure_ascii=False), at),
            ).fetchone()
            return number if made else None

    def close_conflict(
        self, namespace: str, conflict_id: int, resolution: str, at: float, audit: AuditEntry
    ) -> None:
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE conflicts SET status = 'resolved', resolution = %s, resolved_at = %s "
                "WHERE namespace = %s AND number = %s AND status = 'open'",
                (resolution, at, namespace, conflict_id),
            )
            if not cur.rowcount:
                raise ConflictError(f"conflict {conflict_id} is not open", id=conflict_id)
            self._append_audit(conn, audit)

    def add_edge(self, edge: Edge, audit: AuditEntry) -> None:
        with self._tx() as conn:
            found = conn.execute(
                "SELECT count(*) FROM memories WHERE id IN (%s, %s)", (edge.src, edge.dst)
            ).fetchone()
            if found is None or int(found[0]) != (1 if edge.src == edge.dst else 2):
                raise NotFound(f"edge {edge.src} -> {edge.dst}: both memories must exist")
            self._put_edges(conn, [edge])
            self._append_audit(conn, audit)

    def edges_of(self, memory_ids: Sequence[str]) -> list[Edge]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return []
        rows = self._read(
            "SELECT src, dst, type, weight, created_at FROM edges WHERE src = ANY(%s) OR dst = ANY(%s)",
            (ids, ids),
        )
        return [edge_from_row(r) for r in rows]

    def audit_entries(
        self, memory_ids: Sequence[str], actions: Sequence[str], per_memory: int = 50
    ) -> list[AuditEntry]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids or not actions:
            return []
        rows = self._read(
            "SELECT at, actor, namespace, action, memory_id, detail FROM ("
            "SELECT *, row_number() OVER (PARTITION BY memory_id ORDER BY seq DESC) AS newest FROM audit "
            "WHERE memory_id = ANY(%s) AND action = ANY(%s)) a WHERE newest <= %s ORDER BY seq",
            (ids, list(actions), per_memory),
        )
        return [audit_from_row(r) for r in rows]

    # -- lifecycle ------------------------------------------------------------------------------

    def vectors_of(self, model: str, memory_ids: Sequence[str]) -> dict[str, Vector]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return {}
        rows = self._read(
            "SELECT m.id, v.vec FROM vectors v JOIN memories m ON m.seq = v.seq "
            "WHERE v.model = %s AND m.id = ANY(%s)",
            (model, ids),
        )
        return {str(r[0]): _vector_values(r[1]) for r in rows}

    def conflicts_of(self, memory_ids: Sequence[str]) -> list[Conflict]:
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return []
        rows = self._read(
            f"SELECT {CONFLICT_COLUMNS} FROM conflicts WHERE first_id = ANY(%s) OR second_id = ANY(%s) "
            "ORDER BY namespace, number",
            (ids, ids),
        )
        return [conflict_from_row(r) for r in rows]

    def change_states(self, changes: Sequence[StateChange], at: float, actor: str, action: str) -> list[str]:
        changed: list[str] = []
        if not changes:
            return changed
        with self._tx() as conn:
            self._apply_touches(conn)
            for change in changes:
                found = self._unchanged(conn, change)
                if found is None:  # changed, used or removed since it was read: leave it for the next run
                    continue
                self._set_state_in(conn, change, found[1], at, actor, action)
                changed.append(change.id)
        return changed

    def delete_many(self, deletions: Sequence[StateChange], at: float, actor: str, action: str) -> list[str]:
        removed: list[str] = []
        if not deletions:
            return removed
        with self._tx() as conn:
            self._apply_touches(conn)
            for change in deletions:
                found = self._unchanged(conn, change)
                if found is None:
                    continue
                self._delete_in(conn, found[0], change.id)
                self._append_audit(conn, AuditEntry(at, actor, found[1], action, change.id, change.detail))
                removed.append(change.id)
        return removed

    def apply_group(self, group: GroupChange, at: float, actor: str, action: str) -> None:
        try:
            with self._tx() as conn:
                self._apply_touches(conn)
                for change in group.sources:
                    if self._unchanged(conn, change) is None:
                        raise ConflictError(
                            f"memory {change.id} changed or was used during maintenance; its group waits "
                            "for the next run",
                            id=change.id,
                        )
                if group.survivor is not None:
                    survivor, expected = group.survivor
                    if self._unchanged(conn, expected) is None:
                        raise ConflictError(
                            f"memory {survivor.id} changed or was used during maintenance", id=survivor.id
                        )
                    self._replace_in(conn, survivor, expected.expected_version, False, (), group.audit)
                if group.summary is not None:
                    self._insert_in(conn, group.summary, group.summary_vectors, group.audit, ())
                for change in group.sources:
                    self._set_state_in(conn, change, group.audit.namespace, at, actor, action)
                self._put_edges(conn, group.edges)
        except errors.UniqueViolation as exc:
            raise ConflictError(f"the group's summary already exists: {exc}") from exc

    def _set_state_in(
        self,
        conn: psycopg.Connection[Any],
        change: StateChange,
        namespace: str,
        at: float,
        actor: str,
        action: str,
    ) -> None:
        conn.execute(
            "UPDATE memories SET state = %s, version = version + 1, updated_at = %s WHERE id = %s",
            (change.state.value, at, change.id),
        )
        detail = {"from_state": MemoryState.ACTIVE.value, "to_state": change.state.value, **change.detail}
        self._append_audit(conn, AuditEntry(at, actor, namespace, action, change.id, detail))

    def _unchanged(self, conn: psycopg.Connection[Any], change: StateChange) -> tuple[int, str] | None:
        """(seq, namespace) if the memory is still active, at the version and use count read; the row
        stays locked until the transaction ends."""
        row = conn.execute(
            "SELECT seq, namespace, state, version, access_count FROM memories WHERE id = %s FOR UPDATE",
            (change.id,),
        ).fetchone()
        if row is None or int(row[3]) != change.expected_version or str(row[2]) != MemoryState.ACTIVE.value:
            return None
        if change.expected_access is not None and int(row[4]) != change.expected_access:
            return None
        return int(row[0]), str(row[1])

    def save_run(self, namespace: str, started_at: float, finished_at: float, report: dict[str, Any]) -> int:
        with self._tx() as conn:
            row = conn.execute(
                "INSERT INTO maintenance_runs (namespace, started_at, finished_at, report) "
                "VALUES (%s, %s, %s, %s) RETURNING id",
                (namespace, started_at, finished_at, json.dumps(report, ensure_ascii=False)),
            ).fetchone()
            return int(row[0]) if row else 0

    def acquire_lease(self, name: str, holder: str, now: float, ttl_s: float) -> str | None:
        with self._tx() as conn:
            # Serialised across every process on the database by an advisory lock of the transaction.
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LEASE_LOCK,))
            row = conn.execute("SELECT holder, expires_at FROM leases WHERE name = %s", (name,)).fetchone()
            if row is not None and float(row[1]) > now and str(row[0]) != holder:
                return str(row[0])
            conn.execute(
                "INSERT INTO leases (name, holder, expires_at) VALUES (%s, %s, %s) ON CONFLICT (name) "
                "DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at",
                (name, holder, now + ttl_s),
            )
        return None

    def release_lease(self, name: str, holder: str) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM leases WHERE name = %s AND holder = %s", (name, holder))

    # -- search ---------------------------------------------------------------------------------

    def search_words(self, query: str, filters: Filters, limit: int) -> list[tuple[str, float]]:
        terms = list(dict.fromkeys(words(query)))
        if not terms:
            return []
        where, params = filter_sql(filters, "%s")
        found: list[tuple[str, float]] = []
        with self._tx(repeatable=True) as conn:
            lexemes = [
                str(r[0])
                for r in conn.execute(
                    f"SELECT DISTINCT lexeme FROM unnest(to_tsvector('{_TEXT_CONFIG}', %s))",
                    (" ".join(terms),),
                ).fetchall()
            ]
            if not lexemes:
                return []
            # Each pool has its own statistics, as with SQLite's table per pool; several give their union.
            for namespace in filters.pools:
                totals = conn.execute(
                    "SELECT docs, words FROM word_totals WHERE namespace = %s", (namespace,)
                ).fetchone()
                documents, length = (int(totals[0]), int(totals[1])) if totals else (0, 0)
                if documents <= 0:
                    continue
                held = dict(
                    conn.execute(
                        "SELECT lexeme, docs FROM word_stats WHERE namespace = %s AND lexeme = ANY(%s)",
                        (namespace, lexemes),
                    ).fetchall()
                )
                chosen = bm25.searched({lexeme: int(held.get(lexeme, 0)) for lexeme in lexemes})
                if not chosen:
                    continue
                idfs = [bm25.idf(documents, int(held[lexeme])) for lexeme in chosen]
                # Scored from the postings alone (text equality, which an index may answer under row-level
                # security), the best few times `limit` of them then filtered; all of them when that
                # leaves too few.
                scored = (
                    f"SELECT p.seq, sum(q.idf * p.tf * {bm25.K1 + 1} / (p.tf + {bm25.K1} * "
                    f"(1 - {bm25.B} + {bm25.B} * p.dl / %s))) AS score "
                    "FROM unnest(%s::text[], %s::float8[]) AS q(lexeme, idf) "
                    "JOIN word_postings p ON p.namespace = %s AND p.lexeme = q.lexeme GROUP BY p.seq"
                )
                args = (length / documents, chosen, idfs, namespace)
                best = 4 * limit + 50
                filtered = (
                    f"SELECT m.id, s.score FROM s JOIN memories m ON m.seq = s.seq WHERE {where} "
                    "ORDER BY s.score DESC, m.id LIMIT %s"
                )
                rows = conn.execute(
                    f"WITH s AS MATERIALIZED ({scored} ORDER BY score DESC, p.seq LIMIT %s) {filtered}",
                    (*args, best, *params, limit),
                ).fetchall()
                if len(rows) < limit and sum(int(held[lexeme]) for lexeme in chosen) > best:
                    rows = conn.execute(
                        f"WITH s AS MATERIALIZED ({scored}) {filtered}", (*args, *params, limit)
                    ).fetchall()
                found.extend((str(r[0]), float(r[1])) for r in rows)
        found.sort(key=lambda pair: (-pair[1], pair[0]))
        return found[:limit]

    def search_cjk(self, query: str, filters: Filters, limit: int) -> list[tuple[str, float]]:
        asked = cjk_query(query)
        if asked is None:
            return []
        where, params = filter_sql(filters, "%s")
        # Candidates through the character postings, those holding the most of the query's grams first.
        rows = self._read(
            "SELECT m.id, m.content FROM (SELECT p.seq, count(*) AS n FROM char_postings p "
            "WHERE p.namespace = ANY(%s) AND p.gram = ANY(%s) GROUP BY p.seq) c "
            f"JOIN memories m ON m.seq = c.seq WHERE {where} ORDER BY c.n DESC, m.seq DESC LIMIT %s",
            (list(filters.pools), list(asked.grams), *params, _CJK_CANDIDATES),
        )
        return rank_cjk(asked, {str(r[0]): str(r[1]) for r in rows}, limit)

    def search_vectors(
        self, vector: Vector, model: str, filters: Filters, limit: int, include: Sequence[str] = ()
    ) -> DenseHits:
        return self.search_vector_kinds(vector, [model], filters, limit, include)[model]

    def search_vector_kinds(
        self,
        vector: Vector,
        models: Sequence[str],
        filters: Filters,
        limit: int,
        include: Sequence[str] = (),
    ) -> dict[str, DenseHits]:
        query = np.ascontiguousarray(vector, dtype=np.float32)
        where, params = filter_sql(filters, "%s")
        out: dict[str, DenseHits] = {}
        with self._tx(repeatable=True) as conn:
            # Filtered searches keep scanning the graph until `limit` rows pass (pgvector's iterative scan).
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            conn.execute(
                sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(max(_EF_SEARCH_MIN, 2 * limit)))
            )
            pools = list(filters.pools)
            dims = dict(
                conn.execute(
                    "SELECT model, dim FROM vector_models WHERE model = ANY(%s)", (list(models),)
                ).fetchall()
            )
            # How many memories the pools hold: whether the spread of cosine is measured whole or sampled.
            pooled = conn.execute(
                "SELECT coalesce(sum(docs), 0) FROM word_totals WHERE namespace = ANY(%s)", (pools,)
            ).fetchone()
            held = int(pooled[0]) if pooled else 0
            for model in dict.fromkeys(models):
                dim = int(dims.get(model, 0))
                if limit <= 0 or dim != query.shape[0]:
                    out[model] = DenseHits(hits=[], mean=0.0, std=0.0, extra={})
                    continue
                out[model] = self._search_model(
                    conn, query, (model, dim), (where, params, pools, held), limit, include
                )
        return out

    def _search_model(
        self,
        conn: psycopg.Connection[Any],
        query: Vector,
        kind: tuple[str, int],
        filtered: tuple[str, list[Any], list[str], int],
        limit: int,
        include: Sequence[str],
    ) -> DenseHits:
        """One model's hits; `kind` is the model and its dimension, `filtered` the filters' WHERE clause,
        its parameters, the pools and how many memories they hold."""
        model, dim = kind
        where, params, pools, held = filtered
        distance = f"(v.vec::vector({dim}) <=> %s::vector({dim}))"
        near = conn.execute(
            f"WITH near AS MATERIALIZED (SELECT m.id, {distance} AS d FROM vectors v "
            f"JOIN memories m ON m.seq = v.seq WHERE v.model = %s AND {where} ORDER BY {distance} LIMIT %s) "
            "SELECT id, 1 - d FROM near ORDER BY d, id",
            (query, model, *params, query, limit),
        ).fetchall()
        # The spread of cosine over everything that passes, for fusion's z-scores: exact in pools of up to
        # _SPREAD_SAMPLE memories; in larger ones, over a sample of about that many of the pools' vectors,
        # whatever their state and other filters (pages of the table chosen by a fixed seed, so that a
        # query scores alike each time, and only those pages read).
        if held <= _SPREAD_SAMPLE:
            spread = conn.execute(
                f"SELECT avg(1 - {distance}), stddev_pop(1 - {distance}) FROM vectors v "
                f"JOIN memories m ON m.seq = v.seq WHERE v.model = %s AND {where}",
                (query, query, model, *params),
            ).fetchone()
        else:
            spread = conn.execute(
                f"SELECT avg(1 - {distance}), stddev_pop(1 - {distance}) FROM vectors v "
                f"TABLESAMPLE SYSTEM ({100.0 * _SPREAD_SAMPLE / held:.6f}) REPEATABLE (7) "
                "WHERE v.model = %s AND v.namespace = ANY(%s)",
                (query, query, model, pools),
            ).fetchone()
        extra: dict[str, float] = {}
        if include:
            rows = conn.execute(
                f"SELECT m.id, 1 - {distance} FROM vectors v JOIN memories m ON m.seq = v.seq "
                f"WHERE v.model = %s AND m.id = ANY(%s) AND {where}",
                (query, model, list(dict.fromkeys(include)), *params),
            ).fetchall()
            extra = {str(r[0]): float(r[1]) for r in rows}
        mean = float(spread[0]) if spread and spread[0] is not None else 0.0
        std = float(spread[1]) if spread and spread[1] is not None else 0.0
        return DenseHits(hits=[(str(r[0]), float(r[1])) for r in near], mean=mean, std=std, extra=extra)

    # -- status ---------------------------------------------------------------------------------

    def stats(self, embedder_model: str | None, namespace: str | None = None) -> StoreStats:
        where, params = ("", ()) if namespace is None else (" WHERE namespace = %s", (namespace,))
        with self._tx(repeatable=True) as conn:

            def grouped(query: str) -> dict[str, int]:
                return {str(k): int(v) for k, v in conn.execute(query, params).fetchall()}

            def one(query: str, args: Sequence[Any] = params) -> int:
                row = conn.execute(query, args).fetchone()
                return int(row[0]) if row and row[0] is not None else 0

            total = one(f"SELECT count(*) FROM memories{where}")
            vectors = grouped(f"SELECT model, count(*) FROM vectors{where} GROUP BY model")
            record_bytes = one(
                "SELECT coalesce(sum(octet_length(content) + octet_length(coalesce(context, '')) "
                "+ octet_length(coalesce(source, '')) + octet_length(tags) + octet_length(entities) "
                f"+ octet_length(metadata)), 0) FROM memories{where}"
            ) + one(f"SELECT coalesce(sum(dim * 4), 0) FROM vectors{where}")
            by_state = grouped(f"SELECT state, count(*) FROM memories{where} GROUP BY state")
            by_type = grouped(f"SELECT type, count(*) FROM memories{where} GROUP BY type")
            by_namespace = grouped(f"SELECT namespace, count(*) FROM memories{where} GROUP BY namespace")
            audit_entries = one(f"SELECT count(*) FROM audit{where}")
            # The word postings, counted from their statistics (a few rows a word, not one a posting).
            postings = one(f"SELECT coalesce(sum(docs), 0) FROM word_stats{where}")
            size = one("SELECT pg_database_size(current_database())", ()) if namespace is None else 0
            bypass = conn.execute(
                "SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user"
            ).fetchone()
        health: list[str] = []
        if embedder_model is not None:
            missing = total - vectors.get(embedder_model, 0)
            if missing:
                health.append(f"{missing} memories have no vector from {embedder_model}")
        if namespace is None and bypass is not None and bool(bypass[0]):
            health.append(
                "the database role bypasses row-level security (a superuser or BYPASSRLS): pools are kept "
                "apart by Kenning's queries alone; connect as an ordinary role"
            )
        return StoreStats(
            schema_version=self.schema_version,
            total=total,
            by_state=by_state,
            by_type=by_type,
            by_namespace=by_namespace,
            vectors_by_model=vectors,
            audit_entries=audit_entries,
            location=self.location,
            size_bytes=size,
            used_bytes=size,
            health=health,
            record_bytes=record_bytes,
            backend="postgresql",
            index_rows={"word_postings": postings},
        )

    def index_problems(self) -> list[str]:
        """Tables whose row-level security is off, vector models without their index, and the health
        lines of stats."""
        problems: list[str] = []
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT relname FROM pg_class WHERE relname = ANY(%s) AND relkind = 'r' "
                "AND NOT (relrowsecurity AND relforcerowsecurity)",
                (list(SECURED_TABLES),),
            ).fetchall()
            problems += [f"{r[0]}: row-level security is not forced; pools are not kept apart" for r in rows]
            missing = conn.execute(
                "SELECT model FROM vector_models WHERE to_regclass(index_name) IS NULL"
            ).fetchall()
            problems += [f"vectors of {r[0]} have no HNSW index; run `kenning reindex`" for r in missing]
        return problems + self.stats(None).health

    def rebuild_text_indexes(self) -> int:
        """Recompute every memory's words, tags and entities from its record, the pools' word statistics,
        and each vector model's index, in one transaction."""
        with self._tx() as conn:
            for table in ("memory_tags", "memory_entities", "char_postings"):
                conn.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(table)))
            rows = conn.execute(f"SELECT seq, {COLUMNS} FROM memories").fetchall()
            for row in rows:
                record = record_from_row(row[1:])
                conn.execute(
                    f"UPDATE memories SET {_SET_WORDS} WHERE seq = %s",
                    (*_word_parts(record), int(row[0])),
                )
                self._index(conn, [(int(row[0]), record)])
            conn.execute(COUNT_WORDS)  # counted afresh, whatever state the counts were in
            self._build_indexes(conn)
        return len(rows)

    def put_vectors(self, memory_id: str, vectors: Sequence[StoredVector]) -> None:
        with self._tx() as conn:
            row = conn.execute("SELECT seq, namespace FROM memories WHERE id = %s", (memory_id,)).fetchone()
            if row is None:
                raise NotFound(f"no memory with id {memory_id!r}", id=memory_id)
            for vector in vectors:
                conn.execute("DELETE FROM vectors WHERE seq = %s AND model = %s", (int(row[0]), vector.model))
                self._put_vector(conn, int(row[0]), str(row[1]), vector)

    def dump(self, batch_size: int = 1000) -> Iterator[DumpBatch]:
        """Read by server-side cursors inside one repeatable-read transaction: one snapshot."""
        with self._tx(repeatable=True) as conn:

            def read(query: str) -> Iterator[Any]:
                with conn.cursor(name="kenning_dump") as cursor:
                    cursor.itersize = batch_size
                    cursor.execute(query)
                    yield from cursor

            yield from dump_batches(read, _vector_values, batch_size)

    def load(self, batches: Iterable[DumpBatch], *, replace: bool) -> int:
        written = 0
        with self._tx() as conn:
            self._clear_for_load(conn, replace)
            # The vector indexes are built once, at the end: far faster than one row at a time. The word
            # statistics are counted once at the end too: the trigger would update a pool's totals row
            # once a memory, and one transaction's versions of a row cannot be cleaned up as it goes.
            for (name,) in conn.execute("SELECT index_name FROM vector_models").fetchall():
                conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(str(name))))
            self._indexed.clear()
            conn.execute("ALTER TABLE memories DISABLE TRIGGER memories_count_words")
            seqs: dict[str, tuple[int, str]] = {}
            models: dict[str, int] = {}
            for batch in batches:
                self._load_records(conn, batch, seqs, models)
                written += len(batch.records)
                self._put_edges(conn, batch.edges)
                with conn.cursor() as cur:
                    cur.executemany(
                        f"INSERT INTO restatements (seq, namespace, {RESTATEMENT_COLUMNS.replace('r.', '')}) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                        [(*seqs[mid], *restatement_values(item)) for mid, item in batch.restatements],
                    )
                    cur.executemany(
                        f"INSERT INTO conflicts ({CONFLICT_COLUMNS}) VALUES ({', '.join(['%s'] * 9)})",
                        [conflict_values(c) for c in batch.conflicts],
                    )
                    cur.executemany(
                        "INSERT INTO conflict_numbers (namespace, last) VALUES (%s, %s) "
                        "ON CONFLICT (namespace) DO UPDATE SET last = excluded.last",
                        batch.conflict_numbers,
                    )
                    cur.executemany(
                        "INSERT INTO maintenance_runs (namespace, started_at, finished_at, report) "
                        "VALUES (%s, %s, %s, %s)",
                        [
                            (ns, a, b, json.dumps(report, ensure_ascii=False))
                            for ns, a, b, report in batch.runs
                        ],
                    )
                for entry in batch.audit:
                    self._append_audit(conn, entry)
            conn.execute("ALTER TABLE memories ENABLE TRIGGER memories_count_words")
            conn.execute(COUNT_WORDS)
            self._build_indexes(conn)
            conn.execute("ANALYZE")  # the planner's statistics, before autovacuum would get to it
        return written

    def _load_records(
        self,
        conn: psycopg.Connection[Any],
        batch: DumpBatch,
        seqs: dict[str, tuple[int, str]],
        models: dict[str, int],
    ) -> None:
        """A batch's records, their tags, entities and vectors, each kind in one pipelined round."""
        with conn.cursor() as cur:
            if batch.records:
                cur.executemany(
                    _INSERT_RECORD, [(*row_values(r), *_word_parts(r)) for r in batch.records], returning=True
                )
                for position, item in enumerate(batch.records):
                    if position:
                        cur.nextset()
                    row = cur.fetchone()
                    seqs[item.id] = (int(row[0]) if row else 0, item.namespace)
                self._index(conn, [(seqs[r.id][0], r) for r in batch.records])
            rows = []
            for memory_id, vector in batch.vectors:
                values = self._checked(conn, vector, bulk=models)
                rows.append((*seqs[memory_id], vector.model, int(values.shape[0]), values))
            cur.executemany(
                "INSERT INTO vectors (seq, namespace, model, dim, vec) VALUES (%s, %s, %s, %s, %s)", rows
            )

    def _clear_for_load(self, conn: psycopg.Connection[Any], replace: bool) -> None:
        row = conn.execute("SELECT (SELECT count(*) FROM memories) + (SELECT count(*) FROM audit)").fetchone()
        if row and int(row[0]) and not replace:
            raise ConflictError(
                f"database {self.location} is not empty; a dump loads only into an empty store"
            )
        if not row or not int(row[0]):
            return
        # The audit log refuses deletion; a restore replaces it whole, inside this one transaction.
        conn.execute("ALTER TABLE audit DISABLE TRIGGER USER")
        conn.execute(f"TRUNCATE {', '.join(SECURED_TABLES)}")
        conn.execute("ALTER TABLE audit ENABLE TRIGGER USER")

    def backup_to(self, target: Path) -> None:
        """A backup is an embedded store: one SQLite file that Kenning (or `kenning migrate`) opens as is."""
        from kenning.adapters.sqlite_store import SqliteStore

        copy = SqliteStore(target)
        try:
            copy.load(self.dump(), replace=False)
        finally:
            copy.close()

    def restore_from(self, source: Path) -> None:
        """Replace the database's contents with a backup file (an embedded store), in one transaction.
        The file is read from a copy: opening an older backup upgrades its schema, and the backup stays
        as it was."""
        import shutil
        import sqlite3
        import tempfile

        from kenning.adapters.sqlite_store import SqliteStore

        if not source.is_file():
            raise ContractBroken(f"backup {source} is not a file")
        with tempfile.TemporaryDirectory(prefix="kenning-restore-") as scratch:
            copy = Path(scratch) / "backup.db"
            shutil.copyfile(source, copy)
            try:
                original = SqliteStore(copy)
            except sqlite3.DatabaseError as exc:
                raise ContractBroken(f"{source} is not a Kenning backup: {exc}") from exc
            try:
                problems = original.integrity_check()
                if problems:
                    raise ContractBroken(f"backup {source} failed its integrity check: {problems[0]}")
                self.load(original.dump(), replace=True)
            finally:
                original.close()

    def close(self) -> None:
        try:
            with self._tx() as conn:
                self._apply_touches(conn)
        except BackendUnavailable as exc:
            logger.warning("access statistics not recorded at close: %s", exc)
        self._pool.close()


def _index_statement(name: str, dim: int, model: str) -> sql.Composed:
    return sql.SQL(
        "CREATE INDEX IF NOT EXISTS {} ON vectors USING hnsw ((vec::vector({})) vector_cosine_ops) "
        "WHERE model = {}"
    ).format(sql.Identifier(name), sql.Literal(dim), sql.Literal(model))


def _bind(conn: psycopg.Connection[Any], pools: Sequence[str] | None) -> None:
    """Hold the rest of the transaction to these pools (None: every pool) by row-level security."""
    conn.execute(
        "SELECT set_config('kenning.all_pools', %s, true), set_config('kenning.pools', %s, true)",
        ("on" if pools is None else "", pools_literal(pools or ())),
    )


def pools_literal(pools: Sequence[str]) -> str:
    """Pools as a PostgreSQL array literal, for the transaction's `kenning.pools` setting."""
    quoted = ('"' + pool.replace("\\", "\\\\").replace('"', '\\"') + '"' for pool in pools)
    return "{" + ",".join(quoted) + "}"


def _vector_values(stored: Any) -> Vector:
    return np.asarray(stored.to_numpy(), dtype=np.float32)


def _word_parts(record: MemoryRecord) -> tuple[str, str, str, str]:
    """The texts of a memory's weighted words: content, tags, the entities its text does not name (those
    it names would count twice), context."""
    lowered = record.content.casefold()
    unnamed = [e for e in record.entities if e.casefold() not in lowered]
    return record.content, " ".join(record.tags), " ".join(unnamed), record.context or ""
