"""Consolidation without an LLM: group similar memories, and write an extractive summary of a group.

Grouping is greedy around the strongest memories: a seed gathers every unassigned memory whose cosine
to it reaches the threshold (prior art mcp-memory-service clusters at cos >= 0.70 on its model; ours
is per model, as cosine scales differ). Pairs the caller marks as incompatible (a contradiction) never
share a group. The summary keeps the most central memory whole and adds the sentences of the others
that say something it does not, in order of centrality, within a size limit; a memory whose words do not
all make it into the summary is left out of the group rather than lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from kenning.core.scoring import content_terms
from kenning.core.text import cjk_runs, words

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")


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


def extractive_summary(texts: Sequence[str], order: Sequence[int], max_chars: int) -> tuple[str, list[int]]:
    """The first text of `order` whole, then every sentence of the others that says something new,
    within `max_chars`; with the indices of the texts the summary fully covers.

    A sentence is redundant only when every one of its content words (names and numbers included) is
    already in the summary: "Bob prefers dark mode" is not covered by "Alice prefers dark mode". A text
    whose new sentences did not fit is not covered, and must not be replaced by the summary.
    """
    chosen: list[str] = []
    seen: set[str] = set()
    covered: list[int] = []
    length = 0
    for position, index in enumerate(order):
        sentences = [texts[index].strip()] if position == 0 else _sentences(texts[index])
        complete = True
        for sentence in sentences:
            terms = _terms(sentence)
            if position > 0 and terms <= seen:
                continue
            if length + len(sentence) + (1 if chosen else 0) > max_chars:
                complete = False
                break
            chosen.append(sentence)
            seen |= terms
            length += len(sentence) + (1 if len(chosen) > 1 else 0)
        if not complete:
            if position == 0:
                return "", []
            continue
        covered.append(index)
    return " ".join(chosen), covered


def _terms(sentence: str) -> frozenset[str]:
    """Content words, every number (even one digit), and the single characters of Chinese, Japanese and
    Korean, which carry the meaning."""
    numbers = {word for word in words(sentence) if any(ch.isdigit() for ch in word)}
    return content_terms(sentence) | numbers | {char for run in cjk_runs(sentence) for char in run}


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE.split(text) if part.strip()]
