"""The learned screening signal: how likely a text is written to steer the agents that read it.

Two small models, in a weighted mean: a multilayer perceptron over the write's embedding (what a text
means, in any of the model's languages) and a logistic regression over hashed character 3- to 5-grams
of its readable view (how it is phrased: imperatives, paths, flags, URLs). Where the engine gives them
(onnxruntime's does), the perceptron also reads the mean hidden states of five inner layers of the
encoder from the same run; where not, another perceptron reads the embedding alone, with thresholds
of its own. Each reading also says how much an instruction rule's match adds to its score. Trained by
training/screening/train_head.py on text we and independent helpers wrote and on public licensed
injection corpora; the weights ship in the package (kenning/data/screening_head.json) and belong to
one embedding model.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

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


def centred(features: np.ndarray, centre: np.ndarray, count: int) -> np.ndarray:
    """`features` (one row or many) less `centre`, each of its `count` equal blocks at unit length."""
    blocks = (features - centre).reshape(*features.shape[:-1], count, -1)
    norms = np.maximum(np.linalg.norm(blocks, axis=-1, keepdims=True), 1e-9)
    unit: np.ndarray = (blocks / norms).reshape(features.shape).astype(np.float32)
    return unit


def reading_of(layers: Sequence[int]) -> str:
    """What a perceptron over the pooled states of encoder `layers` and the embedding reads, in words."""
    if not layers:
        return "the embedding alone"
    return f"encoder layers {', '.join(map(str, layers))} and the embedding"


def _sigmoid(value: float) -> float:
    return float(1.0 / (1.0 + np.exp(-value)))


@dataclass(frozen=True, slots=True)
class Perceptron:
    """One reading of a text's meaning: a perceptron over the embedding, alone or with the hidden
    states of encoder `layers` before it, and the thresholds chosen for its score."""

    layers: tuple[int, ...]  # encoder layers whose pooled hidden states come before the vector
    # The mean of each block (a layer's state, the vector) over the training texts: every text's
    # blocks share a large common direction, which says nothing; each block is read centred, at unit
    # length.
    centre: np.ndarray
    weights: tuple[tuple[np.ndarray, np.ndarray], ...]  # ReLU between layers
    threshold: float  # a score from here flags the memory
    certain: float  # and from here quarantines it (the policy permitting)
    phrasing_weight: float  # the n-gram regression's share of the score, the perceptron's the rest
    rule_weight: float  # added to the score when an instruction rule matched (core/screening.WEIGHED)

    @property
    def reads(self) -> str:
        """What this reading reads, as a write's screening report names it."""
        return reading_of(self.layers)

    def meaning(self, features: np.ndarray) -> float:
        values = centred(np.asarray(features, dtype=np.float32), self.centre, len(self.layers) + 1)
        for index, (weights, bias) in enumerate(self.weights):
            values = values @ weights + bias
            if index < len(self.weights) - 1:
                values = np.maximum(values, 0.0)
        return _sigmoid(float(values.reshape(-1)[0]))


@dataclass(frozen=True, slots=True)
class LearnedScreen:
    model: str
    # The deeper reading first; the last reads the vector alone (any engine of the model gives it).
    perceptrons: tuple[Perceptron, ...]
    grams: tuple[np.ndarray, float]  # the n-gram regression: weights, bias

    @property
    def layers(self) -> tuple[int, ...]:
        """The encoder layers the best reading wants beside the vector."""
        return self.perceptrons[0].layers

    def phrasing(self, text: str) -> float:
        weights, bias = self.grams
        return _sigmoid(float(hashed_grams(text, len(weights)) @ weights) + bias)

    def judge(self, vector: np.ndarray, states: np.ndarray | None, text: str) -> tuple[float, Perceptron]:
        """The score of `text` (its embedding `vector`; `states` the hidden states of `layers`, or None
        when the engine could not read them) and the reading that gave it, whose thresholds apply."""
        reading = self.perceptrons[0] if states is not None else self.perceptrons[-1]
        if reading.layers:
            features = np.concatenate([np.asarray(states, dtype=np.float32), vector])
        else:
            features = np.asarray(vector, dtype=np.float32)
        weight = reading.phrasing_weight
        return (1 - weight) * reading.meaning(features) + weight * self.phrasing(text), reading


def perceptron_of(reading: dict[str, Any]) -> Perceptron:
    """A reading of the head file (as training/screening/train_head.py writes it) as a Perceptron."""
    return Perceptron(
        layers=tuple(int(n) for n in reading["reads"]),
        centre=np.asarray(reading["centre"], dtype=np.float32),
        weights=tuple(
            (np.asarray(layer["weights"], dtype=np.float32), np.asarray(layer["bias"], dtype=np.float32))
            for layer in reading["layers"]
        ),
        threshold=float(reading["threshold"]),
        certain=float(reading["quarantine_threshold"]),
        phrasing_weight=float(reading["phrasing_weight"]),
        rule_weight=float(reading["rule_weight"]),
    )


def grams_of(head: dict[str, Any]) -> tuple[np.ndarray, float]:
    """The head file's n-gram regression: weights, bias."""
    return np.asarray(head["grams"]["weights"], dtype=np.float32), float(head["grams"]["bias"])


@cache
def learned_screen(model: str) -> LearnedScreen | None:
    """The packaged classifier for this embedding model, or None when none was trained for it."""
    source = resources.files("kenning") / "data" / HEAD_FILE
    if not source.is_file():
        return None
    data = json.loads(source.read_text(encoding="utf-8"))
    if data["model"] != model:
        return None
    perceptrons = tuple(perceptron_of(reading) for reading in data["readings"])
    return LearnedScreen(model=data["model"], perceptrons=perceptrons, grams=grams_of(data))
