"""The embedded store: one SQLite file in WAL mode, FTS5 word and trigram indexes per namespace,
vectors as BLOBs.

Every write runs in one `BEGIN IMMEDIATE` transaction that covers the record, its index rows, its
vector and its audit entry, so they commit together or not at all.
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

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
from kenning.adapters.sqlite_schema import LATEST_VERSION, migrate
from kenning.adapters.sqlite_text_index import (
    KINDS,
    SHARED_TABLES,
    TRIGRAMS,
    WORDS,
    QueryStems,
    TextIndexes,
    create_tables,
    shadow_tables,
    table_name,
    vocabulary_of,
)
from kenning.adapters.vector_matrix import MatrixView, NewRows, VectorMatrices, VectorRow
from kenning.core import bm25
from kenning.core.cjk_match import cjk_query, rank_cjk
from kenning.core.errors import BackendUnavailable, ConflictError, ContractBroken, NotFound
from kenning.core.query import Filters
from kenning.core.records import AuditEntry, Conflict, Edge, MemoryRecord, MemoryState, Restatement
from kenning.core.text import words
from kenning.ports.embedder import Vector
from kenning.ports.store import DenseHits, DumpBatch, GroupChange, StateChange, StoredVector, StoreStats

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

_CJK_CANDIDATES = 400
# How many times `limit` matches a word search scores before joining them to their memories.
_SCORED_FIRST = 3
_WEIGHTS = ", ".join(str(w) for w in (bm25.CONTENT, bm25.TAGS, bm25.ENTITIES, bm25.CONTEXT))


def fts5_available() -> bool:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE t USING fts5 (x, tokenize = 'trigram')")
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()
    return True


class SqliteStore(SqlReads):
    """MemoryStore on one SQLite file. Thread-safe within a process; many processes may share the file.

    Writes, the vector matrices and the text-table directory go through one connection under one
    lock. Plain reads go through a read-only connection of the calling thread's own, so that the
    reads of one request (SQLite runs them without holding Python's lock) overlap with the ranking
    of another instead of queueing behind it; in WAL mode each sees every committed write. A thread
    inside a write transaction reads through that transaction, and sees its own changes."""

    def __init__(self, path: Path | str, *, busy_timeout_s: float = 5.0, write_retries: int = 8) -> None:
        self.path = Path(path) if str(path) != ":memory:" else Path(":memory:")
        if str(self.path) != ":memory:":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BackendUnavailable(f"cannot create the directory for {self.path}: {exc}") from exc
        self._write_retries = write_retries
        self._lock = threading.RLock()
        self._matrices = VectorMatrices()  # their lock is taken after the store's, never before it
        self._texts = TextIndexes()
        self._stems = QueryStems()
        self._words_removed: set[str] = set()  # text tables a write removed words from; see _scrub
        self._busy_timeout_s = busy_timeout_s
        self._local = threading.local()  # this thread's read connection, and whether it is writing
        # Each reading thread's connection, by thread: a server's worker threads come and go (an idle
        # one exits after seconds), and a connection outliving its thread is closed at the next open.
        self._readers: dict[int, tuple[threading.Thread, sqlite3.Connection]] = {}
        self._readers_lock = threading.Lock()  # not the store's lock, which a long write holds
        # Accesses a recall recorded while another thread held the write lock: id -> (latest time,
        # count). The next write applies them in its own transaction; a recall never waits for one.
        self._touches: dict[str, tuple[float, int]] = {}
        self._touches_lock = threading.Lock()
        self._closed = False
        self._conn = self._connect()
        self.schema_version = self._retrying(lambda: migrate(self._conn))
        if self.schema_version > LATEST_VERSION:
            raise ContractBroken(
                f"store {self.path} has schema version {self.schema_version}, newer than this Kenning "
                f"understands ({LATEST_VERSION}); upgrade Kenning"
            )

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                str(self.path), timeout=self._busy_timeout_s, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"cannot open SQLite store at {self.path}: {exc}") from exc
        conn.execute("PRAGMA foreign_keys = ON")
        mode = self._retrying(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        if str(self.path) != ":memory:" and str(mode).lower() != "wal":
            raise BackendUnavailable(f"SQLite store at {self.path} could not switch to WAL (got {mode})")
        conn.execute("PRAGMA synchronous = NORMAL")
        # Freed pages are zeroed: a purged or rewritten memory leaves no bytes behind in the file.
        conn.execute("PRAGMA secure_delete = ON")
        return conn

    # -- transactions ---------------------------------------------------------------------------

    def _retrying(self, action: Callable[[], _T]) -> _T:
        """Run `action`, retrying with jittered backoff while another process holds the write lock."""
        delay = 0.02
        for attempt in range(self._write_retries + 1):
            try:
                return action()
            except sqlite3.OperationalError as exc:
                message = str(exc).lower()
                if "locked" not in message and "busy" not in message:
                    raise
                if attempt == self._write_retries:
                    raise BackendUnavailable(
                        f"SQLite store {self.path} stayed busy after {attempt + 1} attempts; retry later"
                    ) from exc
                logger.debug("store busy (attempt %d), retrying in %.3fs", attempt + 1, delay)
                time.sleep(delay * (0.5 + random.random()))  # noqa: S311 - jitter, not crypto
                delay = min(delay * 2, 1.0)
        raise AssertionError("unreachable")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._retrying(lambda: self._conn.execute("BEGIN IMMEDIATE"))
            outer = getattr(self._local, "writing", False)
            self._local.writing = True
            # Accesses recorded while the lock was held land first, so that this write's own checks
            # (a state change's expected access count) see them.
            applied: dict[str, tuple[float, int]] = {}
            try:
                applied.update(self._apply_touches(self._conn))
                yield self._conn
                applied.update(self._apply_touches(self._conn))
            except BaseException:
                self._conn.execute("ROLLBACK")
                self._keep_touches(applied)
                raise
            else:
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.Error:
                    self._conn.execute("ROLLBACK")
                    self._keep_touches(applied)
                    raise
                if self._words_removed:
                    self._scrub(sorted(self._words_removed))
            finally:
                self._local.writing = outer
                self._words_removed = set()
        if not outer and not getattr(self._local, "settling", False):
            try:
                self._settle_touches()  # those recorded after this write took its last ones
            except (BackendUnavailable, sqlite3.Error) as exc:  # this write is committed: say so
                logger.warning("access statistics left for the next write: %s", exc)

    def _apply_touches(self, conn: sqlite3.Connection) -> dict[str, tuple[float, int]]:
        """Apply the pending accesses inside the open write; returns them, to keep if it rolls back."""
        with self._touches_lock:
            taken, self._touches = self._touches, {}
        if not taken:
            return taken  # the usual case: every write passes here twice
        try:
            conn.executemany(
                "UPDATE memories SET last_accessed_at = ?, access_count = access_count + ? WHERE id = ?",
                [(at, count, memory_id) for memory_id, (at, count) in taken.items()],
            )
        except BaseException:
            self._keep_touches(taken)
            raise
        return taken

    def _keep_touches(self, taken: dict[str, tuple[float, int]]) -> None:
        with self._touches_lock:
            for memory_id, (at, count) in taken.items():
                later = self._touches.get(memory_id)
                self._touches[memory_id] = (later[0], later[1] + count) if later else (at, count)

    def _settle_touches(self) -> None:
        """Apply pending accesses now, unless another thread holds the write lock: its write applies
        them before it commits, and settles again after it lets go."""
        while self._touches and not self._closed and self._lock.acquire(blocking=False):
            self._local.settling = True
            try:
                with self._write():
                    pass
            finally:
                self._local.settling = False
                self._lock.release()

    def _scrub(self, tables: list[str]) -> None:
        """After words were removed on request (a purge, new content): merge the full-text segments so
        that no index keeps the old words, and checkpoint the WAL so that its old page images go too. A
        failure here loses nothing (the words are already unreachable); the next removal merges again."""
        try:
            for table in tables:
                self._conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            logger.warning("could not merge the word indexes after a removal: %s", exc)

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row | tuple[Any, ...]]:
        reader = self._reader()
        if reader is None:
            with self._lock:
                return self._retrying(lambda: self._conn.execute(sql, params).fetchall())
        return self._retrying(lambda: reader.execute(sql, params).fetchall())

    def _reader(self) -> sqlite3.Connection | None:
        """This thread's read connection; None where reads must share the main one: inside a write
        (to see its own changes) and for an in-memory database (a second connection is another one)."""
        if str(self.path) == ":memory:" or getattr(self._local, "writing", False):
            return None
        reader: sqlite3.Connection | None = getattr(self._local, "reader", None)
        if reader is not None:
            return reader
        try:
            reader = sqlite3.connect(
                str(self.path), timeout=self._busy_timeout_s, isolation_level=None, check_same_thread=False
            )
            reader.execute("PRAGMA query_only = ON")
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"cannot open SQLite store at {self.path}: {exc}") from exc
        with self._readers_lock:
            if self._closed:
                reader.close()
                raise BackendUnavailable(f"SQLite store {self.path} is closed")
            for ident, (thread, left) in list(self._readers.items()):
                if not thread.is_alive():
                    left.close()
                    del self._readers[ident]
            self._readers[threading.get_ident()] = (threading.current_thread(), reader)
        self._local.reader = reader
        return reader

    # -- writes ---------------------------------------------------------------------------------

    def insert(
        self,
        record: MemoryRecord,
        vectors: Sequence[StoredVector],
        audit: AuditEntry,
        edges: Sequence[Edge] = (),
    ) -> None:
        try:
            with self._write() as conn:
                self._insert_in(conn, record, vectors, audit, edges)
        except sqlite3.IntegrityError as exc:
            raise ConflictError(
                f"a memory with the same content already exists in namespace {record.namespace!r}",
                content_hash=record.content_hash,
            ) from exc

    def _insert_in(
        self,
        conn: sqlite3.Connection,
        record: MemoryRecord,
        vectors: Sequence[StoredVector],
        audit: AuditEntry,
        edges: Sequence[Edge],
    ) -> None:
        cur = conn.execute(
            f"INSERT INTO memories ({COLUMNS}) VALUES ({', '.join('?' * COLUMN_COUNT)})", row_values(record)
        )
        seq = int(cur.lastrowid or 0)
        self._index(conn, seq, record)
        for vector in vectors:
            self._put_vector(conn, seq, vector)
        self._put_edges(conn, edges)
        self._append_audit(conn, audit)

    def _put_edges(self, conn: sqlite3.Connection, edges: Sequence[Edge]) -> None:
        conn.executemany(
            "INSERT OR REPLACE INTO edges (src, dst, type, weight, created_at) VALUES (?, ?, ?, ?, ?)",
            [(e.src, e.dst, e.type.value, e.weight, e.created_at) for e in edges],
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
            with self._write() as conn:
                seq = self._replace_in(conn, record, expected_version, revector, vectors, audit)
                if restatement is not None:
                    self._restate_in(conn, seq, restatement)
        except sqlite3.IntegrityError as exc:
            raise ConflictError(
                f"another memory in namespace {record.namespace!r} already has this content",
                content_hash=record.content_hash,
            ) from exc

    def _replace_in(
        self,
        conn: sqlite3.Connection,
        record: MemoryRecord,
        expected_version: int,
        revector: bool,
        vectors: Sequence[StoredVector],
        audit: AuditEntry,
    ) -> int:
        row = conn.execute(
            "SELECT seq, state, version, content, namespace FROM memories WHERE id = ?", (record.id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"no memory with id {record.id!r}", id=record.id)
        seq, old_state, stored_version = int(row[0]), str(row[1]), int(row[2])
        replaced = self._unindex(conn, seq, str(row[4]))
        if str(row[3]) != record.content:
            # New words replace the old ones: restatements of the old words must not outlive them.
            conn.execute("DELETE FROM restatements WHERE seq = ?", (seq,))
            self._words_removed.update(replaced)
        if stored_version != expected_version:
            raise ConflictError(
                f"memory {record.id} is at version {stored_version}, not {expected_version}; "
                "get it again and retry",
                id=record.id,
                current_version=stored_version,
            )
        values = row_values(record)
        assignments = ", ".join(f"{name.strip()} = ?" for name in COLUMNS.split(",")[1:])
        conn.execute(f"UPDATE memories SET {assignments} WHERE seq = ?", (*values[1:], seq))
        conn.execute("DELETE FROM memory_tags WHERE seq = ?", (seq,))
        conn.execute("DELETE FROM memory_entities WHERE seq = ?", (seq,))
        self._index(conn, seq, record)
        if revector:
            conn.execute("DELETE FROM vectors WHERE seq = ?", (seq,))
            for vector in vectors:
                self._put_vector(conn, seq, vector)
        if revector or old_state != record.state.value:
            self._bump_vector_epoch(conn)
        self._append_audit(conn, audit)
        return seq

    def _restate_in(self, conn: sqlite3.Connection, seq: int, item: Restatement) -> None:
        conn.execute(
            "INSERT INTO restatements "
            "(seq, content, agent_id, at, trust, similarity, times, last_at, last_agent_id) "
            "VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?) "
            "ON CONFLICT (seq, content) DO UPDATE SET times = times + 1, last_at = excluded.last_at, "
            "last_agent_id = excluded.last_agent_id",
            (seq, item.content, item.agent_id, item.at, item.trust, item.similarity, item.at, item.agent_id),
        )

    def restatements(self, memory_id: str, limit: int) -> tuple[list[Restatement], int]:
        rows = self._read(
            f"SELECT {RESTATEMENT_COLUMNS} "
            "FROM restatements r JOIN memories m ON m.seq = r.seq WHERE m.id = ? "
            "ORDER BY r.last_at DESC, r.rseq DESC LIMIT ?",
            (memory_id, limit),
        )
        total = self._read(
            "SELECT count(*) FROM restatements r JOIN memories m ON m.seq = r.seq WHERE m.id = ?",
            (memory_id,),
        )
        items = [restatement_from_row(r) for r in rows]
        return items, int(total[0][0])

    def delete(self, memory_id: str, audit: AuditEntry) -> None:
        with self._write() as conn:
            row = conn.execute("SELECT seq FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row is None:
                raise NotFound(f"no memory with id {memory_id!r}", id=memory_id)
            removed = self._delete_in(conn, int(row[0]), memory_id)
            self._bump_vector_epoch(conn)
            self._append_audit(conn, audit)
            # Someone asked for this memory to be gone (a purge, a review's delete): its words too.
            # Maintenance's own deletions and merges leave the segments to SQLite's automerge.
            self._words_removed.update(removed)

    def _delete_in(self, conn: sqlite3.Connection, seq: int, memory_id: str) -> list[str]:
        """A record and everything derived from it; the caller bumps the vector epoch and audits.
        Returns the text tables its words were removed from."""
        row = conn.execute("SELECT namespace FROM memories WHERE seq = ?", (seq,)).fetchone()
        removed = self._unindex(conn, seq, str(row[0])) if row is not None else []
        conn.execute("DELETE FROM edges WHERE src = ? OR dst = ?", (memory_id, memory_id))
        # The evidence of a conflict quotes both memories: a purge must not leave the text behind.
        conn.execute("DELETE FROM conflicts WHERE first_id = ? OR second_id = ?", (memory_id, memory_id))
        conn.execute("DELETE FROM memories WHERE seq = ?", (seq,))  # cascades to tags, entities, vectors
        return removed

    def _unindex(self, conn: sqlite3.Connection, seq: int, namespace: str) -> list[str]:
        """Remove a record's rows from its namespace's text tables; returns those tables."""
        number = self._texts.number(conn, namespace)
        if number is None:
            return []
        tables = [table_name(kind, number) for kind in KINDS]
        for table in tables:
            conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (seq,))
        return tables

    def touch(self, memory_ids: Iterable[str], at: float) -> None:
        """Recorded now when no other thread is writing; otherwise left for that write to apply, so
        that a recall never queues behind other agents' writes for its access statistics."""
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return
        with self._touches_lock:
            for memory_id in ids:
                earlier = self._touches.get(memory_id)
                self._touches[memory_id] = (at, earlier[1] + 1 if earlier else 1)
        self._settle_touches()

    def _index(self, conn: sqlite3.Connection, seq: int, record: MemoryRecord) -> None:
        conn.executemany("INSERT INTO memory_tags (seq, tag) VALUES (?, ?)", [(seq, t) for t in record.tags])
        conn.executemany(
            "INSERT INTO memory_entities (seq, entity) VALUES (?, ?)",
            [(seq, e.casefold()) for e in record.entities],
        )
        # Entities already in the text would count twice for BM25; index only the ones it does not name.
        lowered = record.content.casefold()
        unnamed = [e for e in record.entities if e.casefold() not in lowered]
        number = self._texts.ensure(conn, record.namespace)
        words_table, trigram_table = table_name(WORDS, number), table_name(TRIGRAMS, number)
        conn.execute(
            f"INSERT INTO {words_table} (rowid, content, tags, entities, context) VALUES (?, ?, ?, ?, ?)",
            (seq, record.content, " ".join(record.tags), " ".join(unnamed), record.context or ""),
        )
        conn.execute(f"INSERT INTO {trigram_table} (rowid, content) VALUES (?, ?)", (seq, record.content))

    def _put_vector(self, conn: sqlite3.Connection, seq: int, vector: StoredVector) -> None:
        values = np.ascontiguousarray(vector.values, dtype=np.float32)
        if values.ndim != 1 or not np.all(np.isfinite(values)):
            raise ContractBroken(f"vector for model {vector.model} must be one finite row")
        known = conn.execute("SELECT dim FROM vectors WHERE model = ? LIMIT 1", (vector.model,)).fetchone()
        if known is not None and int(known[0]) != values.shape[0]:
            raise ContractBroken(
                f"vector for model {vector.model} has dimension {values.shape[0]}; the store holds {known[0]}"
            )
        conn.execute(
            "INSERT INTO vectors (seq, model, dim, vec) VALUES (?, ?, ?, ?)",
            (seq, vector.model, int(values.shape[0]), values.tobytes()),
        )

    def _bump_vector_epoch(self, conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'vector_epoch'")

    def _append_audit(self, conn: sqlite3.Connection, entry: AuditEntry) -> None:
        conn.execute(
            "INSERT INTO audit (at, actor, namespace, action, memory_id, detail) VALUES (?, ?, ?, ?, ?, ?)",
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
        out: dict[str, MemoryRecord] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = self._read(
                f"SELECT {COLUMNS} FROM memories WHERE id IN ({', '.join('?' * len(chunk))})", chunk
            )
            for row in rows:
                record = record_from_row(row)
                out[record.id] = record
        return out

    def session_successors(self, memory_ids: Sequence[str], filters: Filters) -> dict[str, str]:
        where, params = filter_sql(filters)
        ids = list(dict.fromkeys(memory_ids))
        out: dict[str, str] = {}
        for start in range(0, len(ids), 400):  # one query for a recall's seeds, not one a seed
            chunk = ids[start : start + 400]
            rows = self._read(
                "SELECT c.id, (SELECT m.id FROM memories m WHERE m.namespace = c.namespace "
                "AND m.session_id = c.session_id AND (m.event_time, m.seq) > (c.event_time, c.seq) "
                f"AND {where} ORDER BY m.event_time, m.seq LIMIT 1) FROM memories c "
                f"WHERE c.id IN ({', '.join('?' * len(chunk))}) AND c.session_id IS NOT NULL",
                (*params, *chunk),
            )
            out.update((str(r[0]), str(r[1])) for r in rows if r[1] is not None)
        return {memory_id: out[memory_id] for memory_id in ids if memory_id in out}

    def subjects_named(self, namespace: str, words: Sequence[str]) -> list[str]:
        found = []
        for word in dict.fromkeys(w.casefold() for w in words):
            # One probe of memories_ns_subject per word; it stops at the first match.
            rows = self._read(
                "SELECT 1 FROM memories WHERE namespace = ? AND subject = ? COLLATE NOCASE "
                "AND subject IS NOT NULL LIMIT 1",
                (namespace, word),
            )
            if rows:
                found.append(word)
        return found

    def record_conflict(
        self, namespace: str, a: str, b: str, evidence: dict[str, Any], at: float
    ) -> int | None:
        first, second = sorted((a, b))
        with self._write() as conn:
            # Only between two memories that are still active: one superseded meanwhile settles nothing.
            known = conn.execute(
                "SELECT 1 FROM conflicts WHERE namespace = ? AND first_id = ? AND second_id = ?",
                (namespace, first, second),
            ).fetchone()
            active = conn.execute(
                "SELECT count(*) FROM memories WHERE id IN (?, ?) AND state = 'active'", (first, second)
            ).fetchone()[0]
            if known is not None or active != 2:
                return None
            # The namespace's last number is kept apart, so a purged conflict's number is never reused.
            number = int(
                conn.execute(
                    "INSERT INTO conflict_numbers (namespace, last) VALUES (?, 1) "
                    "ON CONFLICT (namespace) DO UPDATE SET last = last + 1 RETURNING last",
                    (namespace,),
                ).fetchone()[0]
            )
            conn.execute(
                "INSERT INTO conflicts (namespace, number, first_id, second_id, evidence, status, "
                "created_at) "
                "VALUES (?, ?, ?, ?, ?, 'open', ?)",
                (namespace, number, first, second, json.dumps(evidence, ensure_ascii=False), at),
            )
            return number

    def close_conflict(
        self, namespace: str, conflict_id: int, resolution: str, at: float, audit: AuditEntry
    ) -> None:
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE conflicts SET status = 'resolved', resolution = ?, resolved_at = ? "
                "WHERE namespace = ? AND number = ? AND status = 'open'",
                (resolution, at, namespace, conflict_id),
            )
            if not cur.rowcount:
                raise ConflictError(f"conflict {conflict_id} is not open", id=conflict_id)
            self._append_audit(conn, audit)

    def add_edge(self, edge: Edge, audit: AuditEntry) -> None:
        with self._write() as conn:
            found = conn.execute(
                "SELECT count(*) FROM memories WHERE id IN (?, ?)", (edge.src, edge.dst)
            ).fetchone()[0]
            if found != (1 if edge.src == edge.dst else 2):
                raise NotFound(f"edge {edge.src} -> {edge.dst}: both memories must exist")
            conn.execute(
                "INSERT OR REPLACE INTO edges (src, dst, type, weight, created_at) VALUES (?, ?, ?, ?, ?)",
                (edge.src, edge.dst, edge.type.value, edge.weight, edge.created_at),
            )
            self._append_audit(conn, audit)

    def edges_of(self, memory_ids: Sequence[str]) -> list[Edge]:
        ids = list(dict.fromkeys(memory_ids))
        found: dict[tuple[str, str, str], Edge] = {}
        for start in range(0, len(ids), 400):
            chunk = ids[start : start + 400]
            marks = ", ".join("?" * len(chunk))
            rows = self._read(
                "SELECT src, dst, type, weight, created_at FROM edges "
                f"WHERE src IN ({marks}) OR dst IN ({marks})",
                (*chunk, *chunk),
            )
            for r in rows:
                edge = edge_from_row(r)
                found[(edge.src, edge.dst, edge.type.value)] = edge
        return list(found.values())

    def audit_entries(
        self, memory_ids: Sequence[str], actions: Sequence[str], per_memory: int = 50
    ) -> list[AuditEntry]:
        out: list[AuditEntry] = []
        ids = list(dict.fromkeys(memory_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            # The newest `per_memory` of each: a memory repeated thousands of times costs no more.
            rows = self._read(
                "SELECT at, actor, namespace, action, memory_id, detail FROM ("
                "SELECT *, row_number() OVER (PARTITION BY memory_id ORDER BY seq DESC) AS newest FROM audit "
                f"WHERE memory_id IN ({', '.join('?' * len(chunk))}) "
                f"AND action IN ({', '.join('?' * len(actions))})) WHERE newest <= ? ORDER BY seq",
                (*chunk, *actions, per_memory),
            )
            out.extend(audit_from_row(r) for r in rows)
        return out

    # -- lifecycle ------------------------------------------------------------------------------

    def vectors_of(self, model: str, memory_ids: Sequence[str]) -> dict[str, Vector]:
        out: dict[str, Vector] = {}
        ids = list(dict.fromkeys(memory_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = self._read(
                "SELECT m.id, v.vec FROM vectors v JOIN memories m ON m.seq = v.seq "
                f"WHERE v.model = ? AND m.id IN ({', '.join('?' * len(chunk))})",
                (model, *chunk),
            )
            for memory_id, blob in rows:
                out[str(memory_id)] = np.frombuffer(blob, dtype=np.float32)
        return out

    def conflicts_of(self, memory_ids: Sequence[str]) -> list[Conflict]:
        out: dict[tuple[str, int], Conflict] = {}
        ids = list(dict.fromkeys(memory_ids))
        for start in range(0, len(ids), 400):
            chunk = ids[start : start + 400]
            marks = ", ".join("?" * len(chunk))
            rows = self._read(
                f"SELECT {CONFLICT_COLUMNS} FROM conflicts "
                f"WHERE first_id IN ({marks}) OR second_id IN ({marks})",
                (*chunk, *chunk),
            )
            for row in rows:
                found = conflict_from_row(row)
                out[(found.namespace, found.id)] = found
        return [out[key] for key in sorted(out)]

    def change_states(self, changes: Sequence[StateChange], at: float, actor: str, action: str) -> list[str]:
        changed: list[str] = []
        if not changes:
            return changed
        with self._write() as conn:
            for change in changes:
                found = self._unchanged(conn, change)
                if found is None:  # changed, used or removed since it was read: leave it for the next run
                    continue
                self._set_state_in(conn, change, found[1], at, actor, action)
                changed.append(change.id)
            if changed:
                self._bump_vector_epoch(conn)
        return changed

    def delete_many(self, deletions: Sequence[StateChange], at: float, actor: str, action: str) -> list[str]:
        removed: list[str] = []
        if not deletions:
            return removed
        with self._write() as conn:
            for change in deletions:
                found = self._unchanged(conn, change)
                if found is None:
                    continue
                self._delete_in(conn, found[0], change.id)
                self._append_audit(conn, AuditEntry(at, actor, found[1], action, change.id, change.detail))
                removed.append(change.id)
            if removed:
                self._bump_vector_epoch(conn)
        return removed

    def apply_group(self, group: GroupChange, at: float, actor: str, action: str) -> None:
        try:
            with self._write() as conn:
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
                self._bump_vector_epoch(conn)
        except sqlite3.IntegrityError as exc:
            raise ConflictError(f"the group's summary already exists: {exc}") from exc

    def _set_state_in(
        self,
        conn: sqlite3.Connection,
        change: StateChange,
        namespace: str,
        at: float,
        actor: str,
        action: str,
    ) -> None:
        """Move an active memory (checked by `_unchanged`) to `change.state`, with its audit entry."""
        conn.execute(
            "UPDATE memories SET state = ?, version = version + 1, updated_at = ? WHERE id = ?",
            (change.state.value, at, change.id),
        )
        detail = {"from_state": MemoryState.ACTIVE.value, "to_state": change.state.value, **change.detail}
        self._append_audit(conn, AuditEntry(at, actor, namespace, action, change.id, detail))

    def _unchanged(self, conn: sqlite3.Connection, change: StateChange) -> tuple[int, str] | None:
        """(seq, namespace) if the memory is still active, at the version and use count read."""
        row = conn.execute(
            "SELECT seq, namespace, state, version, access_count FROM memories WHERE id = ?", (change.id,)
        ).fetchone()
        if row is None or int(row[3]) != change.expected_version or str(row[2]) != MemoryState.ACTIVE.value:
            return None
        if change.expected_access is not None and int(row[4]) != change.expected_access:
            return None
        return int(row[0]), str(row[1])

    def save_run(self, namespace: str, started_at: float, finished_at: float, report: dict[str, Any]) -> int:
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO maintenance_runs (namespace, started_at, finished_at, report) "
                "VALUES (?, ?, ?, ?)",
                (namespace, started_at, finished_at, json.dumps(report, ensure_ascii=False)),
            )
            return int(cur.lastrowid or 0)

    def acquire_lease(self, name: str, holder: str, now: float, ttl_s: float) -> str | None:
        with self._write() as conn:
            row = conn.execute("SELECT holder, expires_at FROM leases WHERE name = ?", (name,)).fetchone()
            if row is not None and float(row[1]) > now and str(row[0]) != holder:
                return str(row[0])
            conn.execute(
                "INSERT OR REPLACE INTO leases (name, holder, expires_at) VALUES (?, ?, ?)",
                (name, holder, now + ttl_s),
            )
        return None

    def release_lease(self, name: str, holder: str) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM leases WHERE name = ? AND holder = ?", (name, holder))

    # -- search ---------------------------------------------------------------------------------

    def search_words(self, query: str, filters: Filters, limit: int) -> list[tuple[str, float]]:
        terms = list(dict.fromkeys(words(query)))
        if not terms:
            return []
        stems = self._stems.of(terms)
        wanted = sorted({stem for word in terms for stem in stems.get(word, ())})
        where, params = filter_sql(filters)
        found: list[tuple[str, float]] = []
        # Each pool has its own table and statistics; a principal reading several gets their union.
        for namespace in filters.pools:
            table = self._text_table(WORDS, namespace)
            if table is None:
                continue
            vocabulary = vocabulary_of(table)
            held: dict[str, int] = {
                str(r[0]): int(r[1])
                for r in self._read(
                    f"SELECT term, doc FROM {vocabulary} WHERE term IN ({', '.join('?' * len(wanted))})",
                    wanted,
                )
            }
            # A word of several terms ("e-mail") is a phrase: no more memories hold it than its rarest term.
            chosen = bm25.searched(
                {w: min((held.get(t, 0) for t in stems[w]), default=0) for w in terms if w in stems}
            )
            if not chosen:
                continue
            match = " OR ".join('"' + t.replace('"', '""') + '"' for t in chosen)
            found.extend(self._best_words(table, match, where, params, limit))
        found.sort(key=lambda pair: (-pair[1], pair[0]))
        return found[:limit]

    def _best_words(
        self, table: str, match: str, where: str, params: Sequence[Any], limit: int
    ) -> list[tuple[str, float]]:
        """The `limit` memories of one pool's word table that best match `match` and pass `where`, by
        BM25. Joining every match to its memory for the filter costs more than scoring it (a common
        word matches thousands), so the best `_SCORED_FIRST` times `limit` are joined first. Where the
        filter leaves fewer than `limit` of them, or a tie straddles the cut, every match is joined:
        the answer is the same either way."""
        cap = limit * _SCORED_FIRST
        rows = self._read(
            f"SELECT m.id, f.s, f.last, f.n FROM (SELECT rowid AS seq, s, max(s) OVER () AS last, "
            f"count(*) OVER () AS n FROM (SELECT rowid, bm25({table}, {_WEIGHTS}) AS s FROM {table} "
            f"WHERE {table} MATCH ? ORDER BY s LIMIT ?)) f JOIN memories m ON m.seq = f.seq "
            f"WHERE {where} ORDER BY f.s, m.id LIMIT ?",
            (match, cap, *params, limit),
        )
        # The best matches may lie beyond the scored ones only where the scoring stopped at `cap`.
        need_all = not rows or (
            int(rows[0][3]) == cap and (len(rows) < limit or float(rows[-1][1]) >= float(rows[0][2]))
        )
        if need_all:
            rows = self._read(
                f"SELECT m.id, bm25({table}, {_WEIGHTS}) AS s FROM {table} "
                f"JOIN memories m ON m.seq = {table}.rowid "
                f"WHERE {table} MATCH ? AND {where} ORDER BY s, m.id LIMIT ?",
                (match, *params, limit),
            )
        return [(str(r[0]), -float(r[1])) for r in rows]

    def search_cjk(self, query: str, filters: Filters, limit: int) -> list[tuple[str, float]]:
        asked = cjk_query(query)
        if asked is None:
            return []
        where, params = filter_sql(filters)
        candidates: dict[str, str] = {}
        for namespace in filters.pools if asked.trigrams else ():
            table = self._text_table(TRIGRAMS, namespace)
            if table is None:
                continue
            match = " OR ".join(f'"{t}"' for t in asked.trigrams)
            rows = self._read(
                f"SELECT m.id, m.content FROM {table} JOIN memories m ON m.seq = {table}.rowid "
                f"WHERE {table} MATCH ? AND {where} ORDER BY bm25({table}) LIMIT ?",
                (match, *params, _CJK_CANDIDATES),
            )
            candidates.update((str(r[0]), str(r[1])) for r in rows)
        # Grams shorter than a trigram cannot use the trigram index; scan for them with instr().
        if asked.short:
            any_gram = " OR ".join("instr(m.content, ?) > 0" for _ in asked.short)
            rows = self._read(
                f"SELECT m.id, m.content FROM memories m WHERE ({any_gram}) AND {where} LIMIT ?",
                (*asked.short, *params, _CJK_CANDIDATES),
            )
            candidates.update((str(r[0]), str(r[1])) for r in rows)
        return rank_cjk(asked, candidates, limit)

    def _text_table(self, kind: str, namespace: str) -> str | None:
        """The namespace's table of that kind, or None if it has never been written to."""
        number = self._texts.known(namespace)  # without waiting for a write that holds the lock
        if number is None:
            with self._lock:
                number = self._retrying(lambda: self._texts.number(self._conn, namespace))
        return None if number is None else table_name(kind, number)

    def _text_rows(self, kind: str, namespace: str | None) -> int:
        """Rows in the text tables of that kind: one namespace's, or every namespace's."""
        if namespace is not None:
            table = self._text_table(kind, namespace)
            return 0 if table is None else int(self._read(f"SELECT count(*) FROM {table}")[0][0])
        with self._lock:
            tables = self._retrying(lambda: self._texts.all_tables(self._conn, kind))
        return sum(int(self._read(f"SELECT count(*) FROM {table}")[0][0]) for table in tables)

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
        active_only = filters.states == (MemoryState.ACTIVE,)
        allowed = None
        if filters.is_structured or not active_only:
            where, params = filter_sql(filters)
            rows = self._read(f"SELECT m.seq FROM memories m WHERE {where}", params)
            allowed = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))
        views = self._matrix_views(models, int(vector.shape[0]))
        return {
            model: view.search(
                vector,
                namespaces=filters.pools,
                active_only=active_only,
                allowed_seqs=allowed,
                limit=limit,
                include=include,
            )
            for model, view in views.items()
        }

    def _matrix_views(self, models: Sequence[str], dim: int) -> dict[str, MatrixView]:
        """Views of the models' matrices, up to date. The new rows are read from this thread's own
        snapshot holding no lock, so a search waits neither for another agent's write to commit nor
        for another search's reading; only taking the rows in holds the matrices' lock."""
        reader = self._reader()
        if reader is None:  # inside a write, or in memory: the store's one connection
            with self._lock, self._matrices.lock:
                views = self._matrices.merge(*self._new_vector_rows(self._conn, models, dim))
        else:
            views = self._matrices.merge(*self._new_vector_rows(reader, models, dim))
            if views is None:  # the matrices were dropped while this thread read: read again, holding them
                with self._matrices.lock:
                    views = self._matrices.merge(*self._new_vector_rows(reader, models, dim))
        if views is None:
            raise ContractBroken("the vector matrices changed while their lock was held")
        return views

    def _new_vector_rows(
        self, conn: sqlite3.Connection, models: Sequence[str], dim: int
    ) -> tuple[int, int, dict[str, NewRows]]:
        """The vector epoch and each model's rows that its matrix lacks, all from one snapshot of
        `conn` (the thread's reader, or the store's own connection inside a write)."""
        own = conn is self._conn
        if not own:
            self._retrying(lambda: conn.execute("BEGIN"))
        try:
            epoch = int(conn.execute("SELECT value FROM meta WHERE key = 'vector_epoch'").fetchone()[0])
            fresh: dict[str, NewRows] = {}
            for model in dict.fromkeys(models):
                since = self._matrices.since(model, epoch, dim)
                rows = conn.execute(
                    "SELECT v.vseq, v.seq, m.id, m.namespace, m.state, v.dim, v.vec FROM vectors v "
                    "JOIN memories m ON m.seq = v.seq WHERE v.model = ? AND v.vseq > ? ORDER BY v.vseq",
                    (model, since),
                ).fetchall()
                fresh[model] = NewRows(since, [_vector_row(model, dim, row) for row in rows])
        finally:
            if not own:
                conn.execute("COMMIT")
        return epoch, dim, fresh

    # -- status ---------------------------------------------------------------------------------

    def stats(self, embedder_model: str | None, namespace: str | None = None) -> StoreStats:
        """Counts for the whole store, or with `namespace` for that namespace only (what a tenant sees)."""
        where, params = ("", ()) if namespace is None else (" WHERE namespace = ?", (namespace,))

        def grouped(sql: str, args: tuple[Any, ...] = ()) -> dict[str, int]:
            return {str(k): int(v) for k, v in self._read(sql, args)}

        total = int(self._read(f"SELECT count(*) FROM memories{where}", params)[0][0])
        everything = int(self._read("SELECT count(*) FROM memories")[0][0])
        words_rows, trigram_rows = self._text_rows(WORDS, None), self._text_rows(TRIGRAMS, None)
        vectors = grouped(
            "SELECT v.model, count(*) FROM vectors v JOIN memories m ON m.seq = v.seq"
            + (" WHERE m.namespace = ?" if namespace is not None else "")
            + " GROUP BY v.model",
            params,
        )
        health: list[str] = []
        # Index health is a property of the file; a tenant learns that it is off, not how big others are.
        for name, rows in (("word", words_rows), ("trigram", trigram_rows)):
            if rows != everything:
                detail = "" if namespace is not None else f" ({rows} rows for {everything} memories)"
                health.append(f"{name} index is out of step with the records{detail}; run `kenning reindex`")
        if embedder_model is not None:
            missing = total - vectors.get(embedder_model, 0)
            if missing:
                health.append(f"{missing} memories have no vector from {embedder_model}")
        size = used = 0
        if str(self.path) != ":memory:" and namespace is None:
            for suffix in ("", "-wal"):
                candidate = Path(str(self.path) + suffix)
                if candidate.exists():
                    size += candidate.stat().st_size
            pages, free, page_size = (
                int(self._read(f"PRAGMA {name}")[0][0])
                for name in ("page_count", "freelist_count", "page_size")
            )
            used = (pages - free) * page_size
        record_bytes = int(
            self._read(
                "SELECT coalesce(sum(length(CAST(content AS BLOB)) "
                "+ length(CAST(coalesce(context, '') AS BLOB)) "
                "+ length(CAST(coalesce(source, '') AS BLOB)) + length(CAST(tags AS BLOB)) "
                "+ length(CAST(entities AS BLOB)) + length(CAST(metadata AS BLOB))), 0) "
                f"FROM memories{where}",
                params,
            )[0][0]
        ) + int(
            self._read(
                "SELECT coalesce(sum(length(v.vec)), 0) FROM vectors v JOIN memories m ON m.seq = v.seq"
                + (" WHERE m.namespace = ?" if namespace is not None else ""),
                params,
            )[0][0]
        )
        return StoreStats(
            record_bytes=record_bytes,
            schema_version=self.schema_version,
            total=total,
            by_state=grouped(f"SELECT state, count(*) FROM memories{where} GROUP BY state", params),
            by_type=grouped(f"SELECT type, count(*) FROM memories{where} GROUP BY type", params),
            by_namespace=grouped(
                f"SELECT namespace, count(*) FROM memories{where} GROUP BY namespace", params
            ),
            vectors_by_model=vectors,
            backend="sqlite",
            index_rows={
                "text_rows": words_rows if namespace is None else self._text_rows(WORDS, namespace),
                "trigram_rows": trigram_rows if namespace is None else self._text_rows(TRIGRAMS, namespace),
            },
            audit_entries=int(self._read(f"SELECT count(*) FROM audit{where}", params)[0][0]),
            location=str(self.path),
            size_bytes=size,
            used_bytes=used,
            health=health,
        )

    def index_problems(self) -> list[str]:
        """Page damage, text indexes out of step with records, or FTS5 structures failing their check."""
        problems = self.integrity_check()
        broken = False
        with self._lock:
            tables = self._retrying(lambda: self._texts.all_tables(self._conn))
        for table in tables:
            try:
                with self._write() as conn:
                    conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
            except sqlite3.DatabaseError as exc:
                broken = True
                problems.append(f"{table}: {exc}; run `kenning reindex`")
        if not broken:
            problems += self.stats(None).health
        return problems

    def rebuild_text_indexes(self) -> int:
        """Rebuild every word, trigram, tag and entity row from the records; returns how many records.

        Drop and rebuild happen in one transaction, so other writers never see the indexes missing.
        """
        with self._lock:
            try:
                with self._write() as conn:
                    return self._recreate_text_indexes(conn)
            except sqlite3.DatabaseError as exc:
                if "vtable constructor failed" not in str(exc) and "malformed" not in str(exc):
                    raise
                self._remove_damaged_fts()
            with self._write() as conn:
                return self._recreate_text_indexes(conn)

    def _recreate_text_indexes(self, conn: sqlite3.Connection) -> int:
        numbers = [int(r[0]) for r in conn.execute("SELECT number FROM text_indexes").fetchall()]
        vocabularies = [vocabulary_of(table_name(WORDS, n)) for n in numbers]
        for table in [*vocabularies, *SHARED_TABLES, *self._texts.all_tables(conn)]:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        for (number,) in conn.execute("SELECT number FROM text_indexes").fetchall():
            create_tables(conn, int(number))  # the same numbers: what other processes hold stays right
        conn.execute("DELETE FROM memory_tags")
        conn.execute("DELETE FROM memory_entities")
        rows = conn.execute(f"SELECT seq, {COLUMNS} FROM memories").fetchall()
        for row in rows:
            self._index(conn, int(row[0]), record_from_row(row[1:]))
        return len(rows)

    def _remove_damaged_fts(self) -> None:
        """Remove FTS5 tables that FTS5 itself cannot open any more, through the schema table."""
        with self._lock:
            present = {str(r[0]) for r in self._conn.execute("SELECT name FROM sqlite_master")}
            tables = [t for t in [*SHARED_TABLES, *self._texts.all_tables(self._conn)] if t in present]
        for table in tables:
            try:
                self._conn.execute(f"SELECT count(*) FROM {table}").fetchone()
                continue
            except sqlite3.DatabaseError:
                logger.warning("%s cannot be opened; removing it through the schema table", table)
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("PRAGMA writable_schema = ON")
            self._conn.execute("DELETE FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))
            self._conn.execute("PRAGMA writable_schema = OFF")
            self._conn.execute("COMMIT")
            self._conn.close()
            self._conn = self._connect()
            for shadow in shadow_tables(table):
                self._conn.execute(f"DROP TABLE IF EXISTS {shadow}")

    def put_vectors(self, memory_id: str, vectors: Sequence[StoredVector]) -> None:
        """Replace the vectors of these models for one record."""
        with self._write() as conn:
            row = conn.execute("SELECT seq FROM memories WHERE id = ?", (memory_id,)).fetchone()
            if row is None:
                raise NotFound(f"no memory with id {memory_id!r}", id=memory_id)
            replaced = 0
            for vector in vectors:
                gone = conn.execute(
                    "DELETE FROM vectors WHERE seq = ? AND model = ?", (int(row[0]), vector.model)
                )
                replaced += gone.rowcount
                self._put_vector(conn, int(row[0]), vector)
            if replaced:
                # Only a replaced vector makes the in-memory matrices stale; a new one is appended
                # like an insert's (a turn's window vector arrives with the next turn).
                self._bump_vector_epoch(conn)

    def dump(self, batch_size: int = 1000) -> Iterator[DumpBatch]:
        """Read through a connection of its own inside one read transaction: one snapshot, while writers
        keep going."""
        if str(self.path) == ":memory:":
            with self._lock:
                yield from dump_batches(self._conn.execute, _blob_values, batch_size)
            return
        conn = sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
        try:
            conn.execute("BEGIN")
            yield from dump_batches(conn.execute, _blob_values, batch_size)
        finally:
            conn.close()

    def load(self, batches: Iterable[DumpBatch], *, replace: bool) -> int:
        written = 0
        with self._lock:
            with self._write() as conn:
                self._clear_for_load(conn, replace)
                seqs: dict[str, int] = {}
                for batch in batches:
                    for item in batch.records:
                        cur = conn.execute(
                            f"INSERT INTO memories ({COLUMNS}) VALUES ({', '.join('?' * COLUMN_COUNT)})",
                            row_values(item),
                        )
                        seqs[item.id] = int(cur.lastrowid or 0)
                        self._index(conn, seqs[item.id], item)
                    written += len(batch.records)
                    for memory_id, vector in batch.vectors:
                        self._put_vector(conn, seqs[memory_id], vector)
                    self._put_edges(conn, batch.edges)
                    conn.executemany(
                        f"INSERT INTO restatements (seq, {RESTATEMENT_COLUMNS.replace('r.', '')}) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [
                            (seqs[memory_id], *restatement_values(item))
                            for memory_id, item in batch.restatements
                        ],
                    )
                    conn.executemany(
                        f"INSERT INTO conflicts ({CONFLICT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [conflict_values(c) for c in batch.conflicts],
                    )
                    conn.executemany(
                        "INSERT OR REPLACE INTO conflict_numbers (namespace, last) VALUES (?, ?)",
                        batch.conflict_numbers,
                    )
                    for entry in batch.audit:
                        self._append_audit(conn, entry)
                    conn.executemany(
                        "INSERT INTO maintenance_runs (namespace, started_at, finished_at, report) "
                        "VALUES (?, ?, ?, ?)",
                        [
                            (ns, a, b, json.dumps(report, ensure_ascii=False))
                            for ns, a, b, report in batch.runs
                        ],
                    )
                self._bump_vector_epoch(conn)
            self._matrices.clear()
        return written

    def _clear_for_load(self, conn: sqlite3.Connection, replace: bool) -> None:
        held = int(
            conn.execute("SELECT (SELECT count(*) FROM memories) + (SELECT count(*) FROM audit)").fetchone()[
                0
            ]
        )
        if held and not replace:
            raise ConflictError(f"store {self.path} is not empty; a dump loads only into an empty store")
        if not held:
            return
        for table in self._texts.all_tables(conn):
            conn.execute(f"DELETE FROM {table}")
        for table in ("edges", "conflicts", "conflict_numbers", "maintenance_runs", "memories"):
            conn.execute(f"DELETE FROM {table}")  # tags, entities, vectors, restatements go with memories
        # The audit log refuses deletion; a restore replaces it whole, inside this one transaction.
        conn.execute("DROP TRIGGER audit_no_delete")
        conn.execute("DELETE FROM audit")
        conn.execute(
            "CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit "
            "BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END"
        )

    def backup_to(self, target: Path) -> None:
        """A consistent copy of the whole store, by SQLite's online backup, while writers keep going."""
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            copy = sqlite3.connect(str(target))
        except (OSError, sqlite3.Error) as exc:
            raise BackendUnavailable(f"cannot write a backup to {target}: {exc}") from exc
        try:
            with self._lock:
                self._conn.backup(copy)
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"backup to {target} failed: {exc}") from exc
        finally:
            copy.close()

    def restore_from(self, source: Path) -> None:
        """Replace the store's contents with a backup, after checking that the backup is sound."""
        original = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            verdict = original.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                raise ContractBroken(f"backup {source} failed its integrity check: {verdict}")
            version = original.execute("SELECT max(version) FROM schema_version").fetchone()[0]
            if version is None or int(version) > LATEST_VERSION:
                raise ContractBroken(
                    f"backup {source} has schema version {version}; this Kenning reads up to {LATEST_VERSION}"
                )
            with self._lock:
                before = int(
                    self._conn.execute("SELECT value FROM meta WHERE key = 'vector_epoch'").fetchone()[0]
                )
                original.backup(self._conn)
                self._matrices.clear()
                # Other processes cache vectors by epoch: a restored (older) epoch must not look current.
                self._conn.execute(
                    "UPDATE meta SET value = max(value, ?) + 1 WHERE key = 'vector_epoch'", (before,)
                )
        except sqlite3.DatabaseError as exc:
            raise ContractBroken(f"{source} is not a Kenning backup: {exc}") from exc
        finally:
            original.close()
        self.schema_version = self._retrying(lambda: migrate(self._conn))

    def integrity_check(self) -> list[str]:
        """SQLite's own page-level check; an empty list means the file is sound."""
        rows = self._read("PRAGMA quick_check")
        return [str(r[0]) for r in rows if str(r[0]) != "ok"]

    def close(self) -> None:
        with self._lock:
            self._settle_touches()  # the accesses still pending (this thread holds the lock: never skipped)
        with self._lock, self._readers_lock:
            self._closed = True
            for _, reader in self._readers.values():
                reader.close()
            self._readers.clear()
            self._conn.close()


def _blob_values(blob: bytes) -> Vector:
    return np.frombuffer(blob, dtype=np.float32).copy()


def _vector_row(model: str, dim: int, row: Sequence[Any]) -> VectorRow:
    vseq, seq, memory_id, namespace, state, row_dim, blob = row
    if int(row_dim) != dim:
        raise ContractBroken(
            f"vector of memory {memory_id} for model {model} has dimension {row_dim}, expected {dim}"
        )
    return VectorRow(
        vseq=int(vseq),
        seq=int(seq),
        memory_id=str(memory_id),
        namespace=str(namespace),
        active=state == MemoryState.ACTIVE.value,
        values=np.frombuffer(blob, dtype=np.float32),
    )
