"""The dashboard: where a person sees, searches, corrects and judges what the agents remember.

Server-rendered pages at the root of `kenning serve --http`, with no script and no build step; the
templates and the style sheet ship in the package (entry/dashboard_assets). A person signs in with a
token; the token is then kept in an HttpOnly, SameSite=Strict cookie, and the guard reads the
principal from it on every page (http_guard), so a revoked token ends its sessions at once. Every
form that changes something carries a CSRF token derived from the session's token, and the guard
refuses a cross-origin request before any page sees it. Every change goes through the `Kenning`
application object like MCP and REST, with the signed-in principal as the actor.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, quote, urlencode

import anyio
from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from kenning.core.errors import Forbidden, InvalidInput, KenningError, Unauthorized
from kenning.core.records import MemoryState
from kenning.entry.http_guard import SESSION_COOKIE, caller_of
from kenning.entry.rest_api import STATUS
from kenning.entry.schemas import memory_out, recall_out
from kenning.services.deps import Caller
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest
from kenning.services.records import MemoryPatch

ASSETS = Path(__file__).with_name("dashboard_assets")
STYLE = "/dashboard.css"
ICON = "/favicon.svg"
PAGE_SIZE = 25
# Paths that are the dashboard's: the guard signs them in by cookie.
_EXACT = frozenset(
    {"/", "/login", "/logout", "/memories", "/search", "/conflicts", "/quarantine", STYLE, ICON}
)
_PREFIXES = ("/memory/",)
_HEADERS = {
    # No script runs on these pages at all: whatever a memory holds renders as text.
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    # Not no-referrer: Chromium then sends a form's POST with `Origin: null`, which the guard refuses.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
T = TypeVar("T")


def is_page(path: str) -> bool:
    return path in _EXACT or path.startswith(_PREFIXES)


def csrf_token(session_token: str) -> str:
    """What every form of a session carries: only a holder of the session's token can compute it."""
    return hmac.new(session_token.encode(), b"kenning-dashboard-csrf", hashlib.sha256).hexdigest()


def _when(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return ""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


class _Pages:
    def __init__(self, app: Kenning, *, secure_cookie: bool) -> None:
        from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

        self.app = app
        self.secure_cookie = secure_cookie
        self.env = Environment(
            loader=FileSystemLoader(ASSETS),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
        )
        self.env.filters["when"] = _when
        self.env.filters["q"] = lambda value: quote(str(value), safe="")

    # -- the frame every page shares ------------------------------------------------------------------

    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        caller = _signed_in(request)
        token = request.cookies.get(SESSION_COOKIE)
        html = self.env.get_template(name).render(
            caller=caller,
            can_write=caller is not None and "write" in caller.scopes,
            can_admin=caller is not None and "admin" in caller.scopes,
            csrf=csrf_token(token) if caller is not None and token else "",
            path=request.url.path,
            style=STYLE,
            icon=ICON,
            **{"notice": None, **context},
        )
        return HTMLResponse(html, status_code=status, headers=_HEADERS)

    def failed(self, request: Request, exc: KenningError) -> HTMLResponse:
        return self.render(request, "error.html", STATUS.get(exc.code, 400), error=exc)

    async def call(self, work: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(work)

    # -- signing in and out ---------------------------------------------------------------------------

    async def login_form(self, request: Request) -> Response:
        if _signed_in(request) is not None:
            return RedirectResponse("/memories", status_code=303)
        return self.render(request, "login.html", next=_local(request.query_params.get("next")))

    async def login(self, request: Request) -> Response:
        form = await _form(request)
        token = form.get("token", "").strip()
        target = _local(form.get("next"))
        try:
            if not token:
                raise Unauthorized("enter a token")
            await self.call(partial(self.app.authenticate, token))
        except KenningError as exc:
            return self.render(request, "login.html", 401, next=target, error=exc.message)
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(
            SESSION_COOKIE,
            token,
            httponly=True,
            samesite="strict",
            secure=self.secure_cookie or request.url.scheme == "https",
            path="/",
        )
        return response

    async def logout(self, request: Request) -> Response:
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    # -- reading --------------------------------------------------------------------------------------

    async def memories(self, request: Request, caller: Caller) -> Response:
        filters = _filters(request.query_params)
        offset = _offset(request.query_params)
        found = await self.call(partial(self.app.recall, caller, _recall_request("", filters, offset)))
        return self.render(
            request,
            "memories.html",
            out=recall_out(found, verbose=True),
            filters=filters,
            offset=offset,
            more=_more(request, found.next_offset),
            states=[s.value for s in MemoryState],
        )

    async def search(self, request: Request, caller: Caller) -> Response:
        query = request.query_params.get("q", "").strip()
        filters = _filters(request.query_params)
        offset = _offset(request.query_params)
        out = None
        more = None
        if query:
            found = await self.call(partial(self.app.recall, caller, _recall_request(query, filters, offset)))
            out, more = recall_out(found, verbose=True), _more(request, found.next_offset)
        return self.render(
            request,
            "search.html",
            query=query,
            out=out,
            filters=filters,
            offset=offset,
            more=more,
            states=[s.value for s in MemoryState],
        )

    async def memory(self, request: Request, caller: Caller, notice: str | None = None) -> Response:
        memory_id = request.path_params["memory_id"]

        def gather() -> dict[str, Any]:
            chain = self.app.chain(caller, memory_id)
            graph = self.app.explore_graph(caller, memory_id, depth=1, limit=20)
            return {
                "memory": memory_out(chain.record).model_dump(mode="json"),
                "record": chain.record,
                "chain": chain,
                "graph": graph,
                "audit": self.app.audit(caller, memory_id, limit=50),
            }

        return self.render(request, "memory.html", notice=notice, **await self.call(gather))

    async def conflicts(self, request: Request, caller: Caller) -> Response:
        offset = _offset(request.query_params)

        def gather() -> list[dict[str, Any]]:
            listed = self.app.conflicts(caller, status="open", limit=PAGE_SIZE + 1, offset=offset)
            pairs = []
            for conflict in listed[:PAGE_SIZE]:
                pairs.append(
                    {
                        "conflict": conflict,
                        "first": self._peek(caller, conflict.first_id),
                        "second": self._peek(caller, conflict.second_id),
                        "more": len(listed) > PAGE_SIZE,
                    }
                )
            return pairs

        pairs = await self.call(gather)
        more = _more(request, offset + PAGE_SIZE) if pairs and pairs[0]["more"] else None
        return self.render(request, "conflicts.html", pairs=pairs, more=more)

    def _peek(self, caller: Caller, memory_id: str) -> Any:
        try:
            return self.app.get(caller, memory_id)
        except KenningError:
            return None

    async def quarantine(self, request: Request, caller: Caller) -> Response:
        offset = _offset(request.query_params)
        request_ = RecallRequest(
            query="", limit=PAGE_SIZE, offset=offset, states=(MemoryState.QUARANTINED.value,), touch=False
        )
        found = await self.call(partial(self.app.recall, caller, request_))
        return self.render(
            request,
            "quarantine.html",
            out=recall_out(found, verbose=True),
            more=_more(request, found.next_offset),
        )

    # -- changing -------------------------------------------------------------------------------------

    async def change_memory(self, request: Request, caller: Caller, form: dict[str, str]) -> Response:
        memory_id = request.path_params["memory_id"]
        action = form.get("action", "")
        if action == "edit":
            patch = MemoryPatch(
                content=form.get("content"),
                type=form.get("type") or None,
                tags=_listed(form.get("tags", "")),
                entities=_listed(form.get("entities", "")),
                importance=_number(form.get("importance", ""), "importance"),
            )
            version = int(_number(form.get("version", ""), "version") or 0)
            await self.call(partial(self.app.update, caller, memory_id, version, patch))
            notice = "Saved."
        elif action == "archive":
            await self.call(
                partial(self.app.forget, caller, memory_id, mode="archive", reason=form.get("reason"))
            )
            notice = "Archived: it no longer appears in recall, and can be restored."
        elif action == "restore":
            current = await self.call(partial(self.app.get, caller, memory_id))
            patch = MemoryPatch(state=MemoryState.ACTIVE.value)
            await self.call(partial(self.app.update, caller, memory_id, current.version, patch))
            notice = "Restored."
        elif action == "purge":
            if form.get("confirm") != "yes":
                raise InvalidInput("confirm", "tick the box to confirm that the memory is deleted for good")
            await self.call(
                partial(
                    self.app.forget, caller, memory_id, mode="purge", confirm=True, reason=form.get("reason")
                )
            )
            return RedirectResponse("/memories", status_code=303)
        else:
            raise InvalidInput("action", "must be edit, archive, restore or purge")
        return await self.memory(request, caller, notice=notice)

    async def resolve(self, request: Request, caller: Caller, form: dict[str, str]) -> Response:
        conflict_id = int(_number(form.get("conflict", ""), "conflict") or 0)
        await self.call(
            partial(
                self.app.resolve_conflict,
                caller,
                conflict_id,
                form.get("decision", ""),
                winner=form.get("winner") or None,
                merged_content=form.get("merged_content") or None,
            )
        )
        return RedirectResponse("/conflicts", status_code=303)

    async def review(self, request: Request, caller: Caller, form: dict[str, str]) -> Response:
        await self.call(partial(self.app.review, caller, form.get("id", ""), form.get("decision", "")))
        return RedirectResponse("/quarantine", status_code=303)


Handler = Callable[[Request, Caller], Awaitable[Response]]
Change = Callable[[Request, Caller, dict[str, str]], Awaitable[Response]]


def add_dashboard(api: FastAPI, app: Kenning, *, secure_cookie: bool = False) -> None:
    """The dashboard's routes on `api` (before the MCP mount, which takes every other path)."""
    pages = _Pages(app, secure_cookie=secure_cookie)

    def page(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def shown(request: Request) -> Response:
            caller = _signed_in(request)
            if caller is None:
                return _to_login(request)
            try:
                return await handler(request, caller)
            except KenningError as exc:
                return pages.failed(request, exc)

        return shown

    def change(handler: Change) -> Callable[[Request], Awaitable[Response]]:
        async def changed(request: Request) -> Response:
            caller = _signed_in(request)
            if caller is None:
                return _to_login(request)
            form = await _form(request)
            token = request.cookies.get(SESSION_COOKIE, "")
            if not hmac.compare_digest(form.get("csrf", ""), csrf_token(token)):
                refused = Forbidden(
                    "the form's CSRF token is missing or wrong: reload the page and try again"
                )
                return pages.failed(request, refused)
            try:
                return await handler(request, caller, form)
            except KenningError as exc:
                return pages.failed(request, exc)

        return changed

    async def home(request: Request) -> Response:
        return RedirectResponse("/memories" if _signed_in(request) else "/login", status_code=303)

    def asset(name: str, media_type: str) -> Callable[[Request], Awaitable[Response]]:
        body = (ASSETS / name).read_bytes()

        async def served(request: Request) -> Response:
            return Response(
                body, media_type=media_type, headers={**_HEADERS, "Cache-Control": "max-age=3600"}
            )

        return served

    routes: list[tuple[str, Callable[[Request], Awaitable[Response]], str]] = [
        ("/", home, "GET"),
        (STYLE, asset("dashboard.css", "text/css"), "GET"),
        (ICON, asset("icon.svg", "image/svg+xml"), "GET"),
        ("/login", pages.login_form, "GET"),
        ("/login", pages.login, "POST"),
        ("/logout", pages.logout, "POST"),
        ("/memories", page(pages.memories), "GET"),
        ("/search", page(pages.search), "GET"),
        ("/memory/{memory_id}", page(pages.memory), "GET"),
        ("/memory/{memory_id}", change(pages.change_memory), "POST"),
        ("/conflicts", page(pages.conflicts), "GET"),
        ("/conflicts", change(pages.resolve), "POST"),
        ("/quarantine", page(pages.quarantine), "GET"),
        ("/quarantine", change(pages.review), "POST"),
    ]
    for path, endpoint, method in routes:
        api.add_api_route(path, endpoint, methods=[method], include_in_schema=False)


def _signed_in(request: Request) -> Caller | None:
    try:
        return caller_of(request.scope)
    except Unauthorized:
        return None


def _to_login(request: Request) -> Response:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?{urlencode({'next': target})}", status_code=303)


def _local(target: str | None) -> str:
    """A place in this dashboard to go after signing in; anything else (another site) is ignored."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/memories"


async def _form(request: Request) -> dict[str, str]:
    body = (await request.body()).decode("utf-8", errors="replace")
    return {key: values[0] for key, values in parse_qs(body, keep_blank_values=True).items()}


def _filters(params: Mapping[str, str]) -> dict[str, str]:
    return {key: params.get(key, "").strip() for key in ("type", "tag", "entity", "state", "writer", "trust")}


def _recall_request(query: str, filters: dict[str, str], offset: int) -> RecallRequest:
    return RecallRequest(
        query=query,
        limit=PAGE_SIZE,
        offset=offset,
        types=[filters["type"]] if filters["type"] else [],
        tags=[filters["tag"]] if filters["tag"] else [],
        entities=[filters["entity"]] if filters["entity"] else [],
        states=[filters["state"]] if filters["state"] else [MemoryState.ACTIVE.value],
        agent_id=filters["writer"] or None,
        min_trust=filters["trust"] or None,
        touch=False,  # a person looking is not the use that strengthens a memory
    )


def _offset(params: Mapping[str, str]) -> int:
    raw = params.get("offset", "0")
    if not raw.isdigit() or int(raw) > 10_000:
        raise InvalidInput("offset", "must be a whole number from 0 to 10000")
    return int(raw)


def _more(request: Request, next_offset: int | None) -> str | None:
    if next_offset is None:
        return None
    params = dict(request.query_params)
    params["offset"] = str(next_offset)
    return f"{request.url.path}?{urlencode(params)}"


def _listed(raw: str) -> list[str]:
    return [item.strip() for item in raw.split(",") if item.strip()]


def _number(raw: str, field: str) -> float | None:
    if not raw.strip():
        return None
    try:
        return float(raw)
    except ValueError:
        raise InvalidInput(field, f"must be a number, not {raw[:20]!r}") from None
