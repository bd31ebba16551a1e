"""PostgreSQL schema and its migrations. Each migration runs once, recorded in `schema_version`, under
an advisory lock so that several servers starting at once migrate one after the other.

Every table that holds a pool's data carries its `namespace` and is under row-level security, forced
on the owner too: a statement sees and writes only the pools its transaction named (see pg_store), so
a query that forgets its pool predicate still cannot read another pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kenning.core import bm25
from kenning.core.cjk_match import memory_grams

# Which pools the current transaction may touch: `kenning.pools` holds them as an array literal, and
# `kenning.all_pools` = 'on' opens every pool (the operator's console, maintenance across pools).
_POOL_FUNCTIONS = """
CREATE FUNCTION kenning_pools() RETURNS text[] LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(nullif(current_setting('kenning.pools', true), ''), '{}')::text[]
$$;
CREATE FUNCTION kenning_all_pools() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(current_setting('kenning.all_pools', true), '') = 'on'
$$;
"""

POOLED_TABLES = (
    "memories",
    "memory_tags",
    "memory_entities",
    "vectors",
    "edges",
    "audit",
    "conflicts",
    "conflict_numbers",
    "restatements",
    "maintenance_runs",
)


WORD_TABLES = ("word_postings", "word_stats", "word_totals")

# A word's weighted count in a memory (BM25's term frequency): content A, tags and entities B, context C,
# with core.bm25's column weights (a change of those needs a migration that rewrites this).
_WEIGHTS = f"WHEN 'A' THEN {bm25.CONTENT} WHEN 'B' THEN {bm25.TAGS} WHEN 'C' THEN {bm25.CONTEXT}"
_FREQUENCY = f"sum(CASE w {_WEIGHTS} ELSE 0 END)"

# Every pool's postings and word statistics, made afresh from the memories (a migration, a bulk load,
# `kenning reindex`).
COUNT_WORDS = f"""
DELETE FROM word_postings;
DELETE FROM word_stats;
DELETE FROM word_totals;
INSERT INTO word_postings (namespace, lexeme, seq, tf, dl)
    SELECT m.namespace, u.lexeme, m.seq, {_FREQUENCY}, m.word_count
    FROM memories m, unnest(m.words) AS u(lexeme, positions, weights), unnest(u.weights) AS w
    GROUP BY 1, 2, 3, 5;
INSERT INTO word_stats (namespace, lexeme, docs)
    SELECT namespace, lexeme, count(*) FROM word_postings GROUP BY 1, 2;
INSERT INTO word_totals (namespace, docs, words)
    SELECT namespace, count(*), sum(word_count) FROM memories GROUP BY 1;
"""


_MAY_SEE = "(SELECT kenning_all_pools()) OR namespace = ANY ((SELECT kenning_pools())::text[])"


def _row_security(tables: tuple[str, ...]) -> str:
    statements = []
    for table in tables:
        statements.append(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;")
        statements.append(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY;")
        statements.append(
            # Each function in a sub-select: computed once a statement, not once a row.
            f"CREATE POLICY {table}_pools ON {table} USING ({_MAY_SEE}) WITH CHECK ({_MAY_SEE});"
        )
    return "\n".join(statements)


def _count_grams(conn: Any) -> None:
    """4: the character postings of every memory written before schema 3 made their table."""
    rows = conn.execute("SELECT seq, namespace, content FROM memories").fetchall()
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO char_postings (namespace, gram, seq) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            [(ns, gram, seq) for seq, ns, content in rows for gram in sorted(memory_grams(content))],
        )


CHAR_TABLES = ("char_postings",)

MIGRATIONS: list[str | Callable[[Any], None]] = [
    # 1: records and everything derived from them, with the same meaning as the SQLite schema.
    """
    CREATE TABLE memories (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        namespace text NOT NULL,
        agent_id text NOT NULL,
        subject text,
        session_id text,
        type text NOT NULL,
        content text NOT NULL,
        content_hash text NOT NULL,
        tags text NOT NULL DEFAULT '[]',
        entities text NOT NULL DEFAULT '[]',
        context text,
        importance double precision NOT NULL,
        trust text NOT NULL,
        source text,
        created_at double precision NOT NULL,
        updated_at double precision NOT NULL,
        event_time double precision NOT NULL,
        valid_from double precision,
        valid_to double precision,
        last_accessed_at double precision,
        access_count integer NOT NULL DEFAULT 0,
        review_after double precision,
        state text NOT NULL,
        supersedes text,
        version integer NOT NULL,
        metadata text NOT NULL DEFAULT '{}',
        pinned integer NOT NULL DEFAULT 0,
        words tsvector NOT NULL,
        word_count integer NOT NULL,
        UNIQUE (namespace, content_hash)
    );
    CREATE INDEX memories_ns_state ON memories (namespace, state);
    CREATE INDEX memories_ns_event ON memories (namespace, event_time);
    CREATE INDEX memories_ns_type ON memories (namespace, type);
    CREATE INDEX memories_session ON memories (namespace, session_id, event_time, seq)
        WHERE session_id IS NOT NULL;
    CREATE INDEX memories_supersedes ON memories (supersedes) WHERE supersedes IS NOT NULL;
    CREATE INDEX memories_ns_subject ON memories (namespace, lower(subject)) WHERE subject IS NOT NULL;
    CREATE INDEX memories_ns_agent ON memories (namespace, agent_id, created_at);
    CREATE INDEX memories_words ON memories USING gin (words);
    CREATE TABLE memory_tags (
        tag text NOT NULL,
        seq bigint NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        namespace text NOT NULL,
        PRIMARY KEY (tag, seq)
    );
    CREATE INDEX memory_tags_seq ON memory_tags (seq);
    CREATE TABLE memory_entities (
        entity text NOT NULL,
        seq bigint NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        namespace text NOT NULL,
        PRIMARY KEY (entity, seq)
    );
    CREATE INDEX memory_entities_seq ON memory_entities (seq);
    CREATE TABLE vectors (
        vseq bigserial PRIMARY KEY,
        seq bigint NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        namespace text NOT NULL,
        model text NOT NULL,
        dim integer NOT NULL,
        vec vector NOT NULL,
        UNIQUE (seq, model)
    );
    CREATE INDEX vectors_model ON vectors (model, vseq);
    CREATE TABLE vector_models (model text PRIMARY KEY, dim integer NOT NULL, index_name text NOT NULL);
    CREATE TABLE edges (
        src text NOT NULL,
        dst text NOT NULL,
        type text NOT NULL,
        weight double precision NOT NULL,
        created_at double precision NOT NULL,
        namespace text NOT NULL,
        PRIMARY KEY (src, dst, type)
    );
    CREATE INDEX edges_dst ON edges (dst);
    CREATE TABLE audit (
        seq bigserial PRIMARY KEY,
        at double precision NOT NULL,
        actor text NOT NULL,
        namespace text NOT NULL,
        action text NOT NULL,
        memory_id text,
        detail text NOT NULL DEFAULT '{}'
    );
    CREATE INDEX audit_memory ON audit (memory_id);
    CREATE INDEX audit_actor ON audit (namespace, actor, at);
    CREATE FUNCTION kenning_audit_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'audit log is append-only';
    END $$;
    CREATE TRIGGER audit_no_change BEFORE UPDATE OR DELETE ON audit
        FOR EACH ROW EXECUTE FUNCTION kenning_audit_is_append_only();
    CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit
        FOR EACH STATEMENT EXECUTE FUNCTION kenning_audit_is_append_only();
    CREATE TABLE conflicts (
        id bigserial PRIMARY KEY,
        namespace text NOT NULL,
        number integer NOT NULL,
        first_id text NOT NULL,
        second_id text NOT NULL,
        evidence text NOT NULL,
        status text NOT NULL,
        resolution text,
        created_at double precision NOT NULL,
        resolved_at double precision,
        UNIQUE (namespace, first_id, second_id),
        UNIQUE (namespace, number)
    );
    CREATE INDEX conflicts_open ON conflicts (namespace, status);
    CREATE INDEX conflicts_first ON conflicts (first_id);
    CREATE INDEX conflicts_second ON conflicts (second_id);
    CREATE TABLE conflict_numbers (namespace text PRIMARY KEY, last integer NOT NULL);
    CREATE TABLE restatements (
        rseq bigserial PRIMARY KEY,
        seq bigint NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        namespace text NOT NULL,
        content text NOT NULL,
        agent_id text NOT NULL,
        at double precision NOT NULL,
        trust text NOT NULL,
        similarity double precision,
        times integer NOT NULL DEFAULT 1,
        last_at double precision NOT NULL,
        last_agent_id text NOT NULL,
        UNIQUE (seq, content)
    );
    CREATE TABLE maintenance_runs (
        id bigserial PRIMARY KEY,
        namespace text NOT NULL,
        started_at double precision NOT NULL,
        finished_at double precision NOT NULL,
        report text NOT NULL
    );
    CREATE INDEX maintenance_runs_ns ON maintenance_runs (namespace, id);
    CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL, expires_at double precision NOT NULL);
    CREATE TABLE tokens (
        id text PRIMARY KEY,
        name text NOT NULL,
        secret_hash text NOT NULL,
        write_pool text NOT NULL,
        read_pools text NOT NULL,
        scopes text NOT NULL,
        max_trust text NOT NULL,
        created_at double precision NOT NULL,
        expires_at double precision,
        revoked_at double precision
    );
    CREATE UNIQUE INDEX tokens_live_name ON tokens (name) WHERE revoked_at IS NULL;
    -- Request counts of the last minute per principal, shared by every server process on the database.
    CREATE UNLOGGED TABLE rate_windows (
        who text PRIMARY KEY, start double precision NOT NULL, n integer NOT NULL
    );
    """
    + _POOL_FUNCTIONS
    + _row_security(POOLED_TABLES),
    # 2: words searched through postings (pool, word, memory, weighted count) and BM25's statistics per
    # pool, kept by a trigger in the transaction that changes a memory's words. Postings, not the GIN
    # index of the tsvector: row-level security lets an index answer only leakproof operators, which
    # text equality is and the tsvector match is not. The statistics (how many memories hold each word,
    # how many memories and words a pool has) are a few rows to read instead of counting matches.
    f"""
    CREATE TABLE word_postings (
        namespace text NOT NULL, lexeme text NOT NULL,
        seq bigint NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        tf real NOT NULL,  -- the word's weighted count in the memory
        dl integer NOT NULL,  -- the memory's length in words
        PRIMARY KEY (namespace, lexeme, seq) INCLUDE (tf, dl)
    );
    CREATE INDEX word_postings_seq ON word_postings (seq);
    DROP INDEX memories_words;
    CREATE TABLE word_stats (
        namespace text NOT NULL, lexeme text NOT NULL, docs integer NOT NULL,
        PRIMARY KEY (namespace, lexeme)
    );
    CREATE TABLE word_totals (namespace text PRIMARY KEY, docs bigint NOT NULL, words bigint NOT NULL);
    CREATE FUNCTION kenning_count_words() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
            DELETE FROM word_postings WHERE seq = OLD.seq;
            UPDATE word_stats s SET docs = s.docs - 1
                FROM unnest(OLD.words) AS l WHERE s.namespace = OLD.namespace AND s.lexeme = l.lexeme;
            UPDATE word_totals SET docs = docs - 1, words = words - OLD.word_count
                WHERE namespace = OLD.namespace;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
            INSERT INTO word_postings (namespace, lexeme, seq, tf, dl)
                SELECT NEW.namespace, u.lexeme, NEW.seq, {_FREQUENCY}, NEW.word_count
                FROM unnest(NEW.words) AS u(lexeme, positions, weights), unnest(u.weights) AS w
                GROUP BY 1, 2, 3;
            -- In lexeme order, so that two writers of one pool lock the rows they share in the same order.
            INSERT INTO word_stats (namespace, lexeme, docs)
                SELECT NEW.namespace, l.lexeme, 1 FROM unnest(NEW.words) AS l ORDER BY l.lexeme
                ON CONFLICT (namespace, lexeme) DO UPDATE SET docs = word_stats.docs + 1;
            INSERT INTO word_totals (namespace, docs, words) VALUES (NEW.namespace, 1, NEW.word_count)
                ON CONFLICT (namespace) DO UPDATE
                SET docs = word_totals.docs + 1, words = word_totals.words + excluded.words;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER memories_count_words AFTER INSERT OR DELETE OR UPDATE OF words, word_count ON memories
        FOR EACH ROW EXECUTE FUNCTION kenning_count_words();
    """
    + COUNT_WORDS
    + _row_security(WORD_TABLES),
    # 3: Chinese, Japanese and Korean looked up through character postings (pool, gram, memory): every
    # character of a memory's CJK runs and every pair of neighbours, written by the store beside the
    # memory. Equality again, where an index on `LIKE` (pg_trgm's) would be refused under row-level
    # security.
    """
    CREATE TABLE char_postings (
        namespace text NOT NULL, gram text NOT NULL,
        seq bigint NOT NULL REFERENCES memories (seq) ON DELETE CASCADE,
        PRIMARY KEY (namespace, gram, seq)
    );
    CREATE INDEX char_postings_seq ON char_postings (seq);
    """
    + _row_security(CHAR_TABLES),
    _count_grams,
]

LATEST_VERSION = len(MIGRATIONS)
SECURED_TABLES = POOLED_TABLES + WORD_TABLES + CHAR_TABLES  # every table under row-level security

# pg_trgm is not among them: under row-level security its index could not answer `LIKE` (not leakproof);
# character postings (schema 3) serve Chinese, Japanese and Korean instead.
REQUIRED_EXTENSIONS = ("vector",)

# Advisory lock keys (constants of ours): schema migration, the lease table, a vector model's index.
MIGRATION_LOCK = 0x4B454E4E
LEASE_LOCK = 0x4B454E4F
INDEX_LOCK = 0x4B454E50


def current_version(conn: Any) -> int:
    found = conn.execute("SELECT to_regclass('schema_version')").fetchone()
    if found is None or found[0] is None:
        return 0
    row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def missing_extensions(conn: Any) -> list[str]:
    present = {str(r[0]) for r in conn.execute("SELECT extname FROM pg_extension").fetchall()}
    return [name for name in REQUIRED_EXTENSIONS if name not in present]


def migrate(conn: Any) -> int:
    """Bring the schema to LATEST_VERSION in one transaction; returns the version now (a newer
    database is left alone and its version returned)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        for extension in missing_extensions(conn):
            # Needs a role allowed to create it; doctor names the statement for the database owner.
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS {extension}")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        version = current_version(conn)
        if version > LATEST_VERSION:
            return version
        conn.execute("SELECT set_config('kenning.all_pools', 'on', true)")
        for number in range(version + 1, LATEST_VERSION + 1):
            step = MIGRATIONS[number - 1]
            if callable(step):
                step(conn)
            else:
                conn.execute(step)
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (number,))
    return LATEST_VERSION
