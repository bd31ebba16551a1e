"""The learned screening signal: how likely a text is written to steer the agents that read it.

Two small models, averaged: a multilayer perceptron over the write's embedding (what a text means,
in any of the model's languages) and a logistic regression over hashed character 3- to 5-grams of
its readable view (how it is phrased: imperatives, paths, flags, URLs). Trained by
training/screening/train_head.py on text we and independent helpers wrote and on public licensed
injection corpora; the weights ship in the package (kenning/data/screening_head.json) and belong
to one embedding model.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from kenning.core.screening import readable

RULES_ONLY = "screening_rules_only"
HEAD_FILE = "screening_head.json"
GRAM_SIZES = (3, 4, 5)
GRAM_DIM = 2**14
# n-grams are read from the first GRAM_CHARS characters: a few milliseconds at most per write.
GRAM_CHARS = 2000


def hashed_grams(text: str, dim: int = GRAM_DIM) -> np.ndarray:
    """Counts of the character n-grams of `text`'s readable view (lower-cased, padded with spaces),
    hashed into `dim` buckets (CRC-32) and scaled to unit length."""
    view = " " + readable(text[:GRAM_CHARS]).lower() + " "
    counts = np.zeros(dim, dtype=np.float32)
    buckets = [
        zlib.crc32(view[i : i + n].encode("utf-8")) % dim
        for n in GRAM_SIZES
        for i in range(len(view) - n + 1)
    ]
    np.add.at(counts, buckets, 1.0)
    norm = float(np.linalg.norm(counts))
    return counts / norm if norm else counts


def _sigmoid(value: float) -> float:
    return float(1.0 / (1.0 + np.exp(-value)))


@dataclass(frozen=True, slots=True)
class LearnedScreen:
    model: str
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]  # the perceptron: ReLU between layers
    grams: tuple[np.ndarray, float]  # the n-gram regression: weights, bias
    threshold: float  # a score from here flags the memory
    certain: float  # and from here quarantines it (the policy permitting)

    def meaning(self, vector: np.ndarray) -> float:
        values = np.asarray(vector, dtype=np.float32)
        for index, (weights, bias) in enumerate(self.layers):
            values = values @ weights + bias
            if index < len(self.layers) - 1:
                values = np.maximum(values, 0.0)
        return _sigmoid(float(values.reshape(-1)[0]))

    def phrasing(self, text: str) -> float:
        weights, bias = self.grams
        return _sigmoid(float(hashed_grams(text, len(weights)) @ weights) + bias)

    def score(self, vector: np.ndarray, text: str) -> float:
        return (self.meaning(vector) + self.phrasing(text)) / 2


@cache
def learned_screen(model: str) -> LearnedScreen | None:
    """The packaged classifier for this embedding model, or None when none was trained for it."""
    source = resources.files("kenning") / "data" / HEAD_FILE
    if not source.is_file():
        return None
    data = json.loads(source.read_text(encoding="utf-8"))
    if data["model"] != model:
        return None
    layers = tuple(
        (np.asarray(layer["weights"], dtype=np.float32), np.asarray(layer["bias"], dtype=np.float32))
        for layer in data["layers"]
    )
    grams = (np.asarray(data["grams"]["weights"], dtype=np.float32), float(data["grams"]["bias"]))
    return LearnedScreen(
        model=data["model"],
        layers=layers,
        grams=grams,
        threshold=float(data["threshold"]),
        certain=float(data["quarantine_threshold"]),
    )
