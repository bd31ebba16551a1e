"""BM25 as every store ranks words by: the constants, the column weights and the inverse document
frequency, written once. SQLite's FTS5 computes the same formula with these weights; a backend without
it (PostgreSQL) computes it from its own counts with these."""

from __future__ import annotations

import math

K1 = 1.2
B = 0.75
# How much a word counts in each part of a memory: its text most; tags and entities help; context a little.
CONTENT, TAGS, ENTITIES, CONTEXT = 1.0, 0.6, 0.6, 0.3


def idf(documents: int, holding: int) -> float:
    """FTS5's inverse document frequency: never zero or negative, so a word in most memories still counts
    a little."""
    value = math.log((documents - holding + 0.5) / (holding + 0.5))
    return value if value > 0 else 1e-6
