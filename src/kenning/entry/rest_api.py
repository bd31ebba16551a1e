"""The REST door: one `POST /api/v1/<operation>` per MCP tool, made from the tool's own declaration.

Each endpoint takes the tool's arguments as a JSON object, validates them with the tool's argument
model and returns the tool's structured result, so MCP and REST cannot drift: there is one list of
operations, one schema each, one function each. The OpenAPI schema is built from the same schemas.
Errors carry `code` and `message` (and the field, for bad input) with the HTTP status of their kind.
"""

from __future__ import annotations

import inspect
import json
import logging
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from fastapi import FastAPI
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse

from kenning.core.errors import KenningError, Unauthorized
from kenning.entry.http_guard import bearer_challenge, caller_of
from kenning.entry.mcp_server import REQUEST_PRINCIPAL, log_stages
from kenning.services.facade import OPERATION_SCOPES
from kenning.services.stages import watching

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool

logger = logging.getLogger(__name__)

PREFIX = "/api/v1"
STATUS = {
    "invalid_input": 422,
    "not_found": 404,
    "conflict": 409,
    "forbidden": 403,
    "insufficient_scope": 403,
    "unauthorized": 401,
    "quota_exceeded": 429,
    "backend_unavailable": 503,
    "contract_broken": 500,
}
_ERROR_SCHEMA = {
    "type": "object",
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}, "field": {"type": "string"}},
    "required": ["code", "message"],
}


def error_response(exc: KenningError) -> JSONResponse:
    status = STATUS.get(exc.code, 400)
    headers: dict[str, str] = {}
    if exc.code == "insufficient_scope":
        headers["WWW-Authenticate"] = bearer_challenge("insufficient_scope", scope=exc.details.get("scope"))
    elif isinstance(exc, Unauthorized):
        headers["WWW-Authenticate"] = bearer_challenge("invalid_token", exc.message)
    elif exc.code == "quota_exceeded":
        headers["Retry-After"] = str(max(1, round(float(exc.details.get("retry_after_s", 1)))))
    elif exc.code == "backend_unavailable":
        headers["Retry-After"] = "1"
    return JSONResponse(exc.to_dict(), status_code=status, headers=headers)


def _bad_input(field: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"code": "invalid_input", "message": f"{field}: {message}", "field": field}, status_code=422
    )


def _structured(result: Any) -> Any:
    if isinstance(result, CallToolResult):
        return result.structured_content
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json", exclude_none=True)
    return result


def _inlined(schema: Any) -> Any:
    """The schema with its local `$defs` references written out (OpenAPI resolves refs elsewhere)."""
    defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}

    def walk(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                return {} if name in seen else walk(defs.get(name, {}), (*seen, name))
            return {k: walk(v, seen) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v, seen) for v in node]
        return node

    return walk(schema, ())


async def _timed(stage_log: Path, tool: Tool, arguments: dict[str, Any]) -> Any:
    """The call in a worker thread, its stages logged with how long it waited for that thread (under
    load the wait is where latency hides) and the CPU time spent on it: the thread that ran it, and
    the pool threads it handed work to."""
    with watching() as tally:
        sent = time.perf_counter()
        spent: list[float] = []

        def run() -> Any:
            tally.add("queued", time.perf_counter() - sent, 0.0)
            started = tally.cpu_mark()
            try:
                return tool.fn(**arguments)
            finally:
                spent.append(tally.cpu_mark() - started)

        try:
            return await anyio.to_thread.run_sync(run)
        finally:
            log_stages(stage_log, tool.name, wall=time.perf_counter() - sent, cpu=sum(spent), tally=tally)


def _endpoint(tool: Tool, stage_log: Path | None) -> Any:
    known = set((tool.parameters or {}).get("properties", {}))

    async def call(request: Request) -> JSONResponse:
        try:
            caller = caller_of(request.scope)
        except KenningError as exc:
            return error_response(exc)
        raw = await request.body()
        try:
            body = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError) as exc:
            message = f"body: {exc}" if isinstance(exc, ValueError) else "body: nested too deeply"
            return JSONResponse({"code": "invalid_json", "message": message}, status_code=400)
        if not isinstance(body, dict):
            return _bad_input("body", "must be a JSON object of the operation's arguments")
        unknown = sorted(set(body) - known)
        if unknown:
            return _bad_input(
                unknown[0], f"is not an argument of {tool.name}; valid: {', '.join(sorted(known))}"
            )
        try:
            arguments = tool.fn_metadata.validate_arguments(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "body"
            return _bad_input(field, first["msg"])
        token = REQUEST_PRINCIPAL.set(caller)
        try:
            # The context (with the principal) goes along to the worker thread.
            if stage_log is None:
                result = await anyio.to_thread.run_sync(partial(tool.fn, **arguments))
            else:
                result = await _timed(stage_log, tool, arguments)
        except ToolError as exc:
            if isinstance(exc.__cause__, KenningError):
                return error_response(exc.__cause__)
            return JSONResponse({"code": "invalid_input", "message": str(exc)}, status_code=422)
        except KenningError as exc:
            return error_response(exc)
        finally:
            REQUEST_PRINCIPAL.reset(token)
        return JSONResponse(_structured(result))

    return call


def add_routes(api: FastAPI, server: MCPServer) -> list[str]:
    """One endpoint per tool of `server`; returns their paths."""
    paths = []
    for tool in server._tool_manager.list_tools():  # the SDK's own registry of declared tools
        scope = OPERATION_SCOPES.get(tool.name, "admin")
        responses: dict[int | str, dict[str, Any]] = {
            code: {"description": text, "content": {"application/json": {"schema": _ERROR_SCHEMA}}}
            for code, text in (
                (401, "No token, or a bad one"),
                (403, "The token lacks the scope, or may not change this memory"),
                (404, "No such memory in a pool this token reads"),
                (413, "Body over the limit"),
                (422, "Bad input: the message names the field and the limit"),
                (429, "Over a limit; see Retry-After"),
            )
        }
        responses[200] = {
            "description": "The operation's structured result",
            "content": {"application/json": {"schema": _inlined(tool.output_schema or {"type": "object"})}},
        }
        path = f"{PREFIX}/{tool.name}"
        api.add_api_route(
            path,
            _endpoint(tool, getattr(server, "stage_log", None)),
            methods=["POST"],
            name=tool.name,
            summary=tool.title or tool.name,
            description=inspect.cleandoc(tool.description or "") + f"\n\nScope: `{scope}`.",
            tags=[scope],
            responses=responses,
            openapi_extra={
                "requestBody": {
                    "required": False,
                    "content": {"application/json": {"schema": _inlined(tool.parameters)}},
                },
                "security": [{"bearer": []}],
            },
        )
        paths.append(path)
    return paths
