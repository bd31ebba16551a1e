"""Tokens in the PostgreSQL database, beside the memories: every server process on it authenticates
against the same table, so a revoked token stops at once everywhere."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import errors
from psycopg_pool import ConnectionPool, PoolTimeout

from kenning.adapters.pg_url import redacted
from kenning.adapters.token_rows import COLUMN_COUNT, COLUMNS, token_from_row, token_values
from kenning.core.errors import BackendUnavailable, ConflictError
from kenning.ports.tokens import TokenRecord


class PgTokens:
    """TokenStore on the `tokens` table of Kenning's schema (pg_schema makes it)."""

    def __init__(self, url: str, *, timeout_s: float = 10.0) -> None:
        self.location = redacted(url)
        self._pool = ConnectionPool(
            url, min_size=0, max_size=2, timeout=timeout_s, kwargs={"autocommit": True}, open=True
        )

    def _run(self, query: str, params: tuple[Any, ...]) -> tuple[list[Any], int]:
        """Run one statement: the rows it read, and how many rows it read or changed."""
        try:
            with self._pool.connection() as conn:
                cursor = conn.execute(query, params)
                return (cursor.fetchall() if cursor.description else []), cursor.rowcount
        except (PoolTimeout, psycopg.OperationalError) as exc:
            raise BackendUnavailable(f"cannot reach the token table at {self.location}: {exc}") from exc

    def add(self, token: TokenRecord) -> None:
        try:
            self._run(
                f"INSERT INTO tokens ({COLUMNS}) VALUES ({', '.join(['%s'] * COLUMN_COUNT)})",
                token_values(token),
            )
        except errors.UniqueViolation as exc:
            raise ConflictError(
                f"a token named {token.name!r} exists; revoke or rotate it first", name=token.name
            ) from exc

    def find(self, token_id: str) -> TokenRecord | None:
        rows = self._rows("WHERE id = %s", (token_id,))
        return rows[0] if rows else None

    def named(self, name: str) -> TokenRecord | None:
        rows = self._rows("WHERE name = %s AND revoked_at IS NULL", (name,))
        return rows[0] if rows else None

    def all(self) -> list[TokenRecord]:
        return self._rows("ORDER BY created_at, id", ())

    def revoke(self, token_id: str, at: float) -> bool:
        _, changed = self._run(
            "UPDATE tokens SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL", (at, token_id)
        )
        return changed == 1

    def close(self) -> None:
        self._pool.close()

    def _rows(self, where: str, params: tuple[Any, ...]) -> list[TokenRecord]:
        rows, _ = self._run(f"SELECT {COLUMNS} FROM tokens {where}", params)
        return [token_from_row(r) for r in rows]
