"""Decay, forgetting tiers, grouping and summaries, beliefs, insight cards: the pure rules of SPEC §7."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning.core import beliefs, insights
from kenning.core.consolidation import centrality_order, extractive_summary, group, similar_pairs
from kenning.core.decay import DAY, DEFAULT_RATES, DecayPolicy, idle_days, strength
from kenning.core.errors import InvalidInput
from kenning.core.forgetting import ForgettingPolicy, MemoryVitals, check_policy, decide
from kenning.core.records import Trust

POLICY = DecayPolicy()
types = st.sampled_from(sorted(DEFAULT_RATES))
unit = st.floats(min_value=0.0, max_value=1.0)
days = st.floats(min_value=0.0, max_value=3650.0)
counts = st.integers(min_value=0, max_value=1000)


@given(types, unit, days, days, counts)
def test_strength_never_rises_with_age_alone(
    kind: str, importance: float, a: float, b: float, n: int
) -> None:
    young, old = sorted((a, b))
    s_young = strength(POLICY, base_type=kind, importance=importance, idle_days=young, recall_count=n)
    s_old = strength(POLICY, base_type=kind, importance=importance, idle_days=old, recall_count=n)
    assert s_old <= s_young


@given(types, st.floats(min_value=0.01, max_value=1.0), st.floats(0, 400), st.floats(0, 400), counts)
def test_a_recall_raises_strength(kind: str, importance: float, idle: float, since: float, n: int) -> None:
    """A recall adds to the count and restarts the curve: strength after it beats strength before."""
    before = strength(POLICY, base_type=kind, importance=importance, idle_days=idle + since, recall_count=n)
    after = strength(POLICY, base_type=kind, importance=importance, idle_days=since, recall_count=n + 1)
    assert after > before


def test_strength_follows_the_engram_formula() -> None:
    expected = 0.5 * math.exp(-0.16 * (1 - 0.8 * 0.5) * 10) * (1 + 0.2 * 3)
    assert strength(POLICY, base_type="fact", importance=0.5, idle_days=10, recall_count=3) == pytest.approx(
        expected
    )
    assert idle_days(10 * DAY, 0.0, 4 * DAY) == pytest.approx(6.0)
    assert idle_days(0.0, 5 * DAY, None) == 0.0  # a clock behind the record never makes negative age


def vitals(**overrides: object) -> MemoryVitals:
    base: dict[str, object] = {
        "id": "m",
        "strength": 0.001,
        "idle_days": 200.0,
        "importance": 0.3,
        "pinned": False,
        "ever_accessed": False,
        "neighbour_strengths": (),
    }
    base.update(overrides)
    return MemoryVitals(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("overrides", "policy", "action", "reason"),
    [
        ({"pinned": True}, "delete", "keep", "pinned"),
        ({"importance": 0.8}, "delete", "keep", "important"),
        ({"idle_days": 10.0}, "delete", "keep", "used 10 days ago"),
        ({"strength": 0.2}, "delete", "keep", "strength"),
        ({"idle_days": 60.0}, "delete", "keep", "idle 60 days"),
        ({"neighbour_strengths": (0.9, 0.5)}, "delete", "keep", "chain protection"),
        ({"neighbour_strengths": (0.9, 0.01)}, "delete", "delete", "never recalled"),
        ({"ever_accessed": True}, "delete", "archive", "recalled once"),
        ({"strength": 0.07}, "delete", "archive", "above 0.05"),
        ({"strength": 0.03}, "delete", "compress", "compressed"),
        ({}, "archive", "archive", "deletion is off"),
        ({}, "keep", "keep", "forgets nothing"),
    ],
)
def test_forgetting_tiers_and_protections(
    overrides: dict[str, object], policy: str, action: str, reason: str
) -> None:
    decision = decide(ForgettingPolicy(policy=policy), vitals(**overrides))
    assert decision.action == action
    assert reason in decision.reason


@given(
    st.floats(0, 1),
    st.floats(0, 10_000),
    st.floats(0, 1),
    st.booleans(),
    st.sampled_from(["archive", "delete"]),
)
def test_pinned_or_recently_used_memories_are_never_forgotten(
    value: float, idle: float, importance: float, accessed: bool, policy: str
) -> None:
    rules = ForgettingPolicy(policy=policy)
    pinned = vitals(
        strength=value, idle_days=idle, importance=importance, pinned=True, ever_accessed=accessed
    )
    assert decide(rules, pinned).action == "keep"
    recent = vitals(strength=value, idle_days=min(idle, 29.9), importance=importance, ever_accessed=accessed)
    assert decide(rules, recent).action == "keep"


def test_an_unknown_policy_is_refused_with_the_valid_ones() -> None:
    with pytest.raises(InvalidInput) as caught:
        check_policy("purge-everything")
    assert caught.value.field == "policy" and "keep, archive, delete" in caught.value.message


def test_grouping_keeps_contradictions_apart_and_seeds_on_the_strongest() -> None:
    vectors = np.array([[1, 0, 0], [0.99, 0.14, 0], [0.98, 0, 0.2], [0, 1, 0]], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pairs = similar_pairs(vectors, 0.9, chunk=2)
    assert {(i, j) for i, j, _ in pairs} == {(0, 1), (0, 2), (1, 2)}
    groups = group(pairs, [0.1, 0.9, 0.2, 0.5], compatible=lambda a, b: {a, b} != {1, 2})
    assert groups == [[1, 0]]  # 2 contradicts the seed 1, so it stays out
    assert group(pairs, [0.1, 0.9, 0.2, 0.5]) == [[1, 0, 2]]


def test_extractive_summary_keeps_the_central_text_and_adds_only_new_sentences() -> None:
    texts = [
        "The deploy runs at night. It takes ten minutes.",
        "The deploy runs at night.",
        "Rollbacks need the release tag. 回滚需要发布标签。",
    ]
    vectors = np.array([[1, 0.1], [1, 0], [0.7, 0.7]], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    order = centrality_order(vectors)
    summary, covered = extractive_summary(texts, order, 500)
    assert summary.count("The deploy runs at night.") == 1
    assert "Rollbacks need the release tag." in summary and "回滚需要发布标签。" in summary
    assert sorted(covered) == [0, 1, 2]
    # What does not fit is not covered, so it will not be replaced by the summary.
    short, fits = extractive_summary(texts, order, 60)
    assert len(short) <= 60 and 2 not in fits and short.startswith(texts[order[0]])


@pytest.mark.parametrize(
    ("other", "covered"),
    [
        ("Bob prefers dark mode in the code editor.", False),  # another person is news
        ("Deploys go through the CI pipeline after Dana approves.", False),  # a qualifier is news
        ("The build uses port 5.", False),  # so is one digit
        ("Alice prefers the dark mode in the code editor!", True),  # the same words again are not
    ],
)
def test_a_sentence_is_redundant_only_when_all_its_content_words_are_already_said(
    other: str, covered: bool
) -> None:
    seed = " ".join(
        (
            "Alice prefers dark mode in the code editor.",
            "Deploys go through the CI pipeline.",
            "The build uses port 6.",
        )
    )
    summary, done = extractive_summary([seed, other], [0, 1], 1000)
    assert (summary == seed) is covered and done == [0, 1]


def observation(kind: str, age_days: float, actor: str, supports: bool = True) -> beliefs.Observation:
    return beliefs.Observation(kind=kind, at=1000 * DAY - age_days * DAY, actor=actor, supports=supports)


def test_belief_confidence_follows_the_sigmoid_with_contradictions_weighted_three_times() -> None:
    now = 1000 * DAY
    two = [observation("user_correction", 0, "a"), observation("automated", 0, "b")]
    found = beliefs.assess(two, now)
    assert found.confidence == pytest.approx(1 / (1 + math.exp(-1.4)), abs=1e-4)
    assert found.surfaced and found.independent == 2
    contradicted = beliefs.assess([*two, observation("automated", 0, "c", supports=False)], now)
    assert contradicted.confidence == pytest.approx(1 / (1 + math.exp(-(1.4 - 1.2))), abs=1e-4)
    # One writer saying it twice on one day is one independent observation: not surfaced.
    same = beliefs.assess(
        [observation("user_correction", 0, "a"), observation("user_correction", 0.01, "a")], now
    )
    assert same.independent == 1 and not same.surfaced
    # Decay: a year-old statement keeps only its provenance floor.
    old = beliefs.assess([observation("user_correction", 365, "a")], now)
    assert old.confidence == pytest.approx(1 / (1 + math.exp(-0.1)), abs=1e-4)


def test_observation_kinds_come_from_trust_and_type() -> None:
    assert beliefs.observation_kind(Trust.USER_STATED, "fact") == "user_correction"
    assert beliefs.observation_kind(Trust.AGENT_INFERRED, "preference") == "preference_signal"
    assert beliefs.observation_kind(Trust.TOOL_OBSERVED, "fact") == "tool_outcome"
    assert beliefs.observation_kind(Trust.IMPORTED, "fact") == "automated"


def test_insight_cards_pattern_trend_and_gap() -> None:
    now = 100 * DAY
    items = [insights.Tagged(f"p{i}", ["a", "b", "c", "d"], now - i * DAY) for i in range(5)]
    items += [insights.Tagged(f"t{i}", ["hot"], now - i * 3600) for i in range(6)]
    items += [insights.Tagged("t-old", ["hot"], now - 10 * DAY)]
    items += [insights.Tagged("g", ["quiet"], now - 45 * DAY)]
    items += [insights.Tagged(f"s{i}", ["steady"], now - i * 6 * DAY) for i in range(5)]
    cards = insights.insights(items, now)
    kinds = {(c.kind, tuple(c.tags)) for c in cards}
    assert ("pattern", ("a", "b", "c", "d")) in kinds  # one card for four shared tags, not four
    assert sum(1 for c in cards if c.kind == "pattern") == 1
    assert ("trend", ("hot",)) in kinds
    assert ("gap", ("quiet",)) in kinds
    assert ("trend", ("steady",)) not in kinds  # 2 in the last 7 days, 3 in the 23 before
    gap = next(c for c in cards if c.kind == "gap")
    assert gap.memory_ids == ["g"]
