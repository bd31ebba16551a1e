"""`kenning migrate`: the configured store, whole, into another backend, verified."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from kenning.entry.cli_common import errors
from kenning.settings import Settings


def _settings_for(settings: Settings, target: str) -> Settings:
    """The same settings with the store at `target`: a postgresql:// URL, or the path of a SQLite file."""
    if target.startswith(("postgresql://", "postgres://")):
        storage = settings.storage.model_copy(update={"url": target})
    else:
        storage = settings.storage.model_copy(update={"url": None, "db_path": Path(target).expanduser()})
    return settings.model_copy(update={"storage": storage})


@click.command()
@click.option(
    "--to",
    "target",
    required=True,
    help="An empty PostgreSQL database (postgresql://…) or a new SQLite file.",
)
@click.pass_obj
def migrate(ctx: Any, target: str) -> None:
    """Move every memory, vector, edge, conflict, audit entry, maintenance report and token of the
    configured store into TARGET, then check that TARGET reads back the same (counts and content hashes).
    The target is written in one transaction: after an interruption, run it again. Stop the servers
    that write to the store first; writes made during the move stay behind."""
    from kenning.adapters.pg_url import redacted
    from kenning.entry.compose import open_store, open_tokens
    from kenning.services.migration import KINDS
    from kenning.services.migration import migrate as move

    settings: Settings = ctx.settings
    there = _settings_for(settings, target)
    with errors():
        source, destination = open_store(settings), open_store(there)
        source_tokens, target_tokens = open_tokens(settings), open_tokens(there)
        try:
            report = move(source, destination, source_tokens, target_tokens)
        finally:
            for closing in (source, destination, source_tokens, target_tokens):
                closing.close()
    shown = redacted(target)
    if report.already_there:
        click.echo(f"{shown} already holds exactly this store's contents; nothing written")
    click.echo(f"{'kind':<18}{'rows':>10}  sha256 (source = target)")
    for kind in KINDS:
        click.echo(f"{kind:<18}{report.target.rows[kind]:>10}  {report.target.sha256[kind][:16]}")
    click.echo(f"tokens copied: {report.tokens_copied}")
    click.echo(f"verified: {report.written} records written to {shown}; every kind matches")
