"""Records and audit entries for store tests: the fields a test does not care about, filled in."""

from __future__ import annotations

from dataclasses import replace

from kenning.core.records import AuditEntry, MemoryRecord, Trust
from kenning.core.text import content_hash


def record(memory_id: str, content: str, *, namespace: str = "ns", **fields: object) -> MemoryRecord:
    base = MemoryRecord(
        id=memory_id,
        namespace=namespace,
        content=content,
        content_hash=content_hash(content),
        type="fact",
        agent_id="a",
        created_at=100.0,
        updated_at=100.0,
        event_time=100.0,
        trust=Trust.USER_STATED,
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def audit(action: str, memory_id: str) -> AuditEntry:
    return AuditEntry(at=100.0, actor="a", namespace="ns", action=action, memory_id=memory_id, detail={})
