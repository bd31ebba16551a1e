"""`kenning bench year`: a simulated year of memory with weekly maintenance.

10,000 memories are written over 365 simulated days with a mix of types, importance, repeats, pinned
memories and recalls (real recalls through the service, which record access), and maintenance runs
every seventh day with deletion enabled for this run only. The bench prints what each run archived,
compressed, merged and deleted, its wall time, the store's size, and the share of important memories
(importance >= 0.8, or recalled in the last 30 days) still active at the end, which must be 100%.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kenning.bench.embedders import named_gate
from kenning.bench.machine import describe, machine_info
from kenning.bench.metrics import percentile
from kenning.core.decay import DAY
from kenning.core.records import MemoryState
from kenning.core.validation import MemoryDraft
from kenning.services.deps import Caller, Deps
from kenning.services.facade import Kenning
from kenning.services.lifecycle import MaintenanceRequest
from kenning.services.recall import RecallRequest

# As `kenning maintain` runs: the operator at the console.
CALLER = Caller(namespace="year", agent_id="year-bench", operator=True, console=True)
START = 1_767_225_600.0  # 2026-01-01T00:00:00Z

_TOPICS = (
    "auth service", "billing api", "search index", "ci pipeline", "staging database", "mobile app",
    "data warehouse", "onboarding flow", "frontend build", "kafka cluster", "payment gateway",
    "email service", "feature flags", "load balancer", "metrics stack", "backup job", "dns setup",
    "vpn access", "design system", "release process", "on-call rota", "cost report", "sso login",
    "image resizer", "rate limiter", "cache layer", "graphql gateway", "pdf export", "audit trail",
    "mobile push", "analytics events", "pricing page", "docs site", "test fixtures", "k8s cluster",
    "secrets vault", "log pipeline", "cron scheduler", "ml ranking", "support inbox",
)  # fmt: skip
_TECH = ("PostgreSQL", "Redis", "Kafka", "Go", "Rust", "TypeScript", "Python", "Terraform", "S3", "gRPC")
_PEOPLE = ("Alice", "Bogdan", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hiro", "Ines", "Jonas")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_ERRORS = ("a timeout", "an out-of-memory kill", "a null pointer", "a deadlock", "a TLS error")

# (type, share, templates): a mix like a team's agents write it.
_MIX: tuple[tuple[str, float, tuple[str, ...]], ...] = (
    ("fact", 0.28, (
        "The {topic} uses {tech} {n}",
        "{person} owns the {topic}",
        "The {topic} runs on host {host}",
        "Deploys of the {topic} happen on {day}",
    )),
    ("preference", 0.08, (
        "{person} prefers {tech} for the {topic}",
        "{person} wants reviews of the {topic} in the morning",
    )),
    ("decision", 0.10, (
        "We decided to move the {topic} to {tech}",
        "The {topic} will keep {n} days of history",
    )),
    ("observation", 0.14, (
        "The {topic} p95 latency was {n} ms on {day}",
        "The {topic} queue held {n} jobs at noon",
    )),
    ("error", 0.08, (
        "The {topic} crashed with {error} after release {n}",
        "The {topic} failed on {day} with {error}",
    )),
    ("learning", 0.06, (
        "Lesson: restart the {topic} workers before changing {tech}",
        "Lesson: the {topic} needs a warm cache after deploys",
    )),
    ("strategy", 0.03, ("To debug the {topic}, check the {tech} logs first",)),
    ("turn", 0.23, (
        "{person}: did anyone look at the {topic} today?",
        "{person}: the {topic} looks fine after the {tech} change",
        "{person}: I will pair with {other} on the {topic} tomorrow",
    )),
)  # fmt: skip


@dataclass(slots=True)
class _Clock:
    at: float

    def now(self) -> float:
        return self.at


def _text(rng: random.Random, template: str, topic: str) -> str:
    person, other = rng.sample(_PEOPLE, 2)
    return template.format(
        topic=topic,
        tech=rng.choice(_TECH),
        n=rng.randint(2, 900),
        person=person,
        other=other,
        host=f"node-{rng.randint(1, 60)}",
        day=rng.choice(_DAYS),
        error=rng.choice(_ERRORS),
    )


def _importance(rng: random.Random) -> float:
    roll = rng.random()
    if roll < 0.08:
        return round(rng.uniform(0.8, 1.0), 2)
    if roll < 0.25:
        return round(rng.uniform(0.6, 0.8), 2)
    return round(rng.uniform(0.1, 0.6), 2)


def _drafts_for_day(rng: random.Random, day: int, count: int, history: list[str]) -> list[MemoryDraft]:
    # Each topic has a season: it is hot for a while, so trends and gaps appear as in real work.
    season = [_TOPICS[(day // 30 + k) % len(_TOPICS)] for k in range(6)]
    drafts = []
    for index in range(count):
        if history and rng.random() < 0.05:  # a statement made again, as agents repeat what they learn
            content = rng.choice(history)
            drafts.append(MemoryDraft(content=content, importance=_importance(rng)))
            continue
        roll, total = rng.random(), 0.0
        kind, templates = _MIX[-1][0], _MIX[-1][2]
        for name, share, options in _MIX:
            total += share
            if roll < total:
                kind, templates = name, options
                break
        topic = rng.choice(season) if rng.random() < 0.6 else rng.choice(_TOPICS)
        content = _text(rng, rng.choice(templates), topic)
        slug = topic.replace(" ", "-")
        tags = [f"proj:{slug}", f"kind:{kind}"] + (
            [f"team:{rng.choice('abcd')}"] if rng.random() < 0.5 else []
        )
        drafts.append(
            MemoryDraft(
                content=content,
                type=kind,
                tags=tags,
                importance=_importance(rng),
                pinned=rng.random() < 0.01,
                session_id=f"day-{day}-{index % 4}" if kind == "turn" else None,
                event_time=START + day * DAY + index * 60,
            )
        )
        if kind != "turn":
            history.append(content)
    return drafts


def run_year_bench(
    *,
    memories: int,
    days: int,
    recalls_per_day: int,
    every: int,
    embedder: str,
    cache_dir: Path,
    seed: int,
    json_path: Path | None,
    echo: Callable[[str], None],
) -> dict[str, Any]:
    from kenning.adapters.sqlite_store import SqliteStore

    gate = named_gate(embedder, cache_dir)
    model = gate.model_id() or "none (keyword-only)"
    rng = random.Random(seed)  # noqa: S311 - a reproducible simulation, not secrets
    clock = _Clock(START)
    per_day = [memories // days + (1 if d < memories % days else 0) for d in range(days)]
    runs: list[dict[str, Any]] = []
    history: list[str] = []
    high: set[str] = set()  # written with importance >= 0.8 (checked even if they vanished)
    violations = 0
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        app = Kenning(Deps(store=SqliteStore(Path(scratch) / "year.db"), embeddings=gate, clock=clock))
        try:
            written = 0
            for day in range(days):
                clock.at = START + day * DAY + 9 * 3600
                drafts = _drafts_for_day(rng, day, per_day[day], history)
                for outcome in app.remember_many(CALLER, drafts):
                    written += 1
                    if outcome.record.importance >= 0.8:
                        high.add(outcome.record.id)
                for _ in range(recalls_per_day):
                    topic = rng.choice(_TOPICS[: 6 + day // 30])
                    app.recall(CALLER, RecallRequest(query=f"what do we know about the {topic}", limit=5))
                if every and day % every == every - 1:
                    clock.at = START + day * DAY + 23 * 3600
                    guarded = _important(app, high, clock.at)
                    report = app.maintain(CALLER, MaintenanceRequest(dry_run=False, policy="delete"))
                    violations += len(guarded) - _still_active(app, guarded)
                    runs.append(
                        {
                            "day": day + 1,
                            "seconds": report.seconds,
                            "scanned": report.scanned,
                            "counts": report.counts,
                            "used_bytes_before": report.used_bytes_before,
                            "used_bytes_after": report.used_bytes_after,
                            "skipped": report.skipped,
                            "important_before": len(guarded),
                        }
                    )
                    echo(
                        f"day {day + 1:>3}: scanned {report.scanned:>5} in {report.seconds:6.2f} s  "
                        f"{json.dumps(report.counts)}"
                    )
            store = app.deps.store
            everything = store.scan(CALLER.namespace, list(MemoryState))
            important = _important(app, high, clock.now())
            still_active = _still_active(app, important)
            by_state: dict[str, int] = {}
            for record in everything:
                by_state[record.state.value] = by_state.get(record.state.value, 0) + 1
            stats = store.stats(None)
        finally:
            app.close()
    totals: dict[str, int] = {}
    for run in runs:
        for key, value in run["counts"].items():
            totals[key] = totals.get(key, 0) + value
    seconds = [run["seconds"] for run in runs]
    output = {
        "machine": machine_info(),
        "model": model,
        "settings": {
            "memories": memories,
            "days": days,
            "recalls_per_day": recalls_per_day,
            "maintenance_every_days": every,
            "seed": seed,
        },
        "written": written,
        "runs": runs,
        "totals": totals,
        "maintenance_seconds": {
            "p50": round(statistics.median(seconds), 3) if seconds else None,
            "p95": round(percentile(seconds, 0.95), 3) if seconds else None,
            "max": round(max(seconds), 3) if seconds else None,
        },
        "store": {
            "records_at_end": len(everything),
            "by_state": by_state,
            "used_bytes_before_first_run": runs[0]["used_bytes_before"] if runs else None,
            "used_bytes_at_end": stats.used_bytes,
            "file_bytes_at_end": stats.size_bytes,
        },
        "important": {"count": len(important), "active": still_active,
                      "share_active": round(still_active / len(important), 4) if important else None,
                      "forgotten_by_any_run": violations},
        "wall_seconds": round(time.perf_counter() - began, 1),
    }  # fmt: skip
    for line in _summary(output):
        echo(line)
    if json_path is not None:
        json_path.write_text(json.dumps(output, indent=2))
    return output


def _important(app: Kenning, high: set[str], now: float) -> set[str]:
    """Ids that must stay active: importance >= 0.8, or recalled (or repeated) in the last 30 days."""
    recent = {
        r.id
        for r in app.deps.store.scan(CALLER.namespace, [MemoryState.ACTIVE])
        if r.last_accessed_at is not None and now - r.last_accessed_at <= 30 * DAY
    }
    return high | recent


def _still_active(app: Kenning, ids: set[str]) -> int:
    found = app.deps.store.get_many(sorted(ids))
    return sum(1 for memory_id in ids if memory_id in found and found[memory_id].state is MemoryState.ACTIVE)


def _summary(output: dict[str, Any]) -> list[str]:
    store, important, timing = output["store"], output["important"], output["maintenance_seconds"]
    return [
        f"machine: {describe(output['machine'])}",
        f"model:   {output['model']}",
        f"wrote {output['written']} memories over {output['settings']['days']} days; "
        f"{len(output['runs'])} maintenance runs, every {output['settings']['maintenance_every_days']} days "
        "(deletion enabled for this bench)",
        f"totals:  {json.dumps(output['totals'])}",
        f"maintenance wall time per run: p50 {timing['p50']} s, p95 {timing['p95']} s, max {timing['max']} s",
        f"store:   {store['records_at_end']} records at the end {json.dumps(store['by_state'])}; "
        f"used bytes {store['used_bytes_before_first_run']} before the first run, "
        f"{store['used_bytes_at_end']} at the end (file {store['file_bytes_at_end']})",
        f"important memories still active: {important['active']} / {important['count']} "
        f"({important['share_active']:.1%}); forgotten by any weekly run: {important['forgotten_by_any_run']}"
        if important["count"]
        else "important memories: none",
        f"wall time {output['wall_seconds']} s",
    ]
