"""Consolidation without an LLM: group similar memories, and write an extractive summary of a group.

Grouping is greedy around the strongest memories: a seed gathers every unassigned memory whose cosine
to it reaches the threshold (prior art mcp-memory-service clusters at cos >= 0.70 on its model; ours
is per model, as cosine scales differ). Pairs the caller marks as incompatible (a contradiction) never
share a group. The summary keeps the most central memory whole and adds the sentences of the others
that say something it does not, in order of centrality, within a size limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from kenning.core.text import cjk_runs, words

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_NOVELTY = 0.6  # a sentence sharing less than this share of its words with the summary so far is new


def similar_pairs(
    matrix: npt.NDArray[np.float32], threshold: float, chunk: int = 1024
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) with i < j for every pair at or above `threshold`; rows must be unit length."""
    pairs: list[tuple[int, int, float]] = []
    count = matrix.shape[0]
    for start in range(0, count, chunk):
        block = matrix[start : start + chunk] @ matrix.T
        rows, cols = np.nonzero(block >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
            i = start + r
            if i < c:
                pairs.append((i, c, float(block[r, c])))
    return pairs


def group(
    pairs: Sequence[tuple[int, int, float]],
    weight: Sequence[float],
    *,
    compatible: Callable[[int, int], bool] = lambda i, j: True,
    max_size: int = 20,
) -> list[list[int]]:
    """Groups of two or more indices; the seed (highest weight) comes first in each group."""
    neighbours: dict[int, list[tuple[float, int]]] = {}
    for i, j, cosine in pairs:
        neighbours.setdefault(i, []).append((cosine, j))
        neighbours.setdefault(j, []).append((cosine, i))
    taken: set[int] = set()
    groups: list[list[int]] = []
    for seed in sorted(neighbours, key=lambda i: (-weight[i], i)):
        if seed in taken:
            continue
        members = [seed]
        for _cosine, other in sorted(neighbours[seed], key=lambda pair: (-pair[0], pair[1])):
            if len(members) >= max_size:
                break
            if other in taken or other in members:
                continue
            if all(compatible(other, member) for member in members):
                members.append(other)
        if len(members) > 1:
            groups.append(members)
            taken.update(members)
    return groups


def centrality_order(matrix: npt.NDArray[np.float32]) -> list[int]:
    """Rows ordered by mean cosine to the others, most central first (ties by position)."""
    sims = matrix @ matrix.T
    score = sims.sum(axis=1)
    return sorted(range(matrix.shape[0]), key=lambda i: (-float(score[i]), i))


def extractive_summary(texts: Sequence[str], order: Sequence[int], max_chars: int) -> str:
    """The first text of `order` whole, then the new sentences of the others, within `max_chars`."""
    chosen: list[str] = []
    seen: set[str] = set()
    length = 0
    for position, index in enumerate(order):
        sentences = [texts[index].strip()] if position == 0 else _sentences(texts[index])
        for sentence in sentences:
            terms = _terms(sentence)
            if position > 0 and (not terms or len(terms & seen) / len(terms) >= _NOVELTY):
                continue
            if chosen and length + len(sentence) + 1 > max_chars:
                return " ".join(chosen)
            chosen.append(sentence[:max_chars])
            seen |= terms
            length += len(sentence) + 1
    return " ".join(chosen)


def _terms(sentence: str) -> set[str]:
    """Words, and for Chinese, Japanese and Korean the single characters, which carry the meaning."""
    return set(words(sentence)) | {char for run in cjk_runs(sentence) for char in run}


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE.split(text) if part.strip()]
