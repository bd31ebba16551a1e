"""An in-process matrix of stored vectors for exact cosine search without SQLite extensions.

Stock CPython on many machines cannot load sqlite-vec, so the SQLite store keeps vectors as BLOBs
and searches them here: one float32 matrix per model, appended to as new rows appear and rebuilt
when a row changes or disappears. At 10k × 384 a full scan is one small matrix-vector product.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    """Vectors of one model. Not thread-safe: the owning store serialises access.

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

    def _materialise(
        self,
    ) -> tuple[Vector, npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.bool_]]:
        size = self._size
        return self._matrix[:size], self._seqs[:size], self._ns_codes[:size], self._active[:size]

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
        codes = [self._namespaces[n] for n in namespaces if n in self._namespaces]
        if not codes or limit <= 0:
            return DenseHits(hits=[], mean=0.0, std=0.0, extra={})
        matrix, seqs, row_codes, active = self._materialise()
        mask = row_codes == codes[0] if len(codes) == 1 else np.isin(row_codes, codes)
        if active_only:
            mask &= active
        if allowed_seqs is not None:
            mask &= np.isin(seqs, allowed_seqs)
        candidates = np.flatnonzero(mask)
        if candidates.size == 0:
            return DenseHits(hits=[], mean=0.0, std=0.0, extra={})
        # One product over the whole matrix is cheaper than gathering the candidate rows first.
        every = matrix @ query.astype(np.float32, copy=False)
        scores = every[candidates]
        if candidates.size > limit:
            # Everything tied with the last place too: which of equal scores make the cut is then
            # decided by id below, never by where the partition happened to put them.
            last = scores[np.argpartition(-scores, limit - 1)[limit - 1]]
            top = np.flatnonzero(scores >= last)
        else:
            top = np.arange(candidates.size)
        # Sort by score, then by id, so equal scores never depend on insertion order.
        order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), self._ids[int(candidates[i])]))[:limit]
        extra: dict[str, float] = {}
        if include:  # looked up by id: a walk over every candidate in Python costs milliseconds at 10k
            rows = ((memory_id, self._row_of.get(memory_id)) for memory_id in dict.fromkeys(include))
            extra = {memory_id: float(every[row]) for memory_id, row in rows if row is not None and mask[row]}
        return DenseHits(
            hits=[(self._ids[int(candidates[i])], float(scores[i])) for i in order],
            mean=float(scores.mean()),
            std=float(scores.std()),
            extra=extra,
        )
