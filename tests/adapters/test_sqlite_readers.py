"""Reads go through a connection of the reading thread's own: a write in progress holds none of them up."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from kenning.adapters.sqlite_store import SqliteStore
from kenning.core.query import Filters
from kenning.ports.store import StoredVector
from records import audit, record

ID1, ID2 = "01J0000000000000000000000A", "01J0000000000000000000000B"


@contextmanager
def _write_in_progress(store: SqliteStore) -> Iterator[threading.Thread]:
    """Another thread's write (ID1's importance to 0.9), held open until the block ends, as a big one
    takes its time; yields that thread."""
    inside, release = threading.Event(), threading.Event()

    def long_write() -> None:
        with store._write() as conn:
            conn.execute("UPDATE memories SET importance = 0.9 WHERE id = ?", (ID1,))
            inside.set()
            release.wait(30)

    writer = threading.Thread(target=long_write)
    writer.start()
    try:
        assert inside.wait(30)
        yield writer
    finally:
        release.set()
        writer.join(30)


def test_a_read_is_not_held_up_by_a_write_in_progress(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "r.db")
    store.insert(record(ID1, "Deploys happen on Tuesdays"), [], audit("remember", ID1))
    with _write_in_progress(store) as writer:
        seen: list[float] = []
        reader = threading.Thread(target=lambda: seen.append(store.get(ID1).importance))  # type: ignore[union-attr]
        reader.start()
        reader.join(30)
        assert not reader.is_alive() and writer.is_alive()  # answered while the write was still open
        assert seen == [0.5]  # the committed state: the open write is not visible yet
    after = store.get(ID1)
    assert after is not None and after.importance == 0.9  # and every later read sees it
    store.close()


def _vector(*values: float) -> StoredVector:
    unit = np.asarray(values, dtype=np.float32)
    return StoredVector("m", unit / np.linalg.norm(unit))


def test_searches_are_not_held_up_by_a_write_in_progress_and_see_what_was_committed(tmp_path: Path) -> None:
    """A search by words or by vector waits for no other agent's write: it reads the last commit."""
    store = SqliteStore(tmp_path / "r.db")
    store.insert(record(ID1, "Deploys happen on Tuesdays"), [_vector(1, 0, 0)], audit("remember", ID1))
    inside, release = threading.Event(), threading.Event()

    def long_write() -> None:
        with store._write() as conn:
            store._insert_in(
                conn,
                record(ID2, "Deploys freeze in December"),
                [_vector(0, 1, 0)],
                audit("remember", ID2),
                (),
            )
            inside.set()
            release.wait(30)

    def search() -> tuple[list[str], list[str]]:
        near = store.search_vectors(_vector(1, 1, 0).values, "m", Filters(namespace="ns"), 5).hits
        words = store.search_words("deploys", Filters(namespace="ns"), 5)
        return [i for i, _ in near], [i for i, _ in words]

    writer = threading.Thread(target=long_write)
    writer.start()
    try:
        assert inside.wait(30)
        seen: list[tuple[list[str], list[str]]] = []
        reader = threading.Thread(target=lambda: seen.append(search()))
        reader.start()
        reader.join(30)
        assert not reader.is_alive() and writer.is_alive()  # answered while the write was still open
        assert seen == [([ID1], [ID1])]  # the open write's memory is not visible yet
    finally:
        release.set()
        writer.join(30)
    vectors, words = search()
    assert sorted(vectors) == sorted(words) == [ID1, ID2]  # and every search after the commit finds it
    store.close()


def test_searches_running_beside_a_stream_of_writes_see_each_write_whole(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "r.db")
    ids = [f"01J00000000000000000000{n:03d}" for n in range(120)]
    failures: list[BaseException] = []
    done = threading.Event()

    def write() -> None:
        for n, memory_id in enumerate(ids):
            store.insert(
                record(memory_id, f"Service {n} listens on port {9000 + n}"),
                [_vector(1, n + 1, 0)],
                audit("remember", memory_id),
            )
        done.set()

    def search() -> None:
        try:
            while not done.is_set():
                found = store.search_vector_kinds(
                    _vector(1, 1, 0).values, ["m", "none"], Filters(namespace="ns"), 200, include=ids[:5]
                )
                seen = {i for i, _ in found["m"].hits}
                assert seen == set(ids[: len(seen)])  # a prefix of the writes, in order, none half-there
                assert set(found["m"].extra) <= seen and found["none"].hits == []
        except BaseException as exc:  # reported below, from the main thread
            failures.append(exc)

    readers = [threading.Thread(target=search) for _ in range(3)]
    writer = threading.Thread(target=write)
    for thread in (*readers, writer):
        thread.start()
    for thread in (writer, *readers):
        thread.join(60)
    assert not failures, failures[0]
    final = store.search_vector_kinds(_vector(1, 1, 0).values, ["m"], Filters(namespace="ns"), 200)["m"]
    assert sorted(i for i, _ in final.hits) == ids
    store.close()


def test_a_write_reads_its_own_changes_and_other_threads_see_them_once_committed(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "r.db")
    with store._write() as conn:
        store._insert_in(conn, record(ID2, "Staging runs on port 8443"), [], audit("remember", ID2), ())
        assert store._read("SELECT count(*) FROM memories WHERE id = ?", (ID2,)) == [(1,)]
    seen: list[object] = []
    other = threading.Thread(target=lambda: seen.append(store.get(ID2)))
    other.start()
    other.join(30)
    assert seen and seen[0] is not None
    store.close()


def test_the_connection_of_a_thread_that_ended_is_closed(tmp_path: Path) -> None:
    """A server's worker threads come and go for days: their connections must not pile up."""
    store = SqliteStore(tmp_path / "r.db")
    store.insert(record(ID1, "Deploys happen on Tuesdays"), [], audit("remember", ID1))
    for _ in range(20):
        worker = threading.Thread(target=lambda: store.get(ID1))
        worker.start()
        worker.join(30)
    assert len(store._readers) == 1  # only the last thread's: each new one closed the ended ones'
    assert store.get(ID1) is not None
    assert len(store._readers) == 1  # this thread's; the last worker's was closed
    store.close()
    assert not store._readers


def test_a_recalls_access_waits_for_no_write_and_lands_with_it(tmp_path: Path) -> None:
    """Access statistics never queue a recall behind another agent's write: the write in progress
    applies them before it commits, and nothing is counted twice or lost."""
    store = SqliteStore(tmp_path / "r.db")
    store.insert(record(ID1, "Deploys happen on Tuesdays"), [], audit("remember", ID1))
    store.touch([ID1], 100.0)  # no write in progress: recorded at once
    assert store.get(ID1).access_count == 1  # type: ignore[union-attr]

    def recall_twice() -> None:
        store.touch([ID1], 200.0)
        store.touch([ID1], 300.0)

    with _write_in_progress(store) as writer:
        toucher = threading.Thread(target=recall_twice)
        toucher.start()
        toucher.join(30)
        assert not toucher.is_alive() and writer.is_alive()  # returned while the write was still open
        assert store.get(ID1).access_count == 1  # type: ignore[union-attr]  # pending, not yet committed
    after = store.get(ID1)
    assert after is not None
    assert (after.access_count, after.last_accessed_at, after.importance) == (3, 300.0, 0.9)
    store.close()


def test_accesses_pending_when_a_write_fails_are_kept_for_the_next(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "r.db")
    store.insert(record(ID1, "Deploys happen on Tuesdays"), [], audit("remember", ID1))
    store._touches[ID1] = (50.0, 2)  # recorded while another thread was writing
    try:
        with store._write() as conn:
            conn.execute("UPDATE memories SET importance = 0.9 WHERE id = ?", (ID1,))
            raise RuntimeError("the write fails")
    except RuntimeError:
        pass
    assert store.get(ID1).access_count == 0  # type: ignore[union-attr]  # rolled back with the write
    store.close()  # ...and applied on close, not lost
    reopened = SqliteStore(tmp_path / "r.db")
    again = reopened.get(ID1)
    assert again is not None
    assert (again.access_count, again.last_accessed_at, again.importance) == (2, 50.0, 0.5)
    reopened.close()
