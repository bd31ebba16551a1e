"""Full-text tables per namespace: FTS5 keeps its document statistics (row count, average length,
how many rows hold a word) per table, so one namespace's BM25 scores never move because another
namespace wrote, and counting a namespace's index rows reads only its own table.

`text_indexes` gives each namespace a number; its tables are `fts_words_<n>` and `fts_trigram_<n>`.
A number never changes, so a process may keep the ones it has seen.
"""

from __future__ import annotations

import sqlite3
import threading

WORDS = "fts_words"
TRIGRAMS = "fts_trigram"
KINDS = (WORDS, TRIGRAMS)
SHARED_TABLES = KINDS  # schema 9's one pair of tables for every namespace, under the kinds' names
COLUMNS = {WORDS: ("content", "tags", "entities", "context"), TRIGRAMS: ("content",)}
_TOKENIZERS = {WORDS: "porter unicode61 remove_diacritics 2", TRIGRAMS: "trigram"}
_SHADOWS = ("data", "idx", "content", "docsize", "config")


def table_name(kind: str, number: int) -> str:
    return f"{kind}_{int(number)}"


def vocabulary_of(words_table: str) -> str:
    """The fts5vocab table over a namespace's word table: how many of its rows hold each term."""
    return f"{words_table}_vocab"


def create_tables(conn: sqlite3.Connection, number: int) -> None:
    for kind in KINDS:
        columns = ", ".join(COLUMNS[kind])
        conn.execute(
            f"CREATE VIRTUAL TABLE {table_name(kind, number)} USING fts5 "
            f"({columns}, tokenize = '{_TOKENIZERS[kind]}')"
        )
    create_vocabulary(conn, number)


def create_vocabulary(conn: sqlite3.Connection, number: int) -> None:
    """It stores nothing: it reads the word table's own index."""
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocabulary_of(table_name(WORDS, number))} "
        f"USING fts5vocab({table_name(WORDS, number)}, 'row')"
    )


class QueryStems:
    """The terms the word tables hold for a query's words: each word tokenized as the tables tokenize
    (porter stems), in a private in-memory table, so that a word's document frequency can be looked up."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.execute(f"CREATE VIRTUAL TABLE q USING fts5 (x, tokenize = '{_TOKENIZERS[WORDS]}')")
        self._conn.execute("CREATE VIRTUAL TABLE q_terms USING fts5vocab(q, 'instance')")

    def of(self, words: list[str]) -> dict[str, tuple[str, ...]]:
        """Each word's terms, in order (a word such as "e-mail" gives two)."""
        with self._lock:
            self._conn.executemany("INSERT INTO q (rowid, x) VALUES (?, ?)", list(enumerate(words, start=1)))
            rows = self._conn.execute("SELECT doc, term FROM q_terms ORDER BY doc, offset").fetchall()
            self._conn.execute("DELETE FROM q")
        terms: dict[str, list[str]] = {}
        for doc, term in rows:
            terms.setdefault(words[int(doc) - 1], []).append(str(term))
        return {word: tuple(found) for word, found in terms.items()}


def shadow_tables(table: str) -> list[str]:
    return [f"{table}_{suffix}" for suffix in _SHADOWS]


class TextIndexes:
    """Which tables hold a namespace's words; creates them on the namespace's first write."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._lock = threading.Lock()

    def known(self, namespace: str) -> int | None:
        """The namespace's number if this process has already read it (numbers never change)."""
        with self._lock:
            return self._numbers.get(namespace)

    def number(self, conn: sqlite3.Connection, namespace: str) -> int | None:
        """The namespace's number, or None while it has never been written to."""
        known = self.known(namespace)
        if known is not None:
            return known
        row = conn.execute("SELECT number FROM text_indexes WHERE namespace = ?", (namespace,)).fetchone()
        if row is None:
            return None  # not remembered: another process may create it at any moment
        with self._lock:
            self._numbers[namespace] = int(row[0])
        return int(row[0])

    def ensure(self, conn: sqlite3.Connection, namespace: str) -> int:
        """The namespace's number, creating its tables; call inside a write transaction."""
        found = self.number(conn, namespace)
        if found is not None:
            return found
        row = conn.execute("SELECT coalesce(max(number), 0) + 1 FROM text_indexes").fetchone()
        number = int(row[0])
        conn.execute("INSERT INTO text_indexes (namespace, number) VALUES (?, ?)", (namespace, number))
        create_tables(conn, number)
        return number  # remembered once the transaction has committed and number() reads it again

    def all_tables(self, conn: sqlite3.Connection, *kinds: str) -> list[str]:
        """Every namespace's tables of these kinds (all kinds if none are named)."""
        rows = conn.execute("SELECT number FROM text_indexes ORDER BY number").fetchall()
        return [table_name(kind, int(r[0])) for r in rows for kind in kinds or KINDS]
