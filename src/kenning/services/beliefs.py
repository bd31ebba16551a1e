"""Beliefs: how much a memory is to be believed, from the writes that stated it and those against it.

Observations come from what is already recorded: the write that created a memory and every repeat
that reinforced it (audit log), memories linked to it as `supports`, and memories that contradict it
(`contradicts` edges and conflicts, open or kept both).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kenning.core import beliefs as rules
from kenning.core.ontology import BASE_TYPES, SUBTYPES, base_type
from kenning.core.records import Conflict, EdgeType, MemoryRecord, MemoryState, Trust
from kenning.core.validation import check_range, check_unit_interval
from kenning.services.deps import Caller, Deps

_OBSERVED = ("remember", "reinforce")


@dataclass(slots=True)
class BeliefView:
    record: MemoryRecord
    belief: rules.Belief


def assess_many(
    deps: Deps, records: Sequence[MemoryRecord], conflicts: Sequence[Conflict] | None = None
) -> dict[str, rules.Belief]:
    """Beliefs for the memories whose type states something (not episodes), in a few batched reads.
    `conflicts`: those of `records` when the caller has read them already (recall has)."""
    subjects = {r.id: r for r in records if base_type(r.type) in rules.BELIEF_TYPES}
    if not subjects:
        return {}
    store = deps.store
    observations: dict[str, list[rules.Observation]] = {memory_id: [] for memory_id in subjects}
    edges = store.edges_of(list(subjects))
    # A summary that replaced memories inherits what was observed of them: consolidation must not
    # make a well-attested statement look new.
    heir = {e.dst: e.src for e in edges if e.type is EdgeType.DERIVED_FROM and e.src in subjects}
    sources = store.get_many(list(heir))
    for entry in store.audit_entries([*subjects, *heir], _OBSERVED):
        memory_id = str(entry.memory_id)
        record = subjects.get(memory_id) or sources.get(memory_id)
        if record is None:
            continue
        trust = _trust(entry.detail.get("trust"), record.trust)
        kind = rules.observation_kind(trust, base_type(record.type))
        owner = memory_id if memory_id in subjects else heir[memory_id]
        observations[owner].append(rules.Observation(kind, entry.at, entry.actor, supports=True))
    others: dict[str, list[tuple[str, bool]]] = {}
    for edge in edges:
        if edge.type not in (EdgeType.SUPPORTS, EdgeType.CONTRADICTS):
            continue
        for here, there in ((edge.src, edge.dst), (edge.dst, edge.src)):
            if here in subjects:
                others.setdefault(here, []).append((there, edge.type is EdgeType.SUPPORTS))
    for conflict in store.conflicts_of(list(subjects)) if conflicts is None else conflicts:
        if conflict.status == "open" or conflict.resolution == "keep_both":
            for here, there in (
                (conflict.first_id, conflict.second_id),
                (conflict.second_id, conflict.first_id),
            ):
                if here in subjects:
                    others.setdefault(here, []).append((there, False))
    linked = store.get_many([there for pairs in others.values() for there, _ in pairs])
    for here, pairs in others.items():
        seen: set[str] = set()
        for there, supports in pairs:
            other = linked.get(there)
            if other is None or there in seen or other.state is not MemoryState.ACTIVE:
                continue
            seen.add(there)
            kind = rules.observation_kind(other.trust, base_type(other.type))
            observations[here].append(rules.Observation(kind, other.created_at, other.agent_id, supports))
    now = deps.clock.now()
    return {memory_id: rules.assess(found, now) for memory_id, found in observations.items()}


# Every type name whose base type states something a belief can be about (subtypes included).
_BELIEF_TYPE_NAMES = tuple(
    name for name in (*BASE_TYPES, *sorted(SUBTYPES)) if base_type(name) in rules.BELIEF_TYPES
)


def list_beliefs(
    deps: Deps, caller: Caller, *, min_confidence: float = rules.SURFACE_CONFIDENCE, limit: int = 20
) -> list[BeliefView]:
    """Surfaced beliefs of the namespace, most confident first."""
    check_unit_interval(min_confidence, "min_confidence")
    check_range(limit, "limit", 1, 200)
    # Only a memory stated more than once (repeats and recalls both count as access), or linked to
    # others by `supports`, can have two independent observations: the store finds those alone.
    candidates = deps.store.belief_candidates(caller.namespace, _BELIEF_TYPE_NAMES)
    assessed = assess_many(deps, candidates)
    views = [
        BeliefView(record=r, belief=assessed[r.id])
        for r in candidates
        if r.id in assessed and assessed[r.id].surfaced and assessed[r.id].confidence >= min_confidence
    ]
    views.sort(key=lambda v: (-v.belief.confidence, -v.belief.independent, v.record.id))
    return views[:limit]


def _trust(value: object, default: Trust) -> Trust:
    try:
        return Trust(str(value)) if value is not None else default
    except ValueError:
        return default
