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
        assert stats.text_index_rows == stats.total
        shared = store.find_by_hash("shared", content_hash("a fact every writer knows"))
        assert shared is not None and shared.access_count == WRITERS * EACH - 1
        assert store.integrity_check() == []
    finally:
        store.close()
