"""Several processes writing one SQLite file at once, as agents that each spawn `kenning serve` do."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from kenning.adapters.sqlite_store import SqliteStore
from kenning.core.text import content_hash
from kenning.core.validation import MemoryDraft
from kenning.ports.clock import SystemClock
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning

WRITERS, EACH = 3, 40


def write(path: str, writer: int) -> None:
    app = Kenning(
        Deps(store=SqliteStore(path), embeddings=EmbeddingGate(None, configured="none"), clock=SystemClock())
    )
    try:
        for index in range(EACH):
            app.remember(Caller("shared", f"w{writer}"), MemoryDraft(content=f"writer {writer} fact {index}"))
            # Everyone also writes the same memory: it must end up stored exactly once.
            app.remember(Caller("shared", f"w{writer}"), MemoryDraft(content="a fact every writer knows"))
    finally:
        app.close()


def test_concurrent_writers_lose_nothing_and_never_duplicate(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    SqliteStore(path).close()
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=write, args=(path, w)) for w in range(WRITERS)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    store = SqliteStore(path)
    try:
        stats = store.stats(None)
        assert stats.total == WRITERS * EACH + 1
        assert stats.index_rows["text_rows"] == stats.total
        shared = store.find_by_hash("shared", content_hash("a fact every writer knows"))
        assert shared is not None and shared.access_count == WRITERS * EACH - 1
        assert store.integrity_check() == []
    finally:
        store.close()


def test_a_lock_held_too_long_is_a_clear_retryable_error_and_nothing_is_half_written(tmp_path: Path) -> None:
    import sqlite3

    import pytest

    from kenning.core.errors import BackendUnavailable

    path = tmp_path / "busy.db"
    app = Kenning(
        Deps(
            store=SqliteStore(path, busy_timeout_s=0.05, write_retries=2),
            embeddings=EmbeddingGate(None, configured="none"),
            clock=SystemClock(),
        )
    )
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(BackendUnavailable, match="stayed busy"):
            app.remember(Caller("shared", "w"), MemoryDraft(content="waiting for the lock"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert app.remember(Caller("shared", "w"), MemoryDraft(content="waiting for the lock")).status == "stored"
    assert app.deps.store.stats(None).total == 1
    app.close()


def test_a_backup_taken_while_another_process_writes_is_consistent(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    from kenning.services.maintenance import backup

    path = tmp_path / "live.db"
    SqliteStore(path).close()
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from kenning.bench.faults import writer_main; writer_main({str(path)!r}, 'live', 3000)",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    store = SqliteStore(path)
    deadline = time.monotonic() + 60
    while store.stats(None).total == 0 and time.monotonic() < deadline:  # the writer has started writing
        time.sleep(0.05)
    app = Kenning(Deps(store=store, embeddings=EmbeddingGate(None, configured="none"), clock=SystemClock()))
    copy = backup(app.deps, tmp_path / "copy.db")
    writer.wait(timeout=120)
    app.close()
    snapshot = SqliteStore(copy)
    try:
        assert snapshot.index_problems() == []
        assert 0 < snapshot.stats(None).total <= 3000
    finally:
        snapshot.close()
