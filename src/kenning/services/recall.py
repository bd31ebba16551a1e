"""recall: hybrid retrieval fused on comparable scales, re-ranked by cheap second-stage signals.

Stages, each switchable in RetrievalParams for the ablation in `kenning bench locomo`:
1. channels: dense cosine over memories, dense cosine over conversation context (a turn read with the
   one before it) and over its window (read between the turns before and after it), BM25 over
   words, a character channel for Chinese/Japanese/Korean;
2. fusion: weighted sum of normalised channel scores (core/scoring.py);
3. second stage over the best `rerank_depth` candidates, and the best matches inside a time range
   named in the query (a named day is a strong hint, and its memories may rank low on words alone):
   query-term coverage, questions ranked below statements, a bonus inside the named range (half of
   it for the days just after: what happened is often told later), trust, state and strength;
4. expansion: the turn after a strong hit in the same conversation (answers follow questions), the
   same speaker's next turn (they go on about it), and typed edges of the graph (depth 2, weaker
   per hop).
Every hit carries the channels and adjustments that placed it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kenning.core import limits
from kenning.core.decay import DAY, ranking_factor, record_strength
from kenning.core.entities import AliasDictionary
from kenning.core.errors import BackendUnavailable, InvalidInput
from kenning.core.ontology import SUBTYPES, check_type
from kenning.core.query import ChannelHit, Filters, RecallHit, RecallResult, passes
from kenning.core.records import TRUST_WEIGHT, Conflict, EdgeType, MemoryRecord, MemoryState, Trust
from kenning.core.relevance import above_floor, floor_for
from kenning.core.scoring import (
    ChannelResult,
    content_terms,
    coverage,
    fuse,
    is_question,
    keyword_query,
    name_candidates,
    ranked,
    without_names,
)
from kenning.core.text import estimate_tokens, has_cjk, normalize, truncate_to_tokens
from kenning.core.timeparse import TimeRange, parse_time_range
from kenning.core.validation import (
    check_entities,
    check_name,
    check_range,
    check_state,
    check_tags,
    check_timestamp,
    check_trust,
)
from kenning.ports.embedder import Vector
from kenning.services.beliefs import assess_many
from kenning.services.deps import Caller, Deps, RetrievalParams
from kenning.services.remember import context_model, window_model
from kenning.services.stages import stage

logger = logging.getLogger(__name__)

_GRAPH_SEEDS = 10
_GRAPH_HOP_DECAY = 0.5
_DENSE_CHANNELS = ("dense", "context", "window")
_WINDOW_DEPTH = 10  # best matches per channel inside a time range the query names, added to the candidates
_TOLD_LATER = 0.5  # share of the time bonus for a memory written soon after the named range
_TOLD_MAX = 7 * DAY


def _told_within(window: TimeRange) -> float:
    """How soon after a time range what happened in it is still being told ("last night we ...")."""
    return min(_TOLD_MAX, max(DAY, window.until - window.since))


def _within(filters: Filters, window: TimeRange) -> Filters:
    """The filters narrowed to the time range named in the query."""
    since = window.since if filters.since is None else max(filters.since, window.since)
    until = window.until if filters.until is None else min(filters.until, window.until)
    return replace(filters, since=since, until=until)


def _merged_hits(first: list[tuple[str, float]], second: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """One channel's hits from two searches of the same query (same scale), best first."""
    merged = dict(first)
    for item, score in second:
        merged.setdefault(item, score)
    return sorted(merged.items(), key=lambda pair: (-pair[1], pair[0]))


def _join_inside(
    channel: str,
    main: list[tuple[str, float]],
    inside: list[tuple[str, float]],
    only_inside: dict[str, dict[str, int]],
) -> list[tuple[str, float]]:
    """Matches inside a named range join the channel's own list (same query, same scale); the rank
    there of each that the channel's own search did not reach is kept in `only_inside` to explain it.
    """
    reached = {item for item, _ in main}
    only_inside[channel] = {
        item: rank for rank, (item, _) in enumerate(inside, start=1) if item not in reached
    }
    return _merged_hits(main, inside)


def _say_found_inside(
    explain: dict[str, tuple[float, list[ChannelHit]]], only_inside: dict[str, dict[str, int]]
) -> None:
    """A match found only inside the named range is explained as such ("bm25 in range", its rank
    there), not with a made-up rank in the channel's whole list."""
    for channel, ranks in only_inside.items():
        for item, rank in ranks.items():
            hits = explain.get(item, (0.0, []))[1]
            for index, hit in enumerate(hits):
                if hit.channel == channel:
                    hits[index] = ChannelHit(channel=f"{channel} in range", rank=rank, score=hit.score)


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
    min_trust: str | None = None
    pools: Sequence[str] = ()  # only these of the pools the caller reads (empty: all of them)
    touch: bool = True


def build_filters(caller: Caller, request: RecallRequest, aliases: AliasDictionary | None = None) -> Filters:
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
    pools = caller.readable
    if request.pools:
        unread = [pool for pool in request.pools if pool not in caller.readable]
        if unread:
            raise InvalidInput("pools", f"names {', '.join(unread)}, which this principal does not read")
        pools = tuple(dict.fromkeys(request.pools))
    return Filters(
        namespace=pools[0],
        also_pools=pools[1:],
        states=states,
        types=tuple(dict.fromkeys(types)),
        tags=tuple(check_tags(request.tags)),
        entities=tuple((aliases or AliasDictionary()).normalise(e) for e in check_entities(request.entities)),
        agent_id=check_name(request.agent_id, "agent_id"),
        session_id=check_name(request.session_id, "session_id"),
        since=since,
        until=until,
        trusts=_at_least(request.min_trust),
    )


def _at_least(min_trust: str | None) -> tuple[Trust, ...]:
    """The trust levels weighing at least as much as `min_trust` (empty: no requirement)."""
    if min_trust is None:
        return ()
    floor = TRUST_WEIGHT[check_trust(min_trust)]
    return tuple(t for t in Trust if TRUST_WEIGHT[t] >= floor)


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
    filters = build_filters(caller, request, deps.aliases)
    degraded: list[str] = []
    left_out: str | None = None
    if query:
        (order, explain, records, channels_used), named = _ranking(
            deps, query, filters, params, offset + limit, degraded, asker=caller.agent_id
        )
        degraded = deps.embeddings.degraded() + degraded
        floor = floor_for(deps.embeddings.model_id()) if "floor" in params.stages else None
        if floor is not None and not any(p.startswith("keyword_only") for p in degraded):
            kept = above_floor(
                order,
                {item: hits for item, (_, hits) in explain.items()},
                {item: record.content for item, record in records.items()},
                content_terms(query),
                floor,
                named={item for item, record in records.items() if _subject_of(record) in named},
            )
            if len(kept) < len(order) and len(kept) < offset + limit:
                note = "no memory matches this well" if not kept else "weaker matches were left out"
                left_out = f"{note} (below the relevance floor {floor:g} of {deps.embeddings.model_id()})"
            order = kept
    else:
        # No query: browse the newest memories that pass the filters.
        recent = deps.store.search_recent(filters, max(params.candidates, offset + limit + 1))
        order = [item for item, _ in recent]
        explain = {
            item: (when, [ChannelHit(channel="recent", rank=rank, score=when)])
            for rank, (item, when) in enumerate(recent, start=1)
        }
        records = deps.store.get_many(order[offset : offset + limit])
        channels_used = ["recent"]

    if deps.quotas.results_per_writer > 0 and query:
        order = _cap_per_writer(order, records, deps.quotas.results_per_writer)
    hits, used, next_offset = _page(order, explain, records, offset, limit, budget)
    with stage("conflicts"):
        conflicts = deps.store.conflicts_of([hit.record.id for hit in hits]) if hits else []
    with stage("beliefs"):
        for memory_id, belief in assess_many(deps, [hit.record for hit in hits], conflicts).items():
            for hit in hits:
                if hit.record.id == memory_id:
                    hit.belief = belief
    _mark_open_conflicts(hits, conflicts)
    if request.touch and hits:
        # After ranking: the access this recall records can only affect later recalls.
        try:
            with stage("touch"):
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
        channels_used=channels_used,
        note=left_out,
    )


_Ranking = tuple[list[str], dict[str, tuple[float, list[ChannelHit]]], dict[str, MemoryRecord], list[str]]


def _mark_open_conflicts(hits: list[RecallHit], conflicts: Sequence[Conflict]) -> None:
    """Two results that stand in an open conflict say so: the agent must not take either as settled."""
    if len(hits) < 2:
        return
    by_id = {hit.record.id: hit for hit in hits}
    for found in conflicts:
        if found.status != "open" or found.first_id not in by_id or found.second_id not in by_id:
            continue
        by_id[found.first_id].in_conflict_with.append(found.second_id)
        by_id[found.second_id].in_conflict_with.append(found.first_id)


def _ranking(
    deps: Deps,
    query: str,
    filters: Filters,
    params: RetrievalParams,
    reach: int,
    degraded: list[str],
    *,
    asker: str,
) -> tuple[_Ranking, frozenset[str]]:
    """The one ranking every page of a query is cut from, so paging never repeats or skips a memory,
    and the subjects the query names.

    Which memories are candidates depends on how deep each channel searches, so the depth must not
    depend on the page: the first hundred positions (the most one request may ask for) always come
    from the same depth. A page reaching past them ranks the rest at the deepest depth any page can
    reach and appends that after the first hundred.
    """
    with stage("read_query"):
        reading = _read(deps, query, filters, params, degraded, asker=asker)
    first = max(params.candidates, limits.RECALL_LIMIT_MAX + 1)
    order, explain, records, channels = _search(deps, reading, filters, params, first)
    named = frozenset(reading.named)
    if reach <= limits.RECALL_LIMIT_MAX:
        return (order, explain, records, channels), named
    deepest = limits.OFFSET_MAX + limits.RECALL_LIMIT_MAX + 1
    more, more_explain, more_records, _ = _search(deps, reading, filters, params, deepest)
    prefix = order[: limits.RECALL_LIMIT_MAX]
    placed = set(prefix)
    explain = {**more_explain, **{item: explain[item] for item in prefix}}
    return (
        prefix + [item for item in more if item not in placed],
        explain,
        {**more_records, **records},
        channels,
    ), named


@dataclass(frozen=True, slots=True)
class _Reading:
    """What a query asks, worked out once however many depths it is searched at."""

    text: str
    named: list[str]  # subjects the query names ("what does Melanie ..."), matched without the name
    topic: str  # the query without those names
    window: TimeRange | None  # a time range the query names
    embedded: tuple[str, Vector] | None  # the topic's query vector, and its model


def _subject_of(record: MemoryRecord) -> str | None:
    """A memory's subject as the query's names are matched against it."""
    return record.subject.casefold() if record.subject is not None else None


def _subjects_named(deps: Deps, pools: Sequence[str], words: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(w for pool in pools for w in deps.store.subjects_named(pool, words)))


def _read(
    deps: Deps, query: str, filters: Filters, params: RetrievalParams, degraded: list[str], *, asker: str
) -> _Reading:
    # A query that names the subject of memories ("what does Melanie ...") is matched without the
    # name; the name instead favours her memories after fusion (_favour_subject).
    named = (
        list(
            dict.fromkeys(
                w for p in filters.pools for w in deps.store.subjects_named(p, name_candidates(query))
            )
        )
        if "subject" in params.stages
        else []
    )
    topic = without_names(query, named)
    window = parse_time_range(query, deps.clock.now()) if "time" in params.stages else None
    embedded = None
    if any(c in params.channels for c in _DENSE_CHANNELS):
        try:
            with stage("embed"):
                embedded = deps.embeddings.query(topic, asker=asker)
        except BackendUnavailable as exc:
            degraded.append(f"keyword_only: query embedding failed: {exc.message}")
    return _Reading(text=query, named=named, topic=topic, window=window, embedded=embedded)


def _search(deps: Deps, reading: _Reading, filters: Filters, params: RetrievalParams, depth: int) -> _Ranking:
    store = deps.store
    results: list[ChannelResult] = []
    query, topic, window = reading.text, reading.topic, reading.window
    narrowed = _within(filters, window) if window is not None else None
    in_window: list[str] = []  # the best matches inside a time range the query names
    only_inside: dict[str, dict[str, int]] = {}  # per channel: found only by the search inside, at rank
    if "bm25" in params.channels:
        with stage("bm25"):
            hits = store.search_words(keyword_query(topic), filters, depth)
        if narrowed is not None:
            with stage("bm25"):
                inside = store.search_words(keyword_query(topic), narrowed, _WINDOW_DEPTH)
            in_window.extend(item for item, _ in inside)
            hits = _join_inside("bm25", hits, inside, only_inside)
        results.append(ChannelResult("bm25", hits, kind="keyword"))
    if "cjk" in params.channels and has_cjk(query):
        with stage("cjk"):
            results.append(ChannelResult("cjk", store.search_cjk(query, filters, depth), kind="keyword"))
    dense_wanted = [c for c in _DENSE_CHANNELS if c in params.channels]
    if reading.embedded is not None:
        model, vector = reading.embedded
        keyword_ids = [item for result in results for item, _ in result.hits]
        models = {"dense": model, "context": context_model(model), "window": window_model(model)}
        kinds = [models[channel] for channel in dense_wanted]
        near: dict[str, list[tuple[str, float]]] = {}
        if narrowed is not None:
            with stage("vectors"):
                inside_range = store.search_vector_kinds(vector, kinds, narrowed, _WINDOW_DEPTH)
            for channel in dense_wanted:
                near[channel] = inside_range[models[channel]].hits
                in_window.extend(item for item, _ in near[channel])
        with stage("vectors"):
            everywhere = store.search_vector_kinds(
                vector, kinds, filters, depth, include=[*keyword_ids, *in_window]
            )
        for channel in dense_wanted:
            found = everywhere[models[channel]]
            hits = (
                _join_inside(channel, found.hits, near[channel], only_inside)
                if channel in near
                else found.hits
            )
            if hits:
                results.append(
                    ChannelResult(
                        channel, hits, kind="cosine", mean=found.mean, std=found.std, extra=found.extra
                    )
                )
    weights = params.weights
    with stage("fusion"):
        explain = fuse(results, weights)
        _say_found_inside(explain, only_inside)
        scores = {item: score for item, (score, _) in explain.items()}
        order = ranked(scores)
    head = order[: max(params.rerank_depth, depth)]
    rerank = list(dict.fromkeys([*order[: params.rerank_depth], *(i for i in in_window if i in scores)]))
    head = list(dict.fromkeys([*head, *rerank]))
    with stage("fetch"):
        records = store.get_many(head)
    adjusted = dict(scores)
    with stage("second_stage"):
        _second_stage(deps, query, params, rerank, records, adjusted, explain, window)
    with stage("expand"):
        _expand(deps, params, filters, adjusted, explain, records)
    with stage("subject"):
        _favour_subject(params, reading.named, adjusted, explain, records)
        _drop_redundant_summaries(deps, params, adjusted, records)
    final = {item: (adjusted[item], explain.get(item, (0.0, []))[1]) for item in adjusted}
    return ranked(adjusted), final, records, sorted(r.name for r in results)


def _second_stage(
    deps: Deps,
    query: str,
    params: RetrievalParams,
    head: list[str],
    records: dict[str, MemoryRecord],
    scores: dict[str, float],
    explain: dict[str, tuple[float, list[ChannelHit]]],
    window: TimeRange | None,
) -> None:
    stages, weights = params.stages, params.weights
    terms = content_terms(query) if "coverage" in stages else set()
    now = deps.clock.now()
    for item in head:
        record = records.get(item)
        if record is None:
            continue
        adjustments: list[tuple[str, float]] = []
        if terms:
            adjustments.append(("coverage", weights["coverage"] * coverage(terms, record.content)))
        if "question" in stages and is_question(record.content):
            adjustments.append(("question", -weights["question"]))
        if window is not None:
            if window.since <= record.event_time < window.until:
                adjustments.append(("time", weights["time"]))
            elif window.until <= record.event_time < window.until + _told_within(window):
                adjustments.append(("time", weights["time"] * _TOLD_LATER))
        if "lifecycle" in stages:
            penalty = (TRUST_WEIGHT[record.trust] - 1.0) * 0.5
            if record.state is not MemoryState.ACTIVE:
                penalty -= 0.5
            adjustments.append(("lifecycle", weights["lifecycle"] * penalty))
            # Strength as one factor (SPEC §7): a faded memory gives way to a live one of equal match.
            alive = (
                1.0 if record.pinned else ranking_factor(record_strength(deps.lifecycle.decay, record, now))
            )
            adjustments.append(("strength", weights["strength"] * (alive - 1.0)))
        for name, value in adjustments:
            if value:
                scores[item] += value
                explain[item][1].append(ChannelHit(channel=name, rank=0, score=round(value, 6)))


def _expand(
    deps: Deps,
    params: RetrievalParams,
    filters: Filters,
    scores: dict[str, float],
    explain: dict[str, tuple[float, list[ChannelHit]]],
    records: dict[str, MemoryRecord],
) -> None:
    """Lift memories that hang off strong hits: the next turn of a conversation, graph neighbours."""
    seeds = [item for item in ranked(scores)[: params.rerank_depth] if scores[item] > 0]
    lifts: dict[str, tuple[float, str]] = {}
    follow = seeds and {"conversation", "continuation"} & set(params.stages)
    successors = deps.store.session_successors(seeds, filters) if follow else {}
    if "conversation" in params.stages:
        for source, successor in successors.items():
            _lift(lifts, successor, params.weights["conversation"] * scores[source], "conversation")
    if "continuation" in params.stages and successors:
        # The same speaker's next turn in the session: after the other speaker's reply ("What was it
        # like?") a speaker goes on about what the strong hit began.
        after = deps.store.session_successors(list(successors.values()), filters)
        records.update(deps.store.get_many([item for item in after.values() if item not in records]))
        weight = params.weights["continuation"]
        for source, successor in successors.items():
            following = after.get(successor)
            first, then = records.get(source), records.get(following or "")
            if first is not None and then is not None and first.subject and first.subject == then.subject:
                _lift(lifts, then.id, weight * scores[source], "continuation")
    if "graph" in params.stages and seeds:
        frontier = {item: scores[item] for item in seeds[:_GRAPH_SEEDS]}
        strength = params.weights["graph"]
        for _hop in range(2):
            edges = deps.store.edges_of(list(frontier))
            reached: dict[str, float] = {}
            for edge in edges:
                for here, there in ((edge.src, edge.dst), (edge.dst, edge.src)):
                    if here in frontier and there not in frontier:
                        value = strength * edge.weight * frontier[here]
                        reached[there] = max(reached.get(there, 0.0), value)
            for item, value in reached.items():
                _lift(lifts, item, value, "graph")
            strongest = sorted(reached, key=lambda item: (-reached[item], item))[:_GRAPH_SEEDS]
            frontier = {item: reached[item] for item in strongest}
            strength *= _GRAPH_HOP_DECAY
    if not lifts:
        return
    missing = [item for item in lifts if item not in records]
    records.update(deps.store.get_many(missing))
    for item, (value, channel) in lifts.items():
        record = records.get(item)
        if record is None or not passes(record, filters):
            continue
        if value > scores.get(item, float("-inf")):
            explain.setdefault(item, (0.0, []))[1].append(
                ChannelHit(channel=channel, rank=0, score=round(value, 6))
            )
            scores[item] = value


def _favour_subject(
    params: RetrievalParams,
    named: Sequence[str],
    scores: dict[str, float],
    explain: dict[str, tuple[float, list[ChannelHit]]],
    records: dict[str, MemoryRecord],
) -> None:
    """Raise the memories whose subject is the one subject the query names.

    Last, after expansion, so the answer that follows another speaker's question is raised too when
    it is the named subject's. A query naming two subjects ("when did A and B meet") favours neither.
    On the LoCoMo development split 96% of the evidence of a question naming one speaker is that
    speaker's own turns.
    """
    if len(named) != 1:
        return
    bonus = params.weights["subject"]
    for item, record in records.items():
        if item in scores and _subject_of(record) == named[0]:
            scores[item] += bonus
            explain.setdefault(item, (0.0, []))[1].append(ChannelHit(channel="subject", rank=0, score=bonus))


def _drop_redundant_summaries(
    deps: Deps, params: RetrievalParams, scores: dict[str, float], records: dict[str, MemoryRecord]
) -> None:
    """A session's summary is context for its turns, not their rival: when one of the turns it was
    made from is itself among the best candidates, the summary adds nothing and gives way.
    Consolidation summaries never meet their sources here, since those are superseded.
    """
    head = ranked(scores)[: params.rerank_depth]
    summaries = [
        item
        for item in head
        if (record := records.get(item)) is not None and record.metadata.get("summary_of") == "episodes"
    ]
    if not summaries:
        return
    near = set(head)
    for edge in deps.store.edges_of(summaries):
        if edge.type is EdgeType.DERIVED_FROM and edge.src in scores and edge.dst in near:
            scores.pop(edge.src, None)


def _lift(lifts: dict[str, tuple[float, str]], item: str, value: float, channel: str) -> None:
    if value > lifts.get(item, (float("-inf"), ""))[0]:
        lifts[item] = (value, channel)


def _cap_per_writer(order: list[str], records: dict[str, MemoryRecord], cap: int) -> list[str]:
    """Within the first RECALL_LIMIT_MAX positions (the same for every page, so paging stays one
    ranking), a writer's memories beyond its first `cap` go after everyone else's there: no single
    agent (a flood of paraphrases) crowds the others out of the top. With one writer nothing moves."""
    window = order[: limits.RECALL_LIMIT_MAX]
    writers = [records[item].agent_id if item in records else None for item in window]
    if len({w for w in writers if w is not None}) < 2:
        return order
    seen: dict[str, int] = {}
    kept: list[str] = []
    overflow: list[str] = []
    for item, writer in zip(window, writers, strict=True):
        if writer is not None:
            seen[writer] = seen.get(writer, 0) + 1
        (overflow if writer is not None and seen[writer] > cap else kept).append(item)
    return kept + overflow + order[limits.RECALL_LIMIT_MAX :]


# What an answer's text costs around the memories: the notice and paging lines, and per result its
# header line (id, type, trust, pool, date, score, why). The budget covers all of it.
_ANSWER_TOKENS = 40
_RESULT_TOKENS = 50


def _page(
    order: list[str],
    explain: dict[str, tuple[float, list[ChannelHit]]],
    records: dict[str, MemoryRecord],
    offset: int,
    limit: int,
    budget: int,
) -> tuple[list[RecallHit], int, int | None]:
    hits: list[RecallHit] = []
    used = _ANSWER_TOKENS
    page = order[offset : offset + limit]
    next_offset: int | None = offset + limit if len(order) > offset + limit else None
    for position, item in enumerate(page):
        record = records.get(item)
        if record is None:  # deleted between search and hydration
            continue
        score, channels = explain.get(item, (0.0, []))
        cost = estimate_tokens(record.content) + _RESULT_TOKENS
        if used + cost > budget:
            if hits:
                next_offset = offset + position
                break
            # A single memory larger than the whole budget is cut rather than dropped.
            room = max(1, budget - _ANSWER_TOKENS - _RESULT_TOKENS)
            record = replace(record, content=truncate_to_tokens(record.content, room))
            hits.append(RecallHit(record=record, score=score, channels=channels, truncated=True))
            used = budget
            next_offset = offset + position + 1 if len(order) > offset + position + 1 else None
            break
        used += cost
        hits.append(RecallHit(record=record, score=score, channels=channels))
    return hits, used, next_offset
