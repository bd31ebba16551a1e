"""An in-process matrix of stored vectors for exact cosine search without SQLite extensions.

Stock CPython on many machines cannot load sqlite-vec, so the SQLite store keeps vectors as BLOBs
and searches them here: one float32 matrix per model, appended to as new rows appear and rebuilt
when a row changes or disappears. At 10k × 384 a full scan is one small matrix-vector product.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from kenning.adapters.native_threads import one_blas_thread
from kenning.ports.embedder import Vector
from kenning.ports.store import DenseHits


@dataclass(slots=True)
class VectorRow:
    vseq: int
    seq: int
    memory_id: str
    namespace: str
    active: bool
    values: Vector


@dataclass(slots=True)
class VectorMatrix:
    """Vectors of one model. Appending is not thread-safe (the owning store serialises it); a `view`
    may be searched while rows are appended.

    Rows live in buffers that double when full, so appending the one vector of a write costs a copy
    of that vector, not of the whole matrix (at 10k × 384 a rebuild per write cost several ms)."""

    dim: int
    epoch: int = -1
    last_vseq: int = 0
    _ids: list[str] = field(default_factory=list)
    _row_of: dict[str, int] = field(default_factory=dict)
    _namespaces: dict[str, int] = field(default_factory=dict)
    _size: int = 0
    _matrix: Vector = field(default_factory=lambda: np.empty((0, 0), dtype=np.float32))
    _seqs: npt.NDArray[np.int64] = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    _ns_codes: npt.NDArray[np.int32] = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    _active: npt.NDArray[np.bool_] = field(default_factory=lambda: np.empty(0, dtype=np.bool_))

    def __post_init__(self) -> None:
        one_blas_thread()

    def __len__(self) -> int:
        return self._size

    def append(self, rows: list[VectorRow]) -> None:
        if not rows:
            return
        self._reserve(self._size + len(rows))
        for row in rows:
            at = self._size
            self._matrix[at] = row.values
            self._ids.append(row.memory_id)
            self._row_of[row.memory_id] = at  # the latest row of an id, as the scan over rows found it
            self._seqs[at] = row.seq
            self._ns_codes[at] = self._namespaces.setdefault(row.namespace, len(self._namespaces))
            self._active[at] = row.active
            self.last_vseq = max(self.last_vseq, row.vseq)
            self._size += 1

    def _reserve(self, needed: int) -> None:
        capacity = self._matrix.shape[0]
        if needed <= capacity and self._matrix.shape[1] == self.dim:
            return
        capacity = max(needed, 2 * capacity, 64)
        size = self._size
        matrix = np.empty((capacity, self.dim), dtype=np.float32)
        if size:
            matrix[:size] = self._matrix[:size]
        self._matrix = matrix
        self._seqs = np.concatenate([self._seqs[:size], np.empty(capacity - size, dtype=np.int64)])
        self._ns_codes = np.concatenate([self._ns_codes[:size], np.empty(capacity - size, dtype=np.int32)])
        self._active = np.concatenate([self._active[:size], np.empty(capacity - size, dtype=np.bool_)])

    def view(self) -> MatrixView:
        """The rows there are now, to search while later ones are appended (by another thread)."""
        size = self._size
        return MatrixView(
            size=size,
            matrix=self._matrix[:size],
            seqs=self._seqs[:size],
            ns_codes=self._ns_codes[:size],
            active=self._active[:size],
            ids=self._ids,
            row_of=self._row_of,
            namespaces=self._namespaces,
        )


@dataclass(frozen=True, slots=True)
class NewRows:
    """What a reader found of one model's rows from its snapshot: those past `since`, or every row
    when `since` is 0."""

    since: int
    rows: list[VectorRow]


class VectorMatrices:
    """The matrices of every model, brought up to date by readers that do their reading unlocked.

    A reader asks `since` where each model's rows are new, reads them from its own snapshot, and
    hands them to `merge`, which alone holds the lock: a slow read holds up no other search. The
    store's vector epoch only grows, and every change other than an added row raises it, so a matrix
    is only ever replaced by one of a later epoch, and rows read at the matrix's own epoch join up
    with it past its last row. `lock` is reentrant: a caller holding it may read and merge too, and
    then no other reader can have changed anything in between."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._matrices: dict[str, VectorMatrix] = {}

    def since(self, model: str, epoch: int, dim: int) -> int:
        """Where a reader whose snapshot is at `epoch` starts reading `model`'s rows: past the
        matrix's last row if the matrix is of that epoch, else from the start."""
        matrix = self._matrices.get(model)
        if matrix is None or matrix.epoch != epoch or matrix.dim != dim:
            return 0
        return matrix.last_vseq

    def merge(self, epoch: int, dim: int, fresh: Mapping[str, NewRows]) -> dict[str, MatrixView] | None:
        """A view of each model in `fresh` with the reader's rows taken in; None when some rows do
        not join up with the matrix there is now (it was dropped meanwhile): read them again."""
        built = {  # a whole matrix is built before taking the lock, in case it is the one to keep
            model: _built(dim, epoch, new.rows) for model, new in fresh.items() if new.since == 0
        }
        views: dict[str, MatrixView] = {}
        with self.lock:
            for model, new in fresh.items():
                matrix = self._matrices.get(model)
                if matrix is None or matrix.dim != dim or matrix.epoch < epoch:
                    if model not in built:
                        return None
                    matrix = self._matrices[model] = built[model]
                elif matrix.epoch == epoch:
                    if matrix.last_vseq < new.since:
                        return None
                    matrix.append([row for row in new.rows if row.vseq > matrix.last_vseq])
                # else: the matrix is of a later snapshot than the reader's; it answers as it is
                views[model] = matrix.view()
        return views

    def clear(self) -> None:
        with self.lock:
            self._matrices.clear()


def _built(dim: int, epoch: int, rows: list[VectorRow]) -> VectorMatrix:
    matrix = VectorMatrix(dim=dim, epoch=epoch)
    matrix.append(rows)
    return matrix


@dataclass(frozen=True, slots=True)
class MatrixView:
    """The first `size` rows of a matrix. Appending never changes them (it writes past them, or into
    new buffers), and the lists and maps shared with the matrix only grow, so a view may be
    searched without the matrix's lock while the matrix takes new rows; rows past `size` are not
    part of it."""

    size: int
    matrix: Vector
    seqs: npt.NDArray[np.int64]
    ns_codes: npt.NDArray[np.int32]
    active: npt.NDArray[np.bool_]
    ids: list[str]
    row_of: dict[str, int]
    namespaces: dict[str, int]

    def search(
        self,
        query: Vector,
        *,
        namespaces: Sequence[str],
        active_only: bool,
        allowed_seqs: npt.NDArray[np.int64] | None,
        limit: int,
        include: Sequence[str] = (),
    ) -> DenseHits:
        """Top `limit` by cosine, the scores of any `include` ids that pass the mask, and the mean and
        standard deviation of cosine over everything that passes (for z-normalised fusion)."""
        known = self.namespaces
        codes = [known[n] for n in namespaces if n in known]
        if not codes or limit <= 0 or self.size == 0:
            return DenseHits(hits=[], mean=0.0, std=0.0, extra={})
        row_codes = self.ns_codes
        mask = row_codes == codes[0] if len(codes) == 1 else np.isin(row_codes, codes)
        if active_only:
            mask &= self.active
        if allowed_seqs is not None:
            mask &= np.isin(self.seqs, allowed_seqs)
        candidates = np.flatnonzero(mask)
        if candidates.size == 0:
            return DenseHits(hits=[], mean=0.0, std=0.0, extra={})
        # One product over the whole matrix is cheaper than gathering the candidate rows first.
        every = self.matrix @ query.astype(np.float32, copy=False)
        scores = every[candidates]
        if candidates.size > limit:
            # Everything tied with the last place too: which of equal scores make the cut is then
            # decided by id below, never by where the partition happened to put them.
            last = scores[np.argpartition(-scores, limit - 1)[limit - 1]]
            top = np.flatnonzero(scores >= last)
        else:
            top = np.arange(candidates.size)
        ids = self.ids
        # Sort by score, then by id, so equal scores never depend on insertion order.
        order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), ids[int(candidates[i])]))[:limit]
        extra: dict[str, float] = {}
        if include:  # looked up by id: a walk over every candidate in Python costs milliseconds at 10k
            rows = ((memory_id, self.row_of.get(memory_id)) for memory_id in dict.fromkeys(include))
            extra = {
                memory_id: float(every[row])
                for memory_id, row in rows
                if row is not None and row < self.size and mask[row]
            }
        return DenseHits(
            hits=[(ids[int(candidates[i])], float(scores[i])) for i in order],
            mean=float(scores.mean()),
            std=float(scores.std()),
            extra=extra,
        )
