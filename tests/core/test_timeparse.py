from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kenning.core.timeparse import parse_time_range

# Wednesday 2023-06-14 15:30 UTC
NOW = datetime(2023, 6, 14, 15, 30, tzinfo=UTC).timestamp()


def day(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("query", "since", "until"),
    [
        ("what did we decide yesterday", day(2023, 6, 13), day(2023, 6, 14)),
        ("notes from today", day(2023, 6, 14), day(2023, 6, 15)),
        ("what happened last Saturday", day(2023, 6, 10), day(2023, 6, 11)),
        ("last wednesday's incident", day(2023, 6, 7), day(2023, 6, 8)),
        ("what did Ann do last weekend", day(2023, 6, 10), day(2023, 6, 12)),
        ("bugs fixed last week", day(2023, 6, 5), day(2023, 6, 12)),
        ("plans for this week", day(2023, 6, 12), day(2023, 6, 19)),
        ("releases last month", day(2023, 5, 1), day(2023, 6, 1)),
        ("what did Caroline do in May 2023", day(2023, 5, 1), day(2023, 6, 1)),
        ("events of Sept, 2022", day(2022, 9, 1), day(2022, 10, 1)),
        ("what did Tim say on 16 November, 2023", day(2023, 11, 16), day(2023, 11, 17)),
        ("news shared on the 3rd of May 2023", day(2023, 5, 3), day(2023, 5, 4)),
        ("the call on May 3, 2023", day(2023, 5, 3), day(2023, 5, 4)),
        ("where was John between August 11 and August 15 2023", day(2023, 8, 11), day(2023, 8, 16)),
        ("trips from 31 May to 2 June 2023", day(2023, 5, 31), day(2023, 6, 3)),
        ("between 11 and 15 August, 2023", day(2023, 8, 11), day(2023, 8, 16)),
        ("between August 15 and August 11 2023 is backwards, so the day", day(2023, 8, 11), day(2023, 8, 12)),
        ("between December 28 and January 3 2024", day(2023, 12, 28), day(2024, 1, 4)),
        ("from 30 to 31 June 2023 is no span, so the month", day(2023, 6, 1), day(2023, 7, 1)),
        ("31 June 2023 is no day, so the month", day(2023, 6, 1), day(2023, 7, 1)),
        ("trips in December", day(2022, 12, 1), day(2023, 1, 1)),
        ("the second week of November", day(2022, 11, 1), day(2022, 12, 1)),
        ("the picture shared on December 1,2023", day(2023, 12, 1), day(2023, 12, 2)),
        ("in January", day(2023, 1, 1), day(2023, 2, 1)),
        ("achievements in 2022", day(2022, 1, 1), day(2023, 1, 1)),
        ("two weeks ago", day(2023, 5, 29), day(2023, 6, 5)),
        ("3 days ago", day(2023, 6, 11), day(2023, 6, 12)),
        ("a month ago", day(2023, 5, 1), day(2023, 6, 1)),
        ("last year", day(2022, 1, 1), day(2023, 1, 1)),
    ],
)
def test_phrases_resolve_against_the_reference_time(query: str, since: float, until: float) -> None:
    found = parse_time_range(query, NOW)
    assert found is not None
    assert (found.since, found.until) == (since, until)


@pytest.mark.parametrize(
    "query",
    [
        "what database do we use",
        "may I ask about port 2023",
        "the 1990s band",
        "what is the opinion of Jan about the schema",  # a name, not January
        "notes in Jan's review",
        "a friend of Jan said",
        "what is the name of June's dog",
        "the story of August Rush",
        # No real day: never a reason to fail the recall that asked.
        "dinner between december 30 and 31 9999",
        "from dec 30 to 31 9999",
        "december 31 9999",
        "in may 0000",
    ],
)
def test_queries_without_a_time_phrase_give_none(query: str) -> None:
    assert parse_time_range(query, NOW) is None
