"""Rows of the SQL stores (SQLite, PostgreSQL) and the records they hold: column lists, encoding,
decoding, and the structured filters as one WHERE clause, written once for both."""

from __future__ import annotations

import json
from typing import Any

from kenning.core.query import Filters
from kenning.core.records import (
    AuditEntry,
    Conflict,
    Edge,
    EdgeType,
    MemoryRecord,
    MemoryState,
    Restatement,
    Trust,
)

COLUMNS = (
    "id, namespace, agent_id, subject, session_id, type, content, content_hash, tags, entities, context, "
    "importance, trust, source, created_at, updated_at, event_time, valid_from, valid_to, last_accessed_at, "
    "access_count, review_after, state, supersedes, version, metadata, pinned"
)

COLUMN_COUNT = len(COLUMNS.split(","))

_decode = json.JSONDecoder().decode
# By stored value: a dict lookup, where calling the enum costs several times more (a recall reads a
# hundred records and more).
_TRUSTS = {t.value: t for t in Trust}
_STATES = {s.value: s for s in MemoryState}


def _list(text: str) -> Any:
    """A JSON array column; most are empty, and a recall reads a hundred records."""
    return [] if text == "[]" else _decode(text)


def _object(text: str) -> Any:
    return {} if text == "{}" else _decode(text)


CONFLICT_COLUMNS = (
    "number, namespace, first_id, second_id, evidence, status, resolution, created_at, resolved_at"
)


def conflict_from_row(row: Any) -> Conflict:
    return Conflict(
        id=int(row[0]),
        namespace=str(row[1]),
        first_id=str(row[2]),
        second_id=str(row[3]),
        evidence=_object(row[4]),
        status=str(row[5]),
        resolution=row[6],
        created_at=float(row[7]),
        resolved_at=row[8],
    )


def conflict_values(c: Conflict) -> tuple[Any, ...]:
    """A conflict's values in CONFLICT_COLUMNS order."""
    evidence = json.dumps(c.evidence, ensure_ascii=False)
    return (
        c.id,
        c.namespace,
        c.first_id,
        c.second_id,
        evidence,
        c.status,
        c.resolution,
        c.created_at,
        c.resolved_at,
    )


def row_values(r: MemoryRecord) -> tuple[Any, ...]:
    return (
        r.id,
        r.namespace,
        r.agent_id,
        r.subject,
        r.session_id,
        r.type,
        r.content,
        r.content_hash,
        json.dumps(r.tags, ensure_ascii=False),
        json.dumps(r.entities, ensure_ascii=False),
        r.context,
        r.importance,
        r.trust.value,
        r.source,
        r.created_at,
        r.updated_at,
        r.event_time,
        r.valid_from,
        r.valid_to,
        r.last_accessed_at,
        r.access_count,
        r.review_after,
        r.state.value,
        r.supersedes,
        r.version,
        json.dumps(r.metadata, ensure_ascii=False),
        int(r.pinned),
    )


def record_from_row(row: Any) -> MemoryRecord:
    (
        id_,
        namespace,
        agent_id,
        subject,
        session_id,
        type_,
        content,
        content_hash,
        tags,
        entities,
        context,
        importance,
        trust,
        source,
        created_at,
        updated_at,
        event_time,
        valid_from,
        valid_to,
        last_accessed_at,
        access_count,
        review_after,
        state,
        supersedes,
        version,
        metadata,
        pinned,
    ) = row
    return MemoryRecord(
        id=id_,
        namespace=namespace,
        agent_id=agent_id,
        subject=subject,
        session_id=session_id,
        type=type_,
        content=content,
        content_hash=content_hash,
        tags=_list(tags),
        entities=_list(entities),
        context=context,
        importance=float(importance),
        trust=_TRUSTS.get(trust) or Trust(trust),
        source=source,
        created_at=float(created_at),
        updated_at=float(updated_at),
        event_time=float(event_time),
        valid_from=valid_from,
        valid_to=valid_to,
        last_accessed_at=last_accessed_at,
        access_count=int(access_count),
        review_after=review_after,
        state=_STATES.get(state) or MemoryState(state),
        supersedes=supersedes,
        version=int(version),
        metadata=_object(metadata),
        pinned=bool(pinned),
    )


def filter_sql(filters: Filters, mark: str = "?") -> tuple[str, list[Any]]:
    """WHERE clause over alias `m` for the structured filters, with its parameters (`mark` is the
    driver's placeholder). core.query.passes is the same test in Python; tests/contract checks both agree."""
    pools = filters.pools
    clauses = [
        f"m.namespace IN ({', '.join([mark] * len(pools))})",
        f"m.state IN ({', '.join([mark] * len(filters.states))})",
    ]
    params: list[Any] = [*pools, *(s.value for s in filters.states)]
    if filters.types:
        clauses.append(f"m.type IN ({', '.join([mark] * len(filters.types))})")
        params.extend(filters.types)
    for tag in filters.tags:
        clauses.append(f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.seq = m.seq AND t.tag = {mark})")
        params.append(tag)
    for entity in filters.entities:
        clauses.append(f"EXISTS (SELECT 1 FROM memory_entities e WHERE e.seq = m.seq AND e.entity = {mark})")
        params.append(entity.casefold())
    if filters.agent_id:
        clauses.append(f"m.agent_id = {mark}")
        params.append(filters.agent_id)
    if filters.session_id:
        clauses.append(f"m.session_id = {mark}")
        params.append(filters.session_id)
    if filters.since is not None:
        clauses.append(f"m.event_time >= {mark}")
        params.append(filters.since)
    if filters.until is not None:
        clauses.append(f"m.event_time < {mark}")
        params.append(filters.until)
    if filters.trusts:
        clauses.append(f"m.trust IN ({', '.join([mark] * len(filters.trusts))})")
        params.extend(t.value for t in filters.trusts)
    return " AND ".join(clauses), params


def audit_from_row(row: Any) -> AuditEntry:
    """An audit entry from (at, actor, namespace, action, memory_id, detail)."""
    return AuditEntry(
        at=float(row[0]),
        actor=str(row[1]),
        namespace=str(row[2]),
        action=str(row[3]),
        memory_id=row[4],
        detail=_object(row[5]),
    )


def edge_from_row(row: Any) -> Edge:
    """An edge from (src, dst, type, weight, created_at)."""
    return Edge(
        src=str(row[0]),
        dst=str(row[1]),
        type=EdgeType(row[2]),
        weight=float(row[3]),
        created_at=float(row[4]),
    )


RESTATEMENT_COLUMNS = (
    "r.content, r.agent_id, r.at, r.trust, r.similarity, r.times, r.last_at, r.last_agent_id"
)


def restatement_from_row(row: Any) -> Restatement:
    """A restatement from RESTATEMENT_COLUMNS (over the alias `r`)."""
    return Restatement(
        content=str(row[0]),
        agent_id=str(row[1]),
        at=float(row[2]),
        trust=str(row[3]),
        similarity=None if row[4] is None else float(row[4]),
        times=int(row[5]),
        last_at=float(row[6]),
        last_agent_id=str(row[7]),
    )


def restatement_values(item: Restatement) -> tuple[Any, ...]:
    """A restatement's values in RESTATEMENT_COLUMNS order."""
    return (
        item.content,
        item.agent_id,
        item.at,
        item.trust,
        item.similarity,
        item.times,
        item.last_at,
        item.last_agent_id,
    )
