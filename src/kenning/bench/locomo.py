"""`kenning bench locomo`: turn-level retrieval on LoCoMo, categories 1-4, no LLM.

One fresh store per conversation; every turn is remembered through the normal write path with its
speaker, image caption and session time; every question is recalled read-only against its own
conversation, so no question can change another's ranking.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kenning.adapters.pg_url import redacted
from kenning.bench.embedders import named_gate
from kenning.bench.locomo_data import CATEGORIES, Conversation, LoadReport, load
from kenning.bench.machine import describe, machine_info
from kenning.bench.metrics import Tally, percentile
from kenning.core.decay import DAY
from kenning.core.validation import MemoryDraft
from kenning.ports.store import MemoryStore
from kenning.ports.tokens import TokenStore
from kenning.services.deps import Caller, Deps, RetrievalParams
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning
from kenning.services.lifecycle import MaintenanceRequest
from kenning.services.recall import RecallRequest

CALLER = Caller(namespace="locomo", agent_id="locomo-bench")


@dataclass(slots=True)
class FixedClock:
    """The bench's "now": the end of the conversation, so "last week" means what the speakers meant.

    Moved only for a maintenance run, which may happen some days after the conversation.
    """

    at: float

    def now(self) -> float:
        return self.at


def turn_content(speaker: str, text: str, caption: str | None) -> str:
    content = f"{speaker}: {text}"
    if caption:
        content += f" [shares an image: {caption}]"
    return content


def default_path() -> Path | None:
    """../shared/bench/locomo/locomo10-dev.json next to a checkout, if it is there."""
    for base in (Path.cwd(), *Path.cwd().parents):
        candidate = base.parent / "shared" / "bench" / "locomo" / "locomo10-dev.json"
        if candidate.is_file():
            return candidate
        if (base / ".git").exists():
            break
    return None


@dataclass(slots=True)
class VariantResult:
    name: str
    categories: dict[str, dict[str, Any]]
    overall: dict[str, Any]
    latency_ms: dict[str, float]
    maintenance: dict[str, int] | None = None  # what one maintenance run per store did, summed
    moved: dict[str, int] | None = None  # questions asked after a move there and back, and how many differ


def run_variant(
    name: str,
    conversations: Sequence[Conversation],
    gate: EmbeddingGate,
    params: RetrievalParams,
    *,
    remember_path: str = "bench",
    progress: Callable[[str], None] | None = None,
    maintain_after_days: float | None = None,
    store_url: str | None = None,
    migrate_through: str | None = None,
) -> VariantResult:
    """With `migrate_through` (a PostgreSQL URL), each filled store is moved there and back into a new
    SQLite file by `kenning migrate`'s service, each move verified, and every question is asked of the
    original and of the returned store: `moved` counts the questions whose answers differ."""
    tallies: dict[int, Tally] = {c: Tally() for c in CATEGORIES}
    overall = Tally()
    latencies: list[float] = []
    maintained: dict[str, int] | None = None if maintain_after_days is None else {}
    moved: dict[str, int] | None = None if migrate_through is None else {"questions": 0, "differing": 0}
    for convo in conversations:
        with tempfile.TemporaryDirectory() as scratch:
            store = _empty_store(Path(scratch) / "locomo.db", store_url)
            clock = FixedClock(convo.end_time)
            app = Kenning(Deps(store=store, embeddings=gate, clock=clock, retrieval=params))
            try:
                drafts = [
                    MemoryDraft(
                        content=turn_content(t.speaker, t.text, t.caption),
                        type="turn",
                        entities=[t.speaker],
                        subject=_name(t.speaker),
                        session_id=f"session-{t.session}",
                        event_time=t.time,
                        trust="user_stated",
                        source=f"locomo:{convo.sample_id}:{t.dia_id}",
                        metadata={"dia_id": t.dia_id},
                    )
                    for t in convo.turns
                ]
                dia_ids: dict[str, set[str]] = {}
                for start in range(0, len(drafts), 500):
                    outcomes = app.remember_many(CALLER, drafts[start : start + 500])
                    for draft, outcome in zip(drafts[start : start + 500], outcomes, strict=True):
                        dia_ids.setdefault(outcome.record.id, set()).add(str(draft.metadata["dia_id"]))
                if maintained is not None and maintain_after_days is not None:
                    clock.at = convo.end_time + maintain_after_days * DAY
                    report = app.maintain(CALLER, MaintenanceRequest(dry_run=False))
                    for key, value in report.counts.items():
                        maintained[key] = maintained.get(key, 0) + value
                    clock.at = convo.end_time
                returned = None
                if migrate_through is not None and moved is not None:
                    back = _moved_and_back(store, migrate_through, Path(scratch))
                    returned = Kenning(Deps(store=back, embeddings=gate, clock=clock, retrieval=params))
                for question in convo.questions:
                    asked = RecallRequest(query=question.text, limit=10, token_budget=50_000, touch=False)
                    began = time.perf_counter()
                    result = app.recall(CALLER, asked)
                    latencies.append((time.perf_counter() - began) * 1000)
                    ranked = [dia_ids.get(hit.record.id, set()) for hit in result.hits]
                    relevant = set(question.evidence)
                    tallies[question.category].add(ranked, relevant)
                    overall.add(ranked, relevant)
                    if returned is not None and moved is not None:
                        again = returned.recall(CALLER, asked)
                        moved["questions"] += 1
                        same = [(h.record.id, round(h.score, 9)) for h in again.hits] == [
                            (h.record.id, round(h.score, 9)) for h in result.hits
                        ]
                        moved["differing"] += not same
                if returned is not None:
                    returned.close()
            finally:
                app.close()
        if progress is not None:
            progress(f"{name}: {convo.sample_id} done")
    return VariantResult(
        name=name,
        categories={CATEGORIES[c]: {"count": t.count, **t.means()} for c, t in sorted(tallies.items())},
        overall={"count": overall.count, **overall.means()},
        latency_ms={
            "p50": round(percentile(latencies, 0.5), 1),
            "p95": round(percentile(latencies, 0.95), 1),
        },
        maintenance=maintained,
        moved=moved,
    )


def _moved_and_back(store: MemoryStore, url: str, scratch: Path) -> MemoryStore:
    """The store moved into the PostgreSQL database at `url` (emptied first) and from there into a new
    SQLite file, each move verified by counts and content hashes; the returned store is opened."""
    from kenning.adapters.pg_tokens import PgTokens
    from kenning.adapters.sqlite_store import SqliteStore
    from kenning.adapters.sqlite_tokens import SqliteTokens
    from kenning.services.migration import migrate

    there = _empty_store(scratch / "unused.db", url)
    back = SqliteStore(scratch / "returned.db")
    tokens: list[TokenStore] = [
        SqliteTokens(scratch / "locomo.db"),
        PgTokens(url),
        SqliteTokens(scratch / "returned.db"),
    ]
    try:
        migrate(store, there, tokens[0], tokens[1])
        migrate(there, back, tokens[1], tokens[2])
    finally:
        there.close()
        for opened in tokens:
            opened.close()
    return back


def _empty_store(path: Path, store_url: str | None) -> MemoryStore:
    """A SQLite file at `path`, or the PostgreSQL database at `store_url` emptied first."""
    if store_url is None:
        from kenning.adapters.sqlite_store import SqliteStore

        return SqliteStore(path)
    from kenning.adapters.pg_store import PostgresStore

    store = PostgresStore(store_url)
    store.load(iter(()), replace=True)
    return store


def _name(speaker: str) -> str | None:
    cleaned = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in speaker).strip("-")
    return cleaned or None


VARIANTS: dict[str, Callable[[RetrievalParams], RetrievalParams]] = {
    "bm25": lambda p: replace(p, channels=("bm25",), stages=()),
    "dense": lambda p: replace(p, channels=("dense",), stages=()),
    "hybrid": lambda p: replace(p, channels=("dense", "bm25", "cjk"), stages=()),
    "+context vectors": lambda p: replace(p, stages=()),
    "+conversation": lambda p: replace(p, stages=("conversation",)),
    "+second stage": lambda p: replace(p, stages=("conversation", "coverage", "question")),
    "+subject": lambda p: replace(p, stages=("conversation", "coverage", "question", "subject")),
    "+time": lambda p: replace(p, stages=("conversation", "coverage", "question", "subject", "time")),
    "full": lambda p: p,
}


def run_locomo_bench(
    *,
    path: Path,
    embedder: str,
    variants: Sequence[str],
    json_path: Path | None,
    cache_dir: Path,
    echo: Callable[[str], None],
    limit_conversations: int | None = None,
    maintain_after_days: float | None = None,
    store_url: str | None = None,
    migrate_through: str | None = None,
) -> dict[str, Any]:
    conversations, report = load(path)
    if limit_conversations is not None:
        conversations = conversations[:limit_conversations]
    # Queries are embedded afresh, so the latency figures include embedding the query.
    gate = named_gate(embedder, cache_dir, cache_queries=False)
    if embedder != "none" and gate.model_id() is None:
        raise ValueError(f"cannot measure with {embedder}: {gate.failure}")  # never a silent keyword-only run
    model = gate.model_id() or "none (keyword-only)"
    params = RetrievalParams()
    info = machine_info()
    echo(f"machine: {describe(info)}")
    echo(f"model:   {model}")
    where = f"postgresql ({redacted(store_url)})" if store_url else "sqlite (a file per conversation)"
    echo(f"store:   {where}")
    echo(_report_line(report))
    results = []
    for variant in variants:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
        result = run_variant(
            variant,
            conversations,
            gate,
            VARIANTS[variant](params),
            maintain_after_days=maintain_after_days,
            store_url=store_url,
            migrate_through=migrate_through,
        )
        if maintain_after_days is not None:
            result.name += f" after maintenance (+{maintain_after_days:g} d)"
        results.append(result)
        echo(_summary(result))
    output = {
        "data": str(path),
        "machine": info,
        "embedder": model,
        "store": "postgresql" if store_url else "sqlite",
        "settings": {
            "candidates": params.candidates,
            "rerank_depth": params.rerank_depth,
            "channels": list(params.channels),
            "stages": list(params.stages),
            "weights": dict(params.weights),
        },
        "evidence": {
            "questions_total": report.questions_total,
            "excluded_category_5": report.questions_excluded_category,
            "without_valid_evidence": report.questions_without_valid_evidence,
            "used": report.questions_used,
            "quirks": dict(report.quirks),
        },
        "variants": [
            {
                "name": r.name,
                "overall": r.overall,
                "categories": r.categories,
                "latency_ms": r.latency_ms,
                "maintenance": r.maintenance,
                "moved": r.moved,
            }
            for r in results
        ],
    }
    echo("")
    echo(markdown_table(output))
    if json_path is not None:
        json_path.write_text(json.dumps(output, indent=2))
    return output


def _report_line(report: LoadReport) -> str:
    quirks = ", ".join(f"{k}: {v}" for k, v in sorted(report.quirks.items())) or "none"
    return (
        f"data:    {report.conversations} conversations, {report.turns} turns, "
        f"{report.questions_used} questions "
        f"in categories 1-4 ({report.questions_excluded_category} adversarial excluded, "
        f"{report.questions_without_valid_evidence} without valid evidence); evidence quirks: {quirks}"
    )


def _summary(result: VariantResult) -> str:
    o = result.overall
    done = f" | maintenance did {json.dumps(result.maintenance)}" if result.maintenance is not None else ""
    if result.moved is not None:
        done += (
            f" | moved to PostgreSQL and back (verified): {result.moved['differing']} of "
            f"{result.moved['questions']} questions answered differently"
        )
    return (
        f"{result.name:>12}: Hit@1 {o['hit@1']:.3f} Hit@5 {o['hit@5']:.3f} Hit@10 {o['hit@10']:.3f} "
        f"R@5 {o['recall@5']:.3f} R@10 {o['recall@10']:.3f} NDCG@10 {o['ndcg@10']:.3f} "
        f"| p50 {result.latency_ms['p50']} ms p95 {result.latency_ms['p95']} ms{done}"
    )


def markdown_table(output: dict[str, Any]) -> str:
    names = list(CATEGORIES.values())
    header = "| variant | " + " | ".join(f"{n} H@5 / R@5" for n in names) + " | overall H@5 | overall R@5 "
    header += "| R@10 | NDCG@10 | p50 / p95 ms |"
    lines = [header, "|---" * (len(names) + 6) + "|"]
    for variant in output["variants"]:
        cats = variant["categories"]
        cells = [
            f"{cats[n]['hit@5']:.3f} / {cats[n]['recall@5']:.3f}" if cats[n]["count"] else "n/a"
            for n in names
        ]
        o = variant["overall"]
        lines.append(
            f"| {variant['name']} | "
            + " | ".join(cells)
            + f" | {o['hit@5']:.3f} | {o['recall@5']:.3f} | {o['recall@10']:.3f} | {o['ndcg@10']:.3f} "
            f"| {variant['latency_ms']['p50']} / {variant['latency_ms']['p95']} |"
        )
    counts = (
        ", ".join(f"{n} {output['variants'][0]['categories'][n]['count']}" for n in names)
        if output["variants"]
        else ""
    )
    lines.append("")
    lines.append(
        f"Questions: {counts}. Embedder: {output['embedder']}. Machine: {describe(output['machine'])}."
    )
    return "\n".join(lines)
