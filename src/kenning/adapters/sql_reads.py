"""The reads both SQL stores answer with the same statement: written once here, with `?` for each
parameter (a store whose driver wants another placeholder rewrites it in its `_read`). Each store
inherits them; what a backend does its own way (searches, writes, its vectors) stays in its module."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kenning.adapters.sql_rows import (
    COLUMNS,
    CONFLICT_COLUMNS,
    audit_from_row,
    conflict_from_row,
    filter_sql,
    record_from_row,
)
from kenning.core.query import Filters
from kenning.core.records import AuditEntry, Conflict, MemoryRecord, MemoryState


class SqlReads:
    """Reads over the shared logical schema (memories, conflicts, edges, audit, maintenance runs)."""

    def _read(self, query: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    def get(self, memory_id: str) -> MemoryRecord | None:
        rows = self._read(f"SELECT {COLUMNS} FROM memories WHERE id = ?", (memory_id,))
        return record_from_row(rows[0]) if rows else None

    def find_by_hash(self, namespace: str, content_hash: str) -> MemoryRecord | None:
        rows = self._read(
            f"SELECT {COLUMNS} FROM memories WHERE namespace = ? AND content_hash = ?",
            (namespace, content_hash),
        )
        return record_from_row(rows[0]) if rows else None

    def count_actions(self, namespace: str, actor: str, actions: Sequence[str], since: float) -> int:
        marks = ", ".join("?" * len(actions))
        rows = self._read(
            "SELECT count(*) FROM audit WHERE namespace = ? AND actor = ? AND at >= ? "
            f"AND action IN ({marks})",
            (namespace, actor, since, *actions),
        )
        return int(rows[0][0])

    def session_tail(self, namespace: str, session_id: str, count: int) -> list[MemoryRecord]:
        rows = self._read(
            f"SELECT {COLUMNS} FROM memories WHERE namespace = ? AND session_id = ? "
            "ORDER BY event_time DESC, seq DESC LIMIT ?",
            (namespace, session_id, count),
        )
        return [record_from_row(row) for row in reversed(rows)]

    def conflicts(self, namespace: str, *, status: str | None, limit: int, offset: int) -> list[Conflict]:
        clause = "" if status is None else " AND status = ?"
        params: tuple[Any, ...] = (namespace,) if status is None else (namespace, status)
        rows = self._read(
            f"SELECT {CONFLICT_COLUMNS} FROM conflicts WHERE namespace = ?{clause} "
            "ORDER BY number LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [conflict_from_row(r) for r in rows]

    def count_conflicts(self, namespace: str, status: str) -> int:
        rows = self._read(
            "SELECT count(*) FROM conflicts WHERE namespace = ? AND status = ?", (namespace, status)
        )
        return int(rows[0][0])

    def get_conflict(self, namespace: str, conflict_id: int) -> Conflict | None:
        rows = self._read(
            f"SELECT {CONFLICT_COLUMNS} FROM conflicts WHERE namespace = ? AND number = ?",
            (namespace, conflict_id),
        )
        return conflict_from_row(rows[0]) if rows else None

    def superseded_by(self, memory_id: str) -> list[str]:
        # A summary that consolidated several memories supersedes each of them through an edge.
        rows = self._read(
            "SELECT id FROM memories WHERE supersedes = ? UNION "
            "SELECT src FROM edges WHERE dst = ? AND type = 'supersedes'",
            (memory_id, memory_id),
        )
        return sorted(str(r[0]) for r in rows)

    def written_by(self, namespace: str, agent_id: str, since: float, until: float) -> list[MemoryRecord]:
        rows = self._read(
            f"SELECT {COLUMNS} FROM memories WHERE namespace = ? AND agent_id = ? AND created_at >= ? "
            "AND created_at < ? ORDER BY seq",
            (namespace, agent_id, since, until),
        )
        return [record_from_row(r) for r in rows]

    def memories_with_entity(self, namespace: str, entity: str, limit: int) -> list[str]:
        rows = self._read(
            "SELECT m.id FROM memory_entities e JOIN memories m ON m.seq = e.seq "
            "WHERE e.entity = ? AND m.namespace = ? AND m.state = 'active' ORDER BY m.seq DESC LIMIT ?",
            (entity.casefold(), namespace, limit),
        )
        return [str(r[0]) for r in rows]

    def audit_log(self, memory_id: str) -> list[AuditEntry]:
        rows = self._read(
            "SELECT at, actor, namespace, action, memory_id, detail FROM audit "
            "WHERE memory_id = ? ORDER BY seq",
            (memory_id,),
        )
        return [audit_from_row(r) for r in rows]

    def tagged(self, namespace: str) -> list[tuple[str, list[str], float]]:
        rows = self._read(
            "SELECT id, tags, created_at FROM memories WHERE namespace = ? AND state = 'active' "
            "AND tags <> '[]' ORDER BY seq",
            (namespace,),
        )
        return [(str(r[0]), list(json.loads(r[1])), float(r[2])) for r in rows]

    def belief_candidates(self, namespace: str, types: Sequence[str]) -> list[MemoryRecord]:
        if not types:
            return []
        rows = self._read(
            f"SELECT {COLUMNS} FROM memories m WHERE m.namespace = ? AND m.state = 'active' "
            f"AND m.type IN ({', '.join('?' * len(types))}) AND (m.access_count > 0 "
            "OR EXISTS (SELECT 1 FROM edges e WHERE e.src = m.id AND e.type = 'supports') "
            "OR EXISTS (SELECT 1 FROM edges e WHERE e.dst = m.id AND e.type = 'supports')) ORDER BY m.seq",
            (namespace, *types),
        )
        return [record_from_row(r) for r in rows]

    def scan(self, namespace: str, states: Sequence[MemoryState]) -> list[MemoryRecord]:
        rows = self._read(
            f"SELECT {COLUMNS} FROM memories WHERE namespace = ? "
            f"AND state IN ({', '.join('?' * len(states))}) ORDER BY seq",
            (namespace, *(s.value for s in states)),
        )
        return [record_from_row(r) for r in rows]

    def namespaces(self) -> list[str]:
        return [str(r[0]) for r in self._read("SELECT DISTINCT namespace FROM memories ORDER BY namespace")]

    def runs(self, namespace: str, limit: int) -> list[dict[str, Any]]:
        rows = self._read(
            "SELECT id, started_at, finished_at, report FROM maintenance_runs WHERE namespace = ? "
            "ORDER BY id DESC LIMIT ?",
            (namespace, limit),
        )
        return [
            {"id": int(r[0]), "started_at": float(r[1]), "finished_at": float(r[2]), **json.loads(r[3])}
            for r in rows
        ]

    def search_recent(self, filters: Filters, limit: int) -> list[tuple[str, float]]:
        where, params = filter_sql(filters)
        rows = self._read(
            f"SELECT m.id, m.event_time FROM memories m WHERE {where} "
            "ORDER BY m.event_time DESC, m.id DESC LIMIT ?",
            (*params, limit),
        )
        return [(str(r[0]), float(r[1])) for r in rows]

    def records_for_vectors(self, model: str, *, all_records: bool) -> list[tuple[str, str]]:
        """(id, content) of records lacking a vector from `model`, or of every record."""
        clause = (
            ""
            if all_records
            else "WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.seq = m.seq AND v.model = ?)"
        )
        params: tuple[Any, ...] = () if all_records else (model,)
        return [
            (str(r[0]), str(r[1]))
            for r in self._read(f"SELECT m.id, m.content FROM memories m {clause} ORDER BY m.seq", params)
        ]
