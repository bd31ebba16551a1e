"""remember: validate, hash, reinforce an identical memory or embed and store a new one (SPEC §5)."""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from kenning.core import limits
from kenning.core.entities import extract
from kenning.core.errors import BackendUnavailable, ConflictError, InvalidInput, NotFound, QuotaExceeded
from kenning.core.ids import new_ulid
from kenning.core.ontology import base_type
from kenning.core.records import AuditEntry, Conflict, MemoryRecord, MemoryState, Restatement
from kenning.core.text import content_hash
from kenning.core.validation import (
    MemoryDraft,
    check_content,
    check_entities,
    check_metadata,
    check_name,
    check_optional_text,
    check_tags,
    check_timestamp,
    check_trust,
    check_type_name,
    check_unit_interval,
    merge_labels,
)
from kenning.ports.embedder import Vector
from kenning.ports.store import StoredVector
from kenning.services.consistency import Assessment, assess, conflict_evidence, edges_for_new, supersede
from kenning.services.deps import Caller, Deps
from kenning.services.provenance import cap_trust, check_may_supersede, may_replace, owns
from kenning.services.records import changeable, check_id, close_conflict
from kenning.services.screening import (
    Embedded,
    Screening,
    flag_draft,
    judge_embedded,
    redact_draft,
    screening_layers,
    to_unmask,
)
from kenning.services.stages import stage

logger = logging.getLogger(__name__)

# States in which an identical write brings the memory back: forgetting is undone by re-stating it.
_REVIVABLE = (MemoryState.ARCHIVED,)
# Writers that reinforce one memory at once take turns: each retry reads the memory again.
_REINFORCE_ATTEMPTS = 20


@dataclass(slots=True)
class RememberOutcome:
    status: Literal["stored", "reinforced"]
    record: MemoryRecord
    degraded: list[str] = field(default_factory=list)
    note: str | None = None
    similarity: float | None = None  # set when a near-duplicate absorbed the write
    screening: dict[str, Any] | None = None  # secrets redacted, instruction-like content found
    conflicts: list[Conflict] = field(default_factory=list)  # newly flagged pairs, with evidence
    superseded: list[str] = field(default_factory=list)


def validate_draft(draft: MemoryDraft) -> MemoryDraft:
    """A normalised copy of the draft, or InvalidInput naming the first bad field and its limit."""
    valid_from = check_timestamp(draft.valid_from, "valid_from")
    valid_to = check_timestamp(draft.valid_to, "valid_to")
    if valid_from is not None and valid_to is not None and valid_to < valid_from:
        raise InvalidInput("valid_to", "must not be earlier than valid_from")
    return MemoryDraft(
        content=check_content(draft.content),
        type=check_type_name(draft.type),
        tags=check_tags(draft.tags),
        entities=check_entities(draft.entities),
        context=check_optional_text(draft.context, "context", limits.CONTEXT_MAX_CHARS),
        importance=check_unit_interval(draft.importance, "importance"),
        trust=check_trust(draft.trust).value,
        source=check_optional_text(draft.source, "source", limits.SOURCE_MAX_CHARS),
        subject=check_name(draft.subject, "subject"),
        session_id=check_name(draft.session_id, "session_id"),
        event_time=check_timestamp(draft.event_time, "event_time"),
        valid_from=valid_from,
        valid_to=valid_to,
        metadata=check_metadata(draft.metadata),
        supersedes=check_id(draft.supersedes, "supersedes") if draft.supersedes else None,
        pinned=_check_flag(draft.pinned, "pinned"),
    )


def _check_flag(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(field, "must be true or false")
    return value


def remember(
    deps: Deps, caller: Caller, draft: MemoryDraft, *, assess_neighbours: bool = True
) -> RememberOutcome:
    return remember_many(deps, caller, [draft], assess_neighbours=assess_neighbours)[0]


def remember_many(
    deps: Deps, caller: Caller, drafts: Sequence[MemoryDraft], *, assess_neighbours: bool = True
) -> list[RememberOutcome]:
    """Remember several memories, embedding the new ones in one batch. Each write is its own transaction."""
    if len(drafts) > limits.BATCH_MAX:
        raise InvalidInput("memories", f"has {len(drafts)} items; the limit is {limits.BATCH_MAX}")
    _check_quota(
        deps, caller, ("remember", "reinforce"), deps.quotas.writes_per_minute, len(drafts), "writes"
    )
    clean = []
    screens: list[Screening] = []
    trust_notes: list[str | None] = []
    with stage("screen"):
        for index, draft in enumerate(drafts):
            # Before validation normalises anything, and before hashing, embedding or indexing: a
            # secret must be found as written and must never reach disk in any form.
            redacted, screening = redact_draft(draft)
            try:
                clean.append(validate_draft(redacted))
            except InvalidInput as exc:
                if len(drafts) == 1:
                    raise
                raise InvalidInput(f"memories[{index}].{exc.field}", exc.message.split(": ", 1)[-1]) from None
            clean[index].trust, capped = cap_trust(caller, clean[index].trust)
            trust_notes.append(capped)
            flag_draft(clean[index], screening)
            screens.append(screening)
    for index, draft in enumerate(clean):
        with stage("entities"):
            draft.entities = extract(draft.content, draft.tags, draft.entities, deps.aliases)[
                : limits.ENTITIES_MAX
            ]
        if draft.supersedes:
            # Refuse before anything is written: the replacement must not land without its target.
            where = "supersedes" if len(clean) == 1 else f"memories[{index}].supersedes"
            check_may_supersede(caller, changeable(deps, caller, draft.supersedes, where))
    outcomes: list[RememberOutcome | None] = [None] * len(clean)
    fresh: list[int] = []
    for index, draft in enumerate(clean):
        existing = deps.store.find_by_hash(caller.namespace, content_hash(draft.content))
        if existing is not None:
            reinforced = _reinforce(deps, caller, existing, draft)
            reinforced.screening = _screening_report(screens[index], None)
            if existing.state is not MemoryState.QUARANTINED:
                _settle(deps, caller, reinforced, draft, Assessment())
            outcomes[index] = reinforced
        else:
            fresh.append(index)

    threads = _conversation_threads(deps, caller, [clean[i] for i in fresh])
    extra = threads.contexts + threads.windows
    embedded: tuple[str, Vector, Vector | None] | None = None
    embed_failure: list[str] = []
    # What a write hides (an encoded or spaced-out text) is embedded too, for the learned signal.
    views = to_unmask([clean[i].content for i in fresh], [screens[i] for i in fresh])
    if fresh:
        try:
            with stage("embed"):
                embedded = deps.embeddings.passages_layers(
                    [clean[i].content for i in fresh]
                    + [text for _, text in extra]
                    + [text for _, text in threads.stored_windows]
                    + views.texts,
                    screening_layers(deps.embeddings.model_id()),
                )
        except BackendUnavailable as exc:
            # The write must not fail because the embedder did: store it keyword-searchable, say so.
            logger.warning("embedding failed, storing without vectors: %s", exc)
            embed_failure = [f"not_embedded: {exc.message}"]
    degraded = deps.embeddings.degraded() + embed_failure

    vectors: list[list[StoredVector]] = [[] for _ in fresh]
    if embedded is not None:
        model, matrix, states = embedded
        unmasked = views.embedded(matrix, states, len(fresh) + len(extra) + len(threads.stored_windows))
        for position, index in enumerate(fresh):
            vectors[position].append(StoredVector(model=model, values=matrix[position]))
            # The learned screening signal reads the embedding every write computes anyway.
            written = Embedded.row(matrix, states, position, clean[index].content)
            judge_embedded(screens[index], model, written, unmasked.get(position))
        degraded += sorted({s.degraded for s in screens if s.degraded})
        for offset, (position, _) in enumerate(extra):
            kind = context_model(model) if offset < len(threads.contexts) else window_model(model)
            vectors[position].append(StoredVector(model=kind, values=matrix[len(fresh) + offset]))
        for offset, (memory_id, _) in enumerate(threads.stored_windows):
            row = matrix[len(fresh) + len(extra) + offset]
            # NotFound: the earlier turn was deleted meanwhile and needs no window any more.
            with contextlib.suppress(NotFound):
                deps.store.put_vectors(memory_id, [StoredVector(model=window_model(model), values=row)])
    for position, index in enumerate(fresh):
        draft = clean[index]
        screening = screens[index]
        action = screening.action(deps.screening)
        if action is not None:
            report = screening.as_dict(action)
            if action == "quarantined" and draft.supersedes:
                report["pending_supersedes"] = draft.supersedes
            draft.metadata = {**draft.metadata, "screening": report}
        assessment = Assessment()
        # An episode records what happened or was said at a time: it neither contradicts nor repeats
        # another one, so only knowledge (facts, preferences, decisions, ...) is judged.
        episodic = base_type(draft.type) == "episode"
        # A suspicious write may not reinforce, supersede or contradict anything.
        if assess_neighbours and vectors[position] and not draft.supersedes and not episodic and not action:
            plain = vectors[position][0]
            with stage("conflict_gate"):
                assessment = assess(deps, caller, draft.content, plain.model, plain.values)
        if assessment.duplicate_of is not None:
            outcome = _reinforce(
                deps, caller, assessment.duplicate_of, draft, similarity=assessment.duplicate_similarity
            )
            outcome.similarity = round(assessment.duplicate_similarity, 4)
            outcome.note = (
                f"near-duplicate (similarity {outcome.similarity}) of memory {outcome.record.id}, which was "
                "reinforced instead of storing a second copy"
            )
            _settle(deps, caller, outcome, draft, Assessment())
            outcomes[index] = outcome
            continue
        state = MemoryState.QUARANTINED if action == "quarantined" else MemoryState.ACTIVE
        with stage("store"):
            outcome = _store_new(deps, caller, draft, vectors[position], degraded, assessment, state)
        outcome.screening = _screening_report(screening, action)
        if action != "quarantined":
            with stage("settle"):
                _settle(deps, caller, outcome, draft, assessment)
        elif draft.supersedes:
            outcome.note = "quarantined: the supersede it asked for waits until a review releases it"
        outcomes[index] = outcome
    for result, capped in zip(outcomes, trust_notes, strict=True):
        if result is not None and capped is not None:
            result.note = f"{capped}; {result.note}" if result.note else capped
    return [outcome for outcome in outcomes if outcome is not None]


def _screening_report(screening: Screening, action: str | None) -> dict[str, Any] | None:
    return screening.as_dict(action) if screening.redacted or screening.flags else None


def _settle(
    deps: Deps, caller: Caller, outcome: RememberOutcome, draft: MemoryDraft, assessment: Assessment
) -> None:
    """After the insert: honour an explicit supersede, then apply the namespace's conflict policy."""
    record = outcome.record
    if draft.supersedes and draft.supersedes != record.id:
        # Also when the content already existed: the caller still asked for the replacement.
        supersede(deps, caller, draft.supersedes, record.id, reason="caller named it in supersedes")
        outcome.superseded.append(draft.supersedes)
        outcome.record = deps.store.get(record.id) or record
        return
    if outcome.status != "stored":
        return
    policy = deps.conflicts.for_namespace(caller.namespace)
    if policy == "keep_both":
        return
    for old, evidence in assessment.conflicts:
        details = conflict_evidence(old, record, evidence)
        conflict_id = deps.store.record_conflict(
            caller.namespace, old.id, record.id, details, record.created_at
        )
        if conflict_id is None:
            continue  # this pair was shown before: never ask twice
        # latest_wins decides alone only on decisive evidence from a writer no less trusted; anything
        # weaker is shown to the caller as under `ask`.
        if policy == "latest_wins" and details["latest_wins_eligible"] and may_replace(caller, old):
            supersede(deps, caller, old.id, record.id, reason="latest_wins policy", judging=conflict_id)
            close_conflict(
                deps,
                caller,
                conflict_id,
                f"latest_wins:{record.id}",
                memory_id=old.id,
                detail={"decision": "latest_wins"},
                at=record.created_at,
            )
            outcome.superseded.append(old.id)
            outcome.record = deps.store.get(record.id) or record
        else:
            first, second = sorted((old.id, record.id))
            outcome.conflicts.append(
                Conflict(
                    id=conflict_id,
                    namespace=caller.namespace,
                    first_id=first,
                    second_id=second,
                    evidence=details,
                    status="open",
                    resolution=None,
                    created_at=record.created_at,
                    resolved_at=None,
                )
            )


def context_model(model: str) -> str:
    """Vectors of a turn read together with the turn before it are kept apart from plain ones."""
    return f"{model}#context"


def window_model(model: str) -> str:
    """Vectors of a turn read between its neighbours (the turn before and the turn after)."""
    return f"{model}#window"


@dataclass(slots=True)
class _Threads:
    """The extra texts a batch of session turns is embedded as, besides each turn on its own.

    contexts: (position in the batch, previous turn + this turn) for each turn that continues a session;
    windows: (position, turn before + turn + turn after) for each turn whose successor is in the batch;
    stored_windows: (memory id, the same) for the stored turn a turn of the batch continues.
    """

    contexts: list[tuple[int, str]] = field(default_factory=list)
    windows: list[tuple[int, str]] = field(default_factory=list)
    stored_windows: list[tuple[str, str]] = field(default_factory=list)


def _conversation_threads(deps: Deps, caller: Caller, drafts: Sequence[MemoryDraft]) -> _Threads:
    """Context and window texts for the drafts that belong to a session.

    A reply such as "Edinburgh would be great!" only makes sense after "where should the team trip
    go?"; embedding the pair lets a question about the trip find the reply that answers it. The
    window does the same for a turn whose meaning comes with the reply it gets ("Guess what I
    adopted?" - "A puppy?!"): a turn's window is only complete when its successor arrives, so the
    arriving turn writes its predecessor's window, also when that predecessor was stored earlier.
    """
    out = _Threads()
    # Per session, the last two turns seen: (stored memory id or batch position, content).
    tails: dict[str, list[tuple[str | int, str]]] = {}
    for position, draft in enumerate(drafts):
        session = draft.session_id
        if not session:
            continue
        if session not in tails:
            stored = deps.store.session_tail(caller.namespace, session, 2)
            tails[session] = [(record.id, record.content) for record in stored]
        tail = tails[session]
        if tail:
            before, before_text = tail[-1]
            out.contexts.append((position, f"{before_text}\n{draft.content}"))
            window = "\n".join([text for _, text in tail[-2:]] + [draft.content])
            if isinstance(before, int):
                out.windows.append((before, window))
            else:
                out.stored_windows.append((before, window))
        tails[session] = [*tail[-1:], (position, draft.content)]
    return out


def _store_new(
    deps: Deps,
    caller: Caller,
    draft: MemoryDraft,
    vectors: list[StoredVector],
    degraded: list[str],
    assessment: Assessment,
    state: MemoryState = MemoryState.ACTIVE,
) -> RememberOutcome:
    now = deps.clock.now()
    record = MemoryRecord(
        id=new_ulid(int(now * 1000)),
        namespace=caller.namespace,
        content=draft.content,
        content_hash=content_hash(draft.content),
        type=draft.type,
        agent_id=caller.agent_id,
        created_at=now,
        updated_at=now,
        event_time=draft.event_time if draft.event_time is not None else now,
        subject=draft.subject,
        session_id=draft.session_id,
        tags=list(draft.tags),
        entities=list(draft.entities),
        context=draft.context,
        importance=draft.importance,
        trust=check_trust(draft.trust),
        source=draft.source,
        valid_from=draft.valid_from,
        valid_to=draft.valid_to,
        metadata=dict(draft.metadata),
        state=state,
        pinned=draft.pinned,
    )
    audit = AuditEntry(
        at=now,
        actor=caller.agent_id,
        namespace=caller.namespace,
        action="remember",
        memory_id=record.id,
        detail={"type": record.type, "content_hash": record.content_hash, "embedded": bool(vectors)},
    )
    try:
        # A quarantined memory gets no edges: the graph must not lead to it.
        edges = (
            []
            if state is MemoryState.QUARANTINED
            else edges_for_new(deps, caller, record, assessment.related)
        )
        deps.store.insert(record, vectors, audit, edges)
    except ConflictError:
        # Another writer stored the same content between our lookup and our insert: reinforce theirs.
        existing = deps.store.find_by_hash(caller.namespace, record.content_hash)
        if existing is None:
            raise
        return _reinforce(deps, caller, existing, draft)
    return RememberOutcome(status="stored", record=record, degraded=list(degraded))


def _check_quota(
    deps: Deps, caller: Caller, actions: tuple[str, ...], limit: int, adding: int, what: str
) -> None:
    if limit <= 0:
        return
    since = deps.clock.now() - 60
    done = deps.store.count_actions(caller.namespace, caller.agent_id, actions, since)
    if done + adding > limit:
        raise QuotaExceeded(
            f"writer {caller.agent_id!r} made {done} {what} in the last minute; "
            f"the limit is {limit} per minute. "
            "Retry in a minute.",
            retry_after_s=60,
            limit=limit,
        )


def _reinforce(
    deps: Deps, caller: Caller, existing: MemoryRecord, draft: MemoryDraft, *, similarity: float | None = None
) -> RememberOutcome:
    """Same content again: no duplicate. Count the repetition, merge labels, undo an archive, and keep
    the words of the write if they differ from the memory's (nothing said is dropped)."""
    _check_quota(deps, caller, ("reinforce",), deps.quotas.repeats_per_minute, 1, "repeated writes")
    mine = owns(caller, existing)
    for attempt in range(_REINFORCE_ATTEMPTS):
        if attempt:
            # Another writer reinforced the same memory meanwhile: back off a little, then read again.
            time.sleep(random.uniform(0.001, 0.01) * min(attempt, 5))  # noqa: S311 - jitter, not security
        now = deps.clock.now()
        revived = existing.state in _REVIVABLE or _consolidated_away(deps, existing)
        updated = replace(
            existing,
            tags=merge_labels((existing.tags, draft.tags), limits.TAGS_MAX),
            entities=merge_labels((existing.entities, draft.entities), limits.ENTITIES_MAX),
            # Only the writer (or an operator) pins a memory or raises its importance; another
            # writer's repetition counts as use, and its words are kept as a restatement.
            importance=max(existing.importance, draft.importance) if mine else existing.importance,
            access_count=existing.access_count + 1,
            pinned=existing.pinned or (draft.pinned and mine),
            last_accessed_at=now,
            updated_at=now,
            state=MemoryState.ACTIVE if revived else existing.state,
            version=existing.version + 1,
        )
        audit = AuditEntry(
            at=now,
            actor=caller.agent_id,
            namespace=caller.namespace,
            action="reinforce",
            memory_id=existing.id,
            detail={"revived": revived, "access_count": updated.access_count, "trust": draft.trust},
        )
        restatement = (
            None
            if draft.content == existing.content
            else Restatement(
                content=draft.content,
                agent_id=caller.agent_id,
                at=now,
                trust=draft.trust,
                similarity=None if similarity is None else round(similarity, 4),
            )
        )
        try:
            deps.store.replace(
                updated,
                expected_version=existing.version,
                revector=False,
                vectors=(),
                audit=audit,
                restatement=restatement,
            )
        except ConflictError:
            fresh = deps.store.get(existing.id)
            if fresh is None:
                raise
            existing = fresh
            continue
        note = None
        if revived:
            note = f"this memory had been {existing.state.value}; remembering it again made it active"
        elif updated.state is not MemoryState.ACTIVE:
            note = f"an identical memory exists in state {updated.state.value}; it was not reactivated"
        return RememberOutcome(
            status="reinforced", record=updated, degraded=deps.embeddings.degraded(), note=note
        )
    raise BackendUnavailable(f"memory {existing.id} kept changing while being reinforced; retry")


def _consolidated_away(deps: Deps, record: MemoryRecord) -> bool:
    """Superseded by maintenance folding it into a summary, not by a newer truth: stating it again
    brings it back (the summary stays), as it would an archived memory."""
    if record.state is not MemoryState.SUPERSEDED:
        return False
    changes = [
        e for e in deps.store.audit_log(record.id) if e.detail.get("to_state") or e.action == "superseded"
    ]
    return bool(changes) and changes[-1].action == "maintenance_consolidate"
