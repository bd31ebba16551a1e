"""SQLite schema and its migrations. Each migration runs once, recorded in `schema_version`."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable

from kenning.adapters.sqlite_text_index import (
    COLUMNS,
    KINDS,
    SHARED_TABLES,
    create_tables,
    create_vocabulary,
    table_name,
)

logger = logging.getLogger(__name__)


def _text_index_per_namespace(conn: sqlite3.Connection) -> None:
    """10: each namespace gets its own word and trigram tables (see sqlite_text_index), filled from
    the shared ones, which go. A shared table that cannot be read leaves the new ones empty, and
    status then asks for `kenning reindex`."""
    conn.execute("CREATE TABLE text_indexes (namespace TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE)")
    namespaces = [str(r[0]) for r in conn.execute("SELECT DISTINCT namespace FROM memories ORDER BY 1")]
    for number, namespace in enumerate(namespaces, start=1):
        conn.execute("INSERT INTO text_indexes (namespace, number) VALUES (?, ?)", (namespace, number))
        create_tables(conn, number)
        for kind, shared in zip(KINDS, SHARED_TABLES, strict=True):
            try:
                conn.execute(
                    f"INSERT INTO {table_name(kind, number)} (rowid, {', '.join(COLUMNS[kind])}) "
                    f"SELECT f.rowid, {', '.join('f.' + c for c in COLUMNS[kind])} "
                    f"FROM {shared} f JOIN memories m ON m.seq = f.rowid WHERE m.namespace = ?",
                    (namespace,),
                )
            except sqlite3.DatabaseError as exc:
                logger.warning("could not copy %s for namespace %r: %s", kind, namespace, exc)
    for shared in SHARED_TABLES:
        try:
            conn.execute(f"DROP TABLE IF EXISTS {shared}")
        except sqlite3.DatabaseError as exc:  # a damaged table: `kenning reindex` removes it
            logger.warning("could not drop the shared %s: %s", kind, exc)


def _vocabularies(conn: sqlite3.Connection) -> None:
    """11: a vocabulary over each namespace's word table, so a search knows how common each word is."""
    for (number,) in conn.execute("SELECT number FROM text_indexes").fetchall():
        create_vocabulary(conn, int(number))


MIGRATIONS: list[str | Callable[[sqlite3.Connection], None]] = [
    # 1: records, text indexes, vectors, edges, audit.
    """
    CREATE TABLE memories (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        namespace TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        subject TEXT,
        session_id TEXT,
        type TEXT NOT NULL,
        content TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        tags TEXT NOT NULL DEFAULT '[]',
        entities TEXT NOT NULL DEFAULT '[]',
        context TEXT,
        importance REAL NOT NULL,
        trust TEXT NOT NULL,
        source TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        event_time REAL NOT NULL,
        valid_from REAL,
        valid_to REAL,
        last_accessed_at REAL,
        access_count INTEGER NOT NULL DEFAULT 0,
        review_after REAL,
        state TEXT NOT NULL,
        supersedes TEXT,
        version INTEGER NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        UNIQUE (namespace, content_hash)
    );
    CREATE INDEX memories_ns_state ON memories (namespace, state);
    CREATE INDEX memories_ns_event ON memories (namespace, event_time);
    CREATE INDEX memories_ns_type ON memories (namespace, type);
    CREATE TABLE memory_tags (
        seq INTEGER NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (tag, seq)
    ) WITHOUT ROWID;
    CREATE INDEX memory_tags_seq ON memory_tags (seq);
    CREATE TABLE memory_entities (
        seq INTEGER NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        entity TEXT NOT NULL,
        PRIMARY KEY (entity, seq)
    ) WITHOUT ROWID;
    CREATE INDEX memory_entities_seq ON memory_entities (seq);
    CREATE VIRTUAL TABLE fts_words USING fts5 (
        content, tags, entities, context,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE fts_trigram USING fts5 (content, tokenize = 'trigram');
    CREATE TABLE vectors (
        vseq INTEGER PRIMARY KEY AUTOINCREMENT,
        seq INTEGER NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        model TEXT NOT NULL,
        dim INTEGER NOT NULL,
        vec BLOB NOT NULL,
        UNIQUE (seq, model)
    );
    CREATE INDEX vectors_model ON vectors (model, vseq);
    CREATE TABLE edges (
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        type TEXT NOT NULL,
        weight REAL NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (src, dst, type)
    );
    CREATE INDEX edges_dst ON edges (dst);
    CREATE TABLE audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        actor TEXT NOT NULL,
        namespace TEXT NOT NULL,
        action TEXT NOT NULL,
        memory_id TEXT,
        detail TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX audit_memory ON audit (memory_id);
    CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
    CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
    INSERT INTO meta (key, value) VALUES ('vector_epoch', 0);
    """,
    # 2: conversation order, for "the turn after this one" during recall.
    """
    CREATE INDEX memories_session ON memories (namespace, session_id, event_time, seq)
        WHERE session_id IS NOT NULL;
    """,
    # 3: conflicts shown to callers (each pair once), and supersede chains readable both ways.
    """
    CREATE TABLE conflicts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        namespace TEXT NOT NULL,
        first_id TEXT NOT NULL,
        second_id TEXT NOT NULL,
        evidence TEXT NOT NULL,
        status TEXT NOT NULL,
        resolution TEXT,
        created_at REAL NOT NULL,
        resolved_at REAL,
        UNIQUE (namespace, first_id, second_id)
    );
    CREATE INDEX conflicts_open ON conflicts (namespace, status);
    CREATE INDEX memories_supersedes ON memories (supersedes) WHERE supersedes IS NOT NULL;
    """,
    # 4: SQLite 3.40's quick_check reports "NULL value in memory_tags.seq" for a WITHOUT ROWID table whose
    # primary key lists columns in another order than the table does; declare them in key order.
    """
    CREATE TABLE memory_tags_v4 (
        tag TEXT NOT NULL,
        seq INTEGER NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        PRIMARY KEY (tag, seq)
    ) WITHOUT ROWID;
    INSERT INTO memory_tags_v4 (tag, seq) SELECT tag, seq FROM memory_tags;
    DROP TABLE memory_tags;
    ALTER TABLE memory_tags_v4 RENAME TO memory_tags;
    CREATE INDEX memory_tags_seq ON memory_tags (seq);
    CREATE TABLE memory_entities_v4 (
        entity TEXT NOT NULL,
        seq INTEGER NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        PRIMARY KEY (entity, seq)
    ) WITHOUT ROWID;
    INSERT INTO memory_entities_v4 (entity, seq) SELECT entity, seq FROM memory_entities;
    DROP TABLE memory_entities;
    ALTER TABLE memory_entities_v4 RENAME TO memory_entities;
    CREATE INDEX memory_entities_seq ON memory_entities (seq);
    """,
    # 5: per-writer quotas count a writer's recent audit entries.
    """
    CREATE INDEX audit_actor ON audit (namespace, actor, at);
    """,
    # 6: lifecycle: pinned memories, kept maintenance reports, and a lease so one maintenance runs at a time.
    """
    ALTER TABLE memories ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE maintenance_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        namespace TEXT NOT NULL,
        started_at REAL NOT NULL,
        finished_at REAL NOT NULL,
        report TEXT NOT NULL
    );
    CREATE INDEX maintenance_runs_ns ON maintenance_runs (namespace, id);
    CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX conflicts_first ON conflicts (first_id);
    CREATE INDEX conflicts_second ON conflicts (second_id);
    """,
    # 7: recall asks whether a word of the query names the subject of some memory.
    """
    CREATE INDEX memories_ns_subject ON memories (namespace, subject COLLATE NOCASE)
        WHERE subject IS NOT NULL;
    """,
    # 8: what a memory absorbed when the same thing was said again, word for word (nothing is dropped).
    """
    CREATE TABLE restatements (
        rseq INTEGER PRIMARY KEY AUTOINCREMENT,
        seq INTEGER NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        content TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        at REAL NOT NULL,
        trust TEXT NOT NULL,
        similarity REAL,
        times INTEGER NOT NULL DEFAULT 1,
        last_at REAL NOT NULL,
        last_agent_id TEXT NOT NULL,
        UNIQUE (seq, content)
    );
    """,
    # 9: a conflict's number counts within its namespace, so no tenant learns how many others have;
    # the last number given is kept, so a number is never given twice even after a purge.
    """
    ALTER TABLE conflicts ADD COLUMN number INTEGER;
    UPDATE conflicts SET number = (
        SELECT count(*) FROM conflicts AS earlier
        WHERE earlier.namespace = conflicts.namespace AND earlier.id <= conflicts.id
    );
    CREATE UNIQUE INDEX conflicts_number ON conflicts (namespace, number);
    CREATE TABLE conflict_numbers (namespace TEXT PRIMARY KEY, last INTEGER NOT NULL);
    INSERT INTO conflict_numbers (namespace, last)
        SELECT namespace, max(number) FROM conflicts GROUP BY namespace;
    """,
    _text_index_per_namespace,
    _vocabularies,
]

LATEST_VERSION = len(MIGRATIONS)


def current_version(conn: sqlite3.Connection) -> int:
    row = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if row is None:
        return 0
    found = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(found[0] or 0)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema to LATEST_VERSION inside one write transaction; returns the version now."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        version = current_version(conn)
        if version > LATEST_VERSION:
            conn.execute("ROLLBACK")
            return version
        for number in range(version + 1, LATEST_VERSION + 1):
            step = MIGRATIONS[number - 1]
            if callable(step):
                step(conn)
            else:
                for statement in _statements(step):
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", (number, time.time())
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return LATEST_VERSION


def _statements(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    out: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                out.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        out.append(buffer.strip())
    return out
