"""Insight cards over tags (SPEC §7): patterns, trends and gaps, each with the memories behind it.

- pattern: at least 5 memories sharing at least 3 tags;
- trend: a tag used more than twice as often in the last 7 days as in the 23 days before, at least 5
  times in the last 7;
- gap: a tag that has been silent for 30 days or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Literal

from kenning.core.decay import DAY

PATTERN_MEMORIES = 5
PATTERN_TAGS = 3
TREND_DAYS = 7
TREND_BASELINE_DAYS = 23
TREND_RATIO = 2.0
TREND_MIN = 5
GAP_DAYS = 30
_TAGS_PER_MEMORY = 12  # combinations of more tags than this cost more than they tell
_EVIDENCE = 20


@dataclass(frozen=True, slots=True)
class Tagged:
    id: str
    tags: Sequence[str]
    at: float


@dataclass(slots=True)
class Insight:
    kind: Literal["pattern", "trend", "gap"]
    title: str
    tags: list[str]
    memory_ids: list[str]
    figures: dict[str, float] = field(default_factory=dict)


def patterns(items: Sequence[Tagged]) -> list[Insight]:
    by_set: dict[tuple[str, ...], list[str]] = {}
    for item in items:
        tags = sorted(set(item.tags))[:_TAGS_PER_MEMORY]
        for combo in combinations(tags, PATTERN_TAGS):
            by_set.setdefault(combo, []).append(item.id)
    # Memories sharing four tags share four triples: one card per set of memories, with all its tags.
    cards_by_members: dict[tuple[str, ...], set[str]] = {}
    for combo, ids in by_set.items():
        if len(ids) >= PATTERN_MEMORIES:
            cards_by_members.setdefault(tuple(ids), set()).update(combo)
    cards = [
        Insight(
            kind="pattern",
            title=f"{len(ids)} memories share the tags {', '.join(sorted(tags))}",
            tags=sorted(tags),
            memory_ids=list(ids[:_EVIDENCE]),
            figures={"memories": float(len(ids))},
        )
        for ids, tags in cards_by_members.items()
    ]
    cards.sort(key=lambda card: (-card.figures["memories"], card.tags))
    return cards


def trends(items: Sequence[Tagged], now: float) -> list[Insight]:
    recent: dict[str, list[str]] = {}
    before: dict[str, int] = {}
    for item in items:
        age = (now - item.at) / DAY
        for tag in set(item.tags):
            if 0 <= age < TREND_DAYS:
                recent.setdefault(tag, []).append(item.id)
            elif TREND_DAYS <= age < TREND_DAYS + TREND_BASELINE_DAYS:
                before[tag] = before.get(tag, 0) + 1
    cards = []
    for tag, ids in sorted(recent.items()):
        earlier = before.get(tag, 0)
        if len(ids) >= TREND_MIN and len(ids) > TREND_RATIO * earlier:
            cards.append(
                Insight(
                    kind="trend",
                    title=f"tag {tag} rising: {len(ids)} memories in the last {TREND_DAYS} days, "
                    f"{earlier} in the {TREND_BASELINE_DAYS} days before",
                    tags=[tag],
                    memory_ids=ids[:_EVIDENCE],
                    figures={"recent": float(len(ids)), "before": float(earlier)},
                )
            )
    return cards


def gaps(items: Sequence[Tagged], now: float) -> list[Insight]:
    last: dict[str, tuple[float, str]] = {}
    for item in items:
        for tag in set(item.tags):
            if item.at > last.get(tag, (float("-inf"), ""))[0]:
                last[tag] = (item.at, item.id)
    cards = []
    for tag, (at, memory_id) in sorted(last.items()):
        silent = (now - at) / DAY
        if silent >= GAP_DAYS:
            cards.append(
                Insight(
                    kind="gap",
                    title=f"tag {tag} silent for {silent:.0f} days",
                    tags=[tag],
                    memory_ids=[memory_id],
                    figures={"silent_days": round(silent, 1)},
                )
            )
    return cards


def insights(items: Sequence[Tagged], now: float) -> list[Insight]:
    return [*patterns(items), *trends(items, now), *gaps(items, now)]
