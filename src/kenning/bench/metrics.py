"""Retrieval metrics over ranked lists of evidence ids (binary relevance)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


def hit_at(ranked: Sequence[set[str]], relevant: set[str], k: int) -> float:
    """1 if any of the first k results carries a relevant id."""
    return 1.0 if any(ids & relevant for ids in ranked[:k]) else 0.0


def recall_at(ranked: Sequence[set[str]], relevant: set[str], k: int) -> float:
    """Share of the relevant ids that appear in the first k results."""
    found: set[str] = set()
    for ids in ranked[:k]:
        found |= ids & relevant
    return len(found) / len(relevant)


def ndcg_at(ranked: Sequence[set[str]], relevant: set[str], k: int) -> float:
    """NDCG with binary gains; a relevant id counts once, at its first position."""
    seen: set[str] = set()
    dcg = 0.0
    for position, ids in enumerate(ranked[:k], start=1):
        fresh = (ids & relevant) - seen
        if fresh:
            dcg += len(fresh) / math.log2(position + 1)
            seen |= fresh
    ideal = sum(1 / math.log2(p + 1) for p in range(1, min(len(relevant), k) + 1))
    return dcg / ideal


@dataclass(slots=True)
class Tally:
    count: int = 0
    sums: dict[str, float] = field(default_factory=dict)

    def add(self, ranked: Sequence[set[str]], relevant: set[str]) -> None:
        self.count += 1
        scores = {
            "hit@1": hit_at(ranked, relevant, 1),
            "hit@5": hit_at(ranked, relevant, 5),
            "hit@10": hit_at(ranked, relevant, 10),
            "recall@5": recall_at(ranked, relevant, 5),
            "recall@10": recall_at(ranked, relevant, 10),
            "ndcg@10": ndcg_at(ranked, relevant, 10),
        }
        for name, value in scores.items():
            self.sums[name] = self.sums.get(name, 0.0) + value

    def means(self) -> dict[str, float]:
        return {name: round(total / self.count, 4) for name, total in self.sums.items()} if self.count else {}


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of `values`, interpolated between the two nearest; NaN for none."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
