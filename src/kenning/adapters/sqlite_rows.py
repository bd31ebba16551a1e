"""Rows of the SQLite store and the records they hold: column lists, encoding, decoding, filters."""

from __future__ import annotations

import json
from typing import Any

from kenning.core.query import Filters
from kenning.core.records import AuditEntry, Conflict, MemoryRecord, MemoryState, Trust

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


def filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """WHERE clause over alias `m` for the structured filters, with its parameters."""
    pools = filters.pools
    clauses = [
        f"m.namespace IN ({', '.join('?' * len(pools))})",
        f"m.state IN ({', '.join('?' * len(filters.states))})",
    ]
    params: list[Any] = [*pools, *(s.value for s in filters.states)]
    if filters.types:
        clauses.append(f"m.type IN ({', '.join('?' * len(filters.types))})")
        params.extend(filters.types)
    for tag in filters.tags:
        clauses.append("EXISTS (SELECT 1 FROM memory_tags t WHERE t.seq = m.seq AND t.tag = ?)")
        params.append(tag)
    for entity in filters.entities:
        clauses.append("EXISTS (SELECT 1 FROM memory_entities e WHERE e.seq = m.seq AND e.entity = ?)")
        params.append(entity.casefold())
    if filters.agent_id:
        clauses.append("m.agent_id = ?")
        params.append(filters.agent_id)
    if filters.session_id:
        clauses.append("m.session_id = ?")
        params.append(filters.session_id)
    if filters.since is not None:
        clauses.append("m.event_time >= ?")
        params.append(filters.since)
    if filters.until is not None:
        clauses.append("m.event_time < ?")
        params.append(filters.until)
    if filters.trusts:
        clauses.append(f"m.trust IN ({', '.join('?' * len(filters.trusts))})")
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
