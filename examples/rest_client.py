"""Kenning's REST API with plain httpx: remember a memory, recall it, get it, forget it.

Each operation is `POST /api/v1/<operation>` with the MCP tool's arguments as its JSON body, and
answers with the tool's structured result (all schemas: GET /api/v1/openapi.json). A refusal has an
HTTP status and a JSON body with `code` and `message`; `call` below shows what a client does with each.

Start a server with a token (`kenning token create NAME --write POOL`, then `kenning serve --http`) and:

    KENNING_TOKEN=kn_... python examples/rest_client.py

KENNING_API is the API's base (default http://127.0.0.1:8765/api/v1). Needs only httpx.
Exits 0 when the round trip worked, 1 when the server refused a request.
"""

# ruff: noqa: T201 - an example reports what it does on stdout

from __future__ import annotations

import os
import sys
import time
from typing import Any

import httpx

CONTENT = "The on-call rotation hands over on Mondays at 10:00 UTC."
QUERY = "When does the on-call rotation hand over?"
MAX_WAIT_S = 60.0  # the longest Retry-After worth sleeping through; Kenning's rate window is a minute
ADVICE = {
    401: "the token is missing, unknown, expired or revoked: retrying will not help, a new token will",
    403: "the token may not do this: it lacks the scope, as a read-only token writing does, "
    "or the memory is in a pool it only reads",
    429: "still over the request limit after waiting",
}


class KenningAPIError(Exception):
    """A request Kenning refused, with the HTTP status and the body's `code` and `message`."""

    def __init__(self, status: int, code: str, message: str) -> None:
        advice = ADVICE.get(status)
        super().__init__(f"HTTP {status} {code}: {message}" + (f" ({advice})" if advice else ""))
        self.status = status
        self.code = code
        self.message = message


def retry_after(response: httpx.Response, default: float = 1.0) -> float:
    """Seconds to wait before retrying, from the Retry-After header (Kenning sends whole seconds)."""
    try:
        seconds = float(response.headers.get("retry-after", default))
    except ValueError:
        seconds = default
    return min(max(seconds, 0.0), MAX_WAIT_S)


def call(
    client: httpx.Client, operation: str, arguments: dict[str, Any] | None = None, *, retries: int = 3
) -> dict[str, Any]:
    """One operation's result; a refusal raises KenningAPIError.

    401: no token, or one that is unknown, expired or revoked; 403: the token lacks the operation's
    scope (`insufficient_scope`) or may not change that memory. Neither improves on retrying, so
    both raise at once. 429: over the token's requests a minute or requests in flight; the server
    says in Retry-After when to come back, so wait that long and retry, up to `retries` times.
    """
    attempt = 0
    while True:
        response = client.post(f"/{operation}", json=arguments or {})
        if response.status_code != 429 or attempt == retries:
            break
        attempt += 1
        wait = retry_after(response)
        print(f"{operation}: over the rate limit, retrying in {wait:g} s", file=sys.stderr)
        time.sleep(wait)
    if response.is_error:
        try:
            body = response.json()
        except ValueError:
            body = {}
        raise KenningAPIError(
            response.status_code, str(body.get("code", "error")), str(body.get("message", response.text))
        )
    result: dict[str, Any] = response.json()
    return result


def round_trip(client: httpx.Client) -> bool:
    stored = call(client, "remember", {"content": CONTENT, "tags": ["example"]})
    memory_id = stored["id"]
    print(f"remember: {stored['status']} {memory_id} ({stored['type']}, {stored['trust']})")

    ids = [result["id"] for result in call(client, "recall", {"query": QUERY, "limit": 5})["results"]]
    where = f"rank {ids.index(memory_id) + 1} of {len(ids)}" if memory_id in ids else "not found"
    print(f"recall {QUERY!r}: {where}")

    record = call(client, "get", {"id": memory_id})
    state, pool, author = record["state"], record["namespace"], record["agent_id"]
    print(f"get: {record['content']!r} ({state}, pool {pool}, by {author})")

    forgotten = call(client, "forget", {"id": memory_id, "reason": "the REST example cleans up"})
    print(f"forget: {forgotten['action']}, now {forgotten['state']} (recoverable; mode='purge' deletes)")
    return memory_id in ids and record["content"] == CONTENT


def main() -> int:
    token = os.environ.get("KENNING_TOKEN", "")
    if not token:
        print("set KENNING_TOKEN to a token from `kenning token create NAME --write POOL`", file=sys.stderr)
        return 2
    api = os.environ.get("KENNING_API", "http://127.0.0.1:8765/api/v1").rstrip("/")
    with httpx.Client(base_url=api, headers={"Authorization": f"Bearer {token}"}, timeout=30.0) as client:
        try:
            worked = round_trip(client)
        except KenningAPIError as exc:
            print(exc, file=sys.stderr)
            return 1
    # What a refusal looks like: the same call with a token the server does not know.
    with httpx.Client(base_url=api, headers={"Authorization": "Bearer kn_unknown"}, timeout=30.0) as stranger:
        try:
            call(stranger, "status")
        except KenningAPIError as exc:
            print(f"with an unknown token: {exc}")
    if not worked:
        print("the memory did not come back as written", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
