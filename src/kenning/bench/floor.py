"""`kenning bench floor`: how many results queries with no answer get, and answerable ones keep.

A store of synthetic developer memories; unrelated queries from a file (written by a helper who had
not seen the calibration queries); answerable queries from the same generator as the store.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kenning.bench.embedders import named_gate
from kenning.bench.machine import describe, machine_info
from kenning.bench.synthetic import memory_text, query_text
from kenning.core.relevance import floor_for
from kenning.core.validation import MemoryDraft
from kenning.ports.clock import SystemClock
from kenning.services.deps import Caller, Deps, RetrievalParams
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest

_ANSWERABLE = 200


def run_floor_bench(
    *, path: Path, embedder: str, memories: int, json_path: Path | None, echo: Callable[[str], None]
) -> dict[str, Any]:
    from kenning.adapters.sqlite_store import SqliteStore

    queries = json.loads(path.read_text(encoding="utf-8"))["queries"]
    gate = named_gate(embedder)
    model = gate.model_id()
    echo(f"machine: {describe(machine_info())}")
    echo(f"model:   {model or 'none (keyword-only)'}; relevance floor {floor_for(model)}")
    caller = Caller(namespace="floor", agent_id="bench")
    with tempfile.TemporaryDirectory() as scratch:
        store = SqliteStore(Path(scratch) / "floor.db")
        app = Kenning(Deps(store=store, embeddings=gate, clock=SystemClock(), retrieval=RetrievalParams()))
        try:
            drafts = []
            for index in range(memories):
                content, type_, tags = memory_text(index)
                drafts.append(MemoryDraft(content=content, type=type_, tags=tags))
            for start in range(0, len(drafts), 64):
                app.remember_many(caller, drafts[start : start + 64])

            def count(text: str) -> int:
                return len(app.recall(caller, RecallRequest(query=text, limit=10, touch=False)).hits)

            unrelated = {q["id"]: count(q["text"]) for q in queries}
            answerable = [count(query_text(index)) for index in range(_ANSWERABLE)]
        finally:
            app.close()
    by_kind: dict[str, list[int]] = {}
    for q in queries:
        by_kind.setdefault(q.get("kind", "all"), []).append(unrelated[q["id"]])
    result = {
        "model": model,
        "floor": floor_for(model),
        "memories": memories,
        "unrelated_queries": len(queries),
        "unrelated_results_per_query": round(statistics.mean(unrelated.values()), 2),
        "unrelated_with_no_result": sum(1 for n in unrelated.values() if n == 0),
        "by_kind": {k: round(statistics.mean(v), 2) for k, v in sorted(by_kind.items())},
        "answerable_queries": _ANSWERABLE,
        "answerable_with_a_result": sum(1 for n in answerable if n > 0),
        "answerable_results_per_query": round(statistics.mean(answerable), 2),
        "unrelated_counts": unrelated,
    }
    echo(
        f"unrelated: {result['unrelated_results_per_query']} results per query (target <= 1), "
        f"{result['unrelated_with_no_result']} of {len(queries)} with none; by kind {result['by_kind']}"
    )
    echo(
        f"answerable: {result['answerable_with_a_result']} of {_ANSWERABLE} with a result, "
        f"{result['answerable_results_per_query']} results per query (limit 10)"
    )
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=2))
    return result
