"""Character grams for Chinese, Japanese and Korean, and how a memory's text covers them."""

from __future__ import annotations

from kenning.core.cjk_match import cjk_query, cjk_score, memory_grams, rank_cjk


def test_a_query_without_cjk_has_no_grams() -> None:
    assert cjk_query("which port does staging use") is None


def test_grams_are_bigrams_of_each_run_and_a_single_character_stands_alone() -> None:
    asked = cjk_query("部署 在 周二")
    assert asked is not None
    assert asked.grams == ("部署", "在", "周二") and asked.trigrams == ()
    longer = cjk_query("数据库端口")
    assert longer is not None
    assert longer.grams == ("数据", "据库", "库端", "端口") and longer.trigrams == (
        "数据库",
        "据库端",
        "库端口",
    )
    assert longer.short == longer.grams  # bigrams need a scan; only the trigrams use an index


def test_coverage_ranks_first_and_a_shorter_memory_wins_a_tie() -> None:
    asked = cjk_query("数据库端口")
    assert asked is not None
    full, half = "数据库端口是6543", "数据库在周二迁移"
    assert cjk_score(asked, "完全无关") is None
    assert cjk_score(asked, full) > cjk_score(asked, half)  # type: ignore[operator]
    padded = full + "。" * 300
    ranked = rank_cjk(asked, {"b": padded, "a": full, "c": "完全无关"}, 10)
    assert [memory_id for memory_id, _ in ranked] == ["a", "b"]
    assert rank_cjk(asked, {"b": full, "a": full}, 1) == [("a", ranked[0][1])]  # ties by id


def test_a_memory_is_found_by_each_character_and_each_pair_of_its_runs() -> None:
    assert memory_grams("部署在周五 and 東京") == {
        "部",
        "署",
        "在",
        "周",
        "五",
        "部署",
        "署在",
        "在周",
        "周五",
        "東",
        "京",
        "東京",
    }
    assert memory_grams("no CJK here") == set()
    assert set(cjk_query("周五部署").grams) <= memory_grams("我们周五部署新版本")  # type: ignore[union-attr]
