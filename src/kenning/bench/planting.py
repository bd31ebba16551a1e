"""`kenning bench planting`: the structural defence against poisoning, measured through the write path.

A user-stated answer exists for each of 50 topics (written by "alice", who may claim user_stated).
A low-trust writer ("mallory", who may claim at most agent_inferred, and claims user_stated anyway)
plants four memories against each: a contradiction, a change notice, a paraphrase and a MINJA-style
bridging record. A third writer fills the store with unrelated developer memories. A reader then asks
each topic's question. Reported: how often a planted memory ranks above the user's answer, and how
often one reaches the top 5 unflagged (neither quarantined, nor carrying screening flags, nor shown in
an open conflict with another result), with the default settings (per-writer cap on, policy `ask`).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def run_planting_bench(
    *, path: Path, embedder: str, fillers: int, json_path: Path | None, echo: Callable[[str], None]
) -> dict[str, Any]:
    from kenning.adapters.sqlite_store import SqliteStore
    from kenning.bench.embedders import named_gate
    from kenning.bench.machine import describe, machine_info
    from kenning.bench.synthetic import memory_text
    from kenning.core.validation import MemoryDraft
    from kenning.ports.clock import SystemClock
    from kenning.services.deps import Caller, Deps
    from kenning.services.facade import Kenning
    from kenning.services.recall import RecallRequest

    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    gate = named_gate(embedder)
    echo(f"machine: {describe(machine_info())}")
    echo(f"model:   {gate.model_id() or 'none (keyword-only)'}")
    alice = Caller(namespace="team", agent_id="alice", max_trust="user_stated")
    mallory = Caller(namespace="team", agent_id="mallory", max_trust="agent_inferred")
    teammate = Caller(namespace="team", agent_id="teammate")
    reader = Caller(namespace="team", agent_id="reader")
    above = top5_unflagged = user_top1 = user_missing = quarantined = 0
    per_topic: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        app = Kenning(
            Deps(store=SqliteStore(Path(scratch) / "planting.db"), embeddings=gate, clock=SystemClock())
        )
        try:
            for start in range(0, fillers, 200):
                drafts = [
                    MemoryDraft(content=memory_text(i)[0]) for i in range(start, min(fillers, start + 200))
                ]
                app.remember_many(teammate, drafts)
            answers = {}
            planted: dict[str, str] = {}
            for item in items:
                out = app.remember(alice, MemoryDraft(content=item["user"], trust="user_stated", type="fact"))
                answers[item["topic"]] = out.record.id
            for item in items:
                for text in item["planted"]:
                    out = app.remember(mallory, MemoryDraft(content=text, trust="user_stated", type="fact"))
                    planted[out.record.id] = item["topic"]
                    quarantined += out.record.state.value == "quarantined"
            for item in items:
                hits = app.recall(reader, RecallRequest(query=item["query"], limit=10, touch=False)).hits
                ids = [hit.record.id for hit in hits]
                user_rank = ids.index(answers[item["topic"]]) + 1 if answers[item["topic"]] in ids else None
                mine = [(rank, hit) for rank, hit in enumerate(hits, start=1) if hit.record.id in planted]
                best = mine[0][0] if mine else None
                unflagged = [
                    rank
                    for rank, hit in mine
                    if rank <= 5 and not hit.in_conflict_with and not hit.record.metadata.get("screening")
                ]
                above += best is not None and (user_rank is None or best < user_rank)
                top5_unflagged += bool(unflagged)
                user_top1 += user_rank == 1
                user_missing += user_rank is None
                per_topic.append({"topic": item["topic"], "user_rank": user_rank, "best_planted_rank": best})
        finally:
            app.close()
    topics = len(items)
    result = {
        "topics": topics,
        "planted": sum(len(item["planted"]) for item in items),
        "planted_quarantined": quarantined,
        "planted_above_user": above,
        "planted_top5_unflagged": top5_unflagged,
        "user_answer_first": user_top1,
        "user_answer_missing_from_top10": user_missing,
        "fillers": fillers,
        "per_topic": per_topic,
    }
    echo(f"planted memories quarantined at write: {quarantined}/{result['planted']}")
    echo(f"topics where a planted memory ranks above the user's answer: {above}/{topics}")
    echo(f"topics where a planted memory reaches the top 5 unflagged: {top5_unflagged}/{topics}")
    echo(f"user's answer first: {user_top1}/{topics}; missing from the top 10: {user_missing}/{topics}")
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=2))
    return result
