"""The one error tree. Entry points map these once: REST to a status, MCP to a tool error, CLI to exit 1."""

from __future__ import annotations

from typing import Any


class KenningError(Exception):
    """Base of every error Kenning raises on purpose."""

    code = "error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


class InvalidInput(KenningError):
    """The caller sent something we refuse; the message names the field and the limit."""

    code = "invalid_input"

    def __init__(self, field: str, message: str, **details: Any) -> None:
        super().__init__(f"{field}: {message}", field=field, **details)
        self.field = field


class NotFound(KenningError):
    code = "not_found"


class ConflictError(KenningError):
    """The write lost a race (stale version) or collides with an existing memory."""

    code = "conflict"


class BackendUnavailable(KenningError):
    """A transient failure (database busy, embedding endpoint down): retrying may succeed."""

    code = "backend_unavailable"


class QuotaExceeded(KenningError):
    """A writer went over its rate; retrying after `retry_after_s` seconds will succeed."""

    code = "quota_exceeded"


class ContractBroken(KenningError):
    """A permanent failure: a store or index that no longer matches what we wrote."""

    code = "contract_broken"


class Forbidden(KenningError):
    """The principal may not do this to this memory (another writer's, or its own quarantine)."""

    code = "forbidden"


class InsufficientScope(Forbidden):
    """The principal's token lacks the scope this operation needs (read, write or admin)."""

    code = "insufficient_scope"

    def __init__(self, scope: str, operation: str) -> None:
        super().__init__(f"{operation} needs the {scope!r} scope, which this token lacks", scope=scope)
        self.scope = scope


class Unauthorized(KenningError):
    """No principal: a missing, unknown, expired or revoked token."""

    code = "unauthorized"
