"""Keeping the store sound: rebuild derived indexes from the records, back up and restore."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kenning.core.errors import InvalidInput
from kenning.core.records import AuditEntry, MemoryState
from kenning.core.validation import check_name
from kenning.ports.store import StoredVector
from kenning.services.deps import Caller, Deps
from kenning.services.records import save_fields

_BATCH = 64


@dataclass(slots=True)
class ReindexReport:
    problems_before: list[str]
    text_records: int
    vectors_written: int
    model: str | None
    problems_after: list[str]


def reindex(
    deps: Deps, *, vectors: str = "missing", progress: Callable[[int, int], None] | None = None
) -> ReindexReport:
    """Rebuild text indexes from the records, then embed what lacks a vector (or everything)."""
    if vectors not in ("missing", "all", "none"):
        raise InvalidInput("vectors", f"unknown choice {vectors!r}; valid: missing, all, none")
    store = deps.store
    before = store.index_problems()
    count = store.rebuild_text_indexes()
    written = 0
    model = None
    if vectors != "none":
        embedder = deps.embeddings.embedder()
        if embedder is not None:
            model = embedder.model_id
            todo = store.records_for_vectors(model, all_records=vectors == "all")
            for start in range(0, len(todo), _BATCH):
                batch = todo[start : start + _BATCH]
                matrix = embedder.embed_passages([content for _, content in batch])
                for (memory_id, _), row in zip(batch, matrix, strict=True):
                    store.put_vectors(memory_id, [StoredVector(model=model, values=row)])
                written += len(batch)
                if progress is not None:
                    progress(written, len(todo))
    return ReindexReport(
        problems_before=before,
        text_records=count,
        vectors_written=written,
        model=model,
        problems_after=store.index_problems(),
    )


def backup(deps: Deps, target: Path) -> Path:
    if target.exists():
        raise InvalidInput("path", f"{target} already exists; choose a new file so no backup is overwritten")
    deps.store.backup_to(target)
    return target


def restore(deps: Deps, source: Path, *, keep_current: Path | None = None) -> Path:
    """Replace the store with a backup; the current contents are first saved beside it (nothing is lost)."""
    if not source.is_file():
        raise InvalidInput("path", f"{source} does not exist")
    safety = keep_current or source.with_name(f"before-restore-{time.strftime('%Y%m%d-%H%M%S')}.db")
    deps.store.backup_to(safety)
    deps.store.restore_from(source)
    return safety


@dataclass(slots=True)
class RollbackReport:
    dry_run: bool
    removed: list[str]
    restored: list[str]  # memories the removed ones had superseded, active again


def rollback(
    deps: Deps, caller: Caller, *, agent_id: str, since: float, until: float, dry_run: bool = True
) -> RollbackReport:
    """Remove everything one writer stored in a time window; what it superseded becomes active again.

    A dry run (the default) only reports. Each removal is audited; the audit log itself is never touched.
    """
    check_name(agent_id, "agent", required=True)
    if until <= since:
        raise InvalidInput("until", "must be later than since")
    written = deps.store.written_by(caller.namespace, agent_id, since, until)
    removed = [record.id for record in written]
    doomed = set(removed)
    restored = [
        record.supersedes
        for record in written
        if record.supersedes
        and record.supersedes not in doomed
        and all(later in doomed for later in deps.store.superseded_by(record.supersedes))
    ]
    if dry_run:
        return RollbackReport(dry_run=True, removed=removed, restored=restored)
    # Restore before deleting: if this stops halfway, a rerun still finds the writer's memories and
    # recomputes what they had superseded, so nothing is left superseded by a memory that is gone.
    for memory_id in restored:
        earlier = deps.store.get(memory_id)
        if earlier is not None and earlier.state is MemoryState.SUPERSEDED:
            save_fields(
                deps, caller, earlier, "rollback_restore", {"writer": agent_id}, state=MemoryState.ACTIVE
            )
    for record in written:
        audit = AuditEntry(
            at=deps.clock.now(),
            actor=caller.agent_id,
            namespace=caller.namespace,
            action="rollback",
            memory_id=record.id,
            detail={"writer": agent_id, "window": [since, until], "content_hash": record.content_hash},
        )
        deps.store.delete(record.id, audit)
    return RollbackReport(dry_run=False, removed=removed, restored=restored)
