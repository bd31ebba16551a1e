"""Per-principal request counts shared by every server process on one PostgreSQL database (an unlogged
table: counts, not data; a crash may lose a minute's)."""

from __future__ import annotations

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from kenning.adapters.rate_window import count_in
from kenning.core.errors import BackendUnavailable


class PgRateWindows:
    def __init__(self, url: str, *, timeout_s: float = 2.0) -> None:
        self._pool = ConnectionPool(
            url, min_size=1, max_size=4, timeout=timeout_s, kwargs={"autocommit": True}, open=True
        )

    def admit(self, who: str, now: float, per_minute: int) -> float | None:
        """Count one request of `who` unless its window is full: None when counted, else the seconds
        until its window ends."""
        try:
            with self._pool.connection() as conn, conn.transaction():
                conn.execute(
                    "INSERT INTO rate_windows (who, start, n) VALUES (%s, %s, 0) ON CONFLICT DO NOTHING",
                    (who, now),
                )
                row = conn.execute(
                    "SELECT start, n FROM rate_windows WHERE who = %s FOR UPDATE", (who,)
                ).fetchone()
                counted = count_in(None if row is None else (float(row[0]), int(row[1])), now, per_minute)
                if isinstance(counted, float):
                    return counted
                conn.execute("UPDATE rate_windows SET start = %s, n = %s WHERE who = %s", (*counted, who))
        except (PoolTimeout, psycopg.OperationalError) as exc:
            raise BackendUnavailable(f"cannot count requests in the database: {exc}") from exc
        return None

    def close(self) -> None:
        self._pool.close()
