"""Insight cards for a namespace: patterns, trends and gaps in how memories are tagged (SPEC §7)."""

from __future__ import annotations

from collections.abc import Sequence

from kenning.core import insights as rules
from kenning.core.errors import InvalidInput
from kenning.core.validation import check_range
from kenning.services.deps import Caller, Deps

KINDS = ("pattern", "trend", "gap")


def insights(
    deps: Deps, caller: Caller, *, kinds: Sequence[str] = KINDS, limit: int = 20
) -> list[rules.Insight]:
    unknown = [k for k in kinds if k not in KINDS]
    if isinstance(kinds, str) or unknown:
        raise InvalidInput(
            "kinds", f"unknown kind {unknown[0] if unknown else kinds!r}; valid: {', '.join(KINDS)}"
        )
    check_range(limit, "limit", 1, 200)
    items = [
        rules.Tagged(id=memory_id, tags=tags, at=at)
        for memory_id, tags, at in deps.store.tagged(caller.namespace)
    ]
    cards = [card for card in rules.insights(items, deps.clock.now()) if card.kind in kinds]
    return cards[:limit]
