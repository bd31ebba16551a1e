"""status: what is stored, which model embeds it, and every way in which answers are degraded."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kenning.core.ontology import BASE_TYPES
from kenning.services.deps import Caller, Deps


@dataclass(slots=True)
class StatusReport:
    ok: bool
    namespace: str
    memories_in_namespace: int
    total_memories: int
    by_state: dict[str, int]
    by_type: dict[str, int]
    embedder: dict[str, Any]
    vectors_by_model: dict[str, int]
    index: dict[str, Any]
    schema_version: int
    store: dict[str, Any]
    open_conflicts: int = 0
    maintenance: dict[str, Any] | None = None  # the last kept maintenance report of the namespace
    degraded: list[str] = field(default_factory=list)


def status(deps: Deps, caller: Caller, *, load_embedder: bool = True) -> StatusReport:
    """With `load_embedder`, the model is loaded so its failure, if any, is reported now."""
    gate = deps.embeddings
    model = gate.model_id() if load_embedder else None
    stats = deps.store.stats(model, caller.namespace)
    degraded = gate.degraded() + stats.health
    embedder = {
        "provider": gate.configured,
        "model": model,
        "engine": gate.engine,
        "loaded": gate.loaded,
        "failure": gate.failure,
    }
    return StatusReport(
        ok=not degraded,
        namespace=caller.namespace,
        memories_in_namespace=stats.by_namespace.get(caller.namespace, 0),
        total_memories=stats.total,
        by_state=stats.by_state,
        by_type={**{t: 0 for t in BASE_TYPES if t in stats.by_type}, **stats.by_type},
        embedder=embedder,
        vectors_by_model=stats.vectors_by_model,
        index={
            **stats.index_rows,
            "healthy": not stats.health,
            "problems": stats.health,
        },
        schema_version=stats.schema_version,
        store={
            "backend": stats.backend,
            "location": stats.location,
            "size_bytes": stats.size_bytes,  # the file: only for the operator, who sees every namespace
            "record_bytes": stats.record_bytes,  # this namespace's records and their vectors
            "audit_entries": stats.audit_entries,
        },
        open_conflicts=deps.store.count_conflicts(caller.namespace, "open"),
        maintenance=next(iter(deps.store.runs(caller.namespace, 1)), None),
        degraded=degraded,
    )
