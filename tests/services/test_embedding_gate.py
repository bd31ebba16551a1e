"""The gate keeps recent query vectors (asking the same again embeds nothing) and embeds what is
written where the composition root says."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from fakes import HashingEmbedder
from kenning.ports.embedder import Vector
from kenning.services.embedding import EmbeddingGate
from kenning.services.stages import stage, watching


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


class _BusyEmbedder(HashingEmbedder):
    """Burns some CPU a passage call and notes the thread it ran on."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        self.threads.append(threading.get_ident())
        started = time.thread_time()
        while time.thread_time() - started < 0.02:
            pass
        return super().embed_passages(texts)


def _on_a_thread_of_its_own(work: Callable[[], Vector]) -> Vector:
    out: list[Vector] = []
    worker = threading.Thread(target=lambda: out.append(work()))
    worker.start()
    worker.join()
    return out[0]


def test_what_is_written_is_embedded_where_the_runner_says_and_its_cpu_is_the_callers() -> None:
    """The embedding of a write moves to other threads (lower priority): the caller's stage log must
    still count its CPU time, or the server's CPU a call would be under-reported."""
    model = _BusyEmbedder()
    gate = EmbeddingGate(lambda: model, configured="test", passages_on=_on_a_thread_of_its_own)
    with watching() as tally, stage("embed"):
        embedded = gate.passages(["billing listens on port 8443"])
    assert embedded is not None and embedded[1].shape == (1, 128)
    assert model.threads and model.threads[0] != threading.get_ident()
    assert tally.as_ms()["embed"]["cpu_ms"] >= 20.0
    query = gate.query("which port does billing use")  # queries are embedded by the caller itself
    assert query is not None and len(model.threads) == 1


class _LayeredEmbedder(HashingEmbedder):
    """Says which inner layers it was asked for: each layer's state is a row of that layer's number."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[int, ...]] = []

    def embed_passages_layers(
        self, texts: Sequence[str], layers: Sequence[int]
    ) -> tuple[Vector, Vector | None]:
        self.asked.append(tuple(layers))
        states = np.repeat(np.asarray(layers, np.float32), 2)[None, :].repeat(len(texts), axis=0)
        return self.embed_passages(texts), states


def test_inner_layers_are_asked_of_an_embedder_that_has_them_in_the_same_call() -> None:
    layered = _LayeredEmbedder()
    gate = EmbeddingGate(lambda: layered, configured="test", passages_on=_on_a_thread_of_its_own)
    embedded = gate.passages_layers(["billing listens on port 8443", "tea on Tuesdays"], (3, 7))
    assert embedded is not None and layered.asked == [(3, 7)]
    model, vectors, states = embedded
    assert model == layered.model_id and vectors.shape == (2, 128)
    assert states is not None and states.tolist() == [[3, 3, 7, 7]] * 2
    plain = gate.passages(["tea on Tuesdays"])  # no layers asked: the plain call, no states
    assert plain is not None and layered.asked == [(3, 7)] and plain[1].shape == (1, 128)


def test_an_embedder_without_inner_layers_gives_vectors_and_says_none() -> None:
    gate = EmbeddingGate(HashingEmbedder, configured="test")
    embedded = gate.passages_layers(["billing listens on port 8443"], (3, 7))
    assert embedded is not None and embedded[1].shape == (1, 128) and embedded[2] is None
    assert EmbeddingGate(None, configured="none").passages_layers(["x"], (3,)) is None
