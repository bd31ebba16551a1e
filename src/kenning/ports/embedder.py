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
