"""The team server's composition root: one ASGI app with REST, MCP over Streamable HTTP and health.

    /api/v1/<operation>   REST, one endpoint per MCP tool (rest_api), OpenAPI at /api/v1/openapi.json
    /api/v1/docs          the OpenAPI docs page (Swagger UI from the package, no CDN)
    /mcp                  MCP over Streamable HTTP (official SDK)
    /healthz, /readyz     liveness; readiness (store reachable, model loaded), saying when degraded
    /, /memories, ...     the dashboard (entry/dashboard), signed in with a token kept in a cookie

Everything sits behind the guard (http_guard): Host and Origin, body size, bearer tokens, limits.
The app's lifespan loads the model, checks the store, runs the MCP session manager and the background
maintenance scheduler, and closes the store at the end.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse

from kenning import __version__
from kenning.core.errors import InvalidInput
from kenning.entry.dashboard import add_dashboard, is_page
from kenning.entry.http_guard import DOCS_ASSETS, Guard, SharedWindows, policy_for
from kenning.entry.mcp_server import build_server, request_principal
from kenning.entry.rest_api import PREFIX, add_routes
from kenning.jobs.scheduler import start_scheduler
from kenning.services.deps import SCOPES
from kenning.services.facade import Kenning
from kenning.settings import Settings

logger = logging.getLogger(__name__)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
METADATA_PATH = "/.well-known/oauth-protected-resource"


def check_bind(host: str, tokens_issued: int, *, identity_provider: bool = False) -> None:
    """A server reachable from other machines must have principals: refuse to start open."""
    if host not in LOOPBACK and tokens_issued == 0 and not identity_provider:
        raise InvalidInput(
            "http.host",
            f"binding {host} makes Kenning reachable from other machines, and no token exists yet; "
            "create one first with `kenning token create NAME --write POOL`",
        )


def _offline_docs(api: FastAPI) -> None:
    """The OpenAPI docs page at /api/v1/docs, its Swagger UI files served from the package
    `fastapi-offline` ships them in, not from a CDN: it works without a network."""
    from pathlib import Path

    import fastapi_offline
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from fastapi.staticfiles import StaticFiles

    assets = Path(fastapi_offline.__file__).parent / "static"
    api.mount(DOCS_ASSETS.rstrip("/"), StaticFiles(directory=assets), name="docs-assets")

    @api.get(f"{PREFIX}/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=f"{PREFIX}/openapi.json",
            title="Kenning - REST API",
            swagger_js_url=f"{DOCS_ASSETS}swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}favicon.png",
        )


def build_http_app(
    app: Kenning, settings: Settings, *, warm_up: bool = True, close_on_exit: bool = False
) -> Guard:
    http = settings.http
    server = build_server(
        app, request_principal, log_level=settings.server.log_level, stage_log=settings.server.stage_log
    )
    mcp_asgi = server.streamable_http_app(
        streamable_http_path="/mcp",
        # Several worker processes share no memory, so no session could follow its client between
        # them: each MCP request then stands alone, as in the stateless protocol revision.
        stateless_http=http.workers > 1,
        max_request_body_size=http.max_body_bytes,
        # Host and Origin are checked by the guard, for every route and whatever the bind address.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        host=http.host,
    )
    ready = threading.Event()

    def prepare() -> None:
        try:
            app.warm_up()
        finally:
            ready.set()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        warmer = threading.Thread(target=prepare, name="kenning-warmup", daemon=True)
        if warm_up:
            warmer.start()
        else:
            ready.set()
        scheduler = start_scheduler(app, settings.lifecycle.interval_hours)
        try:
            async with server.session_manager.run():
                yield
        finally:
            if scheduler is not None:
                await anyio.to_thread.run_sync(scheduler.stop)
            if warm_up:  # the store closes after this: let the warm-up finish with it first
                await anyio.to_thread.run_sync(warmer.join, 120.0)
            if close_on_exit:
                app.close()

    api = FastAPI(
        title="Kenning",
        version=__version__,
        description="Long-term memory for AI agents. Every endpoint takes a bearer token "
        "(`kenning token create`); pools and scopes come from the token.",
        lifespan=lifespan,
        docs_url=None,
        openapi_url=f"{PREFIX}/openapi.json",
        redoc_url=None,
    )
    add_routes(api, server)
    _offline_docs(api)
    add_dashboard(api, app, secure_cookie=(http.public_url or "").startswith("https://"))

    @api.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, Any]:
        return {"ok": True, "version": __version__}

    @api.get("/readyz", include_in_schema=False)
    async def readyz(request: Request) -> JSONResponse:
        problems, degraded = await anyio.to_thread.run_sync(app.readiness, ready.is_set())
        body = {"ready": not problems, "problems": problems, "degraded": degraded}
        return JSONResponse(body, status_code=503 if problems else 200)

    def openapi() -> dict[str, Any]:
        if api.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi

            schema = get_openapi(
                title=api.title, version=api.version, description=api.description, routes=api.routes
            )
            schema.setdefault("components", {})["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer"}
            }
            api.openapi_schema = schema
        return api.openapi_schema

    issuer = app.identity_issuer
    if issuer is not None:

        @api.get(METADATA_PATH, include_in_schema=False)
        @api.get(METADATA_PATH + "/mcp", include_in_schema=False)
        async def protected_resource(request: Request) -> dict[str, Any]:
            """RFC 9728: what this resource is and which authorization server issues its tokens."""
            base = (http.public_url or f"{request.url.scheme}://{request.headers.get('host', '')}").rstrip(
                "/"
            )
            return {
                "resource": f"{base}/mcp",
                "authorization_servers": [issuer],
                "scopes_supported": list(SCOPES),
                "bearer_methods_supported": ["header"],
                "resource_name": "Kenning",
            }

    api.openapi = openapi  # type: ignore[method-assign]
    api.mount("/", mcp_asgi)  # last: the REST routes and health match first
    policy = policy_for(
        http.host,
        allowed_hosts=http.allowed_hosts,
        allowed_origins=http.allowed_origins,
        max_body_bytes=http.max_body_bytes,
        requests_per_minute=http.requests_per_minute,
        concurrent_requests=http.concurrent_requests,
        failed_logins_per_minute=http.failed_logins_per_minute,
    )
    shared: SharedWindows | None = None
    if settings.storage.url and http.requests_per_minute:
        from kenning.adapters.pg_rate_windows import PgRateWindows

        # Every server process on the database counts each principal's rate together.
        shared = PgRateWindows(settings.storage.url)
    elif http.workers > 1 and http.requests_per_minute:
        from kenning.adapters.sqlite_rate_windows import SqliteRateWindows

        # The workers count each principal's rate together, in a file beside the store.
        db = settings.storage.resolved_db_path()
        shared = SqliteRateWindows(db.with_name(db.name + ".limits"))
    return Guard(
        api,
        policy=policy,
        authenticate=app.authenticate,
        metadata_path=METADATA_PATH if issuer is not None else None,
        public_url=http.public_url,
        shared_windows=shared,
        dashboard=is_page,
    )


def worker_app() -> Guard:
    """The app of one worker process of `serve --http` with `http.workers` above 1: settings come from
    the environment, which `serve_http` set for its workers."""
    from kenning.entry.compose import build_kenning, configure_logging
    from kenning.settings import load_settings

    settings = load_settings({})
    configure_logging(settings.server.log_level)
    return build_http_app(build_kenning(settings), settings, close_on_exit=True)


def serve_http(app: Kenning, settings: Settings) -> None:
    """Serve in this process, or in `http.workers` processes that share the store (Python runs one
    thread at a time per process: on a machine with cores to spare, workers serve more agents)."""
    import os

    import uvicorn

    http = settings.http
    check_bind(http.host, app.count_live_tokens(), identity_provider=app.identity_issuer is not None)
    common: dict[str, Any] = {
        "host": http.host,
        "port": http.port,
        "log_level": settings.server.log_level.lower(),
        "server_header": False,
        "proxy_headers": False,
        "timeout_graceful_shutdown": 10,
        # A worker answers its supervisor's ping from a thread, which a busy process may not run for a
        # few seconds: the default of 5 s had loaded workers killed with requests in flight.
        "timeout_worker_healthcheck": 60,
        # Longer than clients keep an idle connection (httpx: 5 s), so that the client closes it first:
        # with equal timeouts a request sent as the server hangs up fails with a dropped connection.
        "timeout_keep_alive": 30,
    }
    if http.workers > 1:
        app.close()  # each worker opens its own
        # The workers read their settings as this process did, with what the command line set on top.
        os.environ["KENNING_HTTP__HOST"] = http.host
        os.environ["KENNING_HTTP__PORT"] = str(http.port)
        os.environ["KENNING_STORAGE__DB_PATH"] = str(settings.storage.resolved_db_path())
        uvicorn.run("kenning.entry.http_app:worker_app", factory=True, workers=http.workers, **common)
        return
    uvicorn.Server(uvicorn.Config(build_http_app(app, settings), **common)).run()
