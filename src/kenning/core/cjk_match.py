"""Character matching for Chinese, Japanese and Korean, which put no spaces between words (SPEC §6).

What a query's character grams are, and how well a memory's text covers them. A store finds the
candidates its own way (a trigram index, a scan for shorter grams) and ranks them with these
functions, so that every backend ranks alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kenning.core.text import cjk_runs


@dataclass(frozen=True, slots=True)
class CjkQuery:
    grams: tuple[str, ...]  # what a memory is scored on: each run's bigrams (a one-character run itself)
    trigrams: tuple[str, ...]  # what a trigram index can look up; grams shorter than three need a scan

    @property
    def short(self) -> tuple[str, ...]:
        """The grams a trigram index cannot find."""
        return tuple(g for g in self.grams if len(g) < 3)


def cjk_query(query: str) -> CjkQuery | None:
    """The query's grams, or None when it has no Chinese, Japanese or Korean run."""
    runs = cjk_runs(query)
    if not runs:
        return None
    grams: list[str] = []
    for run in runs:
        pieces = [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        grams.extend(g for g in pieces if g not in grams)
    trigrams = tuple(dict.fromkeys(r[i : i + 3] for r in runs for i in range(len(r) - 2)))
    return CjkQuery(grams=tuple(grams), trigrams=trigrams)


def memory_grams(content: str) -> set[str]:
    """Every gram a query could look a memory up by: each character of its CJK runs and each pair of
    neighbours (a query's grams are its runs' bigrams, or a one-character run itself)."""
    grams: set[str] = set()
    for run in cjk_runs(content):
        grams.update(run)
        grams.update(run[i : i + 2] for i in range(len(run) - 1))
    return grams


def cjk_score(query: CjkQuery, content: str) -> float | None:
    """Coverage of the query's grams by the content, nudged towards shorter (more focused) memories;
    None when it holds none of them."""
    hits = sum(1 for g in query.grams if g in content)
    if not hits:
        return None
    return hits / len(query.grams) + 0.01 / (1 + len(content) / 100)


def rank_cjk(query: CjkQuery, candidates: Mapping[str, str], limit: int) -> list[tuple[str, float]]:
    """(id, score) of the candidates (id -> content) that hold a gram, best first, ties by id."""
    scored = [
        (memory_id, score)
        for memory_id, content in candidates.items()
        if (score := cjk_score(query, content)) is not None
    ]
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored[:limit]
