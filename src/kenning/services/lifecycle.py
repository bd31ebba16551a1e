"""maintain: one lifecycle run over a namespace: consolidate, summarise old episodes, forget, find insights.

A run first plans everything from one read of the namespace, then (unless it is a dry run) applies the
plan. A dry run writes nothing at all, not even its report. A real run holds a lease so two maintainers
never work on one namespace at once, applies each step in its own transaction, skips any memory that
changed since it was read, and keeps its report for `status`.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from kenning.core import insights as insight_rules
from kenning.core import limits
from kenning.core.conflict import judge
from kenning.core.consolidation import centrality_order, extractive_summary, group, similar_pairs
from kenning.core.decay import record_idle_days, record_strength
from kenning.core.errors import ConflictError, InvalidInput, KenningError
from kenning.core.forgetting import Decision, MemoryVitals, check_policy, decide
from kenning.core.ids import new_ulid
from kenning.core.ontology import base_type
from kenning.core.records import (
    TRUST_WEIGHT,
    AuditEntry,
    Edge,
    EdgeType,
    MemoryRecord,
    MemoryState,
)
from kenning.core.screening import inspect
from kenning.core.text import content_hash
from kenning.core.validation import merge_labels
from kenning.ports.store import GroupChange, StateChange, StoredVector
from kenning.services.deps import Caller, Deps

logger = logging.getLogger(__name__)

STEPS = ("consolidate", "episodes", "forget", "insights")
ACTOR = "kenning-maintenance"
_LEASE_TTL_S = 900.0
# Never consolidated: verbatim records of what happened, and what maintenance itself wrote.
_NOT_CONSOLIDATED = ("episode", "summary", "topic")
_GROUP_MAX = 20
_REPORTED_ACTIONS = 500  # per-memory lines kept in a report; counts always cover everything


@dataclass(slots=True)
class MaintenanceRequest:
    dry_run: bool = True
    policy: str | None = None  # keep | archive | delete; None: the configured one
    steps: Sequence[str] = STEPS
    list_all: bool = False  # every memory's decision, keeps included, with no cap on the list


@dataclass(slots=True)
class PlannedSummary:
    kind: str  # duplicates | related | compress | episodes
    sources: list[str]
    content: str
    method: str  # extractive | summarizer model id | merge (the strongest source absorbs the others)
    survivor: str | None = None
    id: str | None = None


@dataclass(slots=True)
class MaintenanceReport:
    namespace: str
    dry_run: bool
    policy: str
    steps: list[str]
    started_at: float
    seconds: float = 0.0
    scanned: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)
    actions: list[dict[str, Any]] = field(default_factory=list)
    summaries: list[dict[str, Any]] = field(default_factory=list)
    insights: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    used_bytes_before: int = 0  # pages of the store file in use (the file itself only shrinks by VACUUM)
    used_bytes_after: int = 0
    active_after: int = 0
    run_id: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_steps(steps: Sequence[str]) -> list[str]:
    if isinstance(steps, str):
        raise InvalidInput("steps", "must be a list of step names")
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        raise InvalidInput("steps", f"unknown step {unknown[0]!r}; valid steps: {', '.join(STEPS)}")
    if not steps:
        raise InvalidInput("steps", f"must name at least one of: {', '.join(STEPS)}")
    return [s for s in STEPS if s in steps]


def maintain(
    deps: Deps,
    caller: Caller,
    request: MaintenanceRequest,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> MaintenanceReport:
    """One run; `cancelled` is asked between groups, so a stopping server ends a run between two
    atomic steps rather than in the middle of one."""
    policy = check_policy(request.policy or deps.lifecycle.forgetting.policy)
    steps = check_steps(request.steps)
    started = deps.clock.now()
    began = time.perf_counter()
    report = MaintenanceReport(
        namespace=caller.namespace, dry_run=request.dry_run, policy=policy, steps=steps, started_at=started
    )
    report.used_bytes_before = deps.store.stats(None).used_bytes
    holder = f"{caller.agent_id}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    lease = f"maintenance:{caller.namespace}"
    if not request.dry_run:
        current = deps.store.acquire_lease(lease, holder, started, _LEASE_TTL_S)
        if current is not None:
            raise ConflictError(
                f"maintenance is already running on namespace {caller.namespace!r} (held by {current}); "
                "try again when it has finished",
                holder=current,
            )
    try:
        plan = _Plan(deps, caller, policy, started, report, request.list_all)
        plan.build(steps)
        if not request.dry_run:
            plan.apply(lambda: _still_held(deps, lease, holder) and not cancelled())
        report.seconds = round(time.perf_counter() - began, 3)
        report.used_bytes_after = deps.store.stats(None).used_bytes
        report.active_after = deps.store.stats(None, caller.namespace).by_state.get(
            MemoryState.ACTIVE.value, 0
        )
        if not request.dry_run:
            report.run_id = deps.store.save_run(
                caller.namespace, started, deps.clock.now(), _kept_form(report.as_dict())
            )
    finally:
        if not request.dry_run:
            try:
                deps.store.release_lease(lease, holder)
            except KenningError as exc:  # the lease expires by itself; the run's work is done
                logger.warning("maintenance lease not released: %s", exc)
    return report


def _still_held(deps: Deps, lease: str, holder: str) -> bool:
    """Renew the lease; False if another maintainer took it over (this run then stops)."""
    return deps.store.acquire_lease(lease, holder, deps.clock.now(), _LEASE_TTL_S) is None


def _kept_form(report: dict[str, Any]) -> dict[str, Any]:
    """What a kept report holds: the figures, not the per-memory lists (which the caller got) nor the
    store-wide byte counts (which are not the namespace's to see)."""
    dropped = ("actions", "summaries", "insights", "used_bytes_before", "used_bytes_after")
    kept = {k: v for k, v in report.items() if k not in dropped}
    kept["summaries"] = len(report["summaries"])
    kept["insights"] = len(report["insights"])
    return kept


class _Plan:
    def __init__(
        self, deps: Deps, caller: Caller, policy: str, now: float, report: MaintenanceReport, list_all: bool
    ) -> None:
        self.deps = deps
        self.list_all = list_all
        self.caller = caller
        self.policy = policy
        self.now = now
        self.report = report
        self.records = {r.id: r for r in deps.store.scan(caller.namespace, [MemoryState.ACTIVE])}
        report.scanned = len(self.records)
        self.strength = {r.id: record_strength(deps.lifecycle.decay, r, now) for r in self.records.values()}
        self.summaries: list[PlannedSummary] = []
        self.decisions: list[Decision] = []
        self.model: str | None = None
        self.vectors: dict[str, npt.NDArray[np.float32]] = {}
        self.edges = deps.store.edges_of(list(self.records)) if self.records else []
        # A protected neighbour (pinned, important, recently used) counts as strong, however faded.
        vitality = {i: 1.0 if self._protected(r) else self.strength[i] for i, r in self.records.items()}
        self.neighbours: dict[str, list[float]] = {}
        self.history_heads: set[str] = set()  # memories that summarise or replace others
        for edge in self.edges:
            if edge.type in (EdgeType.SUPERSEDES, EdgeType.DERIVED_FROM):
                self.history_heads.add(edge.src)
            if edge.type in (EdgeType.SUPERSEDES, EdgeType.CONTRADICTS):
                continue
            for here, there in ((edge.src, edge.dst), (edge.dst, edge.src)):
                if there in vitality:
                    self.neighbours.setdefault(here, []).append(vitality[there])

    # -- planning ---------------------------------------------------------------------------------

    def build(self, steps: Sequence[str]) -> None:
        if self.records and ({"consolidate", "episodes", "forget"} & set(steps)):
            self._load_vectors()
        if "consolidate" in steps:
            self._plan_consolidation()
        if "episodes" in steps:
            self._plan_episodes()
        if "forget" in steps:
            self._plan_forgetting()
        if "insights" in steps:
            items = [
                insight_rules.Tagged(id=r.id, tags=r.tags, at=r.created_at)
                for r in self.records.values()
                if r.tags
            ]
            self.report.insights = [asdict(card) for card in insight_rules.insights(items, self.now)]
        self._summarise_report()

    def _load_vectors(self) -> None:
        try:
            self.model = self.deps.embeddings.model_id()
        except KenningError as exc:
            self.model = None
            self.report.notes.append(f"embedder unavailable: {exc.message}")
        if self.model is None:
            self.report.notes.append(
                "keyword_only: no vectors, so no memories were grouped; forgetting ran without compression"
            )
            return
        found = self.deps.store.vectors_of(self.model, list(self.records))
        for memory_id, vector in found.items():
            norm = float(np.linalg.norm(vector))
            if norm > 0:
                self.vectors[memory_id] = (vector / norm).astype(np.float32)

    def _protected(self, record: MemoryRecord) -> bool:
        rules = self.deps.lifecycle.forgetting
        recent = record_idle_days(record, self.now) < rules.recent_days
        return record.pinned or record.importance >= rules.keep_importance or recent

    def _bridge(self, memory_id: str) -> bool:
        rules = self.deps.lifecycle.forgetting
        strong = sum(1 for s in self.neighbours.get(memory_id, ()) if s >= rules.bridge_strength)
        return strong >= rules.bridge_neighbours

    def _groups(self, ids: list[str], threshold: float) -> list[list[str]]:
        ids = [i for i in ids if i in self.vectors]
        if len(ids) < 2 or self.model is None:
            return []
        matrix = np.stack([self.vectors[i] for i in ids])
        limits = self.deps.conflicts.thresholds_for(self.model)
        texts = [self.records[i].content for i in ids]

        def compatible(a: int, b: int) -> bool:
            cosine = float(matrix[a] @ matrix[b])
            return judge(texts[a], texts[b], cosine, limits).verdict != "conflict"

        found = group(
            similar_pairs(matrix, threshold),
            [self.strength[i] for i in ids],
            compatible=compatible,
            max_size=_GROUP_MAX,
        )
        return [[ids[i] for i in members] for members in found]

    def _plan_consolidation(self) -> None:
        if self.model is None:
            return
        limits = self.deps.conflicts.thresholds_for(self.model)
        weak = self.deps.lifecycle.consolidate_below
        candidates = [
            r.id
            for r in self.records.values()
            if base_type(r.type) not in _NOT_CONSOLIDATED
            and not self._protected(r)
            and not self._bridge(r.id)
        ]
        for members in self._groups(candidates, min(limits.duplicate, limits.related)):
            matrix = np.stack([self.vectors[i] for i in members])
            closest = float((matrix @ matrix.T).min())
            if closest >= limits.duplicate:
                self._summarise("duplicates", members, matrix)
            elif all(self.strength[i] < weak for i in members):
                self._summarise("related", members, matrix)

    def _plan_episodes(self) -> None:
        days = self.deps.lifecycle.episode_days
        summarised = {e.dst for e in self.edges if e.type is EdgeType.DERIVED_FROM}
        sessions: dict[str, list[MemoryRecord]] = {}
        for record in self.records.values():
            if base_type(record.type) != "episode" or record.id in summarised:
                continue
            if record_idle_days(record, self.now) < days:
                continue
            day = time.strftime("%Y-%m-%d", time.gmtime(record.event_time))
            key = record.session_id or f"{record.agent_id}@{day}"
            sessions.setdefault(key, []).append(record)
        for key in sorted(sessions):
            turns = sorted(sessions[key], key=lambda r: (r.event_time, r.id))
            if len(turns) < 2:
                continue
            ids = [t.id for t in turns]
            with_vectors = [i for i in ids if i in self.vectors]
            matrix = (
                np.stack([self.vectors[i] for i in with_vectors]) if len(with_vectors) == len(ids) else None
            )
            first = time.strftime("%Y-%m-%d", time.gmtime(turns[0].event_time))
            last = time.strftime("%Y-%m-%d", time.gmtime(turns[-1].event_time))
            span = first if first == last else f"{first} to {last}"
            self._summarise("episodes", ids, matrix, heading=f"Session {key} ({span}, {len(ids)} entries):")

    def _plan_forgetting(self) -> None:
        rules = replace(self.deps.lifecycle.forgetting, policy=self.policy)
        compress: list[str] = []
        # Memories grouped in this run are settled by their group; the next run judges the survivors.
        consolidated = {s for planned in self.summaries for s in (*planned.sources, planned.survivor) if s}
        for record in self.records.values():
            if record.id in consolidated:
                continue
            decision = decide(
                rules,
                MemoryVitals(
                    id=record.id,
                    strength=self.strength[record.id],
                    idle_days=record_idle_days(record, self.now),
                    importance=record.importance,
                    pinned=record.pinned,
                    ever_accessed=record.access_count > 0,
                    neighbour_strengths=self.neighbours.get(record.id, ()),
                ),
            )
            if decision.action == "delete" and record.id in self.history_heads:
                # Deleting a summary would leave the memories it replaced with nothing pointing at them.
                decision = replace(
                    decision,
                    action="archive",
                    reason=f"{decision.reason}; archived, not deleted: it holds the "
                    "history of the memories it replaced",
                )
            if decision.action == "compress":
                compress.append(record.id)
            else:
                self.decisions.append(decision)
        grouped: set[str] = set()
        if compress and self.model is not None:
            limits = self.deps.conflicts.thresholds_for(self.model)
            for members in self._groups(compress, limits.related):
                before = len(self.summaries)
                self._summarise("compress", members, np.stack([self.vectors[i] for i in members]))
                # Only what the summary took is settled; a member it could not hold is archived below.
                for planned in self.summaries[before:]:
                    grouped.update(i for i in (*planned.sources, planned.survivor) if i)
        for memory_id in compress:
            if memory_id in grouped:
                continue
            self.decisions.append(
                Decision(
                    id=memory_id,
                    action="archive",
                    reason="cold and weak; nothing similar to compress it with, so it is archived",
                    strength=round(self.strength[memory_id], 6),
                )
            )

    def _summarise(
        self,
        kind: str,
        members: list[str],
        matrix: npt.NDArray[np.float32] | None,
        heading: str = "",
    ) -> None:
        texts = [self.records[i].content for i in members]
        order = centrality_order(matrix) if matrix is not None else list(range(len(members)))
        limit = self.deps.lifecycle.summary_max_chars
        body, covered = extractive_summary(texts, order, limit - len(heading) - 1)
        if kind == "episodes":
            # The turns stay as they are; the summary links to all of them, however much of each it quotes.
            if body:
                self.summaries.append(
                    PlannedSummary(
                        kind=kind, sources=members, content=f"{heading} {body}", method="extractive"
                    )
                )
            return
        if len(covered) < 2:
            return  # nothing but the seed fits: no group, nothing replaced
        sources = [members[i] for i in covered]
        if body.strip() == texts[order[0]].strip():
            # Every word the others say, the most central one says already: it absorbs them.
            survivor = members[order[0]]
            rest = [i for i in sources if i != survivor]
            self.summaries.append(
                PlannedSummary(kind=kind, sources=rest, content=body, method="merge", survivor=survivor)
            )
            return
        self.summaries.append(PlannedSummary(kind=kind, sources=sources, content=body, method="extractive"))

    def _summarise_report(self) -> None:
        report = self.report
        cap = None if self.list_all else _REPORTED_ACTIONS
        lines: list[dict[str, Any]] = []
        counts: dict[str, int] = {}
        for decision in self.decisions:
            if decision.action == "keep":
                reason = decision.reason.split(" (")[0].split(":")[0]
                report.kept[reason] = report.kept.get(reason, 0) + 1
                if self.list_all:
                    lines.append(asdict(decision))
                continue
            counts[decision.action] = counts.get(decision.action, 0) + 1
            lines.append(asdict(decision))
        for planned in self.summaries:
            key = "merged" if planned.survivor else f"summarised_{planned.kind}"
            counts[key] = counts.get(key, 0) + len(planned.sources)
            action = "supersede" if planned.kind in ("duplicates", "related") else "derive"
            if planned.kind == "compress":
                counts["compress"] = counts.get("compress", 0) + len(planned.sources)
            size = len(planned.sources) + bool(planned.survivor)
            lines.extend(
                {
                    "id": source,
                    "action": "compress" if planned.kind == "compress" else action,
                    "reason": f"{planned.kind} group of {size}",
                    "strength": round(self.strength[source], 6),
                }
                for source in planned.sources
            )
        counts["summaries"] = sum(1 for p in self.summaries if not p.survivor)
        report.counts = dict(sorted(counts.items()))
        report.summaries = [
            {
                "kind": p.kind,
                "sources": p.sources,
                "survivor": p.survivor,
                "method": p.method,
                "content": p.content,
            }
            for p in self.summaries
        ]
        report.actions = lines[:cap]
        if cap is not None and len(lines) > cap:
            report.notes.append(
                f"per-memory actions listed for the first {cap} of {len(lines)}; counts cover all"
            )

    # -- applying ---------------------------------------------------------------------------------

    def apply(self, go_on: Callable[[], bool]) -> None:
        """Apply the plan; each group is one transaction, and the counts become what was really done."""
        done: dict[str, int] = {}
        store = self.deps.store
        for planned in self.summaries:
            if not go_on():
                self.report.skipped.append("run stopped early (server stopping, or the lease was lost)")
                break
            try:
                self._apply_summary(planned)
            except KenningError as exc:  # changed, used or removed meanwhile; the summarizer; the embedder
                self.report.skipped.append(
                    f"{planned.kind} group of {len(planned.sources) + bool(planned.survivor)} "
                    f"({', '.join(planned.sources)}): {exc.message}"
                )
                continue
            key = "merged" if planned.survivor else f"summarised_{planned.kind}"
            done[key] = done.get(key, 0) + len(planned.sources)
            if planned.kind == "compress":
                done["compress"] = done.get("compress", 0) + len(planned.sources)
            if not planned.survivor:
                done["summaries"] = done.get("summaries", 0) + 1
        else:
            for action, method in (("archive", store.change_states), ("delete", store.delete_many)):
                wanted = [
                    self._change(d.id, MemoryState.ARCHIVED, {"reason": d.reason})
                    for d in self.decisions
                    if d.action == action
                ]
                finished = method(wanted, self.deps.clock.now(), ACTOR, f"maintenance_{action}")
                if finished:
                    done[action] = len(finished)
                missed = sorted({c.id for c in wanted} - set(finished))
                if missed:
                    self.report.skipped.append(
                        f"{action}: {len(missed)} memories changed or were used during the run and were left "
                        f"as they are: {', '.join(missed[:20])}{' ...' if len(missed) > 20 else ''}"
                    )
        done.setdefault("summaries", 0)
        self.report.counts = dict(sorted(done.items()))

    def _change(self, memory_id: str, state: MemoryState, detail: dict[str, Any]) -> StateChange:
        """A change that holds only while the memory is as it was read: same version, same use count."""
        record = self.records[memory_id]
        return StateChange(memory_id, state, record.version, detail, expected_access=record.access_count)

    def _apply_summary(self, planned: PlannedSummary) -> None:
        now = self.deps.clock.now()
        sources = [self.records[i] for i in planned.sources]
        episodes = planned.kind == "episodes"
        state = MemoryState.ARCHIVED if planned.kind == "compress" else MemoryState.SUPERSEDED
        if planned.survivor is None:
            planned.content, planned.method = self._better_summary(planned)
            record = self._summary_record(planned, sources, now)
            planned.id = record.id
        else:
            planned.id = planned.survivor
        why = {"by": planned.id, "reason": f"consolidated ({planned.kind})"}
        # Episodes stay active: the summary is read beside them, so they are only checked, not changed.
        changes = [] if episodes else [self._change(s.id, state, why) for s in sources]
        edges = [Edge(planned.id, s.id, EdgeType.DERIVED_FROM, 1.0, now) for s in sources]
        if not episodes and planned.kind != "compress":
            edges += [Edge(planned.id, s.id, EdgeType.SUPERSEDES, 1.0, now) for s in sources]
        if planned.survivor is None:
            vectors: list[StoredVector] = []
            embedded = self.deps.embeddings.passages([record.content])
            if embedded is not None:
                vectors.append(StoredVector(embedded[0], embedded[1][0]))
            audit = AuditEntry(
                now,
                ACTOR,
                record.namespace,
                "maintenance_summary",
                record.id,
                {"kind": planned.kind, "sources": planned.sources, "method": planned.method},
            )
            group = GroupChange(
                sources=changes, audit=audit, summary=record, summary_vectors=vectors, edges=edges
            )
        else:
            merged, audit = self._absorbed(planned.survivor, sources, now)
            group = GroupChange(
                sources=changes,
                audit=audit,
                survivor=(merged, self._change(planned.survivor, MemoryState.ACTIVE, {})),
                edges=edges,
            )
        action = "maintenance_compress" if planned.kind == "compress" else "maintenance_consolidate"
        self.deps.store.apply_group(group, now, ACTOR, action)
        self.report.summaries[self.summaries.index(planned)]["id"] = planned.id

    def _absorbed(
        self, survivor_id: str, sources: list[MemoryRecord], now: float
    ) -> tuple[MemoryRecord, AuditEntry]:
        """The surviving duplicate takes on the others' labels and use, as a repeated write would."""
        survivor = self.records[survivor_id]
        merged = replace(
            survivor,
            tags=merge_labels((r.tags for r in (survivor, *sources)), limits.TAGS_MAX),
            entities=merge_labels((r.entities for r in (survivor, *sources)), limits.ENTITIES_MAX),
            importance=max([survivor.importance, *(s.importance for s in sources)]),
            access_count=survivor.access_count + sum(s.access_count for s in sources),
            last_accessed_at=_latest([survivor, *sources]),
            updated_at=now,
            version=survivor.version + 1,
        )
        audit = AuditEntry(
            now,
            ACTOR,
            survivor.namespace,
            "maintenance_merge",
            survivor.id,
            {"absorbed": [s.id for s in sources]},
        )
        return merged, audit

    def _better_summary(self, planned: PlannedSummary) -> tuple[str, str]:
        """The summarizer's text if one is configured and answers; otherwise the extractive one."""
        summarizer = self.deps.summarizer
        if summarizer is None:
            return planned.content, planned.method
        texts = [self.records[i].content for i in planned.sources]
        try:
            text = summarizer.summarize(texts, self.deps.lifecycle.summary_max_chars).strip()
        except KenningError as exc:
            self.report.notes.append(f"summarizer failed, extractive summary kept: {exc.message}")
            return planned.content, planned.method
        if not text:
            self.report.notes.append("summarizer returned nothing, extractive summary kept")
            return planned.content, planned.method
        if inspect(text):
            # What a model writes is screened like any write; a summary must not carry instructions.
            self.report.notes.append("summarizer output read like instructions, extractive summary kept")
            return planned.content, planned.method
        return text[: self.deps.lifecycle.summary_max_chars], summarizer.model_id

    def _summary_record(
        self, planned: PlannedSummary, sources: list[MemoryRecord], now: float
    ) -> MemoryRecord:
        lowest = min(sources, key=lambda s: TRUST_WEIGHT[s.trust]).trust
        return MemoryRecord(
            id=new_ulid(int(now * 1000)),
            namespace=self.caller.namespace,
            content=planned.content,
            content_hash=content_hash(planned.content),
            type="summary",
            agent_id=ACTOR,
            created_at=now,
            updated_at=now,
            event_time=max(s.event_time for s in sources),
            subject=sources[0].subject if len({s.subject for s in sources}) == 1 else None,
            tags=merge_labels((s.tags for s in sources), limits.TAGS_MAX),
            entities=merge_labels((s.entities for s in sources), limits.ENTITIES_MAX),
            importance=max(s.importance for s in sources),
            # The summary carries its sources' use: a recalled fact stays "ever recalled" once folded in.
            access_count=0 if planned.kind == "episodes" else sum(s.access_count for s in sources),
            last_accessed_at=None if planned.kind == "episodes" else _latest(sources),
            trust=lowest,
            source=f"maintenance: {planned.kind} summary of {len(sources)} memories",
            metadata={"summary_of": planned.kind, "sources": len(sources), "method": planned.method},
        )


def _latest(records: Sequence[MemoryRecord]) -> float | None:
    used = [r.last_accessed_at for r in records if r.last_accessed_at is not None]
    return max(used) if used else None
