"""The matrices a SQLite store searches, brought up to date by readers that read without their lock."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from kenning.adapters.sqlite_store import SqliteStore
from kenning.adapters.vector_matrix import NewRows, VectorMatrices, VectorRow
from kenning.core.query import Filters
from kenning.ports.store import StoredVector
from records import audit, record


def _row(vseq: int, namespace: str = "n") -> VectorRow:
    values = np.asarray([1.0, float(vseq)], dtype=np.float32)
    return VectorRow(vseq, vseq, f"M{vseq:03d}", namespace, True, values / np.linalg.norm(values))


def _ids(matrices: VectorMatrices, epoch: int, fresh: dict[str, NewRows]) -> list[str]:
    views = matrices.merge(epoch, 2, fresh)
    assert views is not None
    view = views["m"]
    return [view.ids[i] for i in range(view.size)]


def test_a_reader_with_an_older_snapshot_adds_nothing_twice() -> None:
    matrices = VectorMatrices()
    assert matrices.since("m", 0, 2) == 0
    assert _ids(matrices, 0, {"m": NewRows(0, [_row(1), _row(2)])}) == ["M001", "M002"]
    assert matrices.since("m", 0, 2) == 2
    # Two readers started from row 2; the one that saw more merges first.
    newer = NewRows(2, [_row(3), _row(4), _row(5)])
    older = NewRows(2, [_row(3)])
    assert _ids(matrices, 0, {"m": newer}) == ["M001", "M002", "M003", "M004", "M005"]
    assert _ids(matrices, 0, {"m": older}) == ["M001", "M002", "M003", "M004", "M005"]
    # One that saw less merges first: the later one adds only what is past it.
    assert _ids(matrices, 0, {"m": NewRows(5, [_row(6)])})[-1] == "M006"
    assert _ids(matrices, 0, {"m": NewRows(5, [_row(6), _row(7)])})[-2:] == ["M006", "M007"]


def test_a_later_epoch_replaces_the_matrix_and_an_earlier_one_leaves_it() -> None:
    matrices = VectorMatrices()
    _ids(matrices, 3, {"m": NewRows(0, [_row(1), _row(2)])})
    # A row changed: the epoch rose and a reader read everything again, without row 1.
    assert matrices.since("m", 4, 2) == 0
    assert _ids(matrices, 4, {"m": NewRows(0, [_row(2), _row(3)])}) == ["M002", "M003"]
    # A reader still at the old epoch is answered from the newer matrix, which it does not change.
    assert _ids(matrices, 3, {"m": NewRows(2, [_row(3)])}) == ["M002", "M003"]
    assert _ids(matrices, 3, {"m": NewRows(0, [_row(1), _row(2), _row(3)])}) == ["M002", "M003"]


def test_rows_past_a_matrix_that_was_dropped_meanwhile_are_refused() -> None:
    matrices = VectorMatrices()
    _ids(matrices, 0, {"m": NewRows(0, [_row(1), _row(2)])})
    since = matrices.since("m", 0, 2)
    matrices.clear()  # a restore, between this reader's read and its merge
    assert matrices.merge(0, 2, {"m": NewRows(since, [_row(3)])}) is None
    assert _ids(matrices, 0, {"m": NewRows(0, [_row(1), _row(2), _row(3)])}) == ["M001", "M002", "M003"]


def _vector(*values: float) -> StoredVector:
    unit = np.asarray(values, dtype=np.float32)
    return StoredVector("m", unit / np.linalg.norm(unit))


class _Watched:
    """A reader connection whose every statement checks whether another thread could take the
    matrices' lock at that moment."""

    def __init__(self, conn: Any, lock: Any, free: list[bool]) -> None:
        self._conn, self._lock, self._free = conn, lock, free

    def execute(self, *args: Any) -> Any:
        taken: list[bool] = []

        def probe() -> None:
            got = self._lock.acquire(blocking=False)
            taken.append(got)
            if got:
                self._lock.release()

        other = threading.Thread(target=probe)
        other.start()
        other.join(30)
        self._free.extend(taken)
        return self._conn.execute(*args)


def test_a_search_reads_its_new_vectors_without_holding_the_matrices_lock(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "v.db")
    ids = [f"01J00000000000000000000{n:03d}" for n in range(3)]
    store.insert(record(ids[0], "Deploys happen on Tuesdays"), [_vector(1, 0, 0)], audit("remember", ids[0]))
    query = _vector(1, 1, 0).values
    assert [i for i, _ in store.search_vectors(query, "m", Filters(namespace="ns"), 5).hits] == ids[:1]
    for n, memory_id in enumerate(ids[1:], start=1):
        store.insert(record(memory_id, f"Service {n}"), [_vector(1, n, 0)], audit("remember", memory_id))
    free: list[bool] = []
    reader = store._reader()
    store._local.reader = _Watched(reader, store._matrices.lock, free)
    try:
        found = store.search_vectors(query, "m", Filters(namespace="ns"), 5).hits
    finally:
        store._local.reader = reader
    assert sorted(i for i, _ in found) == ids
    assert free and all(free)  # every statement of the search ran with the lock free for others
    store.close()


def test_a_search_whose_matrices_are_dropped_while_it_reads_reads_again(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "v.db")
    ids = [f"01J00000000000000000000{n:03d}" for n in range(3)]
    for n, memory_id in enumerate(ids):
        store.insert(record(memory_id, f"Service {n}"), [_vector(1, n, 0)], audit("remember", memory_id))
        store.search_vectors(_vector(1, 1, 0).values, "m", Filters(namespace="ns"), 5)
    read = store._new_vector_rows
    calls: list[int] = []

    def read_then_drop(conn: Any, models: Any, dim: int) -> Any:
        found = read(conn, models, dim)
        calls.append(found[2]["m"].since)
        if len(calls) == 1:
            store._matrices.clear()  # as a restore does, between this read and its merge
        return found

    store._new_vector_rows = read_then_drop  # type: ignore[method-assign]
    found = store.search_vectors(_vector(1, 1, 0).values, "m", Filters(namespace="ns"), 5).hits
    assert sorted(i for i, _ in found) == ids
    assert calls == [3, 0]  # rows past the dropped matrix, then everything again
    store.close()
