"""The README is a reference: it must not drift from the settings, tools and commands it documents."""

from __future__ import annotations

import re
from pathlib import Path

from click import Group

from kenning.entry.cli import cli
from kenning.entry.docs import settings_table

README = (Path(__file__).parents[1] / "README.md").read_text()


def test_settings_table_matches_the_settings_model() -> None:
    block = re.search(r"<!-- settings-table:start -->\n(.*?)\n<!-- settings-table:end -->", README, re.S)
    assert block is not None
    assert block.group(1) == settings_table()


def test_every_cli_command_is_documented() -> None:
    names = []
    for name, command in cli.commands.items():
        names.append(name)
        if isinstance(command, Group):
            names.extend(f"{name} {sub}" for sub in command.commands)
    for name in names:
        assert f"kenning {name}" in README, name


def test_every_mcp_tool_is_documented(tmp_path: Path) -> None:
    import anyio

    from kenning.adapters.sqlite_store import SqliteStore
    from kenning.entry.mcp_server import build_server
    from kenning.ports.clock import SystemClock
    from kenning.services.deps import Caller, Deps
    from kenning.services.embedding import EmbeddingGate
    from kenning.services.facade import Kenning

    app = Kenning(
        Deps(
            store=SqliteStore(tmp_path / "d.db"),
            embeddings=EmbeddingGate(None, configured="none"),
            clock=SystemClock(),
        )
    )
    try:
        tools = anyio.run(build_server(app, lambda: Caller("d", "d")).list_tools)
    finally:
        app.close()
    assert tools
    for tool in tools:
        assert f"| `{tool.name}` |" in README, tool.name


def test_the_two_commands_exist_and_ci_runs_the_second() -> None:
    root = Path(__file__).parents[1]
    assert "scripts/start" in README and "scripts/test" in README
    assert "scripts/test" in (root / ".ci/run").read_text()
