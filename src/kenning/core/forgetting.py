"""Which memories to forget, and how: the three tiers of SPEC §7, decided per memory with a reason.

Prior art (mcp-memory-service): a memory is cold when its relevance is below 0.1 and it has not been
used for 90 days. A cold memory is archived if it was ever accessed or its relevance is above 0.05,
compressed into a cluster summary above 0.02, and deleted only below that. Here relevance is the
strength of core/decay.py. Protections come first and always win: pinned memories, important ones,
recently used ones, and a weak memory that bridges strong neighbours (chain protection).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kenning.core.errors import InvalidInput

Action = Literal["keep", "archive", "compress", "delete"]

# What a run may do to cold memories: nothing, archive (and compress), or also delete.
POLICIES: tuple[str, ...] = ("keep", "archive", "delete")


def check_policy(name: str, field: str = "policy") -> str:
    key = name.strip().lower() if isinstance(name, str) else ""
    if key not in POLICIES:
        raise InvalidInput(field, f"unknown policy {name!r}; valid policies: {', '.join(POLICIES)}")
    return key


@dataclass(frozen=True, slots=True)
class ForgettingPolicy:
    policy: str = "archive"
    cold_strength: float = 0.1
    cold_idle_days: float = 90.0
    archive_above: float = 0.05
    compress_above: float = 0.02
    keep_importance: float = 0.8  # at or above: never forgotten
    recent_days: float = 30.0  # recalled or written this recently: never forgotten
    bridge_strength: float = 0.3  # a neighbour this strong counts towards chain protection
    bridge_neighbours: int = 2


@dataclass(frozen=True, slots=True)
class MemoryVitals:
    """What the decision needs to know about one memory."""

    id: str
    strength: float
    idle_days: float
    importance: float
    pinned: bool
    ever_accessed: bool
    neighbour_strengths: Sequence[float] = ()


@dataclass(frozen=True, slots=True)
class Decision:
    id: str
    action: Action
    reason: str
    strength: float


def decide(policy: ForgettingPolicy, memory: MemoryVitals) -> Decision:
    def verdict(action: Action, reason: str) -> Decision:
        return Decision(id=memory.id, action=action, reason=reason, strength=round(memory.strength, 6))

    if memory.pinned:
        return verdict("keep", "pinned")
    if memory.importance >= policy.keep_importance:
        return verdict("keep", f"important (importance {memory.importance:.2f} >= {policy.keep_importance})")
    if memory.idle_days < policy.recent_days:
        return verdict("keep", f"used {memory.idle_days:.0f} days ago (< {policy.recent_days:.0f})")
    if memory.strength >= policy.cold_strength:
        return verdict("keep", f"strength {memory.strength:.3f} >= {policy.cold_strength}")
    if memory.idle_days < policy.cold_idle_days:
        return verdict("keep", f"idle {memory.idle_days:.0f} days (< {policy.cold_idle_days:.0f})")
    strong = sum(1 for s in memory.neighbour_strengths if s >= policy.bridge_strength)
    if strong >= policy.bridge_neighbours:
        return verdict("keep", f"bridges {strong} strong memories (chain protection)")
    if policy.policy == "keep":
        return verdict("keep", "cold, but the policy forgets nothing")
    cold = f"cold: strength {memory.strength:.3f}, idle {memory.idle_days:.0f} days"
    if memory.ever_accessed:
        return verdict("archive", f"{cold}; it was recalled once, so it is archived")
    if memory.strength > policy.archive_above:
        return verdict("archive", f"{cold}; above {policy.archive_above}")
    if memory.strength > policy.compress_above:
        return verdict("compress", f"{cold}; above {policy.compress_above}, compressed into a summary")
    if policy.policy == "delete":
        return verdict("delete", f"{cold}; never recalled and below {policy.compress_above}")
    return verdict("archive", f"{cold}; below {policy.compress_above}, archived because deletion is off")
