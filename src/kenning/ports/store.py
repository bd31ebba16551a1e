"""The storage port. One implementation per backend; all pass tests/contract."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kenning.core.query import Filters
from kenning.core.records import AuditEntry, Conflict, Edge, MemoryRecord, MemoryState, Restatement
from kenning.ports.embedder import Vector

_POOLS_IN_SCOPE: ContextVar[tuple[str, ...] | None] = ContextVar("kenning_pools_in_scope", default=None)


@contextmanager
def pools_in_scope(pools: Sequence[str]) -> Iterator[None]:
    """Bind every store call made inside (in this thread, or a task or thread it starts) to these
    pools. A backend that enforces it in the database (PostgreSQL's row-level security) returns no row
    of another pool even to a query that forgot its pool predicate; the application boundary enters
    this for every principal that is not the operator's console."""
    token = _POOLS_IN_SCOPE.set(tuple(dict.fromkeys(pools)))
    try:
        yield
    finally:
        _POOLS_IN_SCOPE.reset(token)


def scoped_pools() -> tuple[str, ...] | None:
    """The pools store calls are bound to now; None outside any scope (the operator, maintenance)."""
    return _POOLS_IN_SCOPE.get()


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


@dataclass(frozen=True, slots=True)
class StateChange:
    """A state change (or deletion) maintenance decided on, valid only while the memory is unchanged."""

    id: str
    state: MemoryState
    expected_version: int
    detail: dict[str, Any] = field(default_factory=dict)
    expected_access: int | None = None  # a recall since the read counts as a change too


@dataclass(frozen=True, slots=True)
class GroupChange:
    """One consolidation group, applied all or nothing: if any memory in it changed since it was read,
    nothing is written."""

    sources: Sequence[StateChange]  # each still active, then moved to its new state
    audit: AuditEntry  # for the summary written, or the survivor updated
    summary: MemoryRecord | None = None
    summary_vectors: Sequence[StoredVector] = ()
    survivor: tuple[MemoryRecord, StateChange] | None = None  # the updated survivor and what it was
    edges: Sequence[Edge] = ()


@dataclass(slots=True)
class StoreStats:
    schema_version: int
    total: int
    by_state: dict[str, int]
    by_type: dict[str, int]
    by_namespace: dict[str, int]
    vectors_by_model: dict[str, int]
    audit_entries: int
    location: str
    size_bytes: int  # what the store takes on disk (a file with its write-ahead log, a database)
    used_bytes: int = 0  # pages in use: what deletions free, although the file keeps its size
    health: list[str] = field(default_factory=list)
    record_bytes: int = 0  # what the counted records hold: their text, tags, metadata and vectors
    backend: str = ""  # which kind of store answered, for status
    # Rows of each derived index the backend keeps beside the records, named by the backend (none when
    # its indexes live on the records' own table): the operator's view of index health.
    index_rows: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class DumpBatch:
    """Part of a store's whole contents, as `dump` gives them and `load` takes them: records first (in
    write order), then what refers to them. One batch usually fills one field."""

    records: list[MemoryRecord] = field(default_factory=list)
    vectors: list[tuple[str, StoredVector]] = field(default_factory=list)  # (memory id, vector)
    edges: list[Edge] = field(default_factory=list)
    restatements: list[tuple[str, Restatement]] = field(default_factory=list)  # (memory id, restatement)
    conflicts: list[Conflict] = field(default_factory=list)  # with their numbers
    conflict_numbers: list[tuple[str, int]] = field(default_factory=list)  # (namespace, last number given)
    audit: list[AuditEntry] = field(default_factory=list)  # oldest first
    runs: list[tuple[str, float, float, dict[str, Any]]] = field(default_factory=list)  # oldest first


class RecordStore(Protocol):
    """Memories themselves: written, read, changed and removed one at a time."""

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
        restatement: Restatement | None = None,
    ) -> None:
        """Overwrite a record whose stored version is `expected_version` (else ConflictError).

        Its text index entries are rebuilt; with `revector` its vectors are dropped and `vectors`
        stored in their place. A `restatement` is kept with the record in the same transaction (the
        same text again only counts once more).
        """
        ...

    def restatements(self, memory_id: str, limit: int) -> tuple[list[Restatement], int]:
        """The newest `limit` restatements a memory absorbed, and how many distinct ones it has."""
        ...

    def delete(self, memory_id: str, audit: AuditEntry) -> None:
        """Remove a record and everything derived from it; the audit entry stays."""
        ...

    def get(self, memory_id: str) -> MemoryRecord | None: ...

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]: ...

    def find_by_hash(self, namespace: str, content_hash: str) -> MemoryRecord | None: ...

    def touch(self, memory_ids: Iterable[str], at: float) -> None:
        """Record an access: last_accessed_at and access_count; never changes `version`. It need not
        wait for another caller's write in progress: it may land with that write, before it commits
        (and then before any check that write makes), but is never lost while the store is open."""
        ...

    def written_by(self, namespace: str, agent_id: str, since: float, until: float) -> list[MemoryRecord]:
        """Memories this writer created in [since, until), oldest first."""
        ...

    def scan(self, namespace: str, states: Sequence[MemoryState]) -> list[MemoryRecord]:
        """Every memory of the namespace in these states, in write order."""
        ...

    def namespaces(self) -> list[str]: ...

    def tagged(self, namespace: str) -> list[tuple[str, list[str], float]]:
        """(id, tags, created_at) of the namespace's active memories that have tags, in write order:
        all that insight cards read, without the records."""
        ...

    def belief_candidates(self, namespace: str, types: Sequence[str]) -> list[MemoryRecord]:
        """The namespace's active memories of these types that could hold a belief: used at least once,
        or joined to another memory by a `supports` edge (either end); in write order."""
        ...

    def session_tail(self, namespace: str, session_id: str, count: int) -> list[MemoryRecord]:
        """The newest `count` memories of a conversation session, oldest first (by event time, then
        write order)."""
        ...

    def subjects_named(self, namespace: str, words: Sequence[str]) -> list[str]:
        """Those of `words` (lower-cased) that are the subject of some memory in the namespace, in order."""
        ...

    def memories_with_entity(self, namespace: str, entity: str, limit: int) -> list[str]:
        """The newest active memories about this entity."""
        ...


class SearchIndex(Protocol):
    """What recall searches: words, characters, vectors, recency, the turn after a hit."""

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

    def search_vector_kinds(
        self,
        vector: Vector,
        models: Sequence[str],
        filters: Filters,
        limit: int,
        include: Sequence[str] = (),
    ) -> dict[str, DenseHits]:
        """`search_vectors` for each of `models` (a memory's vector kinds: content, context, ...),
        all from one state of the store; by model."""
        ...

    def search_recent(self, filters: Filters, limit: int) -> list[tuple[str, float]]:
        """Newest first by event time; (id, event_time)."""
        ...

    def session_successors(self, memory_ids: Sequence[str], filters: Filters) -> dict[str, str]:
        """For each memory that belongs to a session, the next memory of that session passing `filters`."""
        ...

    def vectors_of(self, model: str, memory_ids: Sequence[str]) -> dict[str, Vector]: ...


class LinkStore(Protocol):
    """Conflicts between memories, and typed edges (supersede chains, the graph)."""

    def record_conflict(
        self, namespace: str, a: str, b: str, evidence: dict[str, Any], at: float
    ) -> int | None:
        """Remember that a and b may conflict; None if this pair was recorded before (in either order)
        or one of the two is no longer active."""
        ...

    def conflicts(self, namespace: str, *, status: str | None, limit: int, offset: int) -> list[Conflict]: ...

    def count_conflicts(self, namespace: str, status: str) -> int: ...

    def get_conflict(self, namespace: str, conflict_id: int) -> Conflict | None:
        """A conflict by its number, which counts within the namespace."""

    def close_conflict(
        self, namespace: str, conflict_id: int, resolution: str, at: float, audit: AuditEntry
    ) -> None:
        """Mark a conflict resolved with the judgment taken."""
        ...

    def conflicts_of(self, memory_ids: Sequence[str]) -> list[Conflict]:
        """Conflicts, open or resolved, that involve any of these memories."""
        ...

    def superseded_by(self, memory_id: str) -> list[str]:
        """Ids of memories that name this one in `supersedes`."""
        ...

    def add_edge(self, edge: Edge, audit: AuditEntry) -> None:
        """Store a typed edge (replacing one of the same src, dst and type), with its audit entry."""
        ...

    def edges_of(self, memory_ids: Sequence[str]) -> list[Edge]:
        """Edges touching any of these memories, in either direction."""
        ...


class AuditLog(Protocol):
    """The append-only record of who did what."""

    def audit_log(self, memory_id: str) -> list[AuditEntry]: ...

    def count_actions(self, namespace: str, actor: str, actions: Sequence[str], since: float) -> int:
        """How many of these audit actions this actor took since `since`."""
        ...

    def audit_entries(
        self, memory_ids: Sequence[str], actions: Sequence[str], per_memory: int = 50
    ) -> list[AuditEntry]:
        """Audit entries of these memories with these actions, oldest first; at most the newest
        `per_memory` of each memory."""
        ...


class LifecycleStore(Protocol):
    """What maintenance writes: state changes and deletions that skip whatever changed since it was
    read, consolidation groups, its reports and its lease."""

    def change_states(self, changes: Sequence[StateChange], at: float, actor: str, action: str) -> list[str]:
        """Apply state changes in one transaction, each with an audit entry; a memory whose version moved
        on since it was read is skipped. Returns the ids changed."""
        ...

    def delete_many(self, deletions: Sequence[StateChange], at: float, actor: str, action: str) -> list[str]:
        """Delete memories in one transaction, each with an audit entry; skips any that changed."""
        ...

    def apply_group(self, group: GroupChange, at: float, actor: str, action: str) -> None:
        """Write a consolidation group in one transaction; ConflictError (nothing written) if any of its
        memories changed, was used or vanished since it was read."""
        ...

    def save_run(self, namespace: str, started_at: float, finished_at: float, report: dict[str, Any]) -> int:
        """Keep a maintenance report; returns its id."""
        ...

    def runs(self, namespace: str, limit: int) -> list[dict[str, Any]]:
        """Kept maintenance reports, newest first."""
        ...

    def acquire_lease(self, name: str, holder: str, now: float, ttl_s: float) -> str | None:
        """Take the named lease for `ttl_s` seconds; returns None when taken, else the current holder."""
        ...

    def release_lease(self, name: str, holder: str) -> None: ...


class StoreUpkeep(Protocol):
    """The operator's view and tools: counts, index health and rebuilds, vectors to (re)compute, the
    whole contents moved out and in."""

    def stats(self, embedder_model: str | None, namespace: str | None = None) -> StoreStats: ...

    def index_problems(self) -> list[str]:
        """Damage found by integrity checks of the file and of the derived indexes."""
        ...

    def rebuild_text_indexes(self) -> int:
        """Rebuild every derived text, tag and entity row from the records; returns the record count."""
        ...

    def records_for_vectors(self, model: str, *, all_records: bool) -> list[tuple[str, str]]: ...

    def put_vectors(self, memory_id: str, vectors: Sequence[StoredVector]) -> None: ...

    def dump(self, batch_size: int = 1000) -> Iterator[DumpBatch]:
        """Everything the store holds (records, vectors, edges, restatements, conflicts and their numbers,
        audit, maintenance reports), in batches, in an order `load` can write; read from one snapshot."""
        ...

    def load(self, batches: Iterable[DumpBatch], *, replace: bool) -> int:
        """Write a dump in one transaction, keeping write order, numbers and audit; returns the records
        written. Without `replace` the store must hold no record and no audit entry (else ConflictError);
        with it, what it held is replaced. Nothing is written if any batch fails."""
        ...

    def backup_to(self, target: Path) -> None: ...

    def restore_from(self, source: Path) -> None: ...

    def close(self) -> None: ...


class MemoryStore(RecordStore, SearchIndex, LinkStore, AuditLog, LifecycleStore, StoreUpkeep, Protocol):
    """The storage port, as six small ones: one implementation per backend (the SQLite file,
    PostgreSQL); every method of each is run against every backend by tests/contract."""
