"""`serve --http` with two worker processes on one store: every worker sees every write, MCP
works without sessions, and a principal's rate is counted once, not once per worker."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from kenning.bench.http_load import http_server

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

KENNING = str(Path(sys.executable).with_name("kenning"))
RATE = 30  # requests a minute for each principal, whichever worker answers


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[tuple[str, str]]:
    env = {
        **os.environ,
        "KENNING_STORAGE__DB_PATH": str(tmp_path / "k.db"),
        "KENNING_LIFECYCLE__INTERVAL_HOURS": "0",
        "KENNING_HTTP__WORKERS": "2",
        "KENNING_HTTP__REQUESTS_PER_MINUTE": str(RATE),
    }
    token = subprocess.run(
        [KENNING, "token", "create", "w", "--write", "team"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with http_server(env, tmp_path / "server.log") as (url, _):
        yield url, token


async def test_every_worker_sees_every_write_and_mcp_needs_no_session(workers: tuple[str, str]) -> None:
    url, token = workers
    auth = {"Authorization": f"Bearer {token}"}
    written = []
    for number in range(8):  # new connections: the kernel spreads them over both workers
        answer = httpx.post(
            f"{url}/api/v1/remember",
            json={"content": f"Worker note {number}: the cache is warm"},
            headers=auth,
        )
        assert answer.status_code == 200, answer.text
        written.append(answer.json()["id"])
    for memory_id in written:
        assert httpx.post(f"{url}/api/v1/get", json={"id": memory_id}, headers=auth).status_code == 200
    async with (
        httpx2.AsyncClient(headers=auth, timeout=60) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for _ in range(4):
            found = await session.call_tool("recall", {"query": "is the cache warm", "limit": 10})
            assert not found.is_error
            assert found.structured_content is not None
            assert {r["id"] for r in found.structured_content["results"]} == set(written)

    # 16 REST requests and the MCP session's have been counted; each worker alone would allow RATE.
    statuses = [httpx.post(f"{url}/api/v1/status", json={}, headers=auth).status_code for _ in range(RATE)]
    assert statuses.count(200) <= RATE - 16 and statuses.count(429) >= 16, statuses
