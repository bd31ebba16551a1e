"""recall: hybrid retrieval (dense + BM25 + CJK characters) fused by rank, filtered, paged, budgeted."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kenning.core import limits
from kenning.core.errors import BackendUnavailable, InvalidInput
from kenning.core.fusion import reciprocal_rank_fusion
from kenning.core.ontology import SUBTYPES, check_type
from kenning.core.query import Filters, RecallHit, RecallResult
from kenning.core.records import MemoryState
from kenning.core.text import estimate_tokens, has_cjk, normalize, truncate_to_tokens
from kenning.core.validation import (
    check_entities,
    check_name,
    check_range,
    check_state,
    check_tags,
    check_timestamp,
)
from kenning.services.deps import Caller, Deps

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class RecallRequest:
    query: str = ""
    limit: int | None = None
    offset: int = 0
    token_budget: int | None = None
    types: Sequence[str] = ()
    tags: Sequence[str] = ()
    entities: Sequence[str] = ()
    states: Sequence[str] = (MemoryState.ACTIVE.value,)
    agent_id: str | None = None
    session_id: str | None = None
    since: float | None = None
    until: float | None = None
    touch: bool = True


def build_filters(caller: Caller, request: RecallRequest) -> Filters:
    types: list[str] = []
    for name in request.types:
        key = check_type(name)
        types.append(key)
        # A base type also matches its subtypes: asking for errors finds bugs too.
        types.extend(sub for sub, base in sorted(SUBTYPES.items()) if base == key)
    states = tuple(dict.fromkeys(check_state(s, "states") for s in request.states))
    if not states:
        raise InvalidInput("states", "must name at least one state")
    since = check_timestamp(request.since, "since")
    until = check_timestamp(request.until, "until")
    if since is not None and until is not None and until <= since:
        raise InvalidInput("until", "must be later than since")
    return Filters(
        namespace=caller.namespace,
        states=states,
        types=tuple(dict.fromkeys(types)),
        tags=tuple(check_tags(request.tags)),
        entities=tuple(check_entities(request.entities)),
        agent_id=check_name(request.agent_id, "agent_id"),
        session_id=check_name(request.session_id, "session_id"),
        since=since,
        until=until,
    )


def recall(deps: Deps, caller: Caller, request: RecallRequest) -> RecallResult:
    params = deps.retrieval
    query = normalize(request.query or "")
    if len(query) > limits.QUERY_MAX_CHARS:
        raise InvalidInput(
            "query",
            f"is {len(query)} characters; the limit is {limits.QUERY_MAX_CHARS}",
            limit=limits.QUERY_MAX_CHARS,
        )
    limit = check_range(
        request.limit if request.limit is not None else params.default_limit,
        "limit",
        1,
        limits.RECALL_LIMIT_MAX,
    )
    offset = check_range(request.offset, "offset", 0, limits.OFFSET_MAX)
    budget = check_range(
        request.token_budget if request.token_budget is not None else params.token_budget,
        "token_budget",
        limits.TOKEN_BUDGET_MIN,
        limits.TOKEN_BUDGET_MAX,
    )
    filters = build_filters(caller, request)
    depth = max(params.candidates, offset + limit + 1)

    rankings: dict[str, list[tuple[str, float]]] = {}
    degraded: list[str] = []
    if query:
        rankings["bm25"] = deps.store.search_words(query, filters, depth)
        if has_cjk(query):
            rankings["cjk"] = deps.store.search_cjk(query, filters, depth)
        try:
            embedded = deps.embeddings.query(query)
        except BackendUnavailable as exc:
            embedded = None
            degraded.append(f"keyword_only: query embedding failed: {exc.message}")
        if embedded is not None:
            model, vector = embedded
            rankings["dense"] = deps.store.search_vectors(vector, model, filters, depth)
        degraded = deps.embeddings.degraded() + degraded
        fused = reciprocal_rank_fusion(rankings, k=params.rrf_k)
    else:
        # No query: browse the newest memories that pass the filters.
        rankings["recent"] = deps.store.search_recent(filters, depth)
        fused = reciprocal_rank_fusion(rankings, k=params.rrf_k)

    page = fused[offset : offset + limit]
    records = deps.store.get_many([item for item, _, _ in page])
    hits: list[RecallHit] = []
    used = 0
    next_offset: int | None = offset + limit if len(fused) > offset + limit else None
    for position, (item, score, channels) in enumerate(page):
        record = records.get(item)
        if record is None:  # deleted between search and hydration
            continue
        cost = estimate_tokens(record.content) + 30  # the fields around the content cost a little too
        if used + cost > budget:
            if hits:
                next_offset = offset + position
                break
            # A single memory larger than the whole budget is cut rather than dropped.
            record = replace(record, content=truncate_to_tokens(record.content, max(1, budget - 30)))
            hits.append(RecallHit(record=record, score=score, channels=channels, truncated=True))
            used = budget
            next_offset = offset + position + 1 if len(fused) > offset + position + 1 else None
            break
        used += cost
        hits.append(RecallHit(record=record, score=score, channels=channels))

    if request.touch and hits:
        # After ranking: the access this recall records can only affect later recalls.
        try:
            deps.store.touch([hit.record.id for hit in hits], deps.clock.now())
        except BackendUnavailable as exc:
            # The answer is still right; only the access statistics missed this recall. Say so.
            logger.warning("access statistics not updated: %s", exc)
            degraded.append(f"access_not_recorded: {exc.message}")
    return RecallResult(
        hits=hits,
        next_offset=next_offset,
        degraded=degraded,
        used_tokens=used,
        channels_used=sorted(rankings),
    )
