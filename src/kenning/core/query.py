"""What a recall asks for, and what it gets back with its explanation."""

from __future__ import annotations

from dataclasses import dataclass, field

from kenning.core.beliefs import Belief
from kenning.core.records import MemoryRecord, MemoryState, Trust


@dataclass(frozen=True, slots=True)
class Filters:
    """Structured filters. A list filter means "all of these" (tags, entities) or "any of these" (types)."""

    namespace: str
    states: tuple[MemoryState, ...] = (MemoryState.ACTIVE,)
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    agent_id: str | None = None
    session_id: str | None = None
    since: float | None = None
    until: float | None = None
    trusts: tuple[Trust, ...] = ()  # empty: any trust
    also_pools: tuple[str, ...] = ()  # namespaces searched besides `namespace` (a principal's read pools)

    @property
    def pools(self) -> tuple[str, ...]:
        """Every namespace searched, `namespace` first."""
        return tuple(dict.fromkeys((self.namespace, *self.also_pools)))

    @property
    def is_structured(self) -> bool:
        """True when the filter narrows beyond namespace and state."""
        return bool(
            self.types
            or self.tags
            or self.entities
            or self.agent_id
            or self.session_id
            or self.since is not None
            or self.until is not None
            or bool(self.trusts)
        )


def passes(record: MemoryRecord, filters: Filters) -> bool:
    """The same test the stores apply in SQL, for memories reached some other way (graph, context)."""
    return (
        record.namespace in filters.pools
        and record.state in filters.states
        and (not filters.types or record.type in filters.types)
        and all(tag in record.tags for tag in filters.tags)
        and all(e.casefold() in {x.casefold() for x in record.entities} for e in filters.entities)
        and (not filters.agent_id or record.agent_id == filters.agent_id)
        and (not filters.session_id or record.session_id == filters.session_id)
        and (filters.since is None or record.event_time >= filters.since)
        and (filters.until is None or record.event_time < filters.until)
        and (not filters.trusts or record.trust in filters.trusts)
    )


@dataclass(frozen=True, slots=True)
class ChannelHit:
    channel: str
    rank: int
    score: float


@dataclass(slots=True)
class RecallHit:
    record: MemoryRecord
    score: float
    channels: list[ChannelHit] = field(default_factory=list)
    truncated: bool = False
    belief: Belief | None = None  # for memories that state something: how far to believe it
    in_conflict_with: list[str] = field(default_factory=list)  # other results it has an open conflict with


@dataclass(slots=True)
class RecallResult:
    hits: list[RecallHit]
    next_offset: int | None
    degraded: list[str]
    used_tokens: int
    channels_used: list[str]
    note: str | None = None  # why fewer results came back than asked for, when they did
