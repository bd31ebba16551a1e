"""The JSON that adds Kenning to an MCP client, printed by `kenning setup` and quoted in the README."""

from __future__ import annotations

import json

_WHERE = {
    "claude-code": (
        "Run `claude mcp add-json kenning '<the JSON below>'`, or put it under mcpServers in .mcp.json"
    ),
    "cursor": "Put this in ~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project)",
    "claude-desktop": "Put this in claude_desktop_config.json (Settings → Developer → Edit Config)",
}


def server_entry(command: str) -> dict[str, object]:
    return {"command": command, "args": ["serve"], "env": {"KENNING_SERVER__NAMESPACE": "default"}}


def client_config(client: str, *, command: str = "kenning") -> str:
    entry = server_entry(command)
    if client == "claude-code":
        body = json.dumps({"type": "stdio", **entry}, indent=2)
    else:
        body = json.dumps({"mcpServers": {"kenning": entry}}, indent=2)
    return f"# {_WHERE[client]}\n{body}"
