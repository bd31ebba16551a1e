from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning.adapters.vector_matrix import VectorMatrix, VectorRow
from kenning.core.errors import InvalidInput
from kenning.core.ids import is_ulid, new_ulid
from kenning.core.ontology import base_type, check_type
from kenning.core.query import ChannelHit
from kenning.core.scoring import ChannelResult, content_terms, coverage, fuse, is_question, ranked
from kenning.core.text import (
    cjk_runs,
    content_hash,
    estimate_tokens,
    has_cjk,
    normalize,
    truncate_to_tokens,
    words,
)
from kenning.core.validation import format_time, parse_time


def test_normalize_and_hash_ignore_case_whitespace_and_unicode_form() -> None:
    nfd = "Cafe\u0301  menu\n"
    assert normalize(nfd) == "Café menu"
    assert content_hash(nfd) == content_hash("  CAFÉ MENU")
    assert content_hash("port 5432") != content_hash("port 6543")


def test_script_detection_and_tokens() -> None:
    assert has_cjk("端口") and has_cjk("배포") and has_cjk("カタカナ") and not has_cjk("plain")
    assert cjk_runs("用 Postgres 的端口") == ["用", "的端口"]
    assert words("用 Postgres 的端口 v16") == ["postgres", "v16"]
    assert estimate_tokens("数据库") == 3
    assert estimate_tokens("abcdefgh") == 2


@given(st.text(min_size=1, max_size=300), st.integers(min_value=1, max_value=100))
def test_truncation_fits_the_budget_and_is_a_prefix(text: str, budget: int) -> None:
    cut = truncate_to_tokens(text, budget)
    assert text.startswith(cut) and len(cut) >= 1
    assert estimate_tokens(cut) <= budget or len(cut) == 1


def test_ulids_sort_by_time_and_are_unique() -> None:
    ids = [new_ulid(1_700_000_000_000 + i // 3) for i in range(300)]
    assert ids == sorted(ids) and len(set(ids)) == 300
    assert all(is_ulid(i) for i in ids) and not is_ulid("nope")


def test_ontology_accepts_base_and_subtypes_and_lists_the_rest() -> None:
    assert check_type(" Bug ") == "bug" and base_type("bug") == "error"
    with pytest.raises(InvalidInput, match="valid types: fact"):
        check_type("vibe")


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["dense", "bm25", "cjk"]), st.lists(st.sampled_from("abcdef"), unique=True)
        ),
        unique_by=lambda pair: pair[0],
    )
)
def test_fusion_ignores_the_order_channels_are_given_in(spec: list[tuple[str, list[str]]]) -> None:
    channels = [
        ChannelResult(
            name,
            [(item, 1.0 / (i + 1)) for i, item in enumerate(items)],
            kind="cosine" if name == "dense" else "keyword",
            mean=0.1,
            std=0.2,
        )
        for name, items in spec
    ]
    weights = {"dense": 0.5, "bm25": 2.0, "cjk": 1.0}
    forward = fuse(channels, weights)
    backward = fuse(list(reversed(channels)), weights)
    assert ranked({k: v[0] for k, v in forward.items()}) == ranked({k: v[0] for k, v in backward.items()})


def test_fusion_normalises_each_channel_and_explains_ranks() -> None:
    dense = ChannelResult(
        "dense", [("a", 0.9), ("b", 0.8)], kind="cosine", mean=0.7, std=0.1, extra={"c": 0.7}
    )
    bm25 = ChannelResult("bm25", [("b", 6.0), ("c", 3.0)], kind="keyword")
    fused = fuse([dense, bm25], {"dense": 1.0, "bm25": 1.0})
    assert fused["a"][0] == pytest.approx(2.0)
    assert fused["b"][0] == pytest.approx(1.0 + 1.0)
    assert fused["c"][0] == pytest.approx(0.0 + 0.5)
    assert fused["b"][1] == [ChannelHit("bm25", 1, 6.0), ChannelHit("dense", 2, 0.8)]
    assert [h.channel for h in fused["c"][1]] == ["bm25"]


def test_coverage_and_questions() -> None:
    terms = content_terms("What city did Tim suggest for the team trip?")
    assert terms == {"city", "tim", "suggest", "team", "trip"}
    assert coverage(terms, "Tim: Edinburgh would be a great city for the trip") == pytest.approx(3 / 5)
    assert is_question("How long have you been married?") and not is_question("Five years.")


def test_time_parsing_accepts_iso_and_epoch_and_names_the_field() -> None:
    assert parse_time("2026-05-01T00:00:00Z", "since") == parse_time("2026-05-01", "since") == 1777593600.0
    assert parse_time(1777593600, "since") == 1777593600.0
    assert format_time(1777593600.0) == "2026-05-01T00:00:00Z"
    with pytest.raises(InvalidInput) as info:
        parse_time("tomorrowish", "until")
    assert info.value.field == "until"


def test_vector_matrix_masks_namespace_and_state_and_breaks_ties_by_id() -> None:
    matrix = VectorMatrix(dim=2)
    one = np.array([1.0, 0.0], dtype=np.float32)
    matrix.append(
        [
            VectorRow(vseq=1, seq=1, memory_id="B", namespace="n", active=True, values=one),
            VectorRow(vseq=2, seq=2, memory_id="A", namespace="n", active=True, values=one),
            VectorRow(vseq=3, seq=3, memory_id="C", namespace="other", active=True, values=one),
            VectorRow(vseq=4, seq=4, memory_id="D", namespace="n", active=False, values=one),
        ]
    )
    found = matrix.view().search(one, namespaces=["n"], active_only=True, allowed_seqs=None, limit=10)
    assert [h[0] for h in found.hits] == ["A", "B"]
    found = matrix.view().search(
        one, namespaces=["n"], active_only=False, allowed_seqs=np.array([4]), limit=10
    )
    assert [h[0] for h in found.hits] == ["D"]
    assert (
        matrix.view().search(one, namespaces=["none"], active_only=True, allowed_seqs=None, limit=10).hits
        == []
    )
    both = matrix.view().search(one, namespaces=["n", "other"], active_only=True, allowed_seqs=None, limit=1)
    assert [h[0] for h in both.hits] == ["A"] and both.mean == 1.0
    # Scores asked for by id come only from rows that pass the mask, whatever the limit.
    extra = matrix.view().search(
        one, namespaces=["n"], active_only=True, allowed_seqs=None, limit=1, include=["B", "C", "D", "Z"]
    )
    assert extra.extra == {"B": 1.0}


def test_vector_matrix_finds_every_row_appended_one_at_a_time_across_growth() -> None:
    rng = np.random.default_rng(7)
    matrix = VectorMatrix(dim=8)
    kept: list[tuple[str, np.ndarray]] = []
    for index in range(300):
        vector = rng.standard_normal(8).astype(np.float32)
        vector /= np.linalg.norm(vector)
        matrix.append(
            [
                VectorRow(
                    vseq=index + 1,
                    seq=index + 1,
                    memory_id=f"m{index:03d}",
                    namespace="n",
                    active=True,
                    values=vector,
                )
            ]
        )
        kept.append((f"m{index:03d}", vector))
        if index % 37 == 0 or index == 299:
            query = kept[index // 2][1]
            found = matrix.view().search(
                query, namespaces=["n"], active_only=True, allowed_seqs=None, limit=3
            )
            expected = sorted(kept, key=lambda item: -float(item[1] @ query))[:3]
            assert [h[0] for h in found.hits] == [name for name, _ in expected]
    assert len(matrix) == 300 and matrix.last_vseq == 300


def test_a_view_of_a_vector_matrix_answers_for_its_rows_while_more_are_appended() -> None:
    """The store searches a view after letting go of the matrix's lock: rows appended meanwhile, in
    place or into grown buffers, must neither appear in it nor change what it finds."""
    matrix = VectorMatrix(dim=2)
    one, near = np.array([1.0, 0.0], dtype=np.float32), np.array([0.8, 0.6], dtype=np.float32)

    def row(index: int, values: np.ndarray, namespace: str = "n") -> VectorRow:
        return VectorRow(
            vseq=index, seq=index, memory_id=f"m{index:03d}", namespace=namespace, active=True, values=values
        )

    matrix.append([row(1, near), row(2, near)])
    view = matrix.view()
    before = view.search(
        one, namespaces=["n"], active_only=True, allowed_seqs=None, limit=5, include=["m003"]
    )
    matrix.append([row(3, one), *(row(i, one, "new") for i in range(4, 200))])  # grows the buffers
    after = view.search(
        one, namespaces=["n", "new"], active_only=True, allowed_seqs=None, limit=5, include=["m003"]
    )
    assert [h[0] for h in after.hits] == [h[0] for h in before.hits] == ["m001", "m002"]
    assert after.extra == before.extra == {} and after.mean == pytest.approx(0.8)
    now = matrix.view().search(
        one, namespaces=["n"], active_only=True, allowed_seqs=None, limit=1, include=["m003"]
    )
    assert now.hits == [("m003", 1.0)] and now.extra == {"m003": 1.0}


def test_keyword_query_drops_stopwords_unless_nothing_else_is_left() -> None:
    from kenning.core.scoring import keyword_query

    assert keyword_query("What did Caroline research?") == "Caroline research"
    assert keyword_query("What did you do?") == "What did you do"


def test_without_names_removes_named_subjects_and_possessives_but_never_everything() -> None:
    from kenning.core.scoring import name_candidates, without_names

    assert name_candidates("What pets does Melanie have?") == ["pets", "melanie"]
    assert without_names("What are Melanie's pets?", ["melanie"]) == "What are pets?"
    assert without_names("Where did MELANIE go", ["melanie"]) == "Where did go"
    assert without_names("Melanie?", ["melanie"]) == "Melanie?"
    assert without_names("Melanies plan", ["melanie"]) == "Melanies plan"


@pytest.mark.parametrize("hidden", ["\x1b", "\u200b", "\u202e", "\U000e0041", "\x00", "\ufeff"])
def test_a_label_with_a_control_bidi_or_invisible_character_is_refused_by_name(hidden: str) -> None:
    from kenning.core.errors import InvalidInput
    from kenning.core.validation import check_entities, check_tags

    for check, field in ((check_tags, "tags[1]"), (check_entities, "entities[1]")):
        with pytest.raises(InvalidInput, match=rf"{re.escape(field)}: must not contain control, bidi"):
            check(["fine", f"ba{hidden}d"])
    assert check_entities(["می\u200cخواهم"]) == ["می\u200cخواهم"]  # a Persian joiner is legitimate


def test_context_and_source_refuse_nul() -> None:
    from kenning.core.errors import InvalidInput
    from kenning.core.validation import check_optional_text

    with pytest.raises(InvalidInput, match="context: must not contain NUL"):
        check_optional_text("before\x00after", "context", 100)
