"""Which words of a query a pool is searched for, by how many of its memories hold each."""

from __future__ import annotations

from kenning.core import bm25


def test_a_large_pool_is_searched_for_the_rarest_words_of_a_query() -> None:
    cap = bm25.SEARCHED_MAX
    held = {"kafka": 40, "broker": 900, "use": 6 * cap, "servic": cap - 100}
    assert bm25.searched(held) == ["kafka", "broker"]  # with "servic" they would pass the cap
    assert bm25.searched({"use": 6 * cap}) == ["use"]  # the rarest word is always searched
    assert bm25.searched({"nowhere": 0, "kafka": 3}) == ["kafka"]  # a word no memory holds is not
    assert bm25.searched({"b": 3, "a": 3}, cap=5) == ["a"]  # ties go by the word, not by chance


def test_a_small_pool_is_searched_for_every_word() -> None:
    held = {"deploy": 12, "friday": 3, "window": 7}
    assert sorted(bm25.searched(held)) == sorted(held)


def test_inverse_document_frequency_is_never_zero() -> None:
    assert bm25.idf(10, 9) == 1e-6 and bm25.idf(1000, 1) > bm25.idf(1000, 100) > 0
