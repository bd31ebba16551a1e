"""`kenning bench dashboard`: what each dashboard page costs the server on a seeded store.

Seeds a store with every memory in one team pool (the worst case for a pool's pages: health reads the
whole pool), starts a real `kenning serve --http`, signs in with an admin token of that pool, and asks
for every page a number of times. The server says what each page cost it in its `Server-Timing`
header; the figures are that time's p50, p95 and worst per page, beside the wall time the client saw.
Target: every page within 300 ms of server time at 10k memories.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from kenning.bench.http_load import TEAM_POOL, agents_for, http_server, seed_store
from kenning.bench.machine import describe, machine_info
from kenning.bench.metrics import percentile

TARGET_MS = 300.0
_TIMING = re.compile(r"page;dur=([0-9.]+)")
_CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


def _pages(memory_id: str) -> list[str]:
    return [
        "/memories",
        "/memories?tag=deploy",
        f"/memories?pool={TEAM_POOL}&state=archived",
        "/search?q=which+port+does+the+staging+database+use",
        "/timeline",
        f"/memory/{memory_id}",
        f"/graph/{memory_id}",
        "/conflicts",
        "/quarantine",
        "/health",
        "/tokens",
    ]


def _timed(ask: Callable[[], httpx.Response], repeats: int) -> dict[str, float]:
    """Server time (from Server-Timing) and the client's wall time of `repeats` requests."""
    server_ms: list[float] = []
    wall_ms: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        answer = ask()
        wall_ms.append((time.perf_counter() - start) * 1000)
        timing = _TIMING.search(answer.headers.get("server-timing", ""))
        if answer.status_code != 200 or timing is None:
            raise RuntimeError(f"{answer.request.url}: {answer.status_code} {answer.text[:200]}")
        server_ms.append(float(timing.group(1)))
    return {
        "server_p50_ms": round(percentile(server_ms, 0.5), 1),
        "server_p95_ms": round(percentile(server_ms, 0.95), 1),
        "server_max_ms": round(max(server_ms), 1),
        "wall_p50_ms": round(percentile(wall_ms, 0.5), 1),
    }


def run_dashboard_bench(
    *,
    size: int,
    repeats: int,
    embedder: str,
    cache_dir: Path | None,
    json_path: Path | None,
    echo: Callable[[str], None],
) -> dict[str, Any]:
    import json

    from kenning.services.principals import TokenRequest

    info = machine_info()
    echo(f"machine: {describe(info)}")
    crew = agents_for(1)  # every memory in one pool: the worst case for a pool's pages (health)
    admin = TokenRequest(name="dashboard-admin", write_pool=TEAM_POOL, scopes=("read", "write", "admin"))
    with tempfile.TemporaryDirectory(prefix="kenning-bench-dashboard-") as scratch:
        db = Path(scratch) / "dashboard.db"
        seeded = seed_store(
            db, crew, size=size, embedder=embedder, cache_dir=cache_dir, copy_to=None, extra_tokens=[admin]
        )
        token = seeded.tokens[admin.name]
        echo(f"model:   {seeded.model}")
        echo(f"seeded {sum(len(ids) for ids in seeded.ids.values())} memories in {seeded.seconds:.1f} s")
        env = {
            **os.environ,
            "KENNING_STORAGE__DB_PATH": str(db),
            "KENNING_EMBEDDINGS__PROVIDER": embedder,
            "KENNING_LIFECYCLE__INTERVAL_HOURS": "0",
            "KENNING_HTTP__REQUESTS_PER_MINUTE": "0",
            "KENNING_EMBEDDINGS__QUERY_CACHE": "0",  # every search embeds its query, as a new one would
        }
        figures: dict[str, dict[str, float]] = {}
        with (
            http_server(env, Path(scratch) / "server.log") as (url, _),
            httpx.Client(base_url=url, timeout=120) as client,
        ):
            signed = client.post("/login", data={"token": token})
            if signed.status_code != 303:
                raise RuntimeError(f"signing in failed: {signed.status_code} {signed.text[:200]}")
            for path in _pages(seeded.ids[TEAM_POOL][size // 2]):
                figures[f"`{path}`"] = _timed(partial(client.get, path), repeats)
            # The maintenance preview is a button, not a page: a dry run that reads the whole pool.
            found = _CSRF.search(client.get("/health").text)
            if found is None:
                raise RuntimeError("the health page has no form to preview the next maintenance run")
            form = {"csrf": found.group(1)}
            figures["POST /health (preview button)"] = _timed(
                lambda: client.post("/health", data=form), max(1, repeats // 4)
            )
    echo(f"\n{size} memories, {repeats} requests a page; server time from Server-Timing\n")
    echo("| page | server p50 | server p95 | server max | client wall p50 |")
    echo("|---|---:|---:|---:|---:|")
    for path, row in figures.items():
        echo(
            f"| {path} | {row['server_p50_ms']} ms | {row['server_p95_ms']} ms | {row['server_max_ms']} ms "
            f"| {row['wall_p50_ms']} ms |"
        )
    shown = {path: row for path, row in figures.items() if path.startswith("`")}
    worst = max(row["server_max_ms"] for row in shown.values())
    slow = [path for path, row in shown.items() if row["server_max_ms"] > TARGET_MS]
    verdict = "met" if not slow else f"missed by {', '.join(slow)}"
    echo(f"\nTarget: every page within {TARGET_MS:g} ms of server time. Worst: {worst} ms ({verdict}).")
    result = {"machine": info, "model": seeded.model, "size": size, "repeats": repeats, "pages": figures}
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=2))
    return result
