"""Values written many ways read as one canonical value; different values stay different."""

from __future__ import annotations

import pytest

from kenning.core.values import read_values


def canonical(text: str) -> list[str]:
    return sorted(v.token for v in read_values(text)[1])


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("1,000,000 bytes", "1000000 bytes"),
        ("1.000.000 Bytes", "1 000 000 octets"),
        ("v4.2.0", "version 4.2.0"),
        ("１０ＭＢ", "10 MB"),
        ("14 days", "two weeks"),
        ("600 s", "10 minutes"),
        ("half an hour", "30 minutes"),
        ("eine halbe Stunde", "30 Minuten"),
        ("une demi-heure", "media hora"),
        ("百分之八十", "80%"),
        ("百分之零点五", "0.5%"),
        ("half a percent", "0.5 percent"),
        ("twenty-five thousand dollars", "$25k"),
        ("veinticinco mil euros", "25.000 €"),
        ("数据库连接池的大小是二十", "大小为 ２０"),
        ("9:30 a.m.", "09:30"),
        ("下午3点半", "15:30"),
        ("오후 4시", "16:00"),
        ("凌晨两点", "2:00"),
        ("every weekday", "Monday through Friday"),
        ("2주", "14일"),
        ("三十分ほど", "30分"),
        ("삼십 분", "30분"),
        ("24 meses", "dos años"),
        ("5천만 원", "50,000,000원"),
        ("65公斤", "130斤"),
        ("1.200 kg", "1,2 toneladas"),
        ("100 requests a minute", "100 requests per minute"),
        ("14 June", "June 14"),
        ("9 月 30 日", "9月30日"),
        ("fünfundzwanzig", "25"),
        ("100 requests per month", "每月100次请求"),
        ("100건 per month", "월당 100건"),
    ],
)
def test_the_same_value_written_two_ways_reads_the_same(first: str, second: str) -> None:
    assert canonical(first) == canonical(second) != []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("port 5433", "port 5434"),
        ("10 minutes", "10 seconds"),
        ("v3.4.2", "v3.5.0"),
        ("100 requests per minute", "100 requests per second"),
        ("on Tuesdays", "on Thursdays"),
        ("-70°C", "-65°C"),
        ("50 MB", "500 MB"),
        ("14 June", "21 June"),
    ],
)
def test_different_values_stay_different(first: str, second: str) -> None:
    assert canonical(first) != canonical(second)


def test_words_that_look_like_units_are_not_values() -> None:
    assert canonical("a second factor") == []
    assert canonical("the game switches to 3D") == []
    assert canonical("us-east-2") == []  # a region name, not the number 2


def test_long_runs_are_read_as_bounded_values() -> None:
    # Digit runs longer than any number stay words instead of overflowing a float.
    text, found = read_values("key " + "9" * 400 + " and 十" * 50)
    assert all(len(v.canonical) <= 40 for v in found) and "9" * 30 in text
