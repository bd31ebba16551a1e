"""How much to believe a memory, from the observations for and against it (SPEC §7).

Prior art (mcp-memory-service):
    confidence = sigmoid(Σ w·decay(supporting) − λ · Σ w·decay(contradicting)),  λ = 3,
    decay = e^(−age / 30 days),
    w: user_correction 1.0, preference_signal 0.8, tool_outcome 0.6, automated 0.4.
A belief is surfaced at confidence >= 0.35 with at least two independent supporting observations.
Provenance floor (ours): decay never takes an observation below a tenth of its weight, so what a
user once stated still counts a little after months, while a fresh contradiction still wins.
Independent means another writer, or the same writer at least a day later.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from kenning.core.decay import DAY
from kenning.core.records import Trust

OBSERVATION_WEIGHTS: dict[str, float] = {
    "user_correction": 1.0,
    "preference_signal": 0.8,
    "tool_outcome": 0.6,
    "automated": 0.4,
}
CONTRADICTION_WEIGHT = 3.0  # λ
DECAY_DAYS = 30.0
PROVENANCE_FLOOR = 0.1
SURFACE_CONFIDENCE = 0.35
SURFACE_SUPPORT = 2
BELIEF_TYPES = (
    "fact",
    "preference",
    "decision",
    "strategy",
    "learning",
    "observation",
    "summary",
    "reference",
)


def observation_kind(trust: Trust, base_type: str) -> str:
    """What kind of observation a write is, from who vouched for it and what it states."""
    if trust is Trust.USER_STATED:
        return "user_correction"
    if base_type == "preference":
        return "preference_signal"
    if trust is Trust.TOOL_OBSERVED:
        return "tool_outcome"
    return "automated"


@dataclass(frozen=True, slots=True)
class Observation:
    kind: str
    at: float
    actor: str
    supports: bool


@dataclass(frozen=True, slots=True)
class Belief:
    confidence: float
    supporting: int
    contradicting: int
    independent: int  # independent supporting observations
    surfaced: bool


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _independent(supporting: Sequence[Observation]) -> int:
    """Another writer, or the same writer at least a day after its last counted observation."""
    last: dict[str, float] = {}
    count = 0
    for item in sorted(supporting, key=lambda o: o.at):
        if item.actor not in last or item.at - last[item.actor] >= DAY:
            last[item.actor] = item.at
            count += 1
    return count


def weight(observation: Observation, now: float) -> float:
    age_days = max(0.0, (now - observation.at) / DAY)
    decay = max(PROVENANCE_FLOOR, math.exp(-age_days / DECAY_DAYS))
    return OBSERVATION_WEIGHTS.get(observation.kind, OBSERVATION_WEIGHTS["automated"]) * decay


def assess(observations: Sequence[Observation], now: float) -> Belief:
    support = sum(weight(o, now) for o in observations if o.supports)
    against = sum(weight(o, now) for o in observations if not o.supports)
    confidence = _sigmoid(support - CONTRADICTION_WEIGHT * against)
    independent = _independent([o for o in observations if o.supports])
    return Belief(
        confidence=round(confidence, 4),
        supporting=sum(1 for o in observations if o.supports),
        contradicting=sum(1 for o in observations if not o.supports),
        independent=independent,
        surfaced=confidence >= SURFACE_CONFIDENCE and independent >= SURFACE_SUPPORT,
    )
