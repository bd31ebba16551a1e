"""`kenning setup`: absolute paths, an install that merges into each client's config, and a check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kenning.entry.client_config import CLIENTS, placement

KENNING = str(Path(sys.executable).with_name("kenning"))
OTHER = {"command": "/usr/bin/other-server", "args": ["--stdio"]}


def setup(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "APPDATA")}
    env.update(
        HOME=str(home), KENNING_EMBEDDINGS__PROVIDER="none", KENNING_STORAGE__DB_PATH=str(home / "k.db")
    )
    return subprocess.run(
        [KENNING, "setup", *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def test_the_printed_config_names_kenning_by_its_absolute_path(tmp_path: Path) -> None:
    done = setup(tmp_path, "--client", "cursor")
    body = json.loads(done.stdout.split("\n", 1)[1])
    entry = body["mcpServers"]["kenning"]
    assert entry["command"] == KENNING and Path(entry["command"]).is_absolute() and entry["args"] == ["serve"]


@pytest.mark.parametrize("client", CLIENTS)
def test_install_merges_into_a_config_with_other_servers_and_keeps_the_old_file(
    tmp_path: Path, client: str
) -> None:
    where = placement(client, home=tmp_path, platform="linux")
    where.path.parent.mkdir(parents=True, exist_ok=True)
    if where.toml:
        where.path.write_text('model = "o4"\n\n[mcp_servers.other]\ncommand = "/usr/bin/other-server"\n')
    else:
        where.path.write_text(json.dumps({"theme": "dark", where.key: {"other": OTHER}}))
    before = where.path.read_text()
    preview = setup(tmp_path, "--client", client, "--install", "--dry-run")
    assert preview.returncode == 0, preview.stderr
    assert where.path.read_text() == before and "kenning" in preview.stdout  # a dry run writes nothing
    done = setup(tmp_path, "--client", client, "--install")
    assert done.returncode == 0, done.stderr
    if where.toml:
        data = tomllib.loads(where.path.read_text())
        assert data["model"] == "o4" and data["mcp_servers"]["other"]["command"] == "/usr/bin/other-server"
        entry = data["mcp_servers"]["kenning"]
    else:
        data = json.loads(where.path.read_text())
        assert data["theme"] == "dark" and data[where.key]["other"] == OTHER
        entry = data[where.key]["kenning"]
    assert entry["command"] == KENNING and entry["args"] == ["serve"]
    backups = list(where.path.parent.glob(where.path.name + ".*.bak"))
    assert [b.read_text() for b in backups] == [before]


def test_install_creates_a_missing_config_and_check_reports_a_broken_entry(tmp_path: Path) -> None:
    where = placement("windsurf", home=tmp_path, platform="linux")
    assert setup(tmp_path, "--client", "windsurf", "--install").returncode == 0
    assert setup(tmp_path, "--client", "windsurf", "--install").returncode == 0  # again: one entry still
    assert list(json.loads(where.path.read_text())["mcpServers"]) == ["kenning"]
    checked = setup(tmp_path, "--client", "windsurf", "--check")
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("ok: windsurf can reach kenning")
    data = json.loads(where.path.read_text())
    data["mcpServers"]["kenning"]["command"] = str(tmp_path / "no-such-kenning")
    where.path.write_text(json.dumps(data))
    broken = setup(tmp_path, "--client", "windsurf", "--check")
    assert broken.returncode == 1 and "does not exist" in broken.stderr
    data["mcpServers"]["kenning"]["command"] = "kenning"
    where.path.write_text(json.dumps(data))
    relative = setup(tmp_path, "--client", "windsurf", "--check")
    assert relative.returncode == 1 and "not an absolute path" in relative.stderr


def test_a_config_that_is_not_json_is_refused_and_left_alone(tmp_path: Path) -> None:
    where = placement("cursor", home=tmp_path, platform="linux")
    where.path.parent.mkdir(parents=True)
    where.path.write_text("{ not json")
    done = setup(tmp_path, "--client", "cursor", "--install")
    assert done.returncode == 1 and str(where.path) in done.stderr
    assert where.path.read_text() == "{ not json"


def test_claude_desktop_and_vscode_live_where_each_os_keeps_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("APPDATA", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    home = Path("/home/u")
    mac = home / "Library" / "Application Support"
    assert (
        placement("claude-desktop", home=home, platform="darwin").path
        == mac / "Claude" / "claude_desktop_config.json"
    )
    assert placement("claude-desktop", home=home, platform="linux").path == (
        home / ".config" / "Claude" / "claude_desktop_config.json"
    )
    assert placement("claude-desktop", home=home, platform="win32").path == (
        home / "AppData" / "Roaming" / "Claude" / "claude_desktop_config.json"
    )
    monkeypatch.setenv("APPDATA", "/d/Roaming")
    assert placement("vscode", home=home, platform="win32").path == Path("/d/Roaming/Code/User/mcp.json")
    assert placement("vscode", home=home, platform="darwin").path == mac / "Code" / "User" / "mcp.json"
    assert placement("vscode", home=home, platform="linux").key == "servers"
