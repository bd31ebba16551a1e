"""One object the entry points hold: the use cases bound to their dependencies."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from kenning.core.insights import Insight
from kenning.core.query import RecallResult
from kenning.core.records import Conflict, Edge, MemoryRecord
from kenning.core.validation import MemoryDraft
from kenning.services import consistency, records
from kenning.services import status as status_service
from kenning.services.beliefs import BeliefView, list_beliefs
from kenning.services.deps import Caller, Deps
from kenning.services.insights import KINDS, insights
from kenning.services.lifecycle import MaintenanceReport, MaintenanceRequest, maintain
from kenning.services.recall import RecallRequest, recall
from kenning.services.remember import RememberOutcome, remember, remember_many

logger = logging.getLogger(__name__)


class Kenning:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.store_problems: list[str] = []  # from the last full check (servers run one at start)

    def check_store(self) -> list[str]:
        """The full integrity and index check; its findings show in every status until the next check."""
        problems = self.deps.store.index_problems()
        model = self.deps.embeddings.model_id() if self.deps.embeddings.loaded else None
        if model is not None:
            problems += [p for p in self.deps.store.stats(model).health if p not in problems]
        self.store_problems = problems
        for problem in self.store_problems:
            logger.warning("store check: %s", problem)
        return self.store_problems

    def remember(self, caller: Caller, draft: MemoryDraft) -> RememberOutcome:
        return remember(self.deps, caller, draft)

    def remember_many(self, caller: Caller, drafts: Sequence[MemoryDraft]) -> list[RememberOutcome]:
        return remember_many(self.deps, caller, drafts)

    def recall(self, caller: Caller, request: RecallRequest) -> RecallResult:
        return recall(self.deps, caller, request)

    def get(self, caller: Caller, memory_id: str) -> MemoryRecord:
        return records.get(self.deps, caller, memory_id)

    def update(
        self, caller: Caller, memory_id: str, expected_version: int, patch: records.MemoryPatch
    ) -> records.UpdateOutcome:
        return records.update(self.deps, caller, memory_id, expected_version, patch)

    def forget(
        self,
        caller: Caller,
        memory_id: str,
        *,
        mode: str = "archive",
        confirm: bool = False,
        reason: str | None = None,
    ) -> records.ForgetOutcome:
        return records.forget(self.deps, caller, memory_id, mode=mode, confirm=confirm, reason=reason)

    def review(self, caller: Caller, memory_id: str, decision: str) -> MemoryRecord | None:
        return records.review(self.deps, caller, memory_id, decision)

    def chain(self, caller: Caller, memory_id: str) -> consistency.Chain:
        return consistency.chain(self.deps, caller, memory_id)

    def conflicts(
        self, caller: Caller, *, status: str | None = "open", limit: int = 20, offset: int = 0
    ) -> list[Conflict]:
        return consistency.list_conflicts(self.deps, caller, status=status, limit=limit, offset=offset)

    def resolve_conflict(
        self,
        caller: Caller,
        conflict_id: int,
        decision: str,
        *,
        winner: str | None = None,
        merged_content: str | None = None,
    ) -> consistency.Resolution:
        return consistency.resolve_conflict(
            self.deps, caller, conflict_id, decision, winner=winner, merged_content=merged_content
        )

    def link(self, caller: Caller, src: str, dst: str, edge_type: str, weight: float = 1.0) -> Edge:
        return consistency.link(self.deps, caller, src, dst, edge_type, weight)

    def explore_graph(
        self,
        caller: Caller,
        memory_id: str,
        *,
        depth: int = 1,
        edge_types: Sequence[str] = (),
        limit: int = 20,
        offset: int = 0,
        token_budget: int = 4000,
    ) -> consistency.Exploration:
        return consistency.explore_graph(
            self.deps,
            caller,
            memory_id,
            depth=depth,
            edge_types=edge_types,
            limit=limit,
            offset=offset,
            token_budget=token_budget,
        )

    def maintain(
        self, caller: Caller, request: MaintenanceRequest, *, cancelled: Callable[[], bool] = lambda: False
    ) -> MaintenanceReport:
        return maintain(self.deps, caller, request, cancelled=cancelled)

    def maintenance_runs(self, caller: Caller, limit: int = 5) -> list[dict[str, Any]]:
        return self.deps.store.runs(caller.namespace, limit)

    def beliefs(self, caller: Caller, *, min_confidence: float = 0.35, limit: int = 20) -> list[BeliefView]:
        return list_beliefs(self.deps, caller, min_confidence=min_confidence, limit=limit)

    def insights(self, caller: Caller, *, kinds: Sequence[str] = KINDS, limit: int = 20) -> list[Insight]:
        return insights(self.deps, caller, kinds=kinds, limit=limit)

    def status(self, caller: Caller, *, load_embedder: bool = True) -> status_service.StatusReport:
        report = status_service.status(self.deps, caller, load_embedder=load_embedder)
        for problem in self.store_problems:
            if problem not in report.degraded:
                report.degraded.append(problem)
        report.ok = not report.degraded
        return report

    def close(self) -> None:
        self.deps.store.close()
        close = getattr(self.deps.summarizer, "close", None)
        if callable(close):
            close()
