"""A minimal MCP client over stdio for benches: one `kenning serve` process, one call at a time."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from kenning.entry.client_config import serve_argv
from kenning.entry.stdio_transport import initialize_request


class StdioPeer:
    """A spawned `kenning serve` spoken to in JSON-RPC lines, as any stdio client does."""

    def __init__(self, env: dict[str, str], *, stderr: Path | None = None) -> None:
        self._log = stderr.open("w") if stderr is not None else None
        self._proc = subprocess.Popen(  # noqa: S603 - our own executable
            serve_argv(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log if self._log is not None else subprocess.DEVNULL,
            env=env,
            text=True,
            encoding="utf-8",
        )
        self._next = 0
        self.request("initialize", initialize_request("kenning-bench")["params"])
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    @property
    def pid(self) -> int:
        return self._proc.pid

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(message) + "\n")
        self._proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The result of one request; raises on a JSON-RPC error or if the server exits."""
        self._next += 1
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        assert self._proc.stdout is not None
        while True:
            line = self._proc.stdout.readline()
            if not line:
                raise RuntimeError(f"kenning serve exited (code {self._proc.poll()}) during {method}")
            message = json.loads(line)
            if message.get("id") != self._next:
                continue  # a notification or log message
            if "error" in message:
                raise RuntimeError(f"{method} failed: {message['error']}")
            return dict(message["result"])

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        if result.get("isError"):
            raise RuntimeError(f"{tool} failed: {json.dumps(result)[:300]}")
        return result

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._log is not None:
            self._log.close()
