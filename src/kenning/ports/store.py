"""The storage port. One implementation per backend; all pass tests/contract."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kenning.core.query import Filters
from kenning.core.records import AuditEntry, Conflict, Edge, MemoryRecord
from kenning.ports.embedder import Vector


@dataclass(frozen=True, slots=True)
class StoredVector:
    model: str
    values: Vector


@dataclass(frozen=True, slots=True)
class DenseHits:
    """Best matches by cosine, plus what fusion needs to put cosine on a common scale."""

    hits: list[tuple[str, float]]
    mean: float
    std: float
    extra: dict[str, float]


@dataclass(slots=True)
class StoreStats:
    schema_version: int
    total: int
    by_state: dict[str, int]
    by_type: dict[str, int]
    by_namespace: dict[str, int]
    vectors_by_model: dict[str, int]
    text_index_rows: int
    trigram_index_rows: int
    audit_entries: int
    location: str
    size_bytes: int
    health: list[str] = field(default_factory=list)


class MemoryStore(Protocol):
    def insert(
        self,
        record: MemoryRecord,
        vectors: Sequence[StoredVector],
        audit: AuditEntry,
        edges: Sequence[Edge] = (),
    ) -> None:
        """Store a new record with its text index entries, vectors and edges, atomically."""
        ...

    def replace(
        self,
        record: MemoryRecord,
        *,
        expected_version: int,
        revector: bool,
        vectors: Sequence[StoredVector],
        audit: AuditEntry,
    ) -> None:
        """Overwrite a record whose stored version is `expected_version` (else ConflictError).

        Its text index entries are rebuilt; with `revector` its vectors are dropped and `vectors`
        stored in their place.
        """
        ...

    def delete(self, memory_id: str, audit: AuditEntry) -> None:
        """Remove a record and everything derived from it; the audit entry stays."""
        ...

    def get(self, memory_id: str) -> MemoryRecord | None: ...

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]: ...

    def find_by_hash(self, namespace: str, content_hash: str) -> MemoryRecord | None: ...

    def touch(self, memory_ids: Iterable[str], at: float) -> None:
        """Record an access: last_accessed_at and access_count; never changes `version`."""
        ...

    def search_words(self, query: str, filters: Filters, limit: int) -> list[tuple[str, float]]:
        """BM25 over words; (id, score) best first, score higher is better."""
        ...

    def search_cjk(self, query: str, filters: Filters, limit: int) -> list[tuple[str, float]]:
        """Character-level match for Chinese, Japanese and Korean; (id, score) best first."""
        ...

    def search_vectors(
        self, vector: Vector, model: str, filters: Filters, limit: int, include: Sequence[str] = ()
    ) -> DenseHits:
        """Cosine similarity over vectors of `model`: the best `limit` (id, cosine) pairs first, the
        cosine of each `include` id that passes the filters, and mean/std over all that pass."""
        ...

    def search_recent(self, filters: Filters, limit: int) -> list[tuple[str, float]]:
        """Newest first by event time; (id, event_time)."""
        ...

    def last_in_session(self, namespace: str, session_id: str) -> MemoryRecord | None:
        """The newest memory of a conversation session (by event time, then write order)."""
        ...

    def session_successors(self, memory_ids: Sequence[str], filters: Filters) -> dict[str, str]:
        """For each memory that belongs to a session, the next memory of that session passing `filters`."""
        ...

    def record_conflict(
        self, namespace: str, a: str, b: str, evidence: dict[str, Any], at: float
    ) -> int | None:
        """Remember that a and b may conflict; None if this pair was recorded before (in either order)."""
        ...

    def conflicts(self, namespace: str, *, status: str | None, limit: int, offset: int) -> list[Conflict]: ...

    def count_conflicts(self, namespace: str, status: str) -> int: ...

    def get_conflict(self, conflict_id: int) -> Conflict | None: ...

    def close_conflict(self, conflict_id: int, resolution: str, at: float, audit: AuditEntry) -> None:
        """Mark a conflict resolved with the judgment taken."""
        ...

    def superseded_by(self, memory_id: str) -> list[str]:
        """Ids of memories that name this one in `supersedes`."""
        ...

    def written_by(self, namespace: str, agent_id: str, since: float, until: float) -> list[MemoryRecord]:
        """Memories this writer created in [since, until), oldest first."""
        ...

    def memories_with_entity(self, namespace: str, entity: str, limit: int) -> list[str]:
        """The newest active memories about this entity."""
        ...

    def add_edge(self, edge: Edge, audit: AuditEntry) -> None:
        """Store a typed edge (replacing one of the same src, dst and type), with its audit entry."""
        ...

    def edges_of(self, memory_ids: Sequence[str]) -> list[Edge]:
        """Edges touching any of these memories, in either direction."""
        ...

    def audit_log(self, memory_id: str) -> list[AuditEntry]: ...

    def count_actions(self, namespace: str, actor: str, actions: Sequence[str], since: float) -> int:
        """How many of these audit actions this actor took since `since`."""
        ...

    def stats(self, embedder_model: str | None, namespace: str | None = None) -> StoreStats: ...

    def index_problems(self) -> list[str]:
        """Damage found by integrity checks of the file and of the derived indexes."""
        ...

    def rebuild_text_indexes(self) -> int:
        """Rebuild every derived text, tag and entity row from the records; returns the record count."""
        ...

    def records_for_vectors(self, model: str, *, all_records: bool) -> list[tuple[str, str]]: ...

    def put_vectors(self, memory_id: str, vectors: Sequence[StoredVector]) -> None: ...

    def backup_to(self, target: Path) -> None: ...

    def restore_from(self, source: Path) -> None: ...

    def close(self) -> None: ...
