"""The team server over real HTTP on loopback: REST and MCP behind one guard, pools and scopes from tokens.

The isolation tests enumerate the REST routes (from the served OpenAPI schema) and the MCP tools and
resources (from a live session), so an operation added later is covered without editing this file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from http_server import LiveServer, live_server
from kenning.core.errors import InvalidInput
from kenning.entry.http_app import check_bind
from kenning.entry.stdio_transport import initialize_request
from pg_server import database_for
from store_backends import BACKENDS

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The team server on each backend: every test below runs against the SQLite file and PostgreSQL."""
    with (
        database_for(request, request.param) as url,
        live_server(tmp_path_factory.mktemp("http"), storage_url=url, max_body_bytes=20_000) as live,
    ):
        yield live


@pytest.fixture(scope="module")
def tokens(server: LiveServer) -> dict[str, str]:
    return {
        "alice": server.token("alice", write="team"),  # writes the team pool
        "bob": server.token("bob", read=("team",), scopes=("read",)),  # reads it, writes nothing
        "carol": server.token("carol"),  # her own pool only
        "dave": server.token("dave", read=("team",)),  # writes his own pool, reads the team's
        "writer": server.token("writer", write="team", scopes=("write",)),  # cannot read
        "lead": server.token("lead", write="team", scopes=("read", "write", "admin")),
        "outsider": server.token("outsider", scopes=("read", "write", "admin")),  # every scope, no team
    }


def rest(
    server: LiveServer, token: str | None, operation: str, body: Any = None, **kw: Any
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    headers.update(kw.pop("headers", {}))
    return httpx.post(
        f"{server.url}/api/v1/{operation}",
        json={} if body is None else body,
        headers=headers,
        timeout=60,
        **kw,
    )


def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@asynccontextmanager
async def mcp_session(server: LiveServer, token: str) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        streamable_http_client(f"{server.url}/mcp", http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def mcp_post(server: LiveServer, token: str | None, message: dict[str, Any]) -> httpx.Response:
    """One raw JSON-RPC POST to /mcp, as an attacker would send it."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(f"{server.url}/mcp", content=json.dumps(message), headers=headers, timeout=60)


def routes(server: LiveServer) -> dict[str, dict[str, Any]]:
    """Every REST operation the running server publishes, with its OpenAPI description."""
    schema = httpx.get(f"{server.url}/api/v1/openapi.json").json()
    return {path.rsplit("/", 1)[1]: spec["post"] for path, spec in schema["paths"].items()}


def placeholder_args(spec: dict[str, Any], memory_id: str) -> dict[str, Any]:
    """Arguments that pass validation: the id given wherever an id goes, a plain value for the rest."""
    schema = spec["requestBody"]["content"]["application/json"]["schema"]
    args: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        if name in ("id", "src", "dst"):
            args[name] = memory_id
        elif name in schema.get("required", []):
            options = [p for p in prop.get("anyOf", [prop]) if p.get("type") != "null"]
            first = options[0] if options else {}
            if "enum" in first:
                args[name] = first["enum"][0]
            else:
                kinds = {"integer": 1, "number": 0.5, "boolean": False, "array": [], "object": {}}
                args[name] = kinds.get(first.get("type", "string"), "x")
    return args


# -- pools and scopes ---------------------------------------------------------------------------------


def test_a_pool_is_read_by_its_readers_only_and_written_by_its_writers(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    stored = ok(
        rest(server, tokens["alice"], "remember", {"content": "Releases ship blue-green on Kubernetes."})
    )
    memory_id = stored["id"]

    found = ok(rest(server, tokens["bob"], "recall", {"query": "how do releases ship"}))
    assert [(r["id"], r["pool"]) for r in found["results"]][:1] == [(memory_id, "team")]
    assert ok(rest(server, tokens["dave"], "get", {"id": memory_id}))["content"].startswith("Releases ship")

    # Carol reads no team pool: the memory does not exist for her, by any operation.
    assert memory_id not in [
        r["id"] for r in ok(rest(server, tokens["carol"], "recall", {"query": "releases"}))["results"]
    ]
    missing = rest(server, tokens["carol"], "get", {"id": memory_id})
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert "blue-green" not in missing.text

    # Dave reads the team pool but writes his own: he may not change a team memory.
    refused = rest(
        server, tokens["dave"], "update", {"id": memory_id, "version": 1, "content": "Releases ship by hand."}
    )
    assert refused.status_code == 403 and "read but do not write" in refused.json()["message"]

    # Bob's token has no write scope at all.
    denied = rest(server, tokens["bob"], "remember", {"content": "bob was here"})
    assert denied.status_code == 403 and denied.json()["code"] == "insufficient_scope"
    assert 'error="insufficient_scope"' in denied.headers["WWW-Authenticate"]
    assert 'scope="write"' in denied.headers["WWW-Authenticate"]


def test_a_write_claims_no_more_trust_than_its_token_allows(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    stored = ok(
        rest(server, tokens["carol"], "remember", {"content": "Carol prefers tabs.", "trust": "user_stated"})
    )
    assert stored["trust"] == "agent_inferred"
    record = ok(rest(server, tokens["carol"], "get", {"id": stored["id"]}))
    assert record["agent_id"] == "carol" and record["namespace"] == "agent:carol"


def test_pools_come_from_the_token_never_from_arguments(server: LiveServer, tokens: dict[str, str]) -> None:
    for operation, body in (
        ("remember", {"content": "x", "namespace": "team"}),
        ("recall", {"pool": "team"}),
    ):
        response = rest(server, tokens["carol"], operation, body)
        assert response.status_code == 422 and response.json()["field"] in ("namespace", "pool")


# -- every route, tool and resource, from the running server --------------------------------------------


def test_every_rest_route_wants_a_valid_token_and_its_scope(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    published = routes(server)
    assert {"remember", "recall", "get", "forget", "status"} <= set(published)
    lacking = {"read": tokens["writer"], "write": tokens["bob"], "admin": tokens["alice"]}
    for operation, spec in published.items():
        (scope,) = spec["tags"]
        none = rest(server, None, operation)
        assert none.status_code == 401 and none.headers["WWW-Authenticate"].startswith("Bearer"), operation
        bad = rest(server, "kn_aaaaaaaaaaaa_" + "b" * 43, operation)
        assert bad.status_code == 401 and 'error="invalid_token"' in bad.headers["WWW-Authenticate"], (
            operation
        )
        short = rest(server, lacking[scope], operation, placeholder_args(spec, "0" * 26))
        assert short.status_code == 403 and short.json()["code"] == "insufficient_scope", (
            operation,
            short.text,
        )


def test_no_route_tells_another_pool_s_memory_from_a_missing_one(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    secret = ok(
        rest(
            server,
            tokens["lead"],
            "remember",
            {"content": "The staging database password rotates on Fridays."},
        )
    )
    missing_id = "01" + "0" * 24
    for operation, spec in routes(server).items():
        schema = spec["requestBody"]["content"]["application/json"]["schema"]
        if not {"id", "src"} & set(schema.get("properties", {})):
            continue
        theirs = rest(server, tokens["outsider"], operation, placeholder_args(spec, secret["id"]))
        nobody = rest(server, tokens["outsider"], operation, placeholder_args(spec, missing_id))
        assert theirs.status_code == nobody.status_code == 404, (operation, theirs.text, nobody.text)
        assert "staging" not in theirs.text and theirs.json()["code"] == nobody.json()["code"]


def test_counts_and_lists_never_include_a_pool_the_token_cannot_read(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    for text in ("The API uses REST over HTTP/2.", "The API does not use REST over HTTP/2."):
        ok(rest(server, tokens["lead"], "remember", {"content": text, "tags": ["proj:api"]}))
    status = ok(rest(server, tokens["carol"], "status"))
    assert status["namespace"] == "agent:carol"
    assert status["memories_in_namespace"] == len(
        ok(rest(server, tokens["carol"], "recall", {"limit": 100}))["results"]
    )
    for operation, key in (("conflicts", "conflicts"), ("insights", "insights"), ("beliefs", "beliefs")):
        listed = ok(rest(server, tokens["carol"], operation))
        assert "REST over" not in json.dumps(listed), operation
        assert key in listed
    graph = rest(
        server,
        tokens["carol"],
        "explore_graph",
        {"id": ok(rest(server, tokens["lead"], "recall", {"query": "REST"}))["results"][0]["id"]},
    )
    assert graph.status_code == 404


async def test_every_mcp_tool_and_resource_wants_a_valid_token_and_its_scope(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    async with mcp_session(server, tokens["alice"]) as session:
        tools = [t.name for t in (await session.list_tools()).tools]
        templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
        resources = [str(r.uri) for r in (await session.list_resources()).resources]
    assert set(routes(server)) == set(tools)  # one declaration feeds both doors
    published = routes(server)
    lacking = {"read": tokens["writer"], "write": tokens["bob"], "admin": tokens["alice"]}
    for number, name in enumerate(tools):
        call = {
            "jsonrpc": "2.0",
            "id": number,
            "method": "tools/call",
            "params": {"name": name, "arguments": {}},
        }
        none = mcp_post(server, None, call)
        assert none.status_code == 401 and "WWW-Authenticate" in none.headers, name
        (scope,) = published[name]["tags"]
        short = mcp_post(server, lacking[scope], call)
        assert short.status_code == 403 and f'scope="{scope}"' in short.headers["WWW-Authenticate"], name
    uris = [*resources, *(t.replace("{memory_id}", "0" * 26) for t in templates)]
    assert uris
    for uri in uris:
        read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}}
        assert mcp_post(server, None, read).status_code == 401, uri
        assert mcp_post(server, tokens["writer"], read).status_code == 403, uri


async def test_mcp_over_http_acts_for_the_token_s_principal(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    async with mcp_session(server, tokens["dave"]) as session:
        written = await session.call_tool("remember", {"content": "Dave's notes live in the wiki."})
        assert not written.is_error
        assert written.structured_content is not None
        memory_id = written.structured_content["id"]
        status = await session.read_resource("kenning://status")
        assert '"agent:dave"' in status.contents[0].text  # type: ignore[union-attr]
    assert ok(rest(server, tokens["dave"], "get", {"id": memory_id}))["agent_id"] == "dave"
    assert rest(server, tokens["alice"], "get", {"id": memory_id}).status_code == 404  # alice reads team only
    # Its own team memory: a worker may run this test without the module's earlier ones.
    rest(server, tokens["alice"], "remember", {"content": "Releases ship after the Thursday freeze."})
    async with mcp_session(server, tokens["bob"]) as session:
        found = await session.call_tool("recall", {"query": "how do releases ship"})
        assert not found.is_error and "team" in found.content[0].text  # type: ignore[union-attr]


# -- transport ----------------------------------------------------------------------------------------


def test_host_origin_and_size_are_checked_on_every_route(server: LiveServer, tokens: dict[str, str]) -> None:
    for path in ("/api/v1/recall", "/mcp", "/healthz"):
        rebound = httpx.post(f"{server.url}{path}", json={}, headers={"Host": "attacker.example"})
        assert rebound.status_code == 421, path
        foreign = httpx.post(
            f"{server.url}{path}",
            json={},
            headers={"Origin": "https://attacker.example", "Authorization": f"Bearer {tokens['alice']}"},
        )
        assert foreign.status_code == 403 and foreign.json()["code"] == "forbidden_origin", path
    port = server.url.rsplit(":", 1)[1]
    for origin in (f"http://localhost:{port}", f"http://127.0.0.1:{port}", "https://localhost"):
        same = rest(server, tokens["alice"], "status", headers={"Origin": origin})
        assert same.status_code == 200, origin
    for origin in (f"http://localhost.attacker.example:{port}", "null", f"http://127.0.0.1:{port}/x"):
        assert rest(server, tokens["alice"], "status", headers={"Origin": origin}).status_code == 403, origin
    big = rest(server, tokens["alice"], "remember", {"content": "x" * 30_000})
    assert big.status_code == 413 and "20000 bytes" in big.json()["message"]

    def chunks() -> Iterator[bytes]:
        yield b'{"content": "'
        for _ in range(30):
            yield b"y" * 1000
        yield b'"}'

    streamed = httpx.post(
        f"{server.url}/api/v1/remember",
        content=chunks(),
        headers={"Authorization": f"Bearer {tokens['alice']}", "Content-Type": "application/json"},
    )
    assert streamed.status_code == 413
    assert httpx.get(f"{server.url}/healthz").json()["ok"] is True  # still serving


def test_a_principal_over_its_rate_gets_429_with_retry_after(tmp_path: Path) -> None:
    with live_server(tmp_path, requests_per_minute=3) as live:
        token, other = live.token("eager"), live.token("calm")
        answers = [rest(live, token, "status").status_code for _ in range(4)]
        assert answers == [200, 200, 200, 429]
        limited = rest(live, token, "status")
        assert int(limited.headers["Retry-After"]) >= 1
        assert rest(live, other, "status").status_code == 200  # limits are per principal


def test_a_bench_s_stage_log_times_each_rest_call_with_its_wait_for_a_thread(tmp_path: Path) -> None:
    log = tmp_path / "stages.jsonl"
    with live_server(tmp_path, embedder="none", stage_log=log) as live:
        token = live.token("timed")
        ok(rest(live, token, "remember", {"content": "The build cache lives on the NFS share"}))
        ok(rest(live, token, "recall", {"query": "where is the build cache"}))
        assert rest(live, token, "get", {"id": "01J0000000000000000000000Z"}).status_code == 404
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["tool"] for line in lines] == ["remember", "recall", "get"]  # a failed call too
    recall = lines[1]
    assert recall["wall_ms"] >= recall["stages"]["service"]["wall_ms"] > 0
    assert {"queued", "bm25", "fusion", "serialise"} <= set(recall["stages"])
    assert recall["cpu_ms"] > 0


def test_a_revoked_or_rotated_token_stops_at_once(server: LiveServer) -> None:
    from kenning.entry.compose import default_caller
    from kenning.settings import load_settings

    operator = default_caller(load_settings({}), operator=True)
    token = server.token("temp")
    assert rest(server, token, "status").status_code == 200
    rotated, _ = server.app.rotate_token(operator, "temp")
    assert rest(server, token, "status").status_code == 401
    assert rest(server, rotated, "status").status_code == 200
    server.app.revoke_token(operator, "temp")
    refused = rest(server, rotated, "status")
    assert refused.status_code == 401 and "revoked" in refused.json()["message"]


def test_a_reachable_bind_without_tokens_is_refused() -> None:
    with pytest.raises(InvalidInput, match="no token exists"):
        check_bind("0.0.0.0", 0)
    check_bind("0.0.0.0", 1)
    check_bind("127.0.0.1", 0)


def test_the_openapi_schema_describes_each_operation(server: LiveServer) -> None:
    schema = httpx.get(f"{server.url}/api/v1/openapi.json").json()
    remember = schema["paths"]["/api/v1/remember"]["post"]
    body = remember["requestBody"]["content"]["application/json"]["schema"]
    assert "content" in body["required"] and "$ref" not in json.dumps(body)
    assert remember["security"] == [{"bearer": []}]
    assert schema["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    docs = httpx.get(f"{server.url}/api/v1/docs")
    assert docs.status_code == 200 and "openapi.json" in docs.text


def test_the_docs_page_needs_no_network(server: LiveServer) -> None:
    """Swagger UI's script and style sheet come from this server, without a token, not from a CDN."""
    page = httpx.get(f"{server.url}/api/v1/docs").text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert assets and all(url.startswith("/api/v1/docs/assets/") for url in assets), assets
    for url in assets:
        asset = httpx.get(f"{server.url}{url}")
        assert asset.status_code == 200 and len(asset.content) > 1000, url
    assert httpx.get(f"{server.url}/api/v1/docs/assets/../../remember").status_code in (401, 404)


def test_a_token_written_into_memory_is_redacted(server: LiveServer, tokens: dict[str, str]) -> None:
    stored = ok(
        rest(server, tokens["carol"], "remember", {"content": f"My Kenning token is {tokens['carol']} ok"})
    )
    content = ok(rest(server, tokens["carol"], "get", {"id": stored["id"]}))["content"]
    assert tokens["carol"] not in content and "kenning_token" in content


INSPECTOR = Path(__file__).parents[1] / "inspector" / "node_modules" / ".bin" / "mcp-inspector"


def inspector(server: LiveServer, token: str, *args: str) -> tuple[int, Any, str]:
    """The MCP Inspector CLI (an independent client, npm) over HTTP with a bearer header."""
    if not INSPECTOR.exists():
        pytest.fail(f"{INSPECTOR} is missing: run scripts/test, which runs `npm ci --prefix tests/inspector`")
    command = [
        str(INSPECTOR),
        "--cli",
        f"{server.url}/mcp",
        "--transport",
        "http",
        "--header",
        f"Authorization: Bearer {token}",
        *args,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    payload = json.loads(done.stdout) if done.stdout.strip().startswith("{") else None
    return done.returncode, payload, done.stderr + done.stdout


def test_the_inspector_lists_and_calls_the_tools_over_http_with_a_bearer_header(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    code, listed, output = inspector(server, tokens["dave"], "--method", "tools/list")
    assert code == 0, output
    assert {"remember", "recall", "status"} <= {tool["name"] for tool in listed["tools"]}
    args = [
        "--method",
        "tools/call",
        "--tool-name",
        "remember",
        "--tool-arg",
        "content=Inspector notes go in docs/.",
    ]
    code, written, output = inspector(server, tokens["dave"], *args)
    assert code == 0 and written["structuredContent"]["status"] == "stored", output
    assert (
        ok(rest(server, tokens["dave"], "get", {"id": written["structuredContent"]["id"]}))["agent_id"]
        == "dave"
    )
    code, _, output = inspector(server, tokens["bob"], *args)  # a read-only token
    assert code != 0 and "insufficient scope" in output.lower() and "write" in output


def test_an_mcp_session_belongs_to_the_principal_that_opened_it(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    opened = httpx.post(
        f"{server.url}/mcp",
        json=initialize_request("session-owner"),
        headers={**headers, "Authorization": f"Bearer {tokens['dave']}"},
    )
    session = opened.headers["mcp-session-id"]
    for method in ("DELETE", "GET", "POST"):
        stolen = httpx.request(
            method,
            f"{server.url}/mcp",
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"} if method == "POST" else None,
            headers={**headers, "Authorization": f"Bearer {tokens['carol']}", "mcp-session-id": session},
        )
        assert stolen.status_code == 404, method
    ended = httpx.delete(
        f"{server.url}/mcp",
        headers={**headers, "Authorization": f"Bearer {tokens['dave']}", "mcp-session-id": session},
    )
    assert ended.status_code == 200


def test_malformed_bodies_and_hosts_get_a_clear_refusal(server: LiveServer, tokens: dict[str, str]) -> None:
    deep = "[" * 5000 + "]" * 5000
    auth = {"Authorization": f"Bearer {tokens['carol']}", "Content-Type": "application/json"}
    for path in ("/mcp", "/api/v1/status"):
        answer = httpx.post(f"{server.url}{path}", content=deep, headers=auth)
        assert answer.status_code == 400 and answer.json()["code"] == "invalid_json", path
    assert httpx.get(f"{server.url}/healthz", headers={"Host": "[::1]evil.example"}).status_code == 421
    assert httpx.get(f"{server.url}/healthz", headers={"Host": "[::1]:8080"}).status_code == 200


def test_readiness_waits_for_the_model_and_a_keyword_only_server_is_ready_but_says_so(
    server: LiveServer, tmp_path: Path
) -> None:
    deadline = 60
    while (ready := httpx.get(f"{server.url}/readyz")).status_code != 200 and deadline:
        assert "warming up" in " ".join(ready.json()["problems"])
        deadline -= 1
        time.sleep(1)
    assert ready.json() == {"ready": True, "problems": [], "degraded": []}
    with live_server(tmp_path, embedder="none") as keyword_only:
        for _ in range(60):
            answer = httpx.get(f"{keyword_only.url}/readyz")
            if answer.status_code == 200:
                break
            time.sleep(0.5)
        assert answer.status_code == 200 and answer.json()["degraded"], answer.text


def test_setup_url_writes_an_http_entry_whose_token_comes_from_the_environment(
    server: LiveServer, tokens: dict[str, str], tmp_path: Path
) -> None:
    kenning = str(Path(sys.executable).with_name("kenning"))
    config = tmp_path / "claude.json"
    env = {**os.environ, "HOME": str(tmp_path), "KENNING_STORAGE__DB_PATH": str(tmp_path / "k.db")}
    args = [kenning, "setup", "--client", "claude-code", "--url", server.url, "--config", str(config)]
    done = subprocess.run(
        [*args, "--install"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    entry = json.loads(config.read_text())["mcpServers"]["kenning"]
    assert entry == {
        "type": "http",
        "url": f"{server.url}/mcp",
        "headers": {"Authorization": "Bearer ${KENNING_TOKEN}"},
    }
    assert tokens["dave"] not in config.read_text()
    checked = subprocess.run(
        [*args, "--check"],
        capture_output=True,
        text=True,
        env={**env, "KENNING_TOKEN": tokens["dave"]},
        timeout=60,
    )
    assert checked.returncode == 0 and "can reach kenning" in checked.stdout, checked.stderr
    refused = subprocess.run(
        [*args, "--check"], capture_output=True, text=True, env={**env, "KENNING_TOKEN": "kn_bad"}, timeout=60
    )
    assert refused.returncode != 0 and "401" in refused.stderr
    cursor = subprocess.run(
        [kenning, "setup", "--client", "cursor", "--url", server.url],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert "${env:KENNING_TOKEN}" in cursor.stdout
    windsurf = subprocess.run(
        [kenning, "setup", "--client", "windsurf", "--url", server.url],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert windsurf.returncode == 2 and "claude-code, cursor, vscode" in windsurf.stderr


def test_an_address_sending_bad_tokens_gets_429_before_any_lookup(tmp_path: Path) -> None:
    with live_server(tmp_path, failed_logins_per_minute=5) as live:
        answers = [rest(live, "kn_aaaaaaaaaaaa_" + "b" * 43, "status").status_code for _ in range(5)]
        assert answers == [401] * 5
        blocked = rest(live, "kn_aaaaaaaaaaaa_" + "b" * 43, "status")
        assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) >= 1
        assert rest(live, "not-a-token", "status").status_code == 429


def test_a_body_that_never_finishes_times_out_without_holding_others(
    server: LiveServer, tokens: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from kenning.entry import http_guard

    monkeypatch.setattr(http_guard, "BODY_TIMEOUT_S", 1.0)
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as slow:
        slow.sendall(
            f"POST /api/v1/status HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Authorization: Bearer {tokens['carol']}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode()
        )
        assert ok(rest(server, tokens["carol"], "status"))["namespace"] == "agent:carol"  # others are served
        answer = b""
        while b"did not arrive" not in answer:  # the head and the body may come in separate reads
            chunk = slow.recv(4096)
            if not chunk:
                break
            answer += chunk
    assert answer.decode().startswith("HTTP/1.1 408") and b"did not arrive" in answer
