"""The dashboard's pages: each reads or changes through the `Kenning` application object, then renders
a template of entry/dashboard_assets (Jinja2, every value escaped). Routing, sign-in enforcement and
the CSRF check are entry/dashboard's."""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, quote, urlencode

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from kenning.core.errors import InvalidInput, KenningError, Unauthorized
from kenning.core.records import MemoryState, Trust
from kenning.entry.http_guard import SESSION_COOKIE, caller_of
from kenning.entry.rest_api import STATUS
from kenning.entry.schemas import memory_out, recall_out
from kenning.services.consistency import Exploration
from kenning.services.deps import SCOPES, Caller
from kenning.services.facade import Kenning
from kenning.services.lifecycle import MaintenanceRequest
from kenning.services.principals import TokenRequest
from kenning.services.recall import RecallRequest
from kenning.services.records import MemoryPatch

ASSETS = Path(__file__).with_name("dashboard_assets")
STYLE = "/dashboard.css"
ICON = "/favicon.svg"
PAGE_SIZE = 25
MAX_OFFSET = 10_000
HEADERS = {
    # No script runs on these pages at all: whatever a memory holds renders as text.
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",  # frame-ancestors 'none' for browsers that predate it
    # Not no-referrer: Chromium then sends a form's POST with `Origin: null`, which the guard refuses.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
_FILTERS = ("pool", "type", "tag", "entity", "state", "writer", "trust", "since", "until")
T = TypeVar("T")


def csrf_token(session_token: str) -> str:
    """What every form of a session carries: only a holder of the session's token can compute it."""
    return hmac.new(session_token.encode(), b"kenning-dashboard-csrf", hashlib.sha256).hexdigest()


def signed_in(request: Request) -> Caller | None:
    try:
        return caller_of(request.scope)
    except Unauthorized:
        return None


async def form_of(request: Request) -> dict[str, str]:
    """A submitted form's fields (the first value of each)."""
    body = (await request.body()).decode("utf-8", errors="replace")
    return {key: values[0] for key, values in parse_qs(body, keep_blank_values=True).items()}


class Pages:
    def __init__(self, app: Kenning, *, secure_cookie: bool) -> None:
        from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

        self.app = app
        self.secure_cookie = secure_cookie
        self.env = Environment(
            loader=FileSystemLoader(ASSETS),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            auto_reload=False,  # the templates ship in the package: no stat of each file on every page
        )
        self.env.filters["when"] = _when
        self.env.filters["q"] = lambda value: quote(str(value), safe="")

    # -- the frame every page shares ------------------------------------------------------------------

    def render(self, request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        caller = signed_in(request)
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
        return HTMLResponse(html, status_code=status, headers=HEADERS)

    def failed(self, request: Request, exc: KenningError) -> HTMLResponse:
        return self.render(request, "error.html", STATUS.get(exc.code, 400), error=exc)

    async def call(self, work: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(work)

    # -- signing in and out ---------------------------------------------------------------------------

    async def login_form(self, request: Request) -> Response:
        if signed_in(request) is not None:
            return RedirectResponse("/memories", status_code=303)
        return self.render(request, "login.html", next=_local(request.query_params.get("next")))

    async def login(self, request: Request) -> Response:
        form = await form_of(request)
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

    async def logout(self, request: Request, caller: Caller, form: dict[str, str]) -> Response:
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    # -- reading --------------------------------------------------------------------------------------

    async def memories(self, request: Request, caller: Caller) -> Response:
        return await self._listing(request, caller, "memories.html", query="")

    async def search(self, request: Request, caller: Caller) -> Response:
        query = request.query_params.get("q", "").strip()
        if not query:
            return self.render(request, "search.html", query="", out=None, **_filter_context(request, caller))
        return await self._listing(request, caller, "search.html", query=query)

    async def timeline(self, request: Request, caller: Caller) -> Response:
        return await self._listing(request, caller, "timeline.html", query="", limit=50)

    async def _listing(
        self, request: Request, caller: Caller, template: str, *, query: str, limit: int = PAGE_SIZE
    ) -> Response:
        filters = _filters(request.query_params)
        offset = _offset(request.query_params)
        asked = _recall_request(query, filters, offset, limit)
        found = await self.call(partial(self.app.recall, caller, asked))
        return self.render(
            request,
            template,
            query=query,
            out=recall_out(found, verbose=True),
            more=_more(request, found.next_offset),
            **_filter_context(request, caller),
        )

    async def memory(self, request: Request, caller: Caller, notice: str | None = None) -> Response:
        memory_id = request.path_params["memory_id"]

        def gather() -> dict[str, Any]:
            chain = self.app.chain(caller, memory_id)
            return {
                "memory": memory_out(chain.record).model_dump(mode="json"),
                "chain": chain,
                "graph": self.app.explore_graph(caller, memory_id, depth=1, limit=20),
                "conflicts": self.app.conflicts_of(caller, memory_id),
                "audit": self.app.audit(caller, memory_id, limit=50),
            }

        return self.render(request, "memory.html", notice=notice, **await self.call(gather))

    async def graph(self, request: Request, caller: Caller) -> Response:
        memory_id = request.path_params["memory_id"]
        explored = await self.call(partial(self.app.explore_graph, caller, memory_id, depth=2, limit=60))
        return self.render(request, "graph.html", graph=explored, drawing=_drawing(explored))

    async def conflicts(self, request: Request, caller: Caller) -> Response:
        offset = _offset(request.query_params)

        def gather() -> tuple[list[dict[str, Any]], bool]:
            listed = self.app.conflicts(caller, status="open", limit=PAGE_SIZE + 1, offset=offset)
            pairs = [
                {
                    "conflict": conflict,
                    "first": self._peek(caller, conflict.first_id),
                    "second": self._peek(caller, conflict.second_id),
                }
                for conflict in listed[:PAGE_SIZE]
            ]
            return pairs, len(listed) > PAGE_SIZE

        pairs, more = await self.call(gather)
        return self.render(
            request, "conflicts.html", pairs=pairs, more=_more(request, offset + PAGE_SIZE) if more else None
        )

    def _peek(self, caller: Caller, memory_id: str) -> Any:
        try:
            return self.app.get(caller, memory_id)
        except KenningError:
            return None

    async def quarantine(self, request: Request, caller: Caller) -> Response:
        offset = _offset(request.query_params)
        asked = RecallRequest(
            limit=PAGE_SIZE, offset=offset, states=(MemoryState.QUARANTINED.value,), touch=False
        )
        found = await self.call(partial(self.app.recall, caller, asked))
        return self.render(
            request,
            "quarantine.html",
            out=recall_out(found, verbose=True),
            more=_more(request, found.next_offset),
        )

    async def health(self, request: Request, caller: Caller, preview: bool = False) -> Response:
        def gather() -> dict[str, Any]:
            return {
                "report": self.app.status(caller),
                "runs": self.app.maintenance_runs(caller, limit=5),
                "beliefs": self.app.beliefs(caller, limit=10),
                "insights": self.app.insights(caller, limit=10),
                # A dry run reads the whole pool: only when asked for, with the form's button.
                "preview": self.app.maintain(caller, MaintenanceRequest(dry_run=True)) if preview else None,
            }

        return self.render(request, "health.html", **await self.call(gather))

    async def preview(self, request: Request, caller: Caller, form: dict[str, str]) -> Response:
        return await self.health(request, caller, preview=True)

    async def tokens(
        self, request: Request, caller: Caller, notice: str | None = None, issued: str | None = None
    ) -> Response:
        """The tokens this principal manages; `issued`, a token just made, is shown this once."""
        listed = await self.call(partial(self.app.list_tokens, caller))
        return self.render(
            request,
            "tokens.html",
            notice=notice,
            issued=issued,
            tokens=sorted(listed, key=lambda t: t.created_at, reverse=True),
            now=self.app.now(),
            scopes=SCOPES,
            trusts=[t.value for t in Trust],
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
            reason = form.get("reason") or None
            await self.call(partial(self.app.forget, caller, memory_id, mode="archive", reason=reason))
            notice = "Archived: it no longer appears in recall, and can be restored."
        elif action == "restore":
            current = await self.call(partial(self.app.get, caller, memory_id))
            patch = MemoryPatch(state=MemoryState.ACTIVE.value)
            await self.call(partial(self.app.update, caller, memory_id, current.version, patch))
            notice = "Restored."
        elif action == "purge":
            if form.get("confirm") != "yes":
                raise InvalidInput("confirm", "tick the box to confirm that the memory is deleted for good")
            reason = form.get("reason") or None
            await self.call(
                partial(self.app.forget, caller, memory_id, mode="purge", confirm=True, reason=reason)
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

    async def change_tokens(self, request: Request, caller: Caller, form: dict[str, str]) -> Response:
        if form.get("action") == "revoke":
            revoked = await self.call(partial(self.app.revoke_token, caller, form.get("name", "")))
            return await self.tokens(request, caller, notice=f"Revoked {revoked.name}.")
        days = _number(form.get("expires_days", ""), "expires_days")
        asked = TokenRequest(
            name=form.get("name", "").strip(),
            write_pool=caller.namespace if form.get("write") == "mine" else None,
            read_pools=tuple(_listed(form.get("read_pools", ""))),
            scopes=tuple(scope for scope in SCOPES if form.get(f"scope_{scope}") == "yes"),
            max_trust=form.get("trust") or "agent_inferred",
            expires_in_s=None if days is None else days * 86_400,
        )
        issued, record = await self.call(partial(self.app.issue_token, caller, asked))
        notice = f"Issued {record.name}. Copy the token now: it is shown this once."
        return await self.tokens(request, caller, notice=notice, issued=issued)


def _drawing(explored: Exploration) -> dict[str, Any]:
    """Where to draw each memory of a neighbourhood: the start in the middle, the memories one step out
    on a circle around it, those two steps out on an outer circle, fanned out beside the one they were
    reached from. Plain SVG, no script: each node is a link to its own neighbourhood."""
    width, height, inner, outer = 900.0, 560.0, 150.0, 250.0
    centre = (width / 2, height / 2)
    angles: dict[str, float] = {}
    radii: dict[str, float] = {explored.start.id: 0.0}
    first = [step for step in explored.steps if step.depth == 1]
    for index, step in enumerate(first):
        angles.setdefault(step.record.id, 2 * math.pi * index / max(1, len(first)) - math.pi / 2)
        radii.setdefault(step.record.id, inner)
    children: dict[str, list[str]] = {}
    for step in explored.steps:
        if step.depth == 2 and step.record.id not in radii:
            children.setdefault(step.via, []).append(step.record.id)
            radii[step.record.id] = outer
    for parent, kids in children.items():
        for index, kid in enumerate(kids):
            angles[kid] = angles.get(parent, 0.0) + 0.5 * (index - (len(kids) - 1) / 2)
    labels = {explored.start.id: explored.start.content}
    labels.update({step.record.id: step.record.content for step in explored.steps})
    nodes, places = [], {}
    for memory_id, radius in radii.items():
        angle = angles.get(memory_id, -math.pi / 2)
        x, y = centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle)
        places[memory_id] = (round(x, 1), round(y, 1))
        # Labels point away from the middle, so that they do not cross the lines.
        side = math.cos(angle) if radius else 0.0
        anchor = "start" if side > 0.1 else "end" if side < -0.1 else "middle"
        shift = 14 if anchor == "start" else -14 if anchor == "end" else 0
        lift = -16 if radius == 0 or math.sin(angle) < 0 else 24
        nodes.append(
            {
                "id": memory_id,
                "x": places[memory_id][0],
                "y": places[memory_id][1],
                "start": radius == 0,
                "label": _short(labels[memory_id]),
                "title": labels[memory_id],
                "anchor": anchor,
                "lx": round(x + shift, 1),
                "ly": round(y + (4 if anchor != "middle" else lift), 1),
            }
        )
    lines = []
    for step in explored.steps:
        (x1, y1), (x2, y2) = places[step.via], places[step.record.id]
        lines.append(
            {
                "x1": x1,
                "y1": y1,
                "x2": x2,
                "y2": y2,
                "edge": step.edge,
                "mx": round((x1 + x2) / 2, 1),
                "my": round((y1 + y2) / 2 - 4, 1),
            }
        )
    return {"width": width, "height": height, "nodes": nodes, "lines": lines}


def _short(text: str, size: int = 28) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


def _when(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return ""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _local(target: str | None) -> str:
    """A place in this dashboard to go after signing in; anything else (another site) is ignored."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/memories"


def _filters(params: Mapping[str, str]) -> dict[str, str]:
    return {key: params.get(key, "").strip() for key in _FILTERS}


def _filter_context(request: Request, caller: Caller) -> dict[str, Any]:
    return {
        "filters": _filters(request.query_params),
        "offset": _offset(request.query_params),
        "states": [s.value for s in MemoryState],
        "trusts": [t.value for t in Trust],
        "pools": caller.readable,
    }


def _recall_request(query: str, filters: dict[str, str], offset: int, limit: int) -> RecallRequest:
    one = {key: [value] if value else [] for key, value in filters.items()}
    request = RecallRequest(
        query=query,
        limit=limit,
        offset=offset,
        types=one["type"],
        tags=one["tag"],
        entities=one["entity"],
        states=one["state"] or [MemoryState.ACTIVE.value],
        agent_id=filters["writer"] or None,
        min_trust=filters["trust"] or None,
        pools=one["pool"],
        touch=False,  # a person looking is not the use that strengthens a memory
    )
    since, until = _day(filters["since"], "since"), _day(filters["until"], "until")
    return replace(request, since=since, until=None if until is None else until + 86_400)


def _day(raw: str, field: str) -> float | None:
    """The start of a day given as YYYY-MM-DD, in UTC seconds."""
    if not raw:
        return None
    try:
        return datetime.strptime(raw, "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
    except ValueError:
        raise InvalidInput(field, f"must be a date as YYYY-MM-DD, not {raw[:20]!r}") from None


def _offset(params: Mapping[str, str]) -> int:
    raw = params.get("offset", "0")
    if not raw.isdigit() or int(raw) > MAX_OFFSET:
        raise InvalidInput("offset", f"must be a whole number from 0 to {MAX_OFFSET}")
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
        value = float(raw)
    except ValueError:
        raise InvalidInput(field, f"must be a number, not {raw[:20]!r}") from None
    if not math.isfinite(value):
        raise InvalidInput(field, "must be a finite number")
    return value
