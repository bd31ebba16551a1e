"""The MCP conformance suite (@modelcontextprotocol/conformance, npm) against `serve --http`.

The suite sends no bearer token, so it talks to the server through a loopback proxy that adds one and
forwards everything else as sent (Host and Origin too, for its DNS-rebinding scenario). Scenarios
Kenning fails on purpose are listed, each with its reason, in tests/inspector/conformance-baseline.yml;
the suite fails this test on any other failure, and on a listed scenario that starts to pass."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from http_server import bearer_proxy, live_server

pytestmark = pytest.mark.slow

HARNESS = Path(__file__).parents[1] / "inspector"
CONFORMANCE = HARNESS / "node_modules" / ".bin" / "conformance"


def test_the_server_passes_the_conformance_suite_but_for_its_listed_exceptions(tmp_path: Path) -> None:
    if not CONFORMANCE.exists():
        pytest.fail(
            f"{CONFORMANCE} is missing: run scripts/test, which runs `npm ci --prefix tests/inspector`"
        )
    with (
        live_server(tmp_path) as server,
        bearer_proxy(server.url, server.token("conformance", scopes=("read", "write", "admin"))) as proxy,
    ):
        done = subprocess.run(
            [
                str(CONFORMANCE),
                "server",
                "--url",
                f"{proxy}/mcp",
                "--expected-failures",
                str(HARNESS / "conformance-baseline.yml"),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
            cwd=tmp_path,  # it writes its results/ here
        )
    summary = done.stdout[done.stdout.find("=== SUMMARY ===") :]
    assert done.returncode == 0, summary + done.stderr[-2000:]
    assert "server-initialize: 1 passed" in summary and "tools-list: 1 passed" in summary
    assert "dns-rebinding-protection: 2 passed" in summary
