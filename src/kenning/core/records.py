"""The memory record and what hangs off it: states, trust levels, edges, audit entries (SPEC §4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class MemoryState(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded"
    DEPRECATED = "deprecated"
    QUARANTINED = "quarantined"


class Trust(StrEnum):
    USER_STATED = "user_stated"
    AGENT_INFERRED = "agent_inferred"
    TOOL_OBSERVED = "tool_observed"
    IMPORTED = "imported"


TRUST_WEIGHT: dict[Trust, float] = {
    Trust.USER_STATED: 1.0,
    Trust.TOOL_OBSERVED: 0.9,
    Trust.AGENT_INFERRED: 0.7,
    Trust.IMPORTED: 0.6,
}


class EdgeType(StrEnum):
    RELATED = "related"
    SUPERSEDES = "supersedes"
    CONTRADICTS = "contradicts"
    SUPPORTS = "supports"
    DERIVED_FROM = "derived_from"
    PART_OF = "part_of"
    CAUSES = "causes"
    FIXES = "fixes"


@dataclass(slots=True)
class MemoryRecord:
    """One memory. Times are UTC seconds since the epoch; `None` means unknown or not set."""

    id: str
    namespace: str
    content: str
    content_hash: str
    type: str
    agent_id: str
    created_at: float
    updated_at: float
    event_time: float
    subject: str | None = None
    session_id: str | None = None
    tags: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    context: str | None = None
    importance: float = 0.5
    trust: Trust = Trust.AGENT_INFERRED
    source: str | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    last_accessed_at: float | None = None
    access_count: int = 0
    review_after: float | None = None
    pinned: bool = False  # never forgotten by maintenance
    state: MemoryState = MemoryState.ACTIVE
    supersedes: str | None = None
    version: int = 1
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Edge:
    src: str
    dst: str
    type: EdgeType
    weight: float
    created_at: float


@dataclass(frozen=True, slots=True)
class Restatement:
    """A write that a memory absorbed (the same thing said again), kept word for word: nothing said is
    dropped. One row per distinct text; `times` counts how often that text was written."""

    content: str
    agent_id: str
    at: float  # first written
    trust: str
    similarity: float | None  # cosine to the memory; None for the same text up to case and spacing
    times: int = 1
    last_at: float | None = None
    last_agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two memories that may contradict each other, shown to callers once, until judged."""

    id: int
    namespace: str
    first_id: str
    second_id: str
    evidence: dict[str, Any]
    status: str  # open | resolved
    resolution: str | None
    created_at: float
    resolved_at: float | None


@dataclass(frozen=True, slots=True)
class AuditEntry:
    at: float
    actor: str
    namespace: str
    action: str
    memory_id: str | None
    detail: dict[str, Any]
