"""What every HTTP request passes before it reaches a door: Host and Origin, size, token, limits.

One ASGI middleware in front of REST, MCP and the docs, so no route can be mounted outside it:
- the Host header must name this server, and an Origin, when sent, one it allows (DNS rebinding);
- a body over the limit gets 413, whether it says its length or streams it;
- a bearer token names the principal (401 with `WWW-Authenticate` for none or a bad one), which the
  doors read from the request scope; pools and scopes never come from arguments;
- an MCP `tools/call` or `resources/read` the token's scopes cannot make gets 403 `insufficient_scope`
  before it runs (the application checks again below, for every door);
- each principal has a rate and a number of requests in flight; past either, 429 with `Retry-After`;
- the dashboard's pages take the principal from its session cookie instead (the same token, kept
  HttpOnly and SameSite=Strict); without one they pass with no principal, and the page asks to sign in.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kenning.core.errors import KenningError, Unauthorized
from kenning.entry.mcp_server import PRINCIPAL_KEY as CALLER_KEY
from kenning.services.deps import Caller
from kenning.services.facade import OPERATION_SCOPES
from kenning.services.principals import looks_like_token

logger = logging.getLogger(__name__)

PUBLIC_PATHS = frozenset({"/healthz", "/readyz", "/api/v1/openapi.json", "/api/v1/docs"})
DOCS_ASSETS = "/api/v1/docs/assets/"  # the docs page's script and style sheet, public like the page
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_MAX_SESSIONS = 100_000
SESSION_COOKIE = "kenning_session"  # the dashboard's: the signed-in principal's token
BODY_TIMEOUT_S = 30.0  # a body must arrive within this; a slow one holds a connection, not the server


@dataclass(frozen=True, slots=True)
class GuardPolicy:
    allowed_hosts: tuple[str, ...]  # host names (no port): any port is accepted
    allowed_origins: tuple[str, ...]  # full origins on other hosts, e.g. "https://app.example.com"
    max_body_bytes: int
    requests_per_minute: int  # 0: no limit
    concurrent_requests: int  # 0: no limit
    failed_logins_per_minute: int = 300


def policy_for(
    bind_host: str,
    *,
    allowed_hosts: list[str],
    allowed_origins: list[str],
    max_body_bytes: int,
    requests_per_minute: int,
    concurrent_requests: int,
    failed_logins_per_minute: int = 300,
) -> GuardPolicy:
    """Loopback names are always allowed; a bound address that is not a wildcard is allowed too."""
    hosts = [*LOOPBACK_HOSTS, *allowed_hosts]
    if bind_host not in ("0.0.0.0", "::", ""):  # noqa: S104 - compared with, not bound to
        hosts.append(f"[{bind_host}]" if ":" in bind_host else bind_host)
    hosts = list(dict.fromkeys(h.lower() for h in hosts))
    return GuardPolicy(
        allowed_hosts=tuple(hosts),
        allowed_origins=tuple(dict.fromkeys(o.rstrip("/").lower() for o in allowed_origins)),
        max_body_bytes=max_body_bytes,
        requests_per_minute=requests_per_minute,
        concurrent_requests=concurrent_requests,
        failed_logins_per_minute=failed_logins_per_minute,
    )


def _without_port(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        rest = host[end + 1 :] if end > 0 else ""
        # "[::1]" or "[::1]:port"; anything else after the bracket is no host of ours
        return host[: end + 1] if end > 0 and (not rest or (rest[0] == ":" and rest[1:].isdigit())) else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


@dataclass(slots=True)
class _Usage:
    in_flight: int = 0
    window_start: float = 0.0
    in_window: int = 0


class SharedWindows(Protocol):
    """Rate windows that several processes of one server count together."""

    def admit(self, who: str, now: float, per_minute: int) -> float | None: ...


@dataclass(slots=True)
class Limits:
    """Per-principal rate (a fixed one-minute window) and requests in flight. With `shared`, the rate
    is counted with the server's other processes (on the wall clock); requests in flight are always
    this process's own."""

    policy: GuardPolicy
    shared: SharedWindows | None = None
    wall_clock: Callable[[], float] = time.time
    _usage: dict[str, _Usage] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def admit(self, who: str, now: float, *, in_flight: bool = True) -> float | None:
        """None when admitted (release it afterwards), else the seconds to wait."""
        with self._lock:
            usage = self._usage.setdefault(who, _Usage(window_start=now))
            if now - usage.window_start >= 60.0:
                usage.window_start, usage.in_window = now, 0
            per_minute, at_once = self.policy.requests_per_minute, self.policy.concurrent_requests
            if per_minute and self.shared is None and usage.in_window >= per_minute:
                return max(1.0, 60.0 - (now - usage.window_start))
            if in_flight and at_once and usage.in_flight >= at_once:
                return 1.0
            if per_minute and self.shared is not None:
                wait = self.shared.admit(who, self.wall_clock(), per_minute)
                if wait is not None:
                    return wait
            usage.in_window += 1
            usage.in_flight += in_flight
            return None

    def release(self, who: str) -> None:
        with self._lock:
            self._usage[who].in_flight -= 1


@dataclass(slots=True)
class FailedLogins:
    """Requests with a bad token, per client address and minute; past the limit that address gets 429
    before any token of it is looked at. Behind a reverse proxy every client shares its address, so the
    limit is high: it stops a flood, not a typo."""

    per_minute: int
    _seen: dict[str, tuple[float, int]] = field(default_factory=dict)

    def blocked(self, client: str, now: float) -> float | None:
        start, count = self._seen.get(client, (now, 0))
        if now - start >= 60.0:
            self._seen.pop(client, None)
            return None
        return max(1.0, 60.0 - (now - start)) if count >= self.per_minute else None

    def add(self, client: str, now: float) -> None:
        start, count = self._seen.get(client, (now, 0))
        if now - start >= 60.0:
            start, count = now, 0
        self._seen[client] = (start, count + 1)
        if len(self._seen) > 10_000:  # forget the oldest addresses rather than grow without end
            self._seen.pop(next(iter(self._seen)))


class _TooLarge(Exception):
    pass


async def _json_response(
    send: Send, status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> None:
    body = json.dumps({"code": code, "message": message}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


async def _too_many(send: Send, why: str, wait: float) -> None:
    seconds = math.ceil(wait)
    await _json_response(
        send, 429, "rate_limited", f"{why}; retry in {seconds} s", {"Retry-After": str(seconds)}
    )


def bearer_challenge(
    error: str | None = None, description: str | None = None, scope: str | None = None
) -> str:
    parts = ['Bearer realm="kenning"']
    if error:
        parts.append(f'error="{error}"')
    if description:
        parts.append(f'error_description="{description}"')
    if scope:
        parts.append(f'scope="{scope}"')
    return ", ".join(parts)


def _needed_scopes(body: bytes) -> list[tuple[str, str]]:
    """(operation, scope) for each MCP message in the body that calls a tool or reads a resource."""
    parsed = json.loads(body)  # the caller turns a body that does not parse into a 400
    messages = parsed if isinstance(parsed, list) else [parsed]
    needed = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if message.get("method") == "tools/call":
            name = str(params.get("name", ""))
            needed.append((name, OPERATION_SCOPES.get(name, "admin")))  # an unlisted tool is for admins
        elif message.get("method") == "resources/read":
            needed.append(("resources/read", "read"))
    return needed


class Guard:
    def __init__(
        self,
        app: ASGIApp,
        *,
        policy: GuardPolicy,
        authenticate: Callable[[str], Caller],
        mcp_path: str = "/mcp",
        clock: Callable[[], float] = time.monotonic,
        metadata_path: str | None = None,
        public_url: str | None = None,
        shared_windows: SharedWindows | None = None,
        dashboard: Callable[[str], bool] | None = None,
    ) -> None:
        self.app = app
        self.policy = policy
        self.authenticate = authenticate
        self.mcp_path = mcp_path
        self.metadata_path = metadata_path  # set when an identity provider's access tokens are accepted
        self.public_url = public_url.rstrip("/") if public_url else None
        self.limits = Limits(policy, shared_windows)
        self.clock = clock
        self.failures = FailedLogins(policy.failed_logins_per_minute)
        self.sessions: dict[str, str] = {}  # MCP session id -> the agent id of the principal that opened it
        self.dashboard = dashboard  # which paths are the dashboard's pages (signed in by cookie)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # no route speaks it; none may open behind the guard's back
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # the lifespan
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if _without_port(headers.get("host", "")) not in self.policy.allowed_hosts:
            await _json_response(send, 421, "misdirected", "the Host header does not name this server")
            return
        origin = headers.get("origin")
        if origin is not None and not self._origin_allowed(origin):
            await _json_response(send, 403, "forbidden_origin", f"origin {origin!r} is not allowed")
            return
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.policy.max_body_bytes):
            await self._too_large(send)
            return
        path = scope["path"]
        if (
            path in PUBLIC_PATHS
            or path.startswith(DOCS_ASSETS)
            or (self.metadata_path is not None and path.startswith(self.metadata_path))
        ):
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("?", 0))[0]
        wait = self.failures.blocked(client, self.clock())
        if wait is not None:
            await _too_many(send, f"too many failed logins from {client}", wait)
            return
        if self.dashboard is not None and self.dashboard(path) and "authorization" not in headers:
            await self._page(scope, receive, send, headers, client)
            return
        caller = await self._principal(scope, headers, send)
        if caller is None:
            self.failures.add(client, self.clock())
            return
        body = await self._read_body(receive, send)
        if body is None:
            return
        session = headers.get("mcp-session-id")
        if session is not None and self.sessions.get(session, caller.agent_id) != caller.agent_id:
            # A session belongs to the principal that opened it: to anyone else it does not exist.
            await _json_response(send, 404, "not_found", "no such session")
            return
        if path.rstrip("/") == self.mcp_path and scope["method"] == "POST":
            try:
                needed_scopes = _needed_scopes(body)
            except (ValueError, RecursionError):
                await _json_response(send, 400, "invalid_json", "the body is not JSON the server can read")
                return
            for operation, needed in needed_scopes:
                if needed not in caller.scopes:
                    await _json_response(
                        send,
                        403,
                        "insufficient_scope",
                        f"{operation} needs the {needed!r} scope, which this token lacks",
                        {"WWW-Authenticate": bearer_challenge("insufficient_scope", scope=needed)},
                    )
                    return
        # A GET on /mcp is a listening stream that stays open as long as its session: it counts towards
        # the rate, not towards the requests in flight, or a few open sessions would lock a principal out.
        streaming = path.rstrip("/") == self.mcp_path and scope["method"] == "GET"
        wait = self.limits.admit(caller.agent_id, self.clock(), in_flight=not streaming)
        if wait is not None:
            await _too_many(send, f"principal {caller.agent_id!r} is over its request limit", wait)
            return
        scope.setdefault("state", {})[CALLER_KEY] = caller
        try:
            await self.app(scope, _replay(body, receive), self._noting_sessions(send, caller.agent_id))
        finally:
            if not streaming:
                self.limits.release(caller.agent_id)

    async def _page(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], client: str
    ) -> None:
        """A dashboard page: the principal, if any, from the session cookie; a page answered 401 (a
        sign-in with a bad token, a session whose token was revoked) counts as a failed login."""
        token = _cookie(headers.get("cookie", ""), SESSION_COOKIE)
        caller = None
        if token and looks_like_token(token, access_tokens=self.metadata_path is not None):
            try:
                caller = await anyio.to_thread.run_sync(self.authenticate, token)
            except KenningError:
                caller = None
        who = caller.agent_id if caller is not None else None
        if who is not None:
            wait = self.limits.admit(who, self.clock())
            if wait is not None:
                await _too_many(send, f"principal {who!r} is over its request limit", wait)
                return
            scope.setdefault("state", {})[CALLER_KEY] = caller

        async def noting_failures(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                self.failures.add(client, self.clock())
            await send(message)

        try:
            body = await self._read_body(receive, send)
            if body is not None:
                await self.app(scope, _replay(body, receive), noting_failures)
        finally:
            if who is not None:
                self.limits.release(who)

    def _origin_allowed(self, origin: str) -> bool:
        """An origin on an allowed host (any port, http or https), or one configured in full."""
        origin = origin.strip().rstrip("/").lower()
        scheme, _, rest = origin.partition("://")
        if (
            scheme in ("http", "https")
            and "/" not in rest
            and _without_port(rest) in self.policy.allowed_hosts
        ):
            return True
        return origin in self.policy.allowed_origins

    def _noting_sessions(self, send: Send, owner: str) -> Send:
        """A send that records who opened each MCP session the server starts."""

        async def noted(message: Message) -> None:
            if message["type"] == "http.response.start":
                for key, value in message.get("headers", []):
                    if key.lower() == b"mcp-session-id":
                        self.sessions.setdefault(value.decode("latin-1"), owner)
                        while len(self.sessions) > _MAX_SESSIONS:  # far above the SDK's own session cap
                            self.sessions.pop(next(iter(self.sessions)))
            await send(message)

        return noted

    def _challenge(self, scope: Scope, headers: dict[str, str], error: str | None, why: str | None) -> str:
        """The WWW-Authenticate value; with an identity provider it points at the protected-resource
        metadata (RFC 9728), which tells a client where to get an access token."""
        challenge = bearer_challenge(error, why)
        if self.metadata_path is not None:
            base = self.public_url or f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
            challenge += f', resource_metadata="{base}{self.metadata_path}"'
        return challenge

    async def _principal(self, scope: Scope, headers: dict[str, str], send: Send) -> Caller | None:
        given = headers.get("authorization", "")
        kind, _, token = given.partition(" ")
        if not given or kind.lower() != "bearer" or not token.strip():
            challenge = self._challenge(scope, headers, None, None)
            await _json_response(
                send, 401, "unauthorized", "a bearer token is required", {"WWW-Authenticate": challenge}
            )
            return None
        # No lookup and no thread for what cannot be a token.
        if not looks_like_token(token, access_tokens=self.metadata_path is not None):
            challenge = self._challenge(scope, headers, "invalid_token", "the token is not valid")
            await _json_response(
                send, 401, "unauthorized", "the token is not valid", {"WWW-Authenticate": challenge}
            )
            return None
        try:
            return await anyio.to_thread.run_sync(self.authenticate, token.strip())
        except Unauthorized as exc:
            challenge = self._challenge(scope, headers, "invalid_token", exc.message)
            await _json_response(send, 401, "unauthorized", exc.message, {"WWW-Authenticate": challenge})
        except KenningError as exc:
            await _json_response(send, 503, exc.code, exc.message, {"Retry-After": "1"})
        return None

    async def _read_body(self, receive: Receive, send: Send) -> bytes | None:
        """The whole body, or None once the answer is sent: 413 past the limit, 408 when too slow."""
        try:
            with anyio.fail_after(BODY_TIMEOUT_S):
                return await self._body(receive)
        except _TooLarge:
            await self._too_large(send)
        except TimeoutError:
            await _json_response(send, 408, "timeout", f"the body did not arrive within {BODY_TIMEOUT_S:g} s")
        return None

    async def _body(self, receive: Receive) -> bytes:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.policy.max_body_bytes:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    async def _too_large(self, send: Send) -> None:
        limit = self.policy.max_body_bytes
        await _json_response(send, 413, "too_large", f"request body: the limit is {limit} bytes")


def _replay(body: bytes, receive: Receive) -> Callable[[], Awaitable[Message]]:
    """A receive that gives the body already read, then waits on the real one (for a disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _cookie(header: str, name: str) -> str | None:
    """One cookie's value from a Cookie header."""
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value.strip('"') or None
    return None


def caller_of(scope: Any) -> Caller:
    """The principal the guard put in a request's scope (a KeyError means a route outside the guard)."""
    state = scope.get("state") or {}
    caller = state.get(CALLER_KEY)
    if not isinstance(caller, Caller):
        raise Unauthorized("no principal on this request")
    return caller
