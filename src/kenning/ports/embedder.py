"""The embedding port: text in, L2-normalised float32 vectors out, tagged with the model that made them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


class Embedder(Protocol):
    @property
    def model_id(self) -> str:
        """Stable identifier of the model and its settings; vectors of different ids never mix."""
        ...

    @property
    def dim(self) -> int:
        """Dimension of the vectors this embedder returns."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        """(len(texts), dim) matrix for texts to be stored."""
        ...

    def embed_query(self, text: str) -> Vector:
        """(dim,) vector for a search query (asymmetric models add their query prefix)."""
        ...


class LayeredEmbedder(Embedder, Protocol):
    """An embedder that can also say what the encoder's inner layers made of a text: the learned
    screening signal reads them (a middle layer keeps more of how a text is phrased, whether it
    commands or reports, than the last one, which is trained to say what it is about)."""

    def embed_passages_layers(
        self, texts: Sequence[str], layers: Sequence[int]
    ) -> tuple[Vector, Vector | None]:
        """The vectors of `embed_passages` and, from the same run, the hidden states of the encoder
        `layers` (0 the first), each mean-pooled and L2-normalised, side by side; None for the second
        when the engine computing cannot read them."""
        ...
