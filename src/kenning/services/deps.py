"""What every use case needs: the store, the embedder gate, the clock, and who is calling."""

from __future__ import annotations

from dataclasses import dataclass

from kenning.ports.clock import Clock
from kenning.ports.store import MemoryStore
from kenning.services.embedding import EmbeddingGate


@dataclass(frozen=True, slots=True)
class Caller:
    """The principal a call acts for. The namespace comes from here, never from tool arguments."""

    namespace: str
    agent_id: str


@dataclass(frozen=True, slots=True)
class RetrievalParams:
    default_limit: int = 10
    token_budget: int = 4000
    candidates: int = 50
    rrf_k: float = 60.0


@dataclass(frozen=True, slots=True)
class Deps:
    store: MemoryStore
    embeddings: EmbeddingGate
    clock: Clock
    retrieval: RetrievalParams = RetrievalParams()
