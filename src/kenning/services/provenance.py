"""Provenance that cannot be forged: what a principal may claim, and whose memories it may change.

- A write claims at most the principal's `max_trust`; a higher claim is stored capped, and the
  result says so.
- Only a memory's writer (or an operator) edits it in place, pins it or raises its importance.
- Another writer's memory is replaced (superseded) only if this principal could have written it
  itself: it is not pinned and its trust is no higher than the principal's `max_trust`.
- A quarantined memory is released by someone other than its writer (or by an operator).
"""

from __future__ import annotations

from kenning.core.errors import Forbidden
from kenning.core.records import TRUST_WEIGHT, MemoryRecord, Trust
from kenning.services.deps import Caller


def cap_trust(caller: Caller, claimed: str) -> tuple[str, str | None]:
    """The trust a write of this caller is stored with, and a note when the claim was capped."""
    ceiling = Trust(caller.max_trust)
    if TRUST_WEIGHT[Trust(claimed)] <= TRUST_WEIGHT[ceiling]:
        return claimed, None
    return ceiling.value, (
        f"trust {claimed!r} capped to {ceiling.value!r}: this principal may claim at most {ceiling.value!r} "
        "(the operator sets this with server.max_trust)"
    )


def owns(caller: Caller, record: MemoryRecord) -> bool:
    return caller.operator or record.agent_id == caller.agent_id


def check_may_edit(caller: Caller, record: MemoryRecord) -> None:
    if not owns(caller, record):
        raise Forbidden(
            f"memory {record.id} was written by {record.agent_id!r}; only its writer or an operator may "
            "edit it. Remember what you know instead: a contradiction is flagged for judgment.",
            id=record.id,
            writer=record.agent_id,
        )


def _why_not_replace(caller: Caller, record: MemoryRecord) -> str | None:
    if owns(caller, record):
        return None
    if record.pinned:
        return f"memory {record.id} is pinned by {record.agent_id!r}"
    if TRUST_WEIGHT[record.trust] > TRUST_WEIGHT[Trust(caller.max_trust)]:
        return (
            f"memory {record.id} is {record.trust.value} by {record.agent_id!r}, more than this principal "
            f"may claim ({caller.max_trust})"
        )
    return None


def may_replace(caller: Caller, record: MemoryRecord) -> bool:
    """Whether this caller may replace the record (latest_wins asks before it supersedes alone)."""
    return _why_not_replace(caller, record) is None


def check_may_supersede(caller: Caller, record: MemoryRecord) -> None:
    reason = _why_not_replace(caller, record)
    if reason is not None:
        raise Forbidden(
            f"{reason}; only its writer or an operator may replace it", id=record.id, writer=record.agent_id
        )


def check_may_release(caller: Caller, record: MemoryRecord) -> None:
    if record.agent_id == caller.agent_id and not caller.operator:
        raise Forbidden(
            f"memory {record.id} was quarantined when {record.agent_id!r} wrote it; another principal "
            "or the operator (kenning review) must release it",
            id=record.id,
            writer=record.agent_id,
        )
