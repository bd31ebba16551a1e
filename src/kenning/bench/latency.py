"""`kenning bench latency`: remember/recall p50/p95 at several store sizes, stdio cold start, peak RSS."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kenning.bench.door import measure_http, measure_stdio
from kenning.bench.embedders import named_gate
from kenning.bench.machine import describe, machine_info
from kenning.bench.metrics import percentile
from kenning.bench.stdio_peer import StdioPeer
from kenning.bench.synthetic import memory_text, query_text
from kenning.core.decay import DAY
from kenning.core.validation import MemoryDraft
from kenning.entry.client_config import serve_argv
from kenning.entry.stdio_transport import initialize_request
from kenning.ports.clock import SystemClock
from kenning.services.deps import Caller, Deps
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest

_FILL_BATCH = 256


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_cold_start(runs: int, embedder: str) -> list[float]:
    """Seconds from spawning `kenning serve` to its answer to `initialize` over stdio."""
    request = initialize_request("kenning-bench")
    times = []
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "KENNING_STORAGE__DB_PATH": str(Path(scratch) / "cold.db"),
            "KENNING_EMBEDDINGS__PROVIDER": embedder,
        }
        for _ in range(runs):
            start = time.perf_counter()
            proc = subprocess.Popen(  # noqa: S603 - our own executable
                serve_argv(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                text=True,
            )
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            elapsed = time.perf_counter() - start
            proc.stdin.close()
            proc.wait(timeout=30)
            if '"id":1' not in line.replace(" ", ""):
                raise RuntimeError(f"unexpected answer to initialize: {line[:200]!r}")
            times.append(elapsed)
    return times


def _spread(index: int) -> float:
    """Event times over the past year, so a time phrase in a query names a real share of the store."""
    return time.time() - (index % 365) * DAY - 3600.0


def _timed_recalls(app: Kenning, caller: Caller, queries: list[str]) -> list[float]:
    """Milliseconds per recall, each query in turn."""
    took = []
    for query in queries:
        start = time.perf_counter()
        app.recall(caller, RecallRequest(query=query, limit=10))
        took.append((time.perf_counter() - start) * 1000)
    return took


def run_latency_bench(
    *,
    sizes: list[int],
    samples: int,
    embedder: str,
    json_path: Path | None,
    echo: Callable[[str], None],
    door: bool = True,
    cache_dir: Path | None = None,
) -> dict[str, Any]:
    """In process at each size, then (`door`) through a real `kenning serve` over stdio and over HTTP
    on the same store. `cache_dir` caches the fill's embeddings only: every timed call embeds afresh."""
    from kenning.adapters.sqlite_store import SqliteStore

    info = machine_info()
    gate = named_gate(embedder)
    model = gate.model_id() or "none (keyword-only)"
    echo(f"machine: {describe(info)}")
    echo(f"model:   {model} (threads=1)")
    rows: list[dict[str, Any]] = []
    caller = Caller(namespace="bench", agent_id="bench")
    with tempfile.TemporaryDirectory() as scratch:
        store = SqliteStore(Path(scratch) / "bench.db")
        app = Kenning(Deps(store=store, embeddings=gate, clock=SystemClock()))
        filler = (
            Kenning(Deps(store=store, embeddings=named_gate(embedder, cache_dir), clock=SystemClock()))
            if cache_dir is not None
            else app
        )
        stored = 0
        for size in sorted(sizes):
            fill_start = time.perf_counter()
            while stored < size:
                batch = min(_FILL_BATCH, size - stored)
                drafts = []
                for index in range(stored, stored + batch):
                    content, type_, tags = memory_text(index)
                    drafts.append(
                        MemoryDraft(content=content, type=type_, tags=tags, event_time=_spread(index))
                    )
                filler.remember_many(caller, drafts)
                stored += batch
                sys.stderr.write(f"\rfilling to {size}: {stored}/{size}")
                sys.stderr.flush()
            fill_seconds = time.perf_counter() - fill_start
            sys.stderr.write("\n")
            remember_ms = []
            for index in range(samples):
                content, type_, tags = memory_text(10_000_000 + size * 10 + index)
                start = time.perf_counter()
                app.remember(caller, MemoryDraft(content=content, type=type_, tags=tags))
                remember_ms.append((time.perf_counter() - start) * 1000)
            stored += samples
            recall_ms = _timed_recalls(app, caller, [query_text(index) for index in range(samples)])
            # A time phrase adds a search inside the named range (about a twelfth of the store here).
            dated_ms = _timed_recalls(
                app, caller, [f"{query_text(index)} last month" for index in range(samples)]
            )
            row: dict[str, Any] = {
                "memories": size,
                "fill_seconds": round(fill_seconds, 1),
                "remember_p50_ms": round(percentile(remember_ms, 0.5), 1),
                "remember_p95_ms": round(percentile(remember_ms, 0.95), 1),
                "recall_p50_ms": round(percentile(recall_ms, 0.5), 1),
                "recall_p95_ms": round(percentile(recall_ms, 0.95), 1),
                "dated_recall_p50_ms": round(percentile(dated_ms, 0.5), 1),
                "dated_recall_p95_ms": round(percentile(dated_ms, 0.95), 1),
                "peak_rss_mb": round(_peak_rss_mb(), 1),
            }
            if door:
                for name, measure in (("stdio", measure_stdio), ("http", measure_http)):
                    row[name] = measure(
                        Path(scratch) / "bench.db",
                        embedder=embedder,
                        namespace=caller.namespace,
                        samples=samples,
                        seed=size + (0 if name == "stdio" else 700_000),  # texts of its own: no repeats
                        echo=echo,
                    )
                    stored += samples + 5
            rows.append(row)
            echo(
                f"{size:>7} memories: "
                f"remember p50 {row['remember_p50_ms']} ms, p95 {row['remember_p95_ms']} ms; "
                f"recall p50 {row['recall_p50_ms']} ms, p95 {row['recall_p95_ms']} ms; "
                f"dated p50 {row['dated_recall_p50_ms']} ms, p95 {row['dated_recall_p95_ms']} ms; "
                f"peak RSS {row['peak_rss_mb']} MB"
            )
        worst = _worst_case(app, caller, recall_p95_ms=rows[-1]["recall_p95_ms"] if rows else 0.0, echo=echo)
        app.close()
        worst["over_stdio"] = _worst_case_over_stdio(Path(scratch), embedder, samples=samples, echo=echo)
    cold = measure_cold_start(5, embedder)
    cold_start = {
        "median": round(statistics.median(cold), 3),
        "max": round(max(cold), 3),
        "runs": [round(c, 3) for c in cold],
    }
    result: dict[str, Any] = {
        "machine": info,
        "model": model,
        "samples": samples,
        "sizes": rows,
        "cold_start_s": cold_start,
        "worst_case": worst,
        "peak_rss_mb": round(_peak_rss_mb(), 1),
    }
    echo(
        f"cold start (spawn to initialize answered, stdio): median {cold_start['median']} s, "
        f"max {cold_start['max']} s over {len(cold)} runs"
    )
    echo("")
    echo(markdown_table(result))
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=2))
    return result


_LONG_WRITES = {
    "16k snake_case": "a_" * 8000,
    "16k prose": (
        "The deploy pipeline runs integration tests against staging before promoting a build. " * 200
    )[:16_000],
    "16k a- runs": "a-" * 8000,
    "16k Chinese": ("部署流水线在推广构建之前针对预发环境运行集成测试。" * 700)[:16_000],
}
_LONG_QUERIES = {
    "2k prose": ("which database does the billing service use and who owns it " * 40)[:2000],
    "2k Chinese": ("计费服务使用哪个数据库以及谁负责维护它" * 120)[:2000],
    "2k snake_case": "a_" * 1000,
}


def _worst_case(
    app: Kenning, caller: Caller, *, recall_p95_ms: float, echo: Callable[[str], None]
) -> dict[str, Any]:
    """The longest inputs the limits allow, one at a time, then again while another client recalls."""
    import threading

    writes = {}
    for name, text in _LONG_WRITES.items():
        start = time.perf_counter()
        app.remember(caller, MemoryDraft(content=text))
        writes[name] = round((time.perf_counter() - start) * 1000, 1)
    queries = {}
    for name, text in _LONG_QUERIES.items():
        start = time.perf_counter()
        app.recall(caller, RecallRequest(query=text, limit=10))
        queries[name] = round((time.perf_counter() - start) * 1000, 1)
    other = Caller(namespace=caller.namespace, agent_id="other-client")

    def heavy() -> None:
        for index, text in enumerate(_LONG_WRITES.values()):
            app.remember(caller, MemoryDraft(content=f"{index} {text}"[:16_000]))
        for text in _LONG_QUERIES.values():
            app.recall(caller, RecallRequest(query=text, limit=10))

    worker = threading.Thread(target=heavy)
    worker.start()
    during: list[float] = []
    index = 0
    while worker.is_alive():
        during += _timed_recalls(app, other, [query_text(index)])
        index += 1
    worker.join()
    found = {
        "remember_ms": writes,
        "recall_ms": queries,
        "other_recall_during_p95_ms": round(percentile(during, 0.95), 1) if during else None,
        "other_recall_during_max_ms": round(max(during), 1) if during else None,
        "other_recall_normal_p95_ms": recall_p95_ms,
    }
    echo(f"worst-case remember (ms): {writes}")
    echo(f"worst-case recall (ms): {queries}")
    echo(
        "in one process, another caller's recall while they run: "
        f"p95 {found['other_recall_during_p95_ms']} ms, "
        f"max {found['other_recall_during_max_ms']} ms (normal p95 {recall_p95_ms} ms)"
    )
    return found


def _worst_case_over_stdio(
    scratch: Path, embedder: str, *, samples: int, echo: Callable[[str], None]
) -> dict[str, Any]:
    """Two clients through the door, each with its own `kenning serve` on the same store: one writes
    and asks the longest inputs while the other recalls. Its recall p95 is measured idle first."""
    import threading

    env = {
        **os.environ,
        "KENNING_STORAGE__DB_PATH": str(scratch / "bench.db"),
        "KENNING_EMBEDDINGS__PROVIDER": embedder,
        "KENNING_SERVER__NAMESPACE": "bench",
        "KENNING_EMBEDDINGS__QUERY_CACHE": "0",
    }
    heavy_peer = StdioPeer({**env, "KENNING_SERVER__AGENT_ID": "heavy-client"})
    other_peer = StdioPeer({**env, "KENNING_SERVER__AGENT_ID": "other-client"})

    def recalls(count: int, offset: int) -> list[float]:
        took = []
        for index in range(offset, offset + count):
            start = time.perf_counter()
            other_peer.call("recall", {"query": query_text(index), "limit": 10})
            took.append((time.perf_counter() - start) * 1000)
        return took

    try:
        recalls(5, 0)  # both servers warm
        heavy_peer.call("recall", {"query": "warm up", "limit": 1})
        normal = recalls(samples, 100)
        failures: list[BaseException] = []

        def heavy() -> None:
            try:
                for index, text in enumerate(_LONG_WRITES.values()):
                    heavy_peer.call("remember", {"content": f"{index} {text}"[:16_000]})
                for text in _LONG_QUERIES.values():
                    heavy_peer.call("recall", {"query": text, "limit": 10})
            except BaseException as exc:  # reported below, with the figures
                failures.append(exc)

        worker = threading.Thread(target=heavy)
        worker.start()
        during: list[float] = []
        while worker.is_alive():
            during += recalls(1, 1000 + len(during))
        worker.join()
    finally:
        heavy_peer.close()
        other_peer.close()
    if failures:
        raise RuntimeError(f"the writing client failed: {failures[0]}")
    found = {
        "other_recall_normal_p95_ms": round(percentile(normal, 0.95), 1),
        "other_recall_during_p95_ms": round(percentile(during, 0.95), 1) if during else None,
        "other_recall_during_max_ms": round(max(during), 1) if during else None,
        "other_recalls_during": len(during),
    }
    echo(
        f"over stdio, another client's recall while one writes and asks the longest inputs: "
        f"p95 {found['other_recall_during_p95_ms']} ms, max {found['other_recall_during_max_ms']} ms "
        f"over {len(during)} recalls (the same client idle: p95 {found['other_recall_normal_p95_ms']} ms)"
    )
    return found


def markdown_table(result: dict[str, Any]) -> str:
    lines = [
        "| memories | remember p50 | remember p95 | recall p50 | recall p95 | with a time phrase p50 / p95 "
        "| peak RSS |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in result["sizes"]:
        lines.append(
            f"| {row['memories']:,} | {row['remember_p50_ms']} ms | {row['remember_p95_ms']} ms | "
            f"{row['recall_p50_ms']} ms | {row['recall_p95_ms']} ms | "
            f"{row['dated_recall_p50_ms']} / {row['dated_recall_p95_ms']} ms | {row['peak_rss_mb']} MB |"
        )
    doors = [
        (row["memories"], name, row[name])
        for row in result["sizes"]
        for name in ("stdio", "http")
        if name in row
    ]
    if doors:
        lines += [
            "",
            "| memories | door | remember p50 / p95 / p99 | server CPU a remember | recall p50 / p95 / p99 "
            "| server CPU a recall | server peak RSS |",
            "|---:|---|---:|---:|---:|---:|---:|",
        ]
        for size, name, found in doors:
            rem, rec = found["remember"], found["recall"]
            lines.append(
                f"| {size:,} | {'HTTP' if name == 'http' else name} | "
                f"{rem['p50_ms']} / {rem['p95_ms']} / {rem['p99_ms']} ms | {rem['server_cpu_mean_ms']} ms | "
                f"{rec['p50_ms']} / {rec['p95_ms']} / {rec['p99_ms']} ms | {rec['server_cpu_mean_ms']} ms | "
                f"{found.get('server_peak_rss_mb')} MB |"
            )
    lines.append("")
    lines.append(
        f"Cold start, spawn to `initialize` answered over stdio: median {result['cold_start_s']['median']} s "
        f"(max {result['cold_start_s']['max']} s). Machine: {describe(result['machine'])}. "
        f"Model: {result['model']}."
    )
    return "\n".join(lines)
