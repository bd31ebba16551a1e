"""BM25 as every store ranks words by: the constants, the column weights and the inverse document
frequency, written once. SQLite's FTS5 computes the same formula with these weights; a backend without
it (PostgreSQL) computes it from its own counts with these."""

from __future__ import annotations

import math
from collections.abc import Mapping

K1 = 1.2
B = 0.75
# How much a word counts in each part of a memory: its text most; tags and entities help; context a little.
CONTENT, TAGS, ENTITIES, CONTEXT = 1.0, 0.6, 0.6, 0.3


def idf(documents: int, holding: int) -> float:
    """FTS5's inverse document frequency: never zero or negative, so a word in most memories still counts
    a little."""
    value = math.log((documents - holding + 0.5) / (holding + 0.5))
    return value if value > 0 else 1e-6


# Memories a word search scores at most in one pool; beyond it the commonest words of the query are left
# out (see `searched`).
SEARCHED_MAX = 5_000


def searched(holding: Mapping[str, int], cap: int | None = None) -> list[str]:
    """The words of a query a pool is searched for, given how many of its memories hold each: all of
    them while together they are in at most `cap` (SEARCHED_MAX) memories, else the rarest up to that
    many, and always the rarest one. The words left out are the commonest, whose inverse document
    frequency is lowest: the memories holding only them could only rank low, and scoring them all costs
    a scan of most of a large pool (BM25 over "use" in a million memories). Words no memory holds are
    left out too. Every backend searches by this, so they rank alike."""
    limit = SEARCHED_MAX if cap is None else cap
    present = sorted((w for w, n in holding.items() if n > 0), key=lambda w: (holding[w], w))
    chosen: list[str] = []
    total = 0
    for word in present:
        if chosen and total + holding[word] > limit:
            break
        chosen.append(word)
        total += holding[word]
    return chosen
