"""Per-principal request counts in one-minute windows, shared by the processes of one server.

`kenning serve --http` with several workers runs them as separate processes: a count kept in each
would let a principal make its limit once per worker. They share this small SQLite file instead
(beside the store, not in it, so that counting never waits for the store's write lock). Windows are
on the wall clock, which all the processes share.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from kenning.adapters.rate_window import count_in


class SqliteRateWindows:
    def __init__(self, path: Path, *, busy_timeout_s: float = 1.0) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            str(path), timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = OFF")  # counts, not data: a crash may lose a minute's
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS windows "
            "(who TEXT PRIMARY KEY, start REAL NOT NULL, n INTEGER NOT NULL)"
        )

    def admit(self, who: str, now: float, per_minute: int) -> float | None:
        """Count one request of `who` unless its window is full: None when counted, else the seconds
        until its window ends."""
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute("SELECT start, n FROM windows WHERE who = ?", (who,)).fetchone()
                counted = count_in(None if row is None else (float(row[0]), int(row[1])), now, per_minute)
                if isinstance(counted, float):
                    return counted
                conn.execute(
                    "INSERT INTO windows (who, start, n) VALUES (?, ?, ?) "
                    "ON CONFLICT (who) DO UPDATE SET start = excluded.start, n = excluded.n",
                    (who, *counted),
                )
                return None
            finally:
                conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._conn.close()
