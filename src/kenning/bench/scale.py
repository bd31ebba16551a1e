"""`kenning bench scale`: how remember and recall cost grows with the store, on SQLite and PostgreSQL.

A fresh store is filled to each size through `MemoryStore.load` (the bulk path `kenning migrate` uses),
with the synthetic memories of bench.synthetic. Embedding a million texts would take this machine days,
so the fill's vectors are synthetic but in the packaged model's space: each is a mix of two real
embeddings of fill texts plus noise (clustered, as real memories are). Planted needles are real texts
with real embeddings; every timed remember and recall embeds its text for real, through the facade.

At each size: fill throughput (with PostgreSQL's vacuum after the fill), remember and recall p50/p95 after
30 warm-up recalls, the store's size on disk, and the quality check (each needle's question finds it in
the top 10).
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kenning.bench.embedders import named_gate
from kenning.bench.machine import describe, machine_info
from kenning.bench.metrics import percentile
from kenning.bench.synthetic import memory_text, query_text
from kenning.core.decay import DAY
from kenning.core.ids import new_ulid
from kenning.core.records import MemoryRecord, Trust
from kenning.core.text import content_hash
from kenning.core.validation import MemoryDraft
from kenning.ports.clock import SystemClock
from kenning.ports.embedder import Vector
from kenning.ports.store import DumpBatch, MemoryStore, StoredVector
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest

CALLER = Caller(namespace="bench", agent_id="bench")
_BASE = 1024  # real embeddings the fill's vectors are mixed from
_BATCH = 2000
_WARM_UP = 30  # recalls before the timed ones, of queries of their own

# (memory, the question that must find it): distinctive facts a million fill memories do not hold.
NEEDLES: tuple[tuple[str, str], ...] = (
    (
        "The Zephyr-4711 rollback key is kept in the Nimbus vault",
        "where is the Zephyr-4711 rollback key kept",
    ),
    (
        "Quokka cluster backups are encrypted with the Tamarind keyring",
        "which keyring encrypts Quokka backups",
    ),
    ("Marguerite from legal signs off every Pelican export", "who signs off the Pelican exports"),
    (
        "The Obsidian feature flag must stay off until the Lisbon audit ends",
        "when may the Obsidian flag go on",
    ),
    (
        "Heliotrope nightly builds fail if the fjord cache exceeds 40 GB",
        "why do Heliotrope nightly builds fail",
    ),
    ("Customer Wexford Dairy pays invoices only by SEPA transfer", "how does Wexford Dairy pay its invoices"),
    (
        "The kiosk firmware for Bramble stores is signed with key KX-88",
        "which key signs the Bramble kiosk firmware",
    ),
    (
        "Saffron incident reviews happen on the first Thursday of each month",
        "when are Saffron incident reviews",
    ),
    ("The Gullwing importer skips rows whose currency is XDR", "which rows does the Gullwing importer skip"),
    ("Tundra's GPU quota is 12 A100s shared with the Borealis team", "what is Tundra's GPU quota"),
    ("Ingrid owns the Cormorant data retention policy", "who owns the Cormorant retention policy"),
    ("The Vesper mobile build needs Xcode 17.2 exactly", "which Xcode version does the Vesper build need"),
)


@dataclass(slots=True)
class Backend:
    name: str
    open_empty: Callable[[Path], MemoryStore]  # an empty store (in a scratch directory, or emptied)
    settle: Callable[[], None] = lambda: None  # the routine upkeep after a bulk fill, counted in its time


def sqlite_backend() -> Backend:
    from kenning.adapters.sqlite_store import SqliteStore

    return Backend("sqlite", lambda scratch: SqliteStore(scratch / "scale.db"))


def postgres_backend(url: str) -> Backend:
    """The database at `url`, emptied; after the fill it is vacuumed, as autovacuum would do soon after
    (run now, so that it does not run during the timed calls)."""
    import psycopg

    from kenning.adapters.pg_store import PostgresStore

    def emptied(_: Path) -> MemoryStore:
        store = PostgresStore(url)
        store.load(iter(()), replace=True)
        return store

    def vacuumed() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM (ANALYZE) memories, word_postings, vectors")

    return Backend("postgresql", emptied, vacuumed)


def _event_time(index: int) -> float:
    return time.time() - (index % 365) * DAY - 3600.0


def _fill(
    size: int, model: str, base: np.ndarray, needles: Sequence[tuple[str, Vector]], seed: int
) -> Iterator[DumpBatch]:
    """`size` memories in batches; the needles spread evenly among them."""
    rng = np.random.default_rng(seed)
    at = {int((k + 0.5) * size / len(needles)): needle for k, needle in enumerate(needles)}
    now_ms = int(time.time() * 1000)
    for start in range(0, size, _BATCH):
        batch = DumpBatch()
        count = min(size, start + _BATCH) - start
        mixed = (
            base[np.arange(start, start + count) % len(base)]
            + 0.5 * base[(np.arange(start, start + count) * 7919) % len(base)]
        )
        mixed += rng.normal(0.0, 0.02, size=mixed.shape).astype(np.float32)
        mixed /= np.linalg.norm(mixed, axis=1, keepdims=True)
        for offset in range(count):
            index = start + offset
            tags: list[str] = []
            if index in at:
                content, vector, type_ = at[index][0], at[index][1], "fact"
            else:
                content, type_, tags = memory_text(index)
                vector = mixed[offset]
            record = MemoryRecord(
                id=new_ulid(now_ms),
                namespace=CALLER.namespace,
                content=content,
                content_hash=content_hash(content),
                type=type_,
                agent_id=CALLER.agent_id,
                created_at=now_ms / 1000,
                updated_at=now_ms / 1000,
                event_time=_event_time(index),
                tags=tags,
                trust=Trust.AGENT_INFERRED,
            )
            batch.records.append(record)
            batch.vectors.append(
                (record.id, StoredVector(model=model, values=np.asarray(vector, np.float32)))
            )
        yield batch


def _embedded(gate: EmbeddingGate, texts: list[str]) -> np.ndarray:
    done = gate.passages(texts)
    if done is None:
        raise ValueError("the scale bench needs an embedding model; this one is keyword-only")
    return np.asarray(done[1], dtype=np.float32)


def _timed(action: Callable[[], object], runs: int) -> list[float]:
    took = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        took.append((time.perf_counter() - start) * 1000)
    return took


def measure_size(
    backend: Backend,
    size: int,
    gate: EmbeddingGate,
    base: np.ndarray,
    samples: int,
    echo: Callable[[str], None],
) -> dict[str, Any]:
    model = gate.model_id() or "none"
    needle_matrix = _embedded(gate, [text for text, _ in NEEDLES])
    needles = [(text, needle_matrix[k]) for k, (text, _) in enumerate(NEEDLES)]
    with tempfile.TemporaryDirectory() as scratch:
        store = backend.open_empty(Path(scratch))
        app = Kenning(Deps(store=store, embeddings=gate, clock=SystemClock()))
        try:
            began = time.perf_counter()
            written = store.load(_fill(size, model, base, needles, seed=size), replace=False)
            backend.settle()
            fill_s = time.perf_counter() - began
            echo(f"  {backend.name} {size}: filled in {fill_s:.0f} s ({written / fill_s:.0f} memories/s)")
            # Warm: a server that has been running (SQLite reads its vectors into memory here; PostgreSQL's
            # pages come into its buffers and the operating system's cache).
            for index in range(_WARM_UP):
                app.recall(CALLER, RecallRequest(query=query_text(900_000 + index), limit=10, touch=False))
            queries = iter([query_text(index) for index in range(samples)])
            recall_ms = _timed(
                lambda: app.recall(CALLER, RecallRequest(query=next(queries), limit=10, touch=False)), samples
            )
            found = 0
            needle_ms = []
            for text, question in NEEDLES:
                start = time.perf_counter()
                hits = app.recall(CALLER, RecallRequest(query=question, limit=10, touch=False)).hits
                needle_ms.append((time.perf_counter() - start) * 1000)
                found += any(hit.record.content == text for hit in hits)
            texts = iter([memory_text(5_000_000 + size + index)[0] for index in range(samples)])
            remember_ms = _timed(lambda: app.remember(CALLER, MemoryDraft(content=next(texts))), samples)
            disk = store.stats(None).size_bytes
        finally:
            app.close()
    row = {
        "backend": backend.name,
        "memories": size,
        "fill_seconds": round(fill_s, 1),
        "fill_per_second": round(written / fill_s),
        "remember_p50_ms": round(percentile(remember_ms, 0.5), 1),
        "remember_p95_ms": round(percentile(remember_ms, 0.95), 1),
        "recall_p50_ms": round(percentile(recall_ms, 0.5), 1),
        "recall_p95_ms": round(percentile(recall_ms, 0.95), 1),
        "needle_recall_p50_ms": round(percentile(needle_ms, 0.5), 1),
        "needles_found": f"{found}/{len(NEEDLES)}",
        "disk_mb": round(disk / 1e6, 1),
    }
    echo(
        f"  {backend.name} {size}: recall p50 {row['recall_p50_ms']} ms, p95 {row['recall_p95_ms']} ms; "
        f"remember p50 {row['remember_p50_ms']} ms, p95 {row['remember_p95_ms']} ms; "
        f"needles {row['needles_found']} in the top 10; {row['disk_mb']} MB"
    )
    return row


def growth(rows: Sequence[dict[str, Any]]) -> list[str]:
    """How recall p50 and disk grow from each size to the next of the same backend."""
    lines = []
    for first, second in itertools.pairwise(rows):
        if first["backend"] != second["backend"]:
            continue
        times = second["memories"] / first["memories"]
        lines.append(
            f"{first['backend']}: {first['memories']} -> {second['memories']} (x{times:g}): recall p50 "
            f"x{second['recall_p50_ms'] / max(first['recall_p50_ms'], 0.1):.2f}, p95 "
            f"x{second['recall_p95_ms'] / max(first['recall_p95_ms'], 0.1):.2f}, remember p50 "
            f"x{second['remember_p50_ms'] / max(first['remember_p50_ms'], 0.1):.2f}, disk "
            f"x{second['disk_mb'] / max(first['disk_mb'], 0.1):.1f}"
        )
    return lines


def run_scale_bench(
    *,
    plan: Sequence[tuple[Backend, int]],
    embedder: str,
    samples: int,
    cache_dir: Path | None,
    json_path: Path | None,
    echo: Callable[[str], None],
) -> dict[str, Any]:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    gate = named_gate(embedder)
    filler = named_gate(embedder, cache_dir)  # the base embeddings may come from the cache
    model = gate.model_id()
    if model is None:
        raise ValueError(f"cannot measure with {embedder}: {gate.failure}")
    info = machine_info()
    echo(f"machine: {describe(info)}")
    echo(f"model:   {model} (threads=1); {samples} timed calls of each kind per size")
    base = _embedded(filler, [memory_text(index)[0] for index in range(_BASE)])
    rows = [
        measure_size(backend, size, gate, np.asarray(base, np.float32), samples, echo)
        for backend, size in plan
    ]
    echo("")
    echo("| store | memories | fill /s | remember p50 / p95 | recall p50 / p95 | needles in top 10 | disk |")
    echo("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        echo(
            f"| {r['backend']} | {r['memories']:,} | {r['fill_per_second']:,} | {r['remember_p50_ms']} / "
            f"{r['remember_p95_ms']} ms | {r['recall_p50_ms']} / {r['recall_p95_ms']} ms | "
            f"{r['needles_found']} | {r['disk_mb']} MB |"
        )
    for line in growth(rows):
        echo(line)
    result = {"machine": info, "model": model, "samples": samples, "sizes": rows, "growth": growth(rows)}
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=2))
    return result
