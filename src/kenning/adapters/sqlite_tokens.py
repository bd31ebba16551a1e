"""Tokens in the store's SQLite file, in a table of their own beside the memories."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from kenning.adapters.token_rows import COLUMN_COUNT, COLUMNS, token_from_row, token_values
from kenning.core.errors import BackendUnavailable, ConflictError
from kenning.ports.tokens import TokenRecord

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    write_pool TEXT NOT NULL,
    read_pools TEXT NOT NULL,
    scopes TEXT NOT NULL,
    max_trust TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL,
    revoked_at REAL
);
CREATE UNIQUE INDEX IF NOT EXISTS tokens_live_name ON tokens(name) WHERE revoked_at IS NULL;
"""


class SqliteTokens:
    """Opened on first use and the table made on the first token, so that a store which never issues
    one (every stdio user) is not written to by it: a dry run stays byte-for-byte a dry run."""

    def __init__(self, path: Path | str, *, busy_timeout_s: float = 5.0) -> None:
        self.path = Path(path)
        self._busy_timeout_s = busy_timeout_s
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._made = False

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._conn = sqlite3.connect(
                    str(self.path),
                    timeout=self._busy_timeout_s,
                    isolation_level=None,
                    check_same_thread=False,
                )
            except (OSError, sqlite3.Error) as exc:
                raise BackendUnavailable(f"cannot open the token table in {self.path}: {exc}") from exc
        return self._conn

    def _made_table(self) -> sqlite3.Connection:
        conn = self._connection()
        if not self._made:
            conn.executescript(_SCHEMA)
            self._made = True
        return conn

    def add(self, token: TokenRecord) -> None:
        try:
            with self._lock:
                self._made_table().execute(
                    f"INSERT INTO tokens ({COLUMNS}) VALUES ({', '.join('?' * COLUMN_COUNT)})",
                    token_values(token),
                )
        except sqlite3.IntegrityError as exc:
            raise ConflictError(
                f"a token named {token.name!r} exists; revoke or rotate it first", name=token.name
            ) from exc

    def find(self, token_id: str) -> TokenRecord | None:
        rows = self._rows("WHERE id = ?", (token_id,))
        return rows[0] if rows else None

    def named(self, name: str) -> TokenRecord | None:
        rows = self._rows("WHERE name = ? AND revoked_at IS NULL", (name,))
        return rows[0] if rows else None

    def all(self) -> list[TokenRecord]:
        return self._rows("ORDER BY created_at, id", ())

    def revoke(self, token_id: str, at: float) -> bool:
        with self._lock:
            cursor = self._made_table().execute(
                "UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (at, token_id)
            )
        return cursor.rowcount == 1

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()

    def _rows(self, where: str, params: tuple[Any, ...]) -> list[TokenRecord]:
        with self._lock:
            try:
                rows = self._connection().execute(f"SELECT {COLUMNS} FROM tokens {where}", params).fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []  # no token was ever issued here
                raise BackendUnavailable(f"cannot read tokens from {self.path}: {exc}") from exc
        return [token_from_row(r) for r in rows]
