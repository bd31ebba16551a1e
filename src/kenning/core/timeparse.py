"""Time ranges named in a query ("yesterday", "last week", "on 3 May 2023", "in May 2023", "two weeks ago").

Resolved against a reference time (the caller's "now"), in UTC. The result is a half-open range
[since, until). Recall uses it to favour memories whose event time falls inside, never to hide the
rest: a misread phrase must not make the right memory disappear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_WEEKDAYS = {
    name: index
    for index, name in enumerate(
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    )
}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a few": 3,
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_RE = "|".join(_WEEKDAYS)
_NUM_RE = r"\d+|" + "|".join(sorted(_NUMBERS, key=len, reverse=True))


@dataclass(frozen=True, slots=True)
class TimeRange:
    since: float
    until: float
    phrase: str


def _day_start(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_start(year: int, month: int) -> datetime:
    return datetime(year, month, 1, tzinfo=UTC)


def _next_month(year: int, month: int) -> datetime:
    return _month_start(year + 1, 1) if month == 12 else _month_start(year, month + 1)


def _range(start: datetime, end: datetime, phrase: str) -> TimeRange:
    return TimeRange(since=start.timestamp(), until=end.timestamp(), phrase=phrase)


def _calendar(today: datetime, unit: str, back: int) -> tuple[datetime, datetime]:
    """The calendar week (from Monday), month or year `back` units before the one holding `today`."""
    if unit == "week":
        start = today - timedelta(days=today.weekday(), weeks=back)
        return start, start + timedelta(weeks=1)
    if unit == "month":
        year, month = divmod(today.year * 12 + today.month - 1 - back, 12)
        return _month_start(year, month + 1), _next_month(year, month + 1)
    year = today.year - back
    return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)


def _calendar_day(text: str) -> TimeRange | None:
    """A full date, day first ("16 November, 2023", "3rd of May 2023") or month first ("May 3, 2023")."""
    patterns = (
        (rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?(?:,\s*|\s+)(\d{{4}})\b", (1, 2, 3)),
        (rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,\s*|\s+)(\d{{4}})\b", (2, 1, 3)),
    )
    for pattern, (day_at, month_at, year_at) in patterns:
        for match in re.finditer(pattern, text):
            try:
                start = datetime(
                    int(match.group(year_at)),
                    _MONTHS[match.group(month_at)],
                    int(match.group(day_at)),
                    tzinfo=UTC,
                )
            except ValueError:  # "31 June": not a day; the month is still read below
                continue
            return _range(start, start + timedelta(days=1), match.group(0))
    return None


def _span(text: str) -> TimeRange | None:
    """Two days of one month and year: "between August 11 and August 15 2023", "from 3 to 9 May 2023"."""
    day = r"(\d{1,2})(?:st|nd|rd|th)?"
    patterns = (
        (
            rf"\b(?:between|from)\s+({_MONTH_RE})\.?\s+{day}\s+(?:and|to|until)\s+(?:({_MONTH_RE})\.?\s+)?{day},?\s+(\d{{4}})\b",
            (1, 2, 3, 4, 5),
        ),
        (
            rf"\b(?:between|from)\s+{day}(?:\s+(?:of\s+)?({_MONTH_RE}))?\.?\s+(?:and|to|until)\s+{day}\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b",
            (2, 1, 4, 3, 5),
        ),
    )
    for pattern, (first_month, first_day, last_month, last_day, year_at) in patterns:
        if match := re.search(pattern, text):
            year = int(match.group(year_at))
            end_month = _MONTHS[match.group(last_month) or match.group(first_month)]
            start_month = _MONTHS[match.group(first_month) or match.group(last_month)]
            # "between December 28 and January 3 2024": the year is the end's, the start is in the one before.
            start_year = year - 1 if start_month > end_month else year
            try:
                start = datetime(start_year, start_month, int(match.group(first_day)), tzinfo=UTC)
                end = datetime(year, end_month, int(match.group(last_day)), tzinfo=UTC)
            except ValueError:  # "30 to 31 June": not a span of days; a single date or the month may be
                return None
            if end < start:
                return None
            return _range(start, end + timedelta(days=1), match.group(0))
    return None


def parse_time_range(query: str, now: float) -> TimeRange | None:
    """The time phrase in the query as a range, or None if it names no time (or no real day: "31 June
    9999" is no reason to fail a recall). A span is read first, then relative phrases, then dates.
    """
    try:
        return _parse(query, now)
    except (ValueError, OverflowError):
        return None


def _parse(query: str, now: float) -> TimeRange | None:
    text = query.lower()
    today = _day_start(datetime.fromtimestamp(now, tz=UTC))
    if found := _span(text):
        return found

    if match := re.search(r"\byesterday\b", text):
        return _range(today - timedelta(days=1), today, match.group(0))
    if match := re.search(r"\btoday\b", text):
        return _range(today, today + timedelta(days=1), match.group(0))
    if match := re.search(rf"\b({_NUM_RE})\s+(day|week|month|year)s?\s+ago\b", text):
        count = int(match.group(1)) if match.group(1).isdigit() else _NUMBERS[match.group(1)]
        unit = match.group(2)
        if unit == "day":
            start = today - timedelta(days=count)
            return _range(start, start + timedelta(days=1), match.group(0))
        return _range(*_calendar(today, unit, count), match.group(0))
    if match := re.search(rf"\blast\s+({_DAY_RE})\b", text):
        target = _WEEKDAYS[match.group(1)]
        back = (today.weekday() - target) % 7 or 7
        start = today - timedelta(days=back)
        return _range(start, start + timedelta(days=1), match.group(0))
    if match := re.search(r"\blast\s+weekend\b", text):
        saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
        return _range(saturday, saturday + timedelta(days=2), match.group(0))
    if match := re.search(r"\b(last|this|past)\s+(week|month|year)\b", text):
        which, unit = match.group(1), match.group(2)
        if which == "past":
            span = {"week": timedelta(weeks=1), "month": timedelta(days=30), "year": timedelta(days=365)}[
                unit
            ]
            return _range(today + timedelta(days=1) - span, today + timedelta(days=1), match.group(0))
        return _range(*_calendar(today, unit, 1 if which == "last" else 0), match.group(0))
    if found := _calendar_day(text):
        return found
    if match := re.search(rf"\b(?:in\s+)?({_MONTH_RE})\.?(?:\s*,\s*|\s+)(\d{{4}})\b", text):
        month, year = _MONTHS[match.group(1)], int(match.group(2))
        return _range(_month_start(year, month), _next_month(year, month), match.group(0))
    if match := re.search(
        rf"\b(?:in|during|(?:week|weekend|start|beginning|middle|end)\s+of)\s+({_MONTH_RE})\b(?!['’]s)", text
    ):
        month = _MONTHS[match.group(1)]
        # A bare month means its most recent occurrence, this year or last.
        year = today.year if month <= today.month else today.year - 1
        return _range(_month_start(year, month), _next_month(year, month), match.group(0))
    if match := re.search(r"\b(?:in|during|since)\s+((?:19|20)\d{2})\b", text):
        year = int(match.group(1))
        return _range(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC), match.group(0))
    return None
