"""One object the entry points hold: the use cases bound to their dependencies."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from kenning.core.errors import (
    BackendUnavailable,
    Forbidden,
    InsufficientScope,
    InvalidInput,
    KenningError,
    NotFound,
)
from kenning.core.insights import Insight
from kenning.core.query import RecallResult
from kenning.core.records import AuditEntry, Conflict, Edge, MemoryRecord
from kenning.core.validation import MemoryDraft
from kenning.ports.store import pools_in_scope
from kenning.ports.tokens import TokenRecord, TokenStore
from kenning.services import consistency, maintenance, principals, records
from kenning.services import status as status_service
from kenning.services.beliefs import BeliefView, list_beliefs
from kenning.services.deps import Caller, Deps
from kenning.services.insights import KINDS, insights
from kenning.services.lifecycle import MaintenanceReport, MaintenanceRequest, maintain
from kenning.services.recall import RecallRequest, recall
from kenning.services.remember import RememberOutcome, remember, remember_many

logger = logging.getLogger(__name__)

_P = ParamSpec("_P")
_R = TypeVar("_R")

# The scope each operation needs at the least, named as the doors name the operation (an MCP tool, a
# REST endpoint). Some need more for some arguments: a purge, a maintenance run that is not a dry run.
OPERATION_SCOPES: dict[str, str] = {
    "remember": "write",
    "recall": "read",
    "get": "read",
    "update": "write",
    "forget": "write",
    "status": "read",
    "conflicts": "read",
    "resolve_conflict": "write",
    "link": "write",
    "explore_graph": "read",
    "review": "admin",
    "consolidate": "read",
    "insights": "read",
    "beliefs": "read",
    "chain": "read",
}


def require(caller: Caller, operation: str, scope: str | None = None) -> None:
    """The one scope check: every operation passes here before it touches the store. `scope` names
    more than the operation's own, for arguments that need more (a purge)."""
    needed = scope or OPERATION_SCOPES[operation]
    if needed not in caller.scopes:
        raise InsufficientScope(needed, operation)


def _in_pools(
    method: Callable[Concatenate[Kenning, Caller, _P], _R],
) -> Callable[Concatenate[Kenning, Caller, _P], _R]:
    """Run a use case with every store call bound to the caller's pools: a backend that enforces the
    binding in the database (PostgreSQL's row-level security) returns nothing of another pool even to a
    query that forgot its pool predicate. The operator's console is bound to none: it sees every pool."""

    @functools.wraps(method)
    def bound(self: Kenning, caller: Caller, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if caller.console:
            return method(self, caller, *args, **kwargs)
        with pools_in_scope(caller.readable):
            return method(self, caller, *args, **kwargs)

    return bound


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

    @_in_pools
    def remember(self, caller: Caller, draft: MemoryDraft) -> RememberOutcome:
        require(caller, "remember")
        return remember(self.deps, caller, draft)

    @_in_pools
    def remember_many(self, caller: Caller, drafts: Sequence[MemoryDraft]) -> list[RememberOutcome]:
        require(caller, "remember")
        return remember_many(self.deps, caller, drafts)

    @_in_pools
    def recall(self, caller: Caller, request: RecallRequest) -> RecallResult:
        require(caller, "recall")
        return recall(self.deps, caller, request)

    @_in_pools
    def get(self, caller: Caller, memory_id: str) -> MemoryRecord:
        require(caller, "get")
        return records.get(self.deps, caller, memory_id)

    @_in_pools
    def update(
        self, caller: Caller, memory_id: str, expected_version: int, patch: records.MemoryPatch
    ) -> records.UpdateOutcome:
        require(caller, "update")
        return records.update(self.deps, caller, memory_id, expected_version, patch)

    @_in_pools
    @_in_pools
    def forget(
        self,
        caller: Caller,
        memory_id: str,
        *,
        mode: str = "archive",
        confirm: bool = False,
        reason: str | None = None,
    ) -> records.ForgetOutcome:
        require(caller, "forget", "admin" if mode == "purge" else None)
        return records.forget(self.deps, caller, memory_id, mode=mode, confirm=confirm, reason=reason)

    @_in_pools
    def review(self, caller: Caller, memory_id: str, decision: str) -> MemoryRecord | None:
        require(caller, "review")
        return records.review(self.deps, caller, memory_id, decision)

    @_in_pools
    def audit(self, caller: Caller, memory_id: str, limit: int = 100) -> list[AuditEntry]:
        require(caller, "get")
        return records.audit(self.deps, caller, memory_id, limit)

    @_in_pools
    def chain(self, caller: Caller, memory_id: str) -> consistency.Chain:
        require(caller, "chain")
        return consistency.chain(self.deps, caller, memory_id)

    @_in_pools
    def conflicts(
        self, caller: Caller, *, status: str | None = "open", limit: int = 20, offset: int = 0
    ) -> list[Conflict]:
        require(caller, "conflicts")
        return consistency.list_conflicts(self.deps, caller, status=status, limit=limit, offset=offset)

    @_in_pools
    def conflicts_of(self, caller: Caller, memory_id: str) -> list[Conflict]:
        require(caller, "conflicts")
        return consistency.conflicts_of(self.deps, caller, memory_id)

    @_in_pools
    @_in_pools
    def resolve_conflict(
        self,
        caller: Caller,
        conflict_id: int,
        decision: str,
        *,
        winner: str | None = None,
        merged_content: str | None = None,
    ) -> consistency.Resolution:
        require(caller, "resolve_conflict")
        return consistency.resolve_conflict(
            self.deps, caller, conflict_id, decision, winner=winner, merged_content=merged_content
        )

    @_in_pools
    def link(self, caller: Caller, src: str, dst: str, edge_type: str, weight: float = 1.0) -> Edge:
        require(caller, "link")
        return consistency.link(self.deps, caller, src, dst, edge_type, weight)

    @_in_pools
    @_in_pools
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
        require(caller, "explore_graph")
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

    @_in_pools
    def maintain(
        self, caller: Caller, request: MaintenanceRequest, *, cancelled: Callable[[], bool] = lambda: False
    ) -> MaintenanceReport:
        require(caller, "consolidate", None if request.dry_run else "admin")
        if (
            request.policy == "delete"
            and not request.dry_run
            and not caller.console
            and self.deps.lifecycle.forgetting.policy != "delete"
        ):
            # An agent may not switch on permanent deletion for itself; the operator decides.
            raise InvalidInput(
                "policy",
                "deletion is off on this server; an operator enables it with "
                "KENNING_LIFECYCLE__POLICY=delete or runs `kenning maintain --policy delete`",
            )
        return maintain(self.deps, caller, request, cancelled=cancelled)

    @_in_pools
    def maintenance_runs(self, caller: Caller, limit: int = 5) -> list[dict[str, Any]]:
        require(caller, "status")
        return self.deps.store.runs(caller.namespace, limit)

    @_in_pools
    def beliefs(self, caller: Caller, *, min_confidence: float = 0.35, limit: int = 20) -> list[BeliefView]:
        require(caller, "beliefs")
        return list_beliefs(self.deps, caller, min_confidence=min_confidence, limit=limit)

    @_in_pools
    def insights(self, caller: Caller, *, kinds: Sequence[str] = KINDS, limit: int = 20) -> list[Insight]:
        require(caller, "insights")
        return insights(self.deps, caller, kinds=kinds, limit=limit)

    @_in_pools
    def status(self, caller: Caller, *, load_embedder: bool = True) -> status_service.StatusReport:
        require(caller, "status")
        report = status_service.status(self.deps, caller, load_embedder=load_embedder)
        for problem in self.store_problems:
            if problem not in report.degraded:
                report.degraded.append(problem)
        report.ok = not report.degraded
        return report

    # -- the operator's maintenance of the store ------------------------------------------------------

    @_in_pools
    def reindex(
        self, caller: Caller, *, vectors: str = "missing", progress: Callable[[int, int], None] | None = None
    ) -> maintenance.ReindexReport:
        self._operator_only(caller, "reindexing the store")
        return maintenance.reindex(self.deps, vectors=vectors, progress=progress)

    @_in_pools
    def rollback(
        self, caller: Caller, *, agent_id: str, since: float, until: float | None, dry_run: bool = True
    ) -> maintenance.RollbackReport:
        self._operator_only(caller, "rolling back a writer")
        end = self.deps.clock.now() if until is None else until
        return maintenance.rollback(
            self.deps, caller, agent_id=agent_id, since=since, until=end, dry_run=dry_run
        )

    @_in_pools
    def backup(self, caller: Caller, target: Path) -> Path:
        self._operator_only(caller, "a backup")
        return maintenance.backup(self.deps, target)

    @_in_pools
    def restore(self, caller: Caller, source: Path) -> Path:
        self._operator_only(caller, "a restore")
        return maintenance.restore(self.deps, source)

    def now(self) -> float:
        """The application's clock (what expiry and time windows are measured by)."""
        return self.deps.clock.now()

    # -- a long-running server ---------------------------------------------------------------------

    def warm_up(self) -> None:
        """Load the model and the screening classifier, then check the store in full: what a server does
        at start, so that the first calls do not pay for it and damage shows in status."""
        self.deps.embeddings.embedder()
        from kenning.services.screening import prepare_screening

        prepare_screening(self.deps.embeddings.model_id())  # not in the first write: about 0.4 s
        self.check_store()

    def readiness(self, warmed: bool) -> tuple[list[str], list[str]]:
        """What stops this server from answering now (an unreachable store, a model still loading), and
        how it answers degraded (keyword-only search when the model is off or failed to load)."""
        problems = []
        try:
            self.deps.store.namespaces()
        except KenningError as exc:
            problems.append(f"store: {exc.message}")
        if not warmed:
            problems.append("warming up: the embedding model is loading")
        return problems, self.deps.embeddings.degraded() if warmed else []

    def namespaces_due(self, interval_s: float) -> list[str]:
        """The namespaces whose last maintenance run finished more than `interval_s` ago (or never ran)."""
        store, now = self.deps.store, self.deps.clock.now()
        due = []
        for namespace in store.namespaces():
            last = store.runs(namespace, 1)
            if not last or now - float(last[0]["finished_at"]) >= interval_s:
                due.append(namespace)
        return due

    # -- principals (the HTTP server's tokens) ---------------------------------------------------

    def count_live_tokens(self) -> int:
        now = self.deps.clock.now()
        return sum(1 for token in self._tokens().all() if token.live(now))

    def authenticate(self, presented: str) -> Caller:
        """The principal of a Kenning token, or of an access token from the configured identity
        provider; `Unauthorized` for anything else."""
        if principals.is_kenning_token(presented) or self.deps.identity is None:
            return principals.authenticate(self._tokens(), self.deps.clock, presented)
        return principals.principal_from_claims(self.deps.identity.claims(presented.strip()))

    @property
    def identity_issuer(self) -> str | None:
        """The identity provider whose access tokens this server accepts, if one is configured."""
        return None if self.deps.identity is None else self.deps.identity.issuer

    @_in_pools
    def issue_token(self, caller: Caller, request: principals.TokenRequest) -> tuple[str, TokenRecord]:
        principals.check_may_manage(caller, "issuing a token")
        principals.check_may_issue(caller, request, self._tokens().all())
        return principals.issue(self._tokens(), self.deps.clock, request)

    @_in_pools
    def list_tokens(self, caller: Caller) -> list[TokenRecord]:
        principals.check_may_manage(caller, "listing tokens")
        return principals.manageable(caller, self._tokens().all())

    @_in_pools
    def revoke_token(self, caller: Caller, name: str) -> TokenRecord:
        principals.check_may_manage(caller, "revoking a token")
        if not any(token.name == name for token in principals.manageable(caller, self._tokens().all())):
            raise NotFound(f"no token named {name!r}")
        return principals.revoke(self._tokens(), self.deps.clock, name)

    @_in_pools
    def rotate_token(self, caller: Caller, name: str) -> tuple[str, TokenRecord]:
        self._operator_only(caller, "rotating a token")
        return principals.rotate(self._tokens(), self.deps.clock, name)

    def _tokens(self) -> TokenStore:
        if self.deps.tokens is None:
            raise BackendUnavailable("this server keeps no tokens")
        return self.deps.tokens

    @staticmethod
    def _operator_only(caller: Caller, what: str) -> None:
        if not caller.console or "admin" not in caller.scopes:
            raise Forbidden(f"{what} is for the operator (the `kenning token` command)")

    def close(self) -> None:
        if self.deps.tokens is not None:
            self.deps.tokens.close()
        self.deps.store.close()
        close = getattr(self.deps.summarizer, "close", None)
        if callable(close):
            close()
