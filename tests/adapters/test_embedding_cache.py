"""The bench's embedding cache returns what the embedder would, the inner layers' states included,
and computes each text once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fakes import HashingEmbedder
from kenning.adapters.embedders.cache import CachingEmbedder
from kenning.ports.embedder import Vector


class _Layered(HashingEmbedder):
    """States that depend on the text and the layer: each layer's block is the vector times (layer + 1)."""

    def __init__(self, *, gives_states: bool = True) -> None:
        super().__init__()
        self.gives_states = gives_states
        self.layered: list[list[str]] = []

    def embed_passages_layers(
        self, texts: Sequence[str], layers: Sequence[int]
    ) -> tuple[Vector, Vector | None]:
        self.layered.append(list(texts))
        vectors = self.embed_passages(texts)
        if not self.gives_states:
            return vectors, None
        return vectors, np.concatenate([vectors * (n + 1) for n in layers], axis=1)


def test_states_are_remembered_beside_the_vectors(tmp_path: Path) -> None:
    inner = _Layered()
    cache = CachingEmbedder(inner, tmp_path / "cache.db")
    texts = ["billing listens on port 8443", "tea on Tuesdays"]
    direct = inner.embed_passages_layers(texts, (2, 5))
    first = cache.embed_passages_layers(texts, (2, 5))
    again = cache.embed_passages_layers([*texts, "a third text"], (2, 5))
    assert first[1] is not None and direct[1] is not None and np.allclose(first[1], direct[1])
    assert np.allclose(first[0], direct[0])
    assert inner.layered[1:] == [texts, ["a third text"]]  # each text computed once
    assert again[1] is not None and again[1].shape == (3, 2 * 128) and np.allclose(again[1][:2], first[1])
    # Other layers are other states: asked for, they are computed.
    other = cache.embed_passages_layers(texts, (7,))
    assert other[1] is not None and np.allclose(other[1], direct[0] * 8)
    assert cache.embed_passages(texts).shape == (2, 128) and inner.calls == 4  # the vectors were kept


def test_an_embedder_without_states_gets_none_and_its_vectors_are_kept(tmp_path: Path) -> None:
    inner = _Layered(gives_states=False)
    cache = CachingEmbedder(inner, tmp_path / "cache.db")
    vectors, states = cache.embed_passages_layers(["tea on Tuesdays"], (2,))
    assert states is None and vectors.shape == (1, 128)
    assert np.allclose(cache.embed_passages(["tea on Tuesdays"]), vectors) and inner.calls == 1
    plain = CachingEmbedder(HashingEmbedder(), tmp_path / "plain.db")
    assert plain.embed_passages_layers(["tea"], (2,))[1] is None
