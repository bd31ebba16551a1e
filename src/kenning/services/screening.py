"""Applying write screening to a draft: secrets redacted everywhere, instruction-like text caught."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kenning.core.screening import Flag, inspect, redact
from kenning.core.validation import MemoryDraft


@dataclass(slots=True)
class Screening:
    redacted: list[str] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)

    def as_dict(self, action: str | None) -> dict[str, Any]:
        return {
            "redacted": self.redacted,
            "flags": [{"kind": f.kind, "excerpt": f.excerpt} for f in self.flags],
            "action": action,
        }


def screen_text(text: str, screening: Screening) -> str:
    cleaned, kinds = redact(text)
    screening.redacted.extend(kinds)
    return cleaned


def redact_value(value: Any, screening: Screening) -> Any:
    """Secrets out of a string, or out of every string inside lists and dicts."""
    if isinstance(value, str):
        return screen_text(value, screening)
    if isinstance(value, list):
        return [redact_value(v, screening) for v in value]
    if isinstance(value, dict):
        return {k: redact_value(v, screening) for k, v in value.items()}
    return value


def screen_draft(draft: MemoryDraft) -> tuple[MemoryDraft, Screening]:
    """Secrets out of content, context, source, tags, entities and metadata; flags from what a reader sees."""
    screening = Screening()
    cleaned = replace(
        draft,
        content=screen_text(draft.content, screening),
        context=screen_text(draft.context, screening) if draft.context else draft.context,
        source=screen_text(draft.source, screening) if draft.source else draft.source,
        tags=[screen_text(t, screening) for t in draft.tags],
        entities=[screen_text(e, screening) for e in draft.entities],
        metadata=redact_value(dict(draft.metadata), screening),
    )
    readable = "\n".join(part for part in (draft.content, draft.context or "", draft.source or "") if part)
    screening.flags = inspect(readable)
    return cleaned, screening
