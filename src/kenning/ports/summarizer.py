"""An optional writer of summaries (an LLM behind an API); maintenance falls back to extractive ones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Summarizer(Protocol):
    @property
    def model_id(self) -> str: ...

    def summarize(self, texts: Sequence[str], max_chars: int) -> str:
        """One summary of `texts`, at most `max_chars` characters; raises BackendUnavailable on failure."""
        ...
