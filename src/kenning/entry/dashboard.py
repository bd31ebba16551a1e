"""The dashboard: where a person sees, searches, corrects and judges what the agents remember.

Server-rendered pages at the root of `kenning serve --http`, with no script and no build step; the
templates and the style sheet ship in the package (entry/dashboard_assets), the pages themselves are
entry/dashboard_pages. A person signs in with a token; the token is then kept in an HttpOnly,
SameSite=Strict cookie, and the guard reads the principal from it on every page (http_guard), so a
revoked token ends its sessions at once. Every form that changes something carries a CSRF token
derived from the session's token, checked here before any page sees the form, and the guard refuses
a cross-origin request before that. Every change goes through the `Kenning` application object like
MCP and REST, with the signed-in principal as the actor.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Awaitable, Callable
from functools import partial
from urllib.parse import urlencode

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from kenning.core.errors import Forbidden, KenningError
from kenning.entry.dashboard_pages import ASSETS, HEADERS, ICON, STYLE, Pages, csrf_token, form_of, signed_in
from kenning.entry.http_guard import SESSION_COOKIE
from kenning.services.deps import Caller
from kenning.services.facade import Kenning

_PAGES = ("/memories", "/search", "/timeline", "/conflicts", "/quarantine", "/health", "/tokens")
_EXACT = frozenset({"/", "/login", "/logout", STYLE, ICON, *_PAGES})
_PREFIXES = ("/memory/", "/graph/")

Endpoint = Callable[[Request], Awaitable[Response]]
Handler = Callable[[Request, Caller], Awaitable[Response]]
Change = Callable[[Request, Caller, dict[str, str]], Awaitable[Response]]


def is_page(path: str) -> bool:
    """Whether a path is the dashboard's: the guard signs these in by cookie."""
    if path in _EXACT:
        return True
    # A memory's pages: the prefix and one id, nothing after it that could lead elsewhere.
    return any(path.startswith(prefix) and "/" not in path[len(prefix) :] for prefix in _PREFIXES)


def add_dashboard(api: FastAPI, app: Kenning, *, secure_cookie: bool = False) -> None:
    """The dashboard's routes on `api` (before the MCP mount, which takes every other path)."""
    pages = Pages(app, secure_cookie=secure_cookie)

    async def timed(request: Request, work: Callable[[Caller], Awaitable[Response]]) -> Response:
        """The page, or the way to sign in; what it cost the server in Server-Timing (which
        `kenning bench dashboard` reads)."""
        caller = signed_in(request)
        if caller is None:
            return _to_login(request)
        start = time.perf_counter()
        try:
            response = await work(caller)
        except KenningError as exc:
            response = pages.failed(request, exc)
        response.headers["Server-Timing"] = f"page;dur={(time.perf_counter() - start) * 1000:.1f}"
        return response

    def page(handler: Handler) -> Endpoint:
        async def shown(request: Request) -> Response:
            return await timed(request, partial(handler, request))

        return shown

    def change(handler: Change) -> Endpoint:
        async def changed(request: Request) -> Response:
            form = await form_of(request)
            token = request.cookies.get(SESSION_COOKIE, "")
            sent, expected = form.get("csrf", "").encode(), csrf_token(token).encode()
            if signed_in(request) is not None and not hmac.compare_digest(sent, expected):
                refused = Forbidden(
                    "the form's CSRF token is missing or wrong: reload the page and try again"
                )
                return pages.failed(request, refused)
            return await timed(request, lambda caller: handler(request, caller, form))

        return changed

    async def home(request: Request) -> Response:
        return RedirectResponse("/memories" if signed_in(request) else "/login", status_code=303)

    def asset(name: str, media_type: str) -> Endpoint:
        body = (ASSETS / name).read_bytes()

        async def served(request: Request) -> Response:
            return Response(body, media_type=media_type, headers={**HEADERS, "Cache-Control": "max-age=3600"})

        return served

    routes: list[tuple[str, Endpoint, str]] = [
        ("/", home, "GET"),
        (STYLE, asset("dashboard.css", "text/css"), "GET"),
        (ICON, asset("icon.svg", "image/svg+xml"), "GET"),
        ("/login", pages.login_form, "GET"),
        ("/login", pages.login, "POST"),
        ("/logout", change(pages.logout), "POST"),
        ("/memories", page(pages.memories), "GET"),
        ("/search", page(pages.search), "GET"),
        ("/timeline", page(pages.timeline), "GET"),
        ("/memory/{memory_id}", page(pages.memory), "GET"),
        ("/memory/{memory_id}", change(pages.change_memory), "POST"),
        ("/graph/{memory_id}", page(pages.graph), "GET"),
        ("/conflicts", page(pages.conflicts), "GET"),
        ("/conflicts", change(pages.resolve), "POST"),
        ("/quarantine", page(pages.quarantine), "GET"),
        ("/quarantine", change(pages.review), "POST"),
        ("/health", page(pages.health), "GET"),
        ("/health", change(pages.preview), "POST"),
        ("/tokens", page(pages.tokens), "GET"),
        ("/tokens", change(pages.change_tokens), "POST"),
    ]
    for path, endpoint, method in routes:
        api.add_api_route(path, endpoint, methods=[method], include_in_schema=False)


def _to_login(request: Request) -> Response:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?{urlencode({'next': target})}", status_code=303)
