"""The gate keeps recent query vectors: asking the same again embeds nothing."""

from __future__ import annotations

import numpy as np
import pytest

from fakes import HashingEmbedder
from kenning.services.embedding import EmbeddingGate


def test_a_repeated_query_is_embedded_once() -> None:
    model = HashingEmbedder()
    gate = EmbeddingGate(lambda: model, configured="test")
    first = gate.query("which port does billing use")
    again = gate.query("which port does billing use")
    other = gate.query("which database does billing use")
    assert first is not None and again is not None and other is not None
    assert model.calls == 2
    assert np.array_equal(first[1], again[1])
    assert not np.array_equal(first[1], other[1])
    with pytest.raises(ValueError, match="read-only"):
        again[1][0] = 5.0  # one vector serves every caller: nobody may change it


def test_the_oldest_query_leaves_when_the_cache_is_full() -> None:
    model = HashingEmbedder()
    gate = EmbeddingGate(lambda: model, configured="test", query_cache=2)
    for text in ("alpha", "beta", "alpha", "gamma"):  # alpha was used again, so beta is the oldest
        gate.query(text)
    assert model.calls == 3
    gate.query("alpha")
    assert model.calls == 3
    gate.query("beta")
    assert model.calls == 4


def test_a_gate_without_a_cache_embeds_every_query() -> None:
    model = HashingEmbedder()
    gate = EmbeddingGate(lambda: model, configured="test", query_cache=0)
    for _ in range(3):
        gate.query("which port does billing use")
    assert model.calls == 3


def test_one_asker_never_gets_another_askers_cached_query() -> None:
    """A cached answer is faster: shared, it would tell an agent what another one had asked."""
    model = HashingEmbedder()
    gate = EmbeddingGate(lambda: model, configured="test")
    gate.query("who is being let go in March", asker="alice")
    gate.query("who is being let go in March", asker="mallory")
    assert model.calls == 2
    gate.query("who is being let go in March", asker="alice")
    assert model.calls == 2
