"""Keeping memory consistent: judging a write against its neighbours, supersede chains, conflicts, links.

The write path asks `assess` what a new memory is next to its nearest neighbours: the same memory
again (reinforce), a contradiction (flag, or supersede under `latest_wins`), or something new (link
it to what it resembles). Callers judge flagged pairs with `resolve_conflict`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kenning.core import limits
from kenning.core.conflict import Evidence, judge
from kenning.core.errors import ConflictError, InvalidInput, NotFound
from kenning.core.query import Filters
from kenning.core.records import (
    TRUST_WEIGHT,
    AuditEntry,
    Conflict,
    Edge,
    EdgeType,
    MemoryRecord,
    MemoryState,
    Restatement,
)
from kenning.core.text import estimate_tokens
from kenning.core.validation import check_range, check_unit_interval
from kenning.ports.embedder import Vector
from kenning.services.deps import Caller, Deps
from kenning.services.provenance import check_may_supersede
from kenning.services.records import changeable, close_conflicts_of, get, save_fields

logger = logging.getLogger(__name__)

_NEIGHBOURS = 5
_ENTITY_EDGES = 3
_COMMON_ENTITY = 20
_CHAIN_MAX = 100
LINKABLE = (
    EdgeType.RELATED,
    EdgeType.SUPPORTS,
    EdgeType.CONTRADICTS,
    EdgeType.CAUSES,
    EdgeType.FIXES,
    EdgeType.PART_OF,
    EdgeType.DERIVED_FROM,
)


@dataclass(slots=True)
class Assessment:
    """What the write path should do with a new memory, and the evidence for it."""

    duplicate_of: MemoryRecord | None = None
    duplicate_similarity: float = 0.0
    conflicts: list[tuple[MemoryRecord, Evidence]] = field(default_factory=list)
    related: list[tuple[str, float]] = field(default_factory=list)


def assess(deps: Deps, caller: Caller, content: str, model: str, vector: Vector) -> Assessment:
    limits_ = deps.conflicts.thresholds_for(model)
    floor = min(limits_.conflict_floor, limits_.related, limits_.duplicate)
    found = deps.store.search_vectors(vector, model, Filters(namespace=caller.namespace), _NEIGHBOURS)
    near = [(item, score) for item, score in found.hits if score >= floor]
    records = deps.store.get_many([item for item, _ in near])
    out = Assessment()
    for item, score in near:
        record = records.get(item)
        if record is None:
            continue
        try:
            evidence = judge(record.content, content, score, limits_)
        except Exception:  # a judge bug must never fail a write: this neighbour is simply not judged
            logger.exception("judging %s against a new memory failed", record.id)
            continue
        if evidence.verdict == "duplicate" and out.duplicate_of is None:
            out.duplicate_of, out.duplicate_similarity = record, score
        elif evidence.verdict == "conflict":
            out.conflicts.append((record, evidence))
        elif score >= limits_.related:
            out.related.append((item, score))
    return out


def conflict_evidence(old: MemoryRecord, new: MemoryRecord, evidence: Evidence) -> dict[str, Any]:
    """The evidence a caller needs to judge a pair, in plain JSON."""
    shared_entities = sorted({e.casefold() for e in old.entities} & {e.casefold() for e in new.entities})
    return {
        "older_id": old.id,
        "newer_id": new.id,
        "older_content": old.content,
        "newer_content": new.content,
        "similarity": evidence.similarity,
        "shared_entities": shared_entities,
        "shared_terms": list(evidence.shared_terms),
        "time_gap_days": round((new.event_time - old.event_time) / 86400, 2),
        "polarity_flip": evidence.polarity_flip,
        "changed_values": {
            "older": list(evidence.changed_values[0]),
            "newer": list(evidence.changed_values[1]),
        },
        "change_cue": evidence.change_cue,
        "subject": evidence.subject,
        "attribute": evidence.attribute,
        "reasons": list(evidence.reasons),
        "decisive": evidence.decisive,
        "latest_wins_eligible": evidence.decisive and latest_wins_eligible(old, new),
    }


def latest_wins_eligible(old: MemoryRecord, new: MemoryRecord) -> bool:
    """The newer memory may replace the older one only if it is no less trusted and not older."""
    return TRUST_WEIGHT[new.trust] >= TRUST_WEIGHT[old.trust] and new.event_time >= old.event_time


def edges_for_new(
    deps: Deps, caller: Caller, record: MemoryRecord, related: Sequence[tuple[str, float]]
) -> list[Edge]:
    """Similarity edges to the closest neighbours and co-occurrence edges through shared entities."""
    edges = [
        Edge(
            src=record.id,
            dst=item,
            type=EdgeType.RELATED,
            weight=round(0.5 * score, 4),
            created_at=record.created_at,
        )
        for item, score in related
    ]
    linked = {item for item, _ in related}
    for entity in record.entities[:5]:
        others = deps.store.memories_with_entity(caller.namespace, entity, _COMMON_ENTITY + 1)
        if len(others) > _COMMON_ENTITY:
            # An entity in every other memory (the user, the project) links everything to everything.
            continue
        for other in others[:_ENTITY_EDGES]:
            if other != record.id and other not in linked:
                linked.add(other)
                edges.append(
                    Edge(
                        src=record.id,
                        dst=other,
                        type=EdgeType.RELATED,
                        weight=0.3,
                        created_at=record.created_at,
                    )
                )
    return edges


def supersede(
    deps: Deps, caller: Caller, old_id: str, new_id: str, reason: str, *, judging: int | None = None
) -> MemoryRecord:
    """Mark `old` superseded by `new`; refuses a chain that would loop. Returns the updated old record."""
    old = changeable(deps, caller, old_id)
    new = changeable(deps, caller, new_id)
    if old.id == new.id:
        raise InvalidInput("supersedes", "a memory cannot supersede itself")
    # Walking back from `old` must not reach `new`: that would close a loop.
    cursor: str | None = old.supersedes
    for _ in range(_CHAIN_MAX):
        if cursor is None:
            break
        if cursor == new.id:
            raise InvalidInput(
                "supersedes", f"{new.id} already precedes {old.id}; superseding would make a cycle"
            )
        earlier = deps.store.get(cursor)
        cursor = earlier.supersedes if earlier is not None else None
    if new.supersedes != old.id:
        save_fields(
            deps, caller, new, "supersedes", {"supersedes": old.id, "reason": reason}, supersedes=old.id
        )
    updated = save_fields(
        deps,
        caller,
        old,
        "superseded",
        {"by": new.id, "reason": reason, "from_state": old.state.value},
        state=MemoryState.SUPERSEDED,
    )
    _add_edge(deps, caller, new.id, old.id, EdgeType.SUPERSEDES, 1.0)
    # What the superseded memory was in conflict with is settled by its successor: close those pairs
    # (the conflict being judged now, if any, is closed by its caller with the decision).
    close_conflicts_of(deps, caller, old.id, f"superseded:{old.id}:by:{new.id}", skip=judging)
    return updated


_RESTATEMENTS_SHOWN = 10


@dataclass(slots=True)
class Chain:
    """A memory's place in its supersede chain: what it replaced (oldest last) and what replaced it,
    and the newest restatements it absorbed (with how many there are in all)."""

    record: MemoryRecord
    history: list[str]
    superseded_by: list[str]
    restatements: list[Restatement] = field(default_factory=list)
    restatement_count: int = 0


def chain(deps: Deps, caller: Caller, memory_id: str) -> Chain:
    record = get(deps, caller, memory_id)
    history: list[str] = []
    cursor = record.supersedes
    while cursor is not None and len(history) < _CHAIN_MAX and cursor not in history:
        history.append(cursor)
        earlier = deps.store.get(cursor)
        cursor = earlier.supersedes if earlier is not None and earlier.namespace in caller.readable else None
    later: list[str] = []
    frontier = [record.id]
    while frontier and len(later) < _CHAIN_MAX:
        successors = [s for item in frontier for s in deps.store.superseded_by(item) if s not in later]
        later.extend(successors)
        frontier = successors
    restated, count = deps.store.restatements(record.id, _RESTATEMENTS_SHOWN)
    return Chain(
        record=record, history=history, superseded_by=later, restatements=restated, restatement_count=count
    )


def list_conflicts(
    deps: Deps, caller: Caller, *, status: str | None = "open", limit: int = 20, offset: int = 0
) -> list[Conflict]:
    if status not in (None, "open", "resolved"):
        raise InvalidInput("status", f"unknown status {status!r}; valid: open, resolved")
    check_range(limit, "limit", 1, limits.RECALL_LIMIT_MAX)
    check_range(offset, "offset", 0, 1_000_000)
    return deps.store.conflicts(caller.namespace, status=status, limit=limit, offset=offset)


def conflicts_of(deps: Deps, caller: Caller, memory_id: str) -> list[Conflict]:
    """Every conflict a readable memory stands in, open or judged, within the pools the caller reads."""
    record = get(deps, caller, memory_id)
    return [c for c in deps.store.conflicts_of([record.id]) if c.namespace in caller.readable]


@dataclass(slots=True)
class Resolution:
    conflict: Conflict
    decision: str
    kept: list[str]
    superseded: list[str]
    merged_id: str | None = None


def resolve_conflict(
    deps: Deps,
    caller: Caller,
    conflict_id: int,
    decision: str,
    *,
    winner: str | None = None,
    merged_content: str | None = None,
) -> Resolution:
    """Take the caller's judgment on a flagged pair: keep_both, supersede (winner stays) or merge."""
    from kenning.core.validation import MemoryDraft
    from kenning.services.remember import remember

    check_range(conflict_id, "conflict_id", 1, 2**62)
    found = deps.store.get_conflict(caller.namespace, conflict_id)
    if found is None or found.namespace != caller.namespace:
        raise NotFound(f"no conflict with id {conflict_id}", id=conflict_id)
    if found.status != "open":
        raise ConflictError(
            f"conflict {conflict_id} was already resolved ({found.resolution})", id=conflict_id
        )
    pair = (found.first_id, found.second_id)
    now = deps.clock.now()
    audit = AuditEntry(
        at=now,
        actor=caller.agent_id,
        namespace=caller.namespace,
        action="resolve_conflict",
        memory_id=pair[0],
        detail={"conflict": conflict_id, "decision": decision, "pair": list(pair)},
    )
    if decision == "keep_both":
        deps.store.close_conflict(caller.namespace, conflict_id, "keep_both", now, audit)
        return Resolution(conflict=found, decision=decision, kept=list(pair), superseded=[])
    if decision == "supersede":
        if winner not in pair:
            raise InvalidInput("winner", f"must be one of the pair: {pair[0]} or {pair[1]}")
        loser = pair[1] if winner == pair[0] else pair[0]
        check_may_supersede(caller, changeable(deps, caller, loser))
        supersede(deps, caller, loser, winner, reason=f"conflict {conflict_id} judged", judging=conflict_id)
        deps.store.close_conflict(caller.namespace, conflict_id, f"supersede:{winner}", now, audit)
        return Resolution(conflict=found, decision=decision, kept=[winner], superseded=[loser])
    if decision == "merge":
        if not merged_content:
            raise InvalidInput(
                "merged_content", "is required for decision 'merge': the one statement to keep"
            )
        first, second = changeable(deps, caller, pair[0]), changeable(deps, caller, pair[1])
        check_may_supersede(caller, first)
        check_may_supersede(caller, second)
        draft = MemoryDraft(
            content=merged_content,
            type=second.type,
            tags=sorted(set(first.tags) | set(second.tags)),
            entities=sorted(set(first.entities) | set(second.entities)),
            importance=max(first.importance, second.importance),
            trust=min((first.trust, second.trust), key=lambda t: TRUST_WEIGHT[t]).value,
            source=f"merge of {first.id} and {second.id}",
        )
        outcome = remember(deps, caller, draft, assess_neighbours=False)
        merged = outcome.record
        if merged.state is MemoryState.QUARANTINED:
            raise InvalidInput(
                "merged_content", "reads like instructions to agents; it was quarantined and replaces nothing"
            )
        for old in pair:
            if old != merged.id:  # merging into the wording of one side keeps that memory
                supersede(
                    deps, caller, old, merged.id, reason=f"conflict {conflict_id} merged", judging=conflict_id
                )
        deps.store.close_conflict(caller.namespace, conflict_id, f"merge:{merged.id}", now, audit)
        return Resolution(
            conflict=found, decision=decision, kept=[merged.id], superseded=list(pair), merged_id=merged.id
        )
    raise InvalidInput("decision", f"unknown decision {decision!r}; valid: keep_both, supersede, merge")


def link(deps: Deps, caller: Caller, src: str, dst: str, edge_type: str, weight: float = 1.0) -> Edge:
    try:
        kind = EdgeType(edge_type)
    except ValueError:
        valid = ", ".join(t.value for t in LINKABLE)
        raise InvalidInput("type", f"unknown edge type {edge_type!r}; valid: {valid}") from None
    if kind not in LINKABLE:
        raise InvalidInput("type", "supersedes edges come from remember(supersedes=…) or resolve_conflict")
    check_unit_interval(weight, "weight")
    source, target = changeable(deps, caller, src), changeable(deps, caller, dst)
    if source.id == target.id:
        raise InvalidInput("dst", "a memory cannot be linked to itself")
    return _add_edge(deps, caller, source.id, target.id, kind, weight)


def _add_edge(deps: Deps, caller: Caller, src: str, dst: str, kind: EdgeType, weight: float) -> Edge:
    now = deps.clock.now()
    edge = Edge(src=src, dst=dst, type=kind, weight=weight, created_at=now)
    audit = AuditEntry(
        at=now,
        actor=caller.agent_id,
        namespace=caller.namespace,
        action="link",
        memory_id=src,
        detail={"type": kind.value, "dst": dst},
    )
    deps.store.add_edge(edge, audit)
    return edge


@dataclass(slots=True)
class GraphStep:
    record: MemoryRecord
    depth: int
    via: str  # id of the memory it was reached from
    edge: str
    direction: str  # out: via -> record; in: record -> via
    weight: float


@dataclass(slots=True)
class Exploration:
    start: MemoryRecord
    steps: list[GraphStep]
    next_offset: int | None
    used_tokens: int


def explore_graph(
    deps: Deps,
    caller: Caller,
    memory_id: str,
    *,
    depth: int = 1,
    edge_types: Sequence[str] = (),
    limit: int = 20,
    offset: int = 0,
    token_budget: int = 4000,
) -> Exploration:
    """Breadth-first neighbours of a memory up to `depth` hops (≤ 3), paged and within a token budget."""
    check_range(depth, "depth", 1, 3)
    check_range(limit, "limit", 1, limits.RECALL_LIMIT_MAX)
    check_range(offset, "offset", 0, limits.OFFSET_MAX)
    check_range(token_budget, "token_budget", limits.TOKEN_BUDGET_MIN, limits.TOKEN_BUDGET_MAX)
    wanted: set[EdgeType] = set()
    for name in edge_types:
        try:
            wanted.add(EdgeType(name))
        except ValueError:
            valid = ", ".join(t.value for t in EdgeType)
            raise InvalidInput("edge_types", f"unknown edge type {name!r}; valid: {valid}") from None
    start = get(deps, caller, memory_id)
    seen = {start.id}
    frontier = [start.id]
    found: list[tuple[str, int, str, str, str, float]] = []
    for hop in range(1, depth + 1):
        edges = sorted(deps.store.edges_of(frontier), key=lambda e: (-e.weight, e.src, e.dst, e.type.value))
        reached: list[str] = []
        for edge in edges:
            if wanted and edge.type not in wanted:
                continue
            for here, there, direction in ((edge.src, edge.dst, "out"), (edge.dst, edge.src, "in")):
                if here in frontier and there not in seen:
                    seen.add(there)
                    reached.append(there)
                    found.append((there, hop, here, edge.type.value, direction, edge.weight))
        frontier = reached
        if not frontier:
            break
    records = deps.store.get_many([item for item, *_ in found])
    visible = [
        f
        for f in found
        if f[0] in records
        and records[f[0]].namespace in caller.readable
        and records[f[0]].state is not MemoryState.QUARANTINED
    ]
    steps: list[GraphStep] = []
    used = 0
    next_offset: int | None = offset + limit if len(visible) > offset + limit else None
    for position, (item, hop, via, kind, direction, weight) in enumerate(visible[offset : offset + limit]):
        record = records[item]
        cost = estimate_tokens(record.content) + 30
        if steps and used + cost > token_budget:
            next_offset = offset + position
            break
        used += cost
        steps.append(
            GraphStep(record=record, depth=hop, via=via, edge=kind, direction=direction, weight=weight)
        )
    return Exploration(start=start, steps=steps, next_offset=next_offset, used_tokens=used)
