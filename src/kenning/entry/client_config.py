"""Adding Kenning to an MCP client: the entry it needs, where each client keeps it, and a merge that
keeps everything else in the file (the old file is saved beside it first).

The command is always an absolute path: a client starts servers without the user's shell, so a bare
`kenning` is found only if it happens to be on the client's PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLIENTS = ("claude-code", "cursor", "claude-desktop", "vscode", "windsurf", "codex")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a client reads its MCP servers, and in which shape."""

    path: Path
    key: str  # the table holding servers: "mcpServers", "servers" (VS Code), "mcp_servers" (Codex)
    toml: bool = False


def kenning_command() -> str:
    """The absolute path of this installation's `kenning`: the running one, else the script beside
    this Python, else the one on PATH, else this Python (which then runs `-m kenning`)."""
    here = Path(sys.argv[0])
    if here.name.startswith("kenning") and here.exists():
        return str(here.absolute())
    beside = Path(sys.executable).with_name("kenning")
    if beside.exists():
        return str(beside.absolute())
    found = shutil.which("kenning")
    return str(Path(found).absolute()) if found else sys.executable


def server_entry(command: str, *, namespace: str = "default") -> dict[str, Any]:
    args = ["serve"] if Path(command).name.startswith("kenning") else ["-m", "kenning", "serve"]
    return {"command": command, "args": args, "env": {"KENNING_SERVER__NAMESPACE": namespace}}


def serve_argv() -> list[str]:
    """The command line that starts this installation's `kenning serve`."""
    entry = server_entry(kenning_command())
    return [entry["command"], *entry["args"]]


def placement(client: str, *, home: Path | None = None, platform: str | None = None) -> Placement:
    """The user-level config file of `client` on this (or the named) platform."""
    home = home or Path.home()
    platform = platform or sys.platform
    appdata = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    if platform == "darwin":
        support = home / "Library" / "Application Support"
    elif platform.startswith("win"):
        support = appdata
    else:
        support = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    if client == "claude-code":
        return Placement(home / ".claude.json", "mcpServers")
    if client == "cursor":
        return Placement(home / ".cursor" / "mcp.json", "mcpServers")
    if client == "claude-desktop":
        return Placement(support / "Claude" / "claude_desktop_config.json", "mcpServers")
    if client == "vscode":
        return Placement(support / "Code" / "User" / "mcp.json", "servers")
    if client == "windsurf":
        return Placement(home / ".codeium" / "windsurf" / "mcp_config.json", "mcpServers")
    if client == "codex":
        return Placement(home / ".codex" / "config.toml", "mcp_servers", toml=True)
    raise ValueError(f"unknown client {client!r}; known: {', '.join(CLIENTS)}")


HTTP_CLIENTS = ("claude-code", "cursor", "vscode")
TOKEN_ENV = "KENNING_TOKEN"  # noqa: S105 - the name of a variable, not its value
# How each client writes "the value of this environment variable" inside its config file.
_FROM_ENV = {"claude-code": "${%s}", "cursor": "${env:%s}", "vscode": "${env:%s}"}


def http_entry(client: str, url: str, *, token_env: str = TOKEN_ENV) -> dict[str, Any]:
    """The entry for a team server at `url`: the token is read from the environment when the client
    starts, so it never sits in the config file."""
    if client not in HTTP_CLIENTS:
        raise ValueError(
            f"{client} has no setup for an HTTP server here; use one of {', '.join(HTTP_CLIENTS)}"
        )
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"--url must start with http:// or https://, not {url!r}")
    url = url.rstrip("/")
    url = url if url.endswith("/mcp") else f"{url}/mcp"
    entry = {"url": url, "headers": {"Authorization": "Bearer " + _FROM_ENV[client] % token_env}}
    return {"type": "http", **entry} if client in ("claude-code", "vscode") else entry


def client_entry(client: str, command: str, *, url: str | None = None) -> dict[str, Any]:
    if url is not None:
        return http_entry(client, url)
    entry = server_entry(command)
    return {"type": "stdio", **entry} if client in ("claude-code", "vscode") else entry


def client_config(client: str, *, command: str, url: str | None = None) -> str:
    """What `kenning setup` prints: where it goes, and the file's Kenning part."""
    where = placement(client)
    entry = client_entry(client, command, url=url)
    if where.toml:
        import tomlkit

        body = tomlkit.dumps({where.key: {"kenning": entry}})
    else:
        body = json.dumps({where.key: {"kenning": entry}}, indent=2)
    how = f"kenning setup --client {client}" + (f" --url {url}" if url else "") + " --install"
    note = f"\n# the client must start with {TOKEN_ENV} set to a token (kenning token create)" if url else ""
    return f"# {where.path} (`{how}` merges it in){note}\n{body}"


def merged(existing: str, where: Placement, entry: dict[str, Any]) -> str:
    """The file's text with Kenning's entry set and everything else kept."""
    if where.toml:
        import tomlkit

        document = tomlkit.parse(existing) if existing.strip() else tomlkit.document()
        servers = document.get(where.key)
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            document[where.key] = servers
        servers["kenning"] = entry
        return tomlkit.dumps(document)
    data = json.loads(existing) if existing.strip() else {}
    if not isinstance(data, dict):
        raise ValueError(f"{where.path} does not hold a JSON object")
    servers = data.setdefault(where.key, {})
    if not isinstance(servers, dict):
        raise ValueError(f"{where.path}: {where.key} is not an object")
    servers["kenning"] = entry
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def install(
    client: str, command: str, *, where: Placement, dry_run: bool, url: str | None = None
) -> tuple[str, Path | None]:
    """Write (or with dry_run only compute) the merged config; returns its text and the backup path."""
    existing = where.path.read_text(encoding="utf-8") if where.path.exists() else ""
    text = merged(existing, where, client_entry(client, command, url=url))
    if dry_run:
        return text, None
    backup = None
    if where.path.exists():
        backup = where.path.with_name(f"{where.path.name}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
        shutil.copy2(where.path, backup)
    where.path.parent.mkdir(parents=True, exist_ok=True)
    partial = where.path.with_name(where.path.name + ".kenning-partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(where.path)  # never a half-written config
    return text, backup


def configured_entry(client: str, where: Placement) -> dict[str, Any] | None:
    """Kenning's entry as the client's file has it now, or None."""
    if not where.path.exists():
        return None
    text = where.path.read_text(encoding="utf-8")
    if where.toml:
        import tomllib

        data: Any = tomllib.loads(text)
    else:
        data = json.loads(text)
    found = (data.get(where.key) or {}).get("kenning") if isinstance(data, dict) else None
    return dict(found) if isinstance(found, dict) else None
