"""Access to the embedder with honest failure: a model that fails to load degrades to keyword-only."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from kenning.core.errors import KenningError
from kenning.ports.embedder import Embedder, Vector

logger = logging.getLogger(__name__)

KEYWORD_ONLY = "keyword_only"


class EmbeddingGate:
    """Builds the embedder on first use; remembers a failure so every response can report it."""

    def __init__(self, factory: Callable[[], Embedder] | None, *, configured: str) -> None:
        self._factory = factory
        self.configured = configured
        self._embedder: Embedder | None = None
        self._failure: str | None = None if factory is not None else "embedding provider is 'none'"
        self._lock = threading.Lock()

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
        embedder = self.embedder()
        if embedder is None:
            return None
        return embedder.model_id, embedder.embed_passages(texts)

    def query(self, text: str) -> tuple[str, Vector] | None:
        embedder = self.embedder()
        if embedder is None:
            return None
        return embedder.model_id, embedder.embed_query(text)
