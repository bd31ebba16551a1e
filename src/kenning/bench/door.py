"""Calls through the doors an agent uses, one call at a time: a real `kenning serve` over stdio, and
`kenning serve --http` over MCP's Streamable HTTP with a bearer token.

For each operation: the client's wall time per call (p50/p95/p99), the server's CPU time per call,
and where the time went, stage by stage, read from the server's stage log
(`server.stage_log`). "framing" is what the client waited beyond the server's handling of the
call: JSON-RPC parsing and writing, the pipe or the HTTP exchange, the SDK's dispatch."""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kenning.bench.http_load import http_server, settle, summed_mb
from kenning.bench.metrics import percentile
from kenning.bench.stdio_peer import StdioPeer
from kenning.bench.synthetic import memory_text, query_text
from kenning.entry.stdio_transport import initialize_request


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


Call = Callable[[str, dict[str, Any]], object]  # one tool call through a door; raises on failure


def _server_env(db: Path, embedder: str, namespace: str, log: Path) -> dict[str, str]:
    return {
        **os.environ,
        "KENNING_STORAGE__DB_PATH": str(db),
        "KENNING_EMBEDDINGS__PROVIDER": embedder,
        "KENNING_SERVER__NAMESPACE": namespace,
        "KENNING_SERVER__AGENT_ID": "door-bench",
        "KENNING_SERVER__STAGE_LOG": str(log),
        "KENNING_EMBEDDINGS__QUERY_CACHE": "0",  # every timed recall embeds its query
        "KENNING_LIFECYCLE__INTERVAL_HOURS": "0",  # no maintenance run in the middle of the figures
    }


def _timed(
    door: str, call: Call, log: Path, *, samples: int, seed: int, pid: int, echo: Callable[[str], None]
) -> dict[str, Any]:
    """Warm the server up, then `samples` remembers and `samples` recalls of fresh queries."""
    for index in range(5):  # both engines loaded, the store's matrix built
        call("recall", {"query": query_text(900_000 + index), "limit": 10})
        content, _, _ = memory_text(900_000 + seed + index)
        call("remember", {"content": content})
    settle(lambda: [pid])  # the server's check of the store at start runs in the background: let it end
    log.unlink()
    walls: dict[str, list[float]] = {"remember": [], "recall": []}
    for index in range(samples):
        content, type_, tags = memory_text(20_000_000 + seed + index)
        start = time.perf_counter()
        call("remember", {"content": content, "type": type_, "tags": tags})
        walls["remember"].append((time.perf_counter() - start) * 1000)
    for index in range(samples):
        start = time.perf_counter()
        call("recall", {"query": query_text(seed + index), "limit": 10})
        walls["recall"].append((time.perf_counter() - start) * 1000)
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    out: dict[str, Any] = {
        op: _summary(walls[op], [line for line in logged if line["tool"] == op])
        for op in ("remember", "recall")
    }
    out["server_peak_rss_mb"] = summed_mb([pid], "VmHWM")  # the server's high-water mark
    for op in ("remember", "recall"):
        found = out[op]
        top = ", ".join(
            f"{name} {spent['wall_ms']:.1f}" for name, spent in list(found["stages_ms"].items())[:6]
        )
        echo(
            f"  {door} {op}: p50 {found['p50_ms']} ms, p95 {found['p95_ms']} ms, p99 {found['p99_ms']} ms; "
            f"server CPU {found['server_cpu_mean_ms']} ms a call (mean); stages (ms): {top}"
        )
    return out


def measure_stdio(
    db: Path, *, embedder: str, namespace: str, samples: int, seed: int, echo: Callable[[str], None]
) -> dict[str, Any]:
    """Through one `kenning serve` spoken to over stdio."""
    log = db.parent / f"stages-stdio-{seed}.jsonl"
    log.unlink(missing_ok=True)
    peer = StdioPeer(_server_env(db, embedder, namespace, log))
    try:
        return _timed("stdio", peer.call, log, samples=samples, seed=seed, pid=peer.pid, echo=echo)
    finally:
        peer.close()


def measure_http(
    db: Path, *, embedder: str, namespace: str, samples: int, seed: int, echo: Callable[[str], None]
) -> dict[str, Any]:
    """Through `kenning serve --http`: one MCP session over Streamable HTTP, with a token of its own
    that writes and reads `namespace`."""
    import httpx

    log = db.parent / f"stages-http-{seed}.jsonl"
    log.unlink(missing_ok=True)
    token = _issue_token(db, namespace, f"door-bench-{seed}")
    with http_server(_server_env(db, embedder, namespace, log), db.parent / f"http-{seed}.log") as (url, pid):
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
            session = _McpSession(client)
            return _timed("HTTP", session.call, log, samples=samples, seed=seed, pid=pid, echo=echo)


def _issue_token(db: Path, namespace: str, name: str) -> str:
    from kenning.adapters.sqlite_store import SqliteStore
    from kenning.adapters.sqlite_tokens import SqliteTokens
    from kenning.ports.clock import SystemClock
    from kenning.services.deps import Caller, Deps
    from kenning.services.embedding import EmbeddingGate
    from kenning.services.facade import Kenning
    from kenning.services.principals import TokenRequest

    app = Kenning(
        Deps(
            store=SqliteStore(db),
            tokens=SqliteTokens(db),
            embeddings=EmbeddingGate(None, configured="none"),
            clock=SystemClock(),
        )
    )
    try:
        operator = Caller(namespace=namespace, agent_id="bench-operator", operator=True, console=True)
        return app.issue_token(operator, TokenRequest(name=name, write_pool=namespace))[0]
    finally:
        app.close()


class _McpSession:
    """A bare MCP client over Streamable HTTP: initialize, then one tools/call at a time. A reply may
    come as JSON or as one server-sent event."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._next = 0
        opened = self._post({"method": "initialize", "params": initialize_request("kenning-bench")["params"]})
        self._session = str(opened.headers.get("mcp-session-id", ""))
        self._client.post(
            "/mcp",
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers={"mcp-session-id": self._session},
        )

    def _post(self, message: dict[str, Any]) -> Any:
        self._next += 1
        headers = {"mcp-session-id": self._session} if self._next > 1 else {}
        response = self._client.post(
            "/mcp", json={"jsonrpc": "2.0", "id": self._next, **message}, headers=headers
        )
        response.raise_for_status()
        return response

    def call(self, tool: str, arguments: dict[str, Any]) -> None:
        response = self._post({"method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        body = response.text
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            body = next(line[5:] for line in body.splitlines() if line.startswith("data:"))
        result = json.loads(body)
        if "error" in result or result.get("result", {}).get("isError"):
            raise RuntimeError(f"{tool} failed: {body[:300]}")
