"""Whether a client could start Kenning from its configured entry: spawn it as the client would (no
shell, the entry's own environment over ours) and wait for its answer to `initialize`."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from kenning.entry.stdio_transport import initialize_request


def check_entry(entry: dict[str, Any], *, timeout_s: float = 60.0) -> str | None:
    """None if the entry starts a server that answers; otherwise what went wrong."""
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        return "the entry has no command"
    if not os.path.isabs(command):
        return f"{command!r} is not an absolute path; a client may not find it on its PATH"
    args = [str(a) for a in entry.get("args", [])]
    env = {**os.environ, **{str(k): str(v) for k, v in (entry.get("env") or {}).items()}}
    try:
        done = subprocess.run(  # noqa: S603 - the command the user's client would run
            [command, *args],
            input=json.dumps(initialize_request("kenning-setup-check")) + "\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout_s,
            check=False,
        )
    except FileNotFoundError:
        return f"{command} does not exist"
    except PermissionError:
        return f"{command} is not executable"
    except subprocess.TimeoutExpired:
        return f"no answer to initialize within {timeout_s:g} s"
    for line in done.stdout.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        if message.get("id") == 1 and "result" in message:
            return None
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return f"it exited with code {done.returncode} without answering initialize: {tail}"


def check_http_entry(entry: dict[str, Any], *, token: str | None, timeout_s: float = 30.0) -> str | None:
    """None if the entry's team server answers `initialize` for the token the client would send."""
    import httpx

    url = entry.get("url")
    if not isinstance(url, str) or not url:
        return "the entry has no url"
    if not token:
        return "KENNING_TOKEN is not set here, so the client would send no token"
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    try:
        answer = httpx.post(
            url, json=initialize_request("kenning-setup-check"), headers=headers, timeout=timeout_s
        )
    except httpx.HTTPError as exc:
        return f"{url} cannot be reached: {exc}"
    if answer.status_code != 200:
        return f"{url} answered {answer.status_code}: {answer.text[:200]}"
    return None
