"""The examples against a real `kenning serve --http`, each run as a user runs it: a subprocess.

The server runs from this environment. The LangGraph example and the adapter probe run from
examples/.venv, which scripts/examples-env builds from examples/requirements.txt (about a minute) and keeps:
langchain-mcp-adapters requires mcp<2 and Kenning mcp>=2.3, so they cannot share one environment.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from kenning.bench.http_load import http_server

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CLIENT_VENV = EXAMPLES / ".venv"
PROBE = Path(__file__).with_name("adapter_probe.py")
MEMORY_ID = r"[0-9A-HJKMNP-TV-Z]{26}"


@dataclass(frozen=True)
class Server:
    base: str
    token: str  # reads and writes the pool "team"
    read_token: str  # the same pool, scope read only

    def rest(self, operation: str, arguments: dict[str, Any]) -> dict[str, Any]:
        response = httpx.post(
            f"{self.base}/api/v1/{operation}",
            json=arguments,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=30,
        )
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result


def _env(**extra: str) -> dict[str, str]:
    """This process's environment without its Kenning settings, so only the test's apply."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    return {**env, "NO_PROXY": "127.0.0.1,localhost", **extra}


def _issue(env: dict[str, str], name: str, *options: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "kenning.entry.cli", "token", "create", name, *options],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("team-server")
    env = _env(KENNING_STORAGE__DB_PATH=str(home / "kenning.db"), KENNING_LIFECYCLE__INTERVAL_HOURS="0")
    token = _issue(env, "agent-a", "--write", "team")  # before the server starts: it creates the store
    read_token = _issue(env, "viewer", "--write", "team", "--scopes", "read")
    with http_server(env, home / "server.log") as (base, _):
        yield Server(base=base, token=token, read_token=read_token)


@pytest.fixture(scope="session")
def client_python() -> Path:
    """examples/.venv's Python, built by scripts/examples-env (which `scripts/test` runs first) if
    examples/requirements.txt changed since its last build."""
    lock = os.open(EXAMPLES, os.O_RDONLY)  # one xdist worker builds it while the others wait
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        script = EXAMPLES.parent / "scripts" / "examples-env"
        env = {**os.environ, "PYTHON": sys.executable}
        done = subprocess.run(
            [str(script)], capture_output=True, text=True, timeout=600, check=False, env=env
        )
        if done.returncode != 0:
            pytest.fail(f"building {CLIENT_VENV} failed:\n{done.stdout}{done.stderr}")
        return CLIENT_VENV / "bin" / "python"
    finally:
        os.close(lock)


def _example(python: Path | str, name: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), str(EXAMPLES / name), *args],
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _load(name: str) -> ModuleType:
    """An example as a module, for its constants and helpers (this environment has what it imports)."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_langgraph_agent_recalls_what_memory_knew_and_the_decision_it_remembered(
    server: Server, client_python: Path
) -> None:
    task = "How is the invoicing service deployed?"
    decision = "Decision: the invoicing service deploys with canary releases, 5% of traffic first."
    known = server.rest("remember", {"content": "The invoicing service is deployed on Kubernetes."})["id"]
    done = _example(
        client_python,
        "langgraph_agent.py",
        task,
        decision,
        KENNING_URL=f"{server.base}/mcp",
        KENNING_TOKEN=server.token,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = re.search(r"^loaded \d+ tools from .+/mcp: (.+)$", done.stdout, re.MULTILINE)
    assert loaded is not None and {"remember", "recall"} <= set(loaded.group(1).split(", ")), done.stdout
    before, after = done.stdout.split("remember_decision:")
    assert known in before and decision not in before
    stored = re.search(rf"^ (stored|reinforced) ({MEMORY_ID}) ", after)
    assert stored is not None, done.stdout
    decision_id = stored.group(2)
    assert re.search(rf"check_recall: decision {decision_id} at rank \d+ of \d+", after), done.stdout
    record = server.rest("get", {"id": decision_id})
    assert (record["content"], record["type"], record["agent_id"]) == (decision, "decision", "agent-a")
    recalled = server.rest("recall", {"query": task})["results"]
    assert decision_id in [result["id"] for result in recalled]


@pytest.mark.slow
def test_langgraph_agent_reports_a_token_without_the_write_scope(server: Server, client_python: Path) -> None:
    decision = "Decision: a read-only agent tried to note this."
    done = _example(
        client_python,
        "langgraph_agent.py",
        "What did the read-only agent note?",
        decision,
        KENNING_URL=f"{server.base}/mcp",
        KENNING_TOKEN=server.read_token,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "HTTP 403" in done.stderr and 'error="insufficient_scope"' in done.stderr
    recalled = server.rest("recall", {"query": decision})["results"]
    assert decision not in [result["content"] for result in recalled]


@pytest.mark.slow
def test_rest_client_round_trip_gets_back_what_it_wrote_then_forgets_it(server: Server) -> None:
    content = _load("rest_client").CONTENT
    done = _example(
        sys.executable, "rest_client.py", KENNING_API=f"{server.base}/api/v1", KENNING_TOKEN=server.token
    )
    assert done.returncode == 0, done.stdout + done.stderr
    stored = re.search(rf"^remember: stored ({MEMORY_ID}) ", done.stdout, re.MULTILINE)
    assert stored is not None, done.stdout
    assert re.search(r"^recall .*: rank \d+ of \d+$", done.stdout, re.MULTILINE), done.stdout
    assert f"get: {content!r} (active, pool team, by agent-a)" in done.stdout
    assert "with an unknown token: HTTP 401 unauthorized" in done.stdout
    record = server.rest("get", {"id": stored.group(1)})
    assert (record["content"], record["state"]) == (content, "archived")


@pytest.mark.slow
def test_rest_client_stops_at_403_for_a_read_only_token(server: Server) -> None:
    done = _example(
        sys.executable, "rest_client.py", KENNING_API=f"{server.base}/api/v1", KENNING_TOKEN=server.read_token
    )
    assert done.returncode == 1
    assert "HTTP 403 insufficient_scope: remember needs the 'write' scope" in done.stderr
    assert "retrying" not in done.stderr


def test_rest_client_waits_out_429_and_raises_401_and_403_at_once() -> None:
    rest_client = _load("rest_client")

    def limited() -> httpx.Response:
        return httpx.Response(
            429, headers={"Retry-After": "0"}, json={"code": "rate_limited", "message": "wait"}
        )

    replies = {
        "status": [limited()],
        "recall": [limited() for _ in range(3)],
        "get": [httpx.Response(401, json={"code": "unauthorized", "message": "the token is not valid"})],
        "forget": [httpx.Response(403, json={"code": "insufficient_scope", "message": "needs write"})],
    }
    asked: list[str] = []

    def reply(request: httpx.Request) -> httpx.Response:
        operation = request.url.path.rsplit("/", 1)[-1]
        asked.append(operation)
        queued = replies[operation]
        return queued.pop(0) if queued else httpx.Response(200, json={"ok": operation})

    with httpx.Client(base_url="http://kenning/api/v1", transport=httpx.MockTransport(reply)) as client:
        assert rest_client.call(client, "status") == {"ok": "status"}
        with pytest.raises(rest_client.KenningAPIError) as over:
            rest_client.call(client, "recall", {"query": "x"}, retries=2)
        with pytest.raises(rest_client.KenningAPIError) as unauthorized:
            rest_client.call(client, "get", {"id": "x"})
        with pytest.raises(rest_client.KenningAPIError) as forbidden:
            rest_client.call(client, "forget", {"id": "x"})
    assert (over.value.status, over.value.code) == (429, "rate_limited")
    assert (unauthorized.value.status, unauthorized.value.code) == (401, "unauthorized")
    assert (forbidden.value.status, forbidden.value.code) == (403, "insufficient_scope")
    assert asked == ["status", "status", "recall", "recall", "recall", "get", "forget"]


@pytest.mark.slow
def test_adapter_loads_the_tools_and_a_read_only_token_cannot_remember(
    server: Server, client_python: Path
) -> None:
    content = "A read-only principal tried to store this through the adapter."
    done = subprocess.run(
        [str(client_python), str(PROBE), f"{server.base}/mcp", server.token, server.read_token, content],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {"remember", "recall"} <= set(report["tools"])
    assert "error" in report["remember"], report
    assert (
        "insufficient_scope" in report["remember"]["error"] and 'scope="write"' in report["remember"]["error"]
    )
    recalled = server.rest("recall", {"query": content})["results"]
    assert content not in [result["content"] for result in recalled]
