"""Test doubles for the logic above the ports. Acceptance tests use the real model instead."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from kenning.core.errors import BackendUnavailable
from kenning.core.text import cjk_runs, words
from kenning.ports.embedder import Vector


class HashingEmbedder:
    """Bag of words and CJK bigrams hashed into 128 dimensions: similar words give similar vectors."""

    def __init__(self, dim: int = 128) -> None:
        self._dim = dim
        self.calls = 0

    @property
    def model_id(self) -> str:
        return f"test:hashing:{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def _vector(self, text: str) -> Vector:
        vec = np.zeros(self._dim, dtype=np.float32)
        grams = words(text) + [run[i : i + 2] for run in cjk_runs(text) for i in range(max(1, len(run) - 1))]
        for gram in grams:
            digest = hashlib.blake2b(gram.encode(), digest_size=4).digest()
            vec[int.from_bytes(digest, "big") % self._dim] += 1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0:
            vec[0] = 1.0
            return vec
        return vec / norm

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        self.calls += 1
        return np.stack([self._vector(t) for t in texts]) if texts else np.empty((0, self._dim), np.float32)

    def embed_query(self, text: str) -> Vector:
        self.calls += 1
        return self._vector(text)


class FailingEmbedder(HashingEmbedder):
    """Loads, then fails every call as a remote endpoint that went down would."""

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        raise BackendUnavailable("embedding endpoint down")

    def embed_query(self, text: str) -> Vector:
        raise BackendUnavailable("embedding endpoint down")


class ManualClock:
    def __init__(self, start: float = 1_780_000_000.0) -> None:
        self.value = start

    def now(self) -> float:
        return self.value

    def advance(self, seconds: float) -> None:
        self.value += seconds
