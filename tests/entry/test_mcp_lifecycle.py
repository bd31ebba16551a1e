"""Consolidate, insights and beliefs through the official SDK client (in memory; the background
maintainer through a real `kenning serve` over stdio)."""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from fakes import ManualClock
from kenning.adapters.sqlite_store import SqliteStore
from kenning.core.decay import DAY
from kenning.core.validation import MemoryDraft
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning
from mcp_calls import call, error, in_memory

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

KENNING = str(Path(sys.executable).with_name("kenning"))
NAMESPACE = "mcp-life"


def _server(db: Path, **env: str) -> StdioServerParameters:
    """`kenning serve` over stdio, keyword-only, on `db` in the test namespace."""
    return StdioServerParameters(
        command=KENNING,
        args=["serve"],
        env={
            "KENNING_STORAGE__DB_PATH": str(db),
            "KENNING_SERVER__NAMESPACE": NAMESPACE,
            "KENNING_EMBEDDINGS__PROVIDER": "none",
            **env,
        },
    )


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    db = tmp_path / "life.db"
    clock = ManualClock(time.time() - 120 * DAY)  # written four months ago, never used since
    app = Kenning(Deps(store=SqliteStore(db), embeddings=EmbeddingGate(None, configured="none"), clock=clock))
    try:
        caller = Caller(NAMESPACE, "seed")
        app.remember(caller, MemoryDraft(content="the demo laptop password hint is blue", importance=0.1))
        app.remember(caller, MemoryDraft(content="the release checklist lives in the wiki", importance=0.9))
        for i in range(5):
            app.remember(caller, MemoryDraft(content=f"flaky test {i} in ci", tags=["ci", "flaky", "tests"]))
    finally:
        app.close()
    # The tools in memory, on the server object `kenning serve` builds from these settings; the
    # background maintainer below goes through a real `kenning serve`.
    overrides: dict[str, dict[str, object]] = {
        "storage": {"db_path": str(db)},
        "server": {"namespace": NAMESPACE},
        "embeddings": {"provider": "none"},
    }
    async with in_memory(overrides) as connected:
        yield connected


async def test_consolidate_is_a_dry_run_unless_asked_and_then_status_shows_the_run(client: Client) -> None:
    planned = await call(client, "consolidate", {})
    assert planned["dry_run"] is True and planned["run_id"] is None
    assert planned["counts"]["archive"] == 6 and planned["kept"] == {"important": 1}
    assert (await call(client, "status", {}))["by_state"] == {"active": 7}
    done = await call(client, "consolidate", {"dry_run": False, "steps": ["forget"]})
    assert done["run_id"] == 1 and done["counts"] == planned["counts"] | {"summaries": 0}
    status = await call(client, "status", {})
    assert status["by_state"] == {"active": 1, "archived": 6}
    assert status["maintenance"]["id"] == 1 and status["maintenance"]["steps"] == ["forget"]
    found = await call(client, "recall", {"query": "release checklist", "verbose": True})
    assert found["results"][0]["belief"]["supporting"] == 1


async def test_insights_and_beliefs_tools(client: Client) -> None:
    cards = (await call(client, "insights", {"kinds": ["pattern"]}))["insights"]
    assert (
        len(cards) == 1 and cards[0]["tags"] == ["ci", "flaky", "tests"] and len(cards[0]["memory_ids"]) == 5
    )
    assert (await call(client, "beliefs", {}))["beliefs"] == []
    assert "policy" in await error(client, "consolidate", {"policy": "shred"})
    # An agent cannot switch on permanent deletion; a dry run of it is fine.
    refused = await error(client, "consolidate", {"dry_run": False, "policy": "delete"})
    assert "deletion is off" in refused and "KENNING_LIFECYCLE__POLICY=delete" in refused
    assert (await call(client, "consolidate", {"policy": "delete"}))["counts"]["delete"] == 6
    assert "steps" in await error(client, "consolidate", {"steps": []})
    assert "min_confidence" in await error(client, "beliefs", {"min_confidence": 3})


async def test_a_long_running_server_maintains_in_the_background(tmp_path: Path) -> None:
    db = tmp_path / "bg.db"
    clock = ManualClock(time.time() - 200 * DAY)
    app = Kenning(Deps(store=SqliteStore(db), embeddings=EmbeddingGate(None, configured="none"), clock=clock))
    try:
        app.remember(
            Caller(NAMESPACE, "seed"), MemoryDraft(content="an old note nobody reads", importance=0.1)
        )
    finally:
        app.close()
    # Every 0.0005 h: the server checks every 1.8 s whether a run is due.
    async with Client(
        _server(db, KENNING_LIFECYCLE__INTERVAL_HOURS="0.0005"), read_timeout_seconds=60
    ) as client:
        status: dict[str, object] = {}
        for _ in range(100):
            status = await call(client, "status", {})
            if status["maintenance"] is not None:
                break
            await anyio.sleep(0.2)
        assert status["maintenance"] is not None, "no background run within 20 s"
        assert status["by_state"] == {"archived": 1}
