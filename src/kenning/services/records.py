"""get, update and forget: operations on one memory by id, always inside the caller's namespace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from kenning.core import limits
from kenning.core.errors import BackendUnavailable, ConflictError, Forbidden, InvalidInput, NotFound
from kenning.core.ids import is_ulid
from kenning.core.records import AuditEntry, MemoryRecord, MemoryState
from kenning.core.screening import WEIGHED, Flag, inspect
from kenning.core.text import content_hash
from kenning.core.validation import (
    check_content,
    check_entities,
    check_metadata,
    check_optional_text,
    check_range,
    check_state,
    check_tags,
    check_timestamp,
    check_trust,
    check_type_name,
    check_unit_interval,
)
from kenning.ports.store import StoredVector
from kenning.services.deps import Caller, Deps
from kenning.services.provenance import cap_trust, check_may_edit, check_may_release, check_may_supersede

# States a caller may set directly. Superseding and quarantine have their own operations.
_SETTABLE_STATES = (MemoryState.ACTIVE, MemoryState.ARCHIVED, MemoryState.DEPRECATED)

# An update is not quarantined (the memory it changes may already be trusted): what screening would
# hold back is refused instead.
_READS_AS_INSTRUCTIONS = (
    "reads like instructions to agents or hides Unicode; store it with remember to have it "
    "quarantined for review, or rephrase it as a plain statement"
)


def check_id(memory_id: str, field: str = "id") -> str:
    if not isinstance(memory_id, str) or not is_ulid(memory_id):
        raise InvalidInput(field, f"{memory_id!r} is not a memory id (26-character ULID)")
    return memory_id.upper()


def get(deps: Deps, caller: Caller, memory_id: str) -> MemoryRecord:
    """A memory in a pool the caller reads."""
    return readable(caller, deps.store.get(check_id(memory_id)), memory_id)


def audit(deps: Deps, caller: Caller, memory_id: str, limit: int = 100) -> list[AuditEntry]:
    """The newest entries of a readable memory's audit log (who did what to it, when and why)."""
    record = get(deps, caller, memory_id)
    return sorted(deps.store.audit_log(record.id), key=lambda entry: entry.at, reverse=True)[:limit]


def readable(caller: Caller, record: MemoryRecord | None, memory_id: str, field: str = "id") -> MemoryRecord:
    """The record, if the caller reads its pool. A pool it cannot read holds nothing as far as it can
    tell: such a memory is reported exactly like a missing one, so existence does not leak."""
    if record is None or record.namespace not in caller.readable:
        prefix = "" if field == "id" else f"{field}: "
        raise NotFound(f"{prefix}no memory with id {memory_id!r}", id=memory_id)
    return record


def changeable(deps: Deps, caller: Caller, memory_id: str, field: str = "id") -> MemoryRecord:
    """A memory the caller may change: one in the pool it writes (another readable pool is read-only)."""
    record = readable(caller, deps.store.get(check_id(memory_id, field)), memory_id, field)
    if record.namespace != caller.namespace:
        raise Forbidden(
            f"{field}: memory {memory_id!r} is in pool {record.namespace!r}, which you read but do not "
            f"write (you write {caller.namespace!r})",
            id=memory_id,
            pool=record.namespace,
        )
    return record


def close_conflicts_of(
    deps: Deps,
    caller: Caller,
    memory_id: str,
    resolution: str,
    *,
    skip: int | None = None,
) -> list[int]:
    """Close the open conflicts of a memory that was superseded: its successor settles them. The
    conflict being judged (`skip`), if any, is closed by its caller with the decision."""
    closed: list[int] = []
    for found in deps.store.conflicts_of([memory_id]):
        if found.status != "open" or found.namespace != caller.namespace:
            continue
        if found.id == skip:
            continue
        detail = {"decision": "closed", "resolution": resolution}
        try:
            close_conflict(deps, caller, found.id, resolution, memory_id=memory_id, detail=detail)
        except ConflictError:
            continue  # closed meanwhile by someone else: nothing left to do
        closed.append(found.id)
    return closed


def close_conflict(
    deps: Deps,
    caller: Caller,
    conflict_id: int,
    resolution: str,
    *,
    memory_id: str,
    detail: dict[str, Any],
    at: float | None = None,
) -> None:
    """Close one open conflict with its resolution, audited as a judgment by the caller."""
    when = deps.clock.now() if at is None else at
    audit = AuditEntry(
        at=when,
        actor=caller.agent_id,
        namespace=caller.namespace,
        action="resolve_conflict",
        memory_id=memory_id,
        detail={"conflict": conflict_id, **detail},
    )
    deps.store.close_conflict(caller.namespace, conflict_id, resolution, when, audit)


@dataclass(slots=True)
class MemoryPatch:
    """Fields to change; None leaves a field as it is."""

    content: str | None = None
    type: str | None = None
    tags: Sequence[str] | None = None
    entities: Sequence[str] | None = None
    context: str | None = None
    importance: float | None = None
    trust: str | None = None
    source: str | None = None
    event_time: float | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    state: str | None = None
    metadata: dict[str, Any] | None = None
    pinned: bool | None = None


@dataclass(slots=True)
class UpdateOutcome:
    record: MemoryRecord
    changed: list[str]
    degraded: list[str]


def update(
    deps: Deps, caller: Caller, memory_id: str, expected_version: int, patch: MemoryPatch
) -> UpdateOutcome:
    check_range(expected_version, "version", 1, 2**62)
    current = changeable(deps, caller, memory_id)
    check_may_edit(caller, current)
    changes: dict[str, Any] = {}
    if current.state is MemoryState.QUARANTINED:
        raise InvalidInput(
            "id", f"memory {current.id} is quarantined; release or delete it with review first"
        )
    from kenning.services.screening import (
        Embedded,
        Screening,
        judge_embedded,
        redact_value,
        screening_layers,
        to_unmask,
    )

    # What an update carries goes through the same redaction as a new memory, before validation.
    secrets = Screening()
    if patch.content is not None:
        changes["content"] = check_content(redact_value(patch.content, secrets))
    if patch.type is not None:
        changes["type"] = check_type_name(patch.type)
    if patch.tags is not None:
        changes["tags"] = check_tags(redact_value(patch.tags, secrets, label=True))
    if patch.entities is not None:
        changes["entities"] = check_entities(redact_value(patch.entities, secrets, label=True))
    if patch.context is not None:
        changes["context"] = check_optional_text(
            redact_value(patch.context, secrets), "context", limits.CONTEXT_MAX_CHARS
        )
    if patch.importance is not None:
        changes["importance"] = check_unit_interval(patch.importance, "importance")
    if patch.trust is not None:
        changes["trust"] = check_trust(patch.trust)
        if cap_trust(caller, changes["trust"].value)[1] is not None:
            raise InvalidInput("trust", f"may be at most {caller.max_trust!r} for this principal")
    if patch.source is not None:
        changes["source"] = check_optional_text(
            redact_value(patch.source, secrets), "source", limits.SOURCE_MAX_CHARS
        )
    for name in ("event_time", "valid_from", "valid_to"):
        value = getattr(patch, name)
        if value is not None:
            changes[name] = check_timestamp(value, name)
    if patch.metadata is not None:
        changes["metadata"] = check_metadata(redact_value(patch.metadata, secrets))
    readable = {name: changes.get(name) for name in ("content", "context", "source")}
    evidence: list[Flag] = []  # an instruction rule's flags, for the learned signal to weigh
    field = next((name for name, text in readable.items() if text), "")
    if field:
        evidence = inspect("\n".join(text for text in readable.values() if text))
        if any(flag.kind not in WEIGHED for flag in evidence):
            raise InvalidInput(field, _READS_AS_INSTRUCTIONS)
    if patch.pinned is not None:
        if not isinstance(patch.pinned, bool):
            raise InvalidInput("pinned", "must be true or false")
        changes["pinned"] = patch.pinned
    if patch.state is not None:
        state = check_state(patch.state)
        if state not in _SETTABLE_STATES:
            allowed = ", ".join(s.value for s in _SETTABLE_STATES)
            raise InvalidInput("state", f"cannot be set to {state.value!r} by update; allowed: {allowed}")
        changes["state"] = state
    if "content" in changes and patch.entities is None and changes["content"] != current.content:
        # Entities read from the old words must not outlive them (a redacted key, a renamed thing):
        # keep those the new words still name, and read the new ones.
        from kenning.core.entities import extract

        words = changes["content"].casefold()
        kept = [e for e in current.entities if e.casefold() in words]
        tags = changes.get("tags", current.tags)
        changes["entities"] = extract(changes["content"], tags, kept, deps.aliases)[: limits.ENTITIES_MAX]
    changed = sorted(name for name, value in changes.items() if getattr(current, name) != value)
    if not changed:
        if current.version != expected_version:
            raise _stale(current, expected_version)
        return UpdateOutcome(record=current, changed=[], degraded=deps.embeddings.degraded())

    now = deps.clock.now()
    updated = replace(current, **changes, updated_at=now, version=current.version + 1)
    if (
        updated.valid_from is not None
        and updated.valid_to is not None
        and updated.valid_to < updated.valid_from
    ):
        raise InvalidInput("valid_to", "must not be earlier than valid_from")
    revector = "content" in changed
    vector: StoredVector | None = None
    degraded = deps.embeddings.degraded()
    if revector:
        updated.content_hash = content_hash(updated.content)
        twin = deps.store.find_by_hash(caller.namespace, updated.content_hash)
        if twin is not None and twin.id != current.id:
            raise ConflictError(
                f"memory {twin.id} already has this content; update that one or forget this one",
                existing_id=twin.id,
            )
    if revector or evidence:
        # New words are judged as a new memory's are; so are old words under instruction-like new
        # context, which the learned signal weighs (from an embedding used only for that).
        learned = Screening(flags=evidence)
        views = to_unmask([updated.content])
        try:
            embedded = deps.embeddings.passages_layers(
                [updated.content, *views.texts], screening_layers(deps.embeddings.model_id())
            )
        except BackendUnavailable as exc:
            embedded = None
            degraded = [*degraded, f"not_embedded: {exc.message}"]
        if embedded is not None:
            model, matrix, states = embedded
            if revector:
                vector = StoredVector(model=model, values=matrix[0])
            written = Embedded.row(matrix, states, 0, updated.content)
            judge_embedded(learned, model, written, views.embedded(matrix, states, 1).get(0))
            if learned.degraded:
                degraded = [*degraded, learned.degraded]
        # An update cannot be stored flagged: a rule's flag that stands is refused whatever the
        # policy, as is what would quarantine.
        if learned.ruled or learned.action(deps.screening) == "quarantined":
            raise InvalidInput(field or "content", _READS_AS_INSTRUCTIONS)
    audit = AuditEntry(
        at=now,
        actor=caller.agent_id,
        namespace=caller.namespace,
        action="update",
        memory_id=current.id,
        detail={"changed": changed, "from_version": current.version},
    )
    try:
        deps.store.replace(
            updated,
            expected_version=expected_version,
            revector=revector,
            vectors=[vector] if vector is not None else [],
            audit=audit,
        )
    except ConflictError as exc:
        if "current_version" in exc.details:
            raise _stale(current, expected_version, int(exc.details["current_version"])) from None
        raise
    return UpdateOutcome(record=updated, changed=changed, degraded=degraded)


def _stale(current: MemoryRecord, expected: int, actual: int | None = None) -> ConflictError:
    version = current.version if actual is None else actual
    return ConflictError(
        f"version: memory {current.id} is at version {version}, not {expected}; nothing was changed. "
        "Get the memory again and retry with its current version.",
        id=current.id,
        current_version=version,
    )


def save_fields(
    deps: Deps, caller: Caller, before: MemoryRecord, action: str, detail: dict[str, Any], **changes: Any
) -> MemoryRecord:
    """Write field changes that leave content and vectors alone, as the next version, with an audit entry."""
    now = deps.clock.now()
    after = replace(before, **changes, updated_at=now, version=before.version + 1)
    audit = AuditEntry(
        at=now,
        actor=caller.agent_id,
        namespace=caller.namespace,
        action=action,
        memory_id=before.id,
        detail=detail,
    )
    deps.store.replace(after, expected_version=before.version, revector=False, vectors=(), audit=audit)
    return after


def review(deps: Deps, caller: Caller, memory_id: str, decision: str) -> MemoryRecord | None:
    """Judge a quarantined memory: release it into recall, or delete it for good. Audited either way."""
    if decision not in ("release", "delete"):
        raise InvalidInput("decision", f"unknown decision {decision!r}; valid: release, delete")
    current = changeable(deps, caller, memory_id)
    if current.state is not MemoryState.QUARANTINED:
        raise InvalidInput("id", f"memory {current.id} is {current.state.value}, not quarantined")
    if decision == "release":
        check_may_release(caller, current)
    if decision == "delete":
        audit = AuditEntry(
            at=deps.clock.now(),
            actor=caller.agent_id,
            namespace=caller.namespace,
            action="review_delete",
            memory_id=current.id,
            detail={"content_hash": current.content_hash},
        )
        deps.store.delete(current.id, audit)
        return None
    released = save_fields(
        deps, caller, current, "review_release", {"from_state": "quarantined"}, state=MemoryState.ACTIVE
    )
    pending = (current.metadata.get("screening") or {}).get("pending_supersedes")
    if pending and deps.store.get(pending) is not None:
        from kenning.services.consistency import supersede

        supersede(deps, caller, pending, released.id, reason="asked for at write time; applied on release")
        return deps.store.get(released.id) or released
    return released


@dataclass(slots=True)
class ForgetOutcome:
    id: str
    action: Literal["archived", "already_archived", "purged"]
    state: str | None


def forget(
    deps: Deps,
    caller: Caller,
    memory_id: str,
    *,
    mode: str = "archive",
    confirm: bool = False,
    reason: str | None = None,
) -> ForgetOutcome:
    if mode not in ("archive", "purge"):
        raise InvalidInput("mode", f"unknown mode {mode!r}; valid: archive, purge")
    from kenning.services.screening import Screening, redact_value

    # The audit log keeps a reason forever: no secret in it, found as written.
    reason = check_optional_text(redact_value(reason, Screening()), "reason", limits.SOURCE_MAX_CHARS)
    current = changeable(deps, caller, memory_id)
    # Archiving another writer's memory is replacing it with nothing; purging it is an edit.
    (check_may_edit if mode == "purge" else check_may_supersede)(caller, current)
    now = deps.clock.now()
    if mode == "purge":
        if confirm is not True:
            raise InvalidInput(
                "confirm",
                "purge deletes the memory permanently and cannot be undone; pass confirm=true to proceed, "
                "or use mode='archive' (recoverable)",
            )
        audit = AuditEntry(
            at=now,
            actor=caller.agent_id,
            namespace=caller.namespace,
            action="purge",
            memory_id=current.id,
            detail={"content_hash": current.content_hash, "type": current.type, "reason": reason},
        )
        deps.store.delete(current.id, audit)
        return ForgetOutcome(id=current.id, action="purged", state=None)
    if current.state is MemoryState.ARCHIVED:
        return ForgetOutcome(id=current.id, action="already_archived", state=current.state.value)
    save_fields(
        deps,
        caller,
        current,
        "archive",
        {"from_state": current.state.value, "reason": reason},
        state=MemoryState.ARCHIVED,
    )
    return ForgetOutcome(id=current.id, action="archived", state=MemoryState.ARCHIVED.value)
