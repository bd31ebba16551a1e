"""Calls through the door an agent uses: a real `kenning serve` over stdio, one call at a time.

For each operation: the client's wall time per call (p50/p95/p99), the server's CPU time per call,
and where the time went, stage by stage, read from the server's stage log
(`server.stage_log`). "framing" is what the client waited beyond the server's handling of the
call: JSON-RPC parsing and writing, the pipe, the SDK's dispatch."""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kenning.bench.metrics import percentile
from kenning.bench.stdio_peer import StdioPeer
from kenning.bench.synthetic import memory_text, query_text


def _summary(walls: list[float], logged: list[dict[str, Any]]) -> dict[str, Any]:
    """Client-side percentiles, and the server's means per call (CPU, handling, each stage)."""
    calls = len(logged)
    stages: dict[str, dict[str, float]] = {}
    for line in logged:
        for name, spent in line["stages"].items():
            into = stages.setdefault(name, {"wall_ms": 0.0, "cpu_ms": 0.0})
            into["wall_ms"] += spent["wall_ms"] / calls
            into["cpu_ms"] += spent["cpu_ms"] / calls
    handled = [line["wall_ms"] for line in logged]
    cpu = [line["cpu_ms"] for line in logged]
    stages["framing"] = {"wall_ms": statistics.fmean(walls) - statistics.fmean(handled), "cpu_ms": 0.0}
    return {
        "calls": calls,
        "p50_ms": round(percentile(walls, 0.5), 1),
        "p95_ms": round(percentile(walls, 0.95), 1),
        "p99_ms": round(percentile(walls, 0.99), 1),
        "mean_ms": round(statistics.fmean(walls), 1),
        "server_cpu_mean_ms": round(statistics.fmean(cpu), 1),
        "server_cpu_p50_ms": round(percentile(cpu, 0.5), 1),
        "server_wall_mean_ms": round(statistics.fmean(handled), 1),
        "stages_ms": {
            name: {key: round(value, 2) for key, value in spent.items()}
            for name, spent in sorted(stages.items(), key=lambda pair: -pair[1]["wall_ms"])
        },
    }


def measure_stdio(
    db: Path, *, embedder: str, namespace: str, samples: int, seed: int, echo: Callable[[str], None]
) -> dict[str, Any]:
    """`samples` remembers, then `samples` recalls of fresh queries, through one stdio server."""
    log = db.parent / f"stages-{seed}.jsonl"
    log.unlink(missing_ok=True)
    env = {
        **os.environ,
        "KENNING_STORAGE__DB_PATH": str(db),
        "KENNING_EMBEDDINGS__PROVIDER": embedder,
        "KENNING_SERVER__NAMESPACE": namespace,
        "KENNING_SERVER__AGENT_ID": "door-bench",
        "KENNING_SERVER__STAGE_LOG": str(log),
        "KENNING_EMBEDDINGS__QUERY_CACHE": "0",  # every timed recall embeds its query
    }
    peer = StdioPeer(env)
    try:
        for index in range(5):  # both engines loaded, the store's matrix built
            peer.call("recall", {"query": query_text(900_000 + index), "limit": 10})
            content, _, _ = memory_text(900_000 + seed + index)
            peer.call("remember", {"content": content})
        log.unlink()
        walls: dict[str, list[float]] = {"remember": [], "recall": []}
        for index in range(samples):
            content, type_, tags = memory_text(20_000_000 + seed + index)
            start = time.perf_counter()
            peer.call("remember", {"content": content, "type": type_, "tags": tags})
            walls["remember"].append((time.perf_counter() - start) * 1000)
        for index in range(samples):
            start = time.perf_counter()
            peer.call("recall", {"query": query_text(seed + index), "limit": 10})
            walls["recall"].append((time.perf_counter() - start) * 1000)
    finally:
        peer.close()
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    out = {
        op: _summary(walls[op], [line for line in logged if line["tool"] == op])
        for op in ("remember", "recall")
    }
    for op, found in out.items():
        top = ", ".join(
            f"{name} {spent['wall_ms']:.1f}" for name, spent in list(found["stages_ms"].items())[:6]
        )
        echo(
            f"  stdio {op}: p50 {found['p50_ms']} ms, p95 {found['p95_ms']} ms, p99 {found['p99_ms']} ms; "
            f"server CPU {found['server_cpu_mean_ms']} ms a call (mean); stages (ms): {top}"
        )
    return out
