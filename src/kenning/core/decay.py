"""Memory strength: how alive a memory is, from its importance, type, idle time and recall history.

Formula (SPEC §7, prior art Engram after Ebbinghaus's forgetting curve):
    effective_λ = base_λ[type] × (1 − damping · importance)
    strength    = importance × e^(−effective_λ · idle_days) × (1 + bonus · recall_count)
`idle_days` counts from the last time the memory was learned, repeated or recalled, so every use
both adds to the count and restarts the curve: spaced repetition.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from kenning.core.ontology import base_type
from kenning.core.records import MemoryRecord

DAY = 86_400.0

# Base forgetting rates per day, by base type. Engram gives strategy 0.10, fact 0.16, assumption 0.20
# and failure 0.35; the others sit between them by how long such knowledge stays useful.
DEFAULT_RATES: dict[str, float] = {
    "fact": 0.16,
    "preference": 0.10,
    "decision": 0.10,
    "strategy": 0.10,
    "learning": 0.12,
    "error": 0.35,
    "observation": 0.25,
    "episode": 0.30,
    "summary": 0.08,
    "topic": 0.05,
    "reference": 0.12,
}


@dataclass(frozen=True, slots=True)
class DecayPolicy:
    rates: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_RATES))
    importance_damping: float = 0.8
    recall_bonus: float = 0.2
    fallback_rate: float = 0.16  # a base type without a configured rate decays like a fact

    def rate(self, base_type: str) -> float:
        return self.rates.get(base_type, self.fallback_rate)


def strength(
    policy: DecayPolicy, *, base_type: str, importance: float, idle_days: float, recall_count: int
) -> float:
    """Non-negative; never rises with idle time alone, rises with every recall."""
    rate = policy.rate(base_type) * (1.0 - policy.importance_damping * importance)
    days = max(0.0, idle_days)
    return importance * math.exp(-rate * days) * (1.0 + policy.recall_bonus * max(0, recall_count))


def idle_days(now: float, created_at: float, last_accessed_at: float | None) -> float:
    """Days since the memory was last learned, repeated or recalled."""
    last = max(created_at, last_accessed_at or created_at)
    return max(0.0, (now - last) / DAY)


def record_idle_days(record: MemoryRecord, now: float) -> float:
    return idle_days(now, record.created_at, record.last_accessed_at)


def record_strength(policy: DecayPolicy, record: MemoryRecord, now: float) -> float:
    """The strength of a stored memory now, from its own importance, type, idle time and use."""
    return strength(
        policy,
        base_type=base_type(record.type),
        importance=record.importance,
        idle_days=record_idle_days(record, now),
        recall_count=record.access_count,
    )


def ranking_factor(value: float) -> float:
    """Strength folded into [0, 1] for ranking: recalls beyond full strength add nothing more."""
    return min(1.0, max(0.0, value))
