"""The `kenning` command: a thin layer over the services, one command per operation."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from kenning import __version__
from kenning.entry.cli_bench import bench
from kenning.entry.cli_common import errors as _errors
from kenning.entry.cli_common import fail as _fail
from kenning.entry.cli_common import printable
from kenning.entry.cli_migrate import migrate
from kenning.entry.cli_tokens import token
from kenning.settings import Settings, load_settings

_T = TypeVar("_T")


class Ctx:
    """What the group options decided; the app is built on first use so `--help` stays instant."""

    def __init__(self, db: Path | None, namespace: str | None, agent: str | None) -> None:
        self.db = db
        self.namespace = namespace
        self.agent = agent
        self.overrides: dict[str, dict[str, object]] = {}  # more, set by a command before settings load
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            overrides: dict[str, dict[str, object]] = dict(self.overrides)
            if self.db:
                overrides["storage"] = {"db_path": self.db}
            server: dict[str, object] = {}
            if self.namespace:
                server["namespace"] = self.namespace
            if self.agent:
                server["agent_id"] = self.agent
            if server:
                overrides["server"] = server
            self._settings = load_settings(overrides)
        return self._settings


def _run(ctx: Ctx, action: Callable[[Any, Any], _T]) -> _T:
    from kenning.entry.compose import build_kenning, configure_logging, default_caller

    with _errors():
        settings = ctx.settings
        configure_logging(settings.server.log_level)
        app = build_kenning(settings)
        try:
            return action(app, default_caller(settings, operator=True))
        finally:
            app.close()
    raise AssertionError("unreachable")


def _echo_json(model: Any) -> None:
    click.echo(model.model_dump_json(indent=2))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kenning")
@click.option(
    "--db", type=click.Path(path_type=Path, dir_okay=False), help="SQLite file (overrides settings)."
)
@click.option("--namespace", "-n", help="Namespace to act in (overrides KENNING_SERVER__NAMESPACE).")
@click.option("--agent", help="Writer id recorded on writes (overrides KENNING_SERVER__AGENT_ID).")
@click.pass_context
def cli(click_ctx: click.Context, db: Path | None, namespace: str | None, agent: str | None) -> None:
    """Kenning: long-term memory for AI agents, over MCP."""
    click_ctx.obj = Ctx(db, namespace, agent)


@cli.command()
@click.option("--http", "over_http", is_flag=True, help="Serve MCP, REST and health over HTTP for a team.")
@click.option("--host", help="Address to bind with --http (default 127.0.0.1; others need a token).")
@click.option("--port", type=int, help="Port with --http (default 8765).")
@click.pass_obj
def serve(ctx: Ctx, over_http: bool, host: str | None, port: int | None) -> None:
    """Run the MCP server: over stdio (what an agent spawns), or with --http one server for many agents,
    each with its own token (`kenning token create`). Logs go to stderr."""
    import threading

    from kenning.entry.compose import build_kenning, configure_logging, default_caller

    if (host or port is not None) and not over_http:
        raise click.UsageError("--host and --port go with --http")
    if over_http:
        http: dict[str, object] = {}
        if host:
            http["host"] = host
        if port is not None:
            http["port"] = port
        ctx.overrides["http"] = http
    with _errors():
        settings = ctx.settings
        configure_logging(settings.server.log_level)
        app = build_kenning(settings)
        if over_http:
            from kenning.entry.http_app import serve_http

            try:
                serve_http(app, settings)
            finally:
                app.close()
            return
    caller = default_caller(settings)

    from kenning.entry.mcp_server import build_server
    from kenning.jobs.scheduler import start_scheduler

    server = build_server(
        app, lambda: caller, log_level=settings.server.log_level, stage_log=settings.server.stage_log
    )
    scheduler = start_scheduler(app, settings.lifecycle.interval_hours)
    try:
        import anyio

        from kenning.entry.stdio_transport import serve_stdio

        warmer = threading.Thread(target=app.warm_up, name="kenning-warmup", daemon=True)
        anyio.run(serve_stdio, server, warmer.start)
    finally:
        if scheduler is not None:
            scheduler.stop()
        app.close()


@cli.command()
@click.argument("content")
@click.option("--type", "type_", default="fact", show_default=True, help="Memory type from the ontology.")
@click.option("--tag", "tags", multiple=True, help="Tag (repeatable), e.g. proj:auth.")
@click.option("--entity", "entities", multiple=True, help="Entity (repeatable).")
@click.option("--context", help="When the memory applies.")
@click.option("--importance", type=float, default=0.5, show_default=True)
@click.option(
    "--trust",
    default="user_stated",
    show_default=True,
    help="user_stated, agent_inferred, tool_observed or imported.",
)
@click.option("--source", help="Provenance text.")
@click.option("--supersedes", help="Id of a memory this one replaces (it becomes superseded).")
@click.option("--event-time", help="When it happened (ISO 8601).")
@click.option("--pin", "pinned", is_flag=True, help="Never forget this memory.")
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@click.pass_obj
def remember(
    ctx: Ctx,
    content: str,
    type_: str,
    tags: tuple[str, ...],
    entities: tuple[str, ...],
    context: str | None,
    importance: float,
    trust: str,
    source: str | None,
    event_time: str | None,
    supersedes: str | None,
    pinned: bool,
    as_json: bool,
) -> None:
    """Remember CONTENT ('-' reads it from stdin)."""
    from kenning.core.validation import MemoryDraft, parse_time
    from kenning.entry.schemas import remember_out

    if content == "-":
        content = sys.stdin.read()

    def action(app: Any, caller: Any) -> None:
        draft = MemoryDraft(
            content=content,
            type=type_,
            tags=tags,
            entities=entities,
            context=context,
            importance=importance,
            trust=trust,
            source=source,
            event_time=parse_time(event_time, "event_time"),
            supersedes=supersedes,
            pinned=pinned,
        )
        out = remember_out(app.remember(caller, draft))
        if as_json:
            _echo_json(out)
            return
        click.echo(f"{out.status} {out.id}")
        if out.note:
            click.echo(f"note: {out.note}", err=True)
        for old in out.superseded:
            click.echo(f"superseded {old}")
        for conflict in out.conflicts:
            reasons = "; ".join(conflict.evidence.get("reasons", []))
            click.echo(
                f"conflict {conflict.id} with {conflict.older_id}: {reasons} "
                "(judge it with `kenning resolve`)",
                err=True,
            )
        if out.screening:
            if out.screening["redacted"]:
                click.echo(f"redacted: {', '.join(out.screening['redacted'])}", err=True)
            if out.screening["action"]:
                click.echo(f"{out.screening['action']}: reads like instructions to agents", err=True)
        for problem in out.degraded:
            click.echo(f"degraded: {problem}", err=True)

    _run(ctx, action)


@cli.command()
@click.argument("query", default="")
@click.option("--limit", "-k", type=int, default=None, help="Results per page (1-100).")
@click.option("--offset", type=int, default=0, help="Skip this many results.")
@click.option("--budget", "token_budget", type=int, default=None, help="Token budget for returned content.")
@click.option("--type", "types", multiple=True, help="Only this type (repeatable).")
@click.option(
    "--tag", "tags", multiple=True, help="Only memories with this tag (repeatable: all must match)."
)
@click.option("--entity", "entities", multiple=True, help="Only memories about this entity (repeatable).")
@click.option("--since", help="Event time at or after (ISO 8601).")
@click.option("--until", help="Event time before (ISO 8601).")
@click.option("--include-archived", is_flag=True, help="Search archived memories too.")
@click.option("--include-quarantined", is_flag=True, help="Search quarantined memories too (to review them).")
@click.option(
    "--min-trust",
    type=click.Choice(["user_stated", "tool_observed", "agent_inferred", "imported"]),
    help="Only memories at least this trusted.",
)
@click.option("--json", "as_json", is_flag=True, help="Print results with explanations as JSON.")
@click.option(
    "--verbose", is_flag=True, help="With --json: every field of each record, the channels, beliefs."
)
@click.pass_obj
def recall(
    ctx: Ctx,
    query: str,
    limit: int | None,
    offset: int,
    token_budget: int | None,
    types: tuple[str, ...],
    tags: tuple[str, ...],
    entities: tuple[str, ...],
    since: str | None,
    until: str | None,
    include_archived: bool,
    include_quarantined: bool,
    min_trust: str | None,
    as_json: bool,
    verbose: bool,
) -> None:
    """Recall memories matching QUERY (empty: the newest)."""
    from kenning.core.validation import parse_time
    from kenning.entry.schemas import recall_out
    from kenning.services.recall import RecallRequest

    def action(app: Any, caller: Any) -> None:
        request = RecallRequest(
            query=query,
            limit=limit,
            offset=offset,
            token_budget=token_budget,
            types=types,
            tags=tags,
            entities=entities,
            states=[
                "active",
                *(["archived"] if include_archived else []),
                *(["quarantined"] if include_quarantined else []),
            ],
            since=parse_time(since, "since"),
            until=parse_time(until, "until"),
            min_trust=min_trust,
        )
        out = recall_out(app.recall(caller, request), verbose=verbose)
        if as_json:
            _echo_json(out)
            return
        for hit in out.results:
            click.echo(f"{hit.id}  {hit.score:.4f}  [{hit.type}] {printable(hit.content)}  ({hit.why})")
        if not out.results:
            click.echo("no memories found", err=True)
        if out.note:
            click.echo(f"note: {out.note}", err=True)
        if out.next_offset is not None:
            click.echo(f"more: --offset {out.next_offset}", err=True)
        for problem in out.degraded:
            click.echo(f"degraded: {problem}", err=True)

    _run(ctx, action)


@cli.command()
@click.argument("memory_id")
@click.pass_obj
def get(ctx: Ctx, memory_id: str) -> None:
    """Print one memory as JSON, with its supersede chain both ways."""
    from kenning.entry.schemas import chain_out

    _run(ctx, lambda app, caller: _echo_json(chain_out(app.chain(caller, memory_id))))


@cli.command()
@click.argument("memory_id")
@click.option("--version", "expected_version", type=int, required=True, help="The version you read.")
@click.option("--content", help="New content.")
@click.option("--type", "type_", help="New type.")
@click.option("--tag", "tags", multiple=True, help="Replacement tags (repeatable).")
@click.option("--importance", type=float, help="New importance 0-1.")
@click.option(
    "--state", type=click.Choice(["active", "archived", "deprecated"]), help="Explicit state change."
)
@click.option("--pin/--unpin", "pinned", default=None, help="Pin (never forgotten) or unpin.")
@click.pass_obj
def update(
    ctx: Ctx,
    memory_id: str,
    expected_version: int,
    content: str | None,
    type_: str | None,
    tags: tuple[str, ...],
    importance: float | None,
    state: str | None,
    pinned: bool | None,
) -> None:
    """Change a memory; refused if it is no longer at --version."""
    from kenning.entry.schemas import update_out
    from kenning.services.records import MemoryPatch

    patch = MemoryPatch(
        content=content,
        type=type_,
        tags=list(tags) or None,
        importance=importance,
        state=state,
        pinned=pinned,
    )
    _run(
        ctx,
        lambda app, caller: _echo_json(update_out(app.update(caller, memory_id, expected_version, patch))),
    )


@cli.command()
@click.argument("memory_id")
@click.option("--purge", is_flag=True, help="Delete for good instead of archiving (needs --yes).")
@click.option("--yes", "confirm", is_flag=True, help="Confirm a purge.")
@click.option("--reason", help="Why, for the audit log.")
@click.pass_obj
def forget(ctx: Ctx, memory_id: str, purge: bool, confirm: bool, reason: str | None) -> None:
    """Archive a memory (recoverable), or purge it with --purge --yes."""
    from kenning.entry.schemas import forget_out

    def action(app: Any, caller: Any) -> None:
        mode = "purge" if purge else "archive"
        if purge and not confirm:
            raise click.UsageError("--purge deletes the memory permanently and cannot be undone; add --yes")
        out = forget_out(app.forget(caller, memory_id, mode=mode, confirm=confirm, reason=reason))
        click.echo(f"{out.action} {out.id}")

    _run(ctx, action)


@cli.command()
@click.argument("memory_id")
@click.argument("decision", type=click.Choice(["release", "delete"]))
@click.pass_obj
def review(ctx: Ctx, memory_id: str, decision: str) -> None:
    """Release a quarantined memory into recall, or delete it."""

    def action(app: Any, caller: Any) -> None:
        kept = app.review(caller, memory_id, decision)
        click.echo(f"{'released' if kept else 'deleted'} {memory_id}")

    _run(ctx, action)


@cli.command()
@click.option("--all", "show_all", is_flag=True, help="Resolved ones too.")
@click.option("--limit", type=int, default=20, show_default=True)
@click.option("--offset", type=int, default=0)
@click.pass_obj
def conflicts(ctx: Ctx, show_all: bool, limit: int, offset: int) -> None:
    """List pairs of memories that may contradict each other (JSON lines)."""
    from kenning.entry.schemas import conflict_out

    def action(app: Any, caller: Any) -> None:
        for found in app.conflicts(caller, status=None if show_all else "open", limit=limit, offset=offset):
            click.echo(conflict_out(found).model_dump_json())

    _run(ctx, action)


@cli.command()
@click.argument("conflict_id", type=int)
@click.argument("decision", type=click.Choice(["keep_both", "supersede", "merge"]))
@click.option("--winner", help="For supersede: the id that stays.")
@click.option("--merged", "merged_content", help="For merge: the single statement to keep.")
@click.pass_obj
def resolve(
    ctx: Ctx, conflict_id: int, decision: str, winner: str | None, merged_content: str | None
) -> None:
    """Judge a flagged conflict: keep_both, supersede --winner ID, or merge --merged TEXT."""
    from kenning.entry.schemas import resolve_out

    _run(
        ctx,
        lambda app, caller: _echo_json(
            resolve_out(
                app.resolve_conflict(
                    caller, conflict_id, decision, winner=winner, merged_content=merged_content
                )
            )
        ),
    )


@cli.command()
@click.argument("src")
@click.argument("edge_type", metavar="TYPE")
@click.argument("dst")
@click.option("--weight", type=float, default=1.0, show_default=True)
@click.pass_obj
def link(ctx: Ctx, src: str, edge_type: str, dst: str, weight: float) -> None:
    """Add a typed edge: SRC TYPE DST, e.g. `kenning link FIX_ID fixes BUG_ID`."""
    from kenning.entry.schemas import edge_out

    _run(ctx, lambda app, caller: _echo_json(edge_out(app.link(caller, src, dst, edge_type, weight))))


@cli.command()
@click.argument("memory_id")
@click.option("--depth", type=int, default=1, show_default=True, help="Hops, 1-3.")
@click.option("--type", "edge_types", multiple=True, help="Only this edge type (repeatable).")
@click.option("--limit", type=int, default=20, show_default=True)
@click.pass_obj
def explore(ctx: Ctx, memory_id: str, depth: int, edge_types: tuple[str, ...], limit: int) -> None:
    """Walk the memory graph from MEMORY_ID and print the neighbours as JSON."""
    from kenning.entry.schemas import explore_out

    _run(
        ctx,
        lambda app, caller: _echo_json(
            explore_out(app.explore_graph(caller, memory_id, depth=depth, edge_types=edge_types, limit=limit))
        ),
    )


@cli.command()
@click.option(
    "--vectors",
    type=click.Choice(["missing", "all", "none"]),
    default="missing",
    show_default=True,
    help="Which vectors to (re)compute after the text indexes are rebuilt.",
)
@click.pass_obj
def reindex(ctx: Ctx, vectors: str) -> None:
    """Rebuild every derived index (words, trigrams, tags, entities, vectors) from the records."""

    def action(app: Any, caller: Any) -> None:
        def progress(done: int, total: int) -> None:
            click.echo(f"\rembedding {done}/{total}", nl=False, err=True)

        report = app.reindex(caller, vectors=vectors, progress=progress)
        click.echo("", err=True)
        for problem in report.problems_before:
            click.echo(f"found: {problem}")
        click.echo(
            f"rebuilt text indexes of {report.text_records} memories; "
            f"wrote {report.vectors_written} vectors ({report.model or 'no embedder'})"
        )
        for problem in report.problems_after:
            click.echo(f"still wrong: {problem}")
        if report.problems_after:
            sys.exit(1)

    _run(ctx, action)


@cli.command()
@click.option("--writer", "agent_id", required=True, help="The agent id whose writes to remove.")
@click.option("--since", required=True, help="Start of the window (ISO 8601).")
@click.option("--until", default=None, help="End of the window (ISO 8601; default now).")
@click.option("--yes", "confirm", is_flag=True, help="Really remove; without it this is a dry run.")
@click.pass_obj
def rollback(ctx: Ctx, agent_id: str, since: str, until: str | None, confirm: bool) -> None:
    """Remove everything one writer stored in a time window (dry run unless --yes)."""
    from kenning.core.validation import parse_time

    def action(app: Any, caller: Any) -> None:
        start = parse_time(since, "since")
        end = parse_time(until, "until") if until else None
        assert start is not None
        report = app.rollback(caller, agent_id=agent_id, since=start, until=end, dry_run=not confirm)
        verb = "would remove" if report.dry_run else "removed"
        click.echo(f"{verb} {len(report.removed)} memories written by {agent_id}")
        for memory_id in report.removed:
            click.echo(f"  {memory_id}")
        for memory_id in report.restored:
            click.echo(
                f"  {'would restore' if report.dry_run else 'restored'} {memory_id} (it had superseded it)"
            )
        if report.dry_run and report.removed:
            click.echo("dry run: nothing changed; pass --yes to remove", err=True)

    _run(ctx, action)


@cli.command()
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False))
@click.pass_obj
def backup(ctx: Ctx, path: Path) -> None:
    """Copy the whole store to PATH, safely while other agents keep writing."""
    _run(ctx, lambda app, caller: click.echo(f"backed up to {app.backup(caller, path)}"))


@cli.command()
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option("--yes", "confirm", is_flag=True, help="Confirm replacing the current store.")
@click.pass_obj
def restore(ctx: Ctx, path: Path, confirm: bool) -> None:
    """Replace the store with the backup at PATH (the current store is saved beside it first)."""
    if not confirm:
        _fail("restore replaces every memory in the store; pass --yes to proceed")

    _run(
        ctx,
        lambda app, caller: click.echo(
            f"restored from {path}; previous store saved as {app.restore(caller, path)}"
        ),
    )


@cli.command()
@click.option("--dry-run", is_flag=True, help="Report what would be done; change nothing.")
@click.option(
    "--policy", help="keep, archive or delete (default: lifecycle.policy; deletion only when named)."
)
@click.option(
    "--step",
    "steps",
    multiple=True,
    help="Only these steps (repeatable): consolidate, episodes, forget, insights.",
)
@click.option(
    "--all", "list_all", is_flag=True, help="List every memory's decision, kept ones too, uncapped."
)
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
@click.pass_obj
def maintain(
    ctx: Ctx, dry_run: bool, policy: str | None, steps: tuple[str, ...], list_all: bool, as_json: bool
) -> None:
    """Run lifecycle maintenance once (for cron): consolidate, summarise old episodes, forget, insights."""
    from kenning.entry.schemas import maintenance_out
    from kenning.services.lifecycle import STEPS, MaintenanceRequest

    def action(app: Any, caller: Any) -> None:
        request = MaintenanceRequest(
            dry_run=dry_run, policy=policy, steps=list(steps) or STEPS, list_all=list_all
        )
        out = maintenance_out(app.maintain(caller, request))
        if as_json:
            _echo_json(out)
            return
        mode = "dry run (nothing changed)" if out.dry_run else f"run {out.run_id}"
        click.echo(f"{mode}: namespace {out.namespace}, policy {out.policy}, {out.seconds:.2f} s")
        click.echo(f"scanned    {out.scanned} active memories; {out.active_after} active after")
        click.echo(
            f"did        {json.dumps(out.counts)}"
            if not out.dry_run
            else f"would do   {json.dumps(out.counts)}"
        )
        click.echo(f"kept       {json.dumps(out.kept)}")
        for item in out.actions[:20]:
            click.echo(f"  {item['action']:<9} {item['id']}  {item['reason']}")
        if len(out.actions) > 20:
            click.echo(f"  ... {len(out.actions) - 20} more (--json for all)")
        click.echo(f"insights   {len(out.insights)} (kenning insights)")
        for line in out.skipped + out.notes:
            click.echo(f"note: {line}", err=True)

    _run(ctx, action)


@cli.command()
@click.option("--min-confidence", type=float, default=0.35, show_default=True)
@click.option("--limit", type=int, default=20, show_default=True)
@click.pass_obj
def beliefs(ctx: Ctx, min_confidence: float, limit: int) -> None:
    """Beliefs: memories stated independently at least twice, with their confidence (JSON)."""
    from kenning.entry.schemas import beliefs_out

    _run(
        ctx,
        lambda app, caller: _echo_json(
            beliefs_out(app.beliefs(caller, min_confidence=min_confidence, limit=limit))
        ),
    )


@cli.command()
@click.option("--kind", "kinds", multiple=True, help="pattern, trend or gap (repeatable; default all).")
@click.option("--limit", type=int, default=20, show_default=True)
@click.pass_obj
def insights(ctx: Ctx, kinds: tuple[str, ...], limit: int) -> None:
    """Insight cards: patterns, trends and gaps in tags, each with the memories behind it (JSON)."""
    from kenning.entry.schemas import insights_out
    from kenning.services.insights import KINDS

    _run(
        ctx,
        lambda app, caller: _echo_json(insights_out(app.insights(caller, kinds=kinds or KINDS, limit=limit))),
    )


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
@click.pass_obj
def status(ctx: Ctx, as_json: bool) -> None:
    """What is stored, which model embeds it, index health, and degraded modes."""
    from kenning.entry.schemas import status_out

    def action(app: Any, caller: Any) -> None:
        out = status_out(app.status(caller))
        if as_json:
            _echo_json(out)
            return
        click.echo(
            f"store      {out.store['location']} "
            f"({out.store['size_bytes']} bytes, schema v{out.schema_version})"
        )
        click.echo(f"namespace  {out.namespace}: {out.memories_in_namespace} memories")
        click.echo(f"states     {json.dumps(out.by_state)}")
        engine = f" on {out.embedder['engine']}" if out.embedder.get("engine") else ""
        click.echo(
            f"embedder   {out.embedder['provider']} -> {out.embedder['model'] or 'not loaded'}{engine}"
        )
        click.echo(f"vectors    {json.dumps(out.vectors_by_model)}")
        click.echo(f"conflicts  {out.open_conflicts} open (kenning conflicts)")
        if out.maintenance is not None:
            last = out.maintenance
            click.echo(
                f"maintained run {last['id']}: {json.dumps(last.get('counts', {}))}, {last.get('seconds')} s"
            )
        else:
            click.echo("maintained never (kenning maintain)")
        click.echo("status     " + ("ok" if out.ok else "DEGRADED"))
        for problem in out.degraded:
            click.echo(f"  - {problem}")

    _run(ctx, action)


@cli.command()
@click.pass_obj
def doctor(ctx: Ctx) -> None:
    """Check the install: settings, FTS5, the store, the embedding model. Exit 1 if anything fails."""
    from kenning.entry.doctor import run_checks

    failures = 0
    for check in run_checks(lambda: ctx.settings):
        mark = "ok  " if check.ok else "FAIL"
        click.echo(f"[{mark}] {check.name}: {check.detail}")
        failures += 0 if check.ok else 1
    if failures:
        sys.exit(1)


@cli.command()
@click.option(
    "--client",
    type=click.Choice(["claude-code", "cursor", "claude-desktop", "vscode", "windsurf", "codex"]),
    default="claude-code",
    show_default=True,
)
@click.option(
    "--install", is_flag=True, help="Write the entry into the client's config (old file saved beside it)."
)
@click.option("--dry-run", is_flag=True, help="With --install: print the merged file, write nothing.")
@click.option("--check", is_flag=True, help="Start the configured command and say whether a client could.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The client's config file, if not where the client keeps it by default.",
)
@click.option(
    "--url",
    help="A team server (kenning serve --http), e.g. https://memory.example.com: the client connects "
    "over HTTP with the token from $KENNING_TOKEN (claude-code, cursor, vscode).",
)
@click.pass_obj
def setup(
    ctx: Ctx,
    client: str,
    install: bool,
    dry_run: bool,
    check: bool,
    config_path: Path | None,
    url: str | None,
) -> None:
    """Print, install or check the configuration that adds Kenning to an MCP client."""
    from dataclasses import replace

    from kenning.entry import client_config as clients

    command = clients.kenning_command()
    where = clients.placement(client)
    if config_path is not None:
        where = replace(where, path=config_path)
    if url is not None:
        try:
            clients.http_entry(client, url)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from exc
    if install:
        try:
            text, backup = clients.install(client, command, where=where, dry_run=dry_run, url=url)
        except (ValueError, OSError) as exc:
            raise click.ClickException(f"cannot update {where.path}: {exc}") from exc
        if dry_run:
            click.echo(f"# {where.path} would become:\n{text}", nl=False)
            return
        click.echo(f"added kenning to {where.path}" + (f" (the old file is {backup})" if backup else ""))
    elif not check:
        click.echo(clients.client_config(client, command=command, url=url))
        return
    if check:
        from kenning.entry.client_check import check_entry

        try:
            entry = clients.configured_entry(client, where)
        except ValueError as exc:
            raise click.ClickException(f"{where.path} cannot be read: {exc}") from exc
        if entry is None:
            raise click.ClickException(
                f"{where.path} has no kenning entry; run `kenning setup --client {client} --install`"
            )
        if "url" in entry:
            from kenning.entry.client_check import check_http_entry

            problem = check_http_entry(entry, token=os.environ.get(clients.TOKEN_ENV))
        else:
            problem = check_entry(entry)
        if problem is not None:
            raise click.ClickException(f"{client} could not start kenning from {where.path}: {problem}")
        how = entry.get("url") or f"{entry['command']} {' '.join(entry.get('args', []))}"
        click.echo(f"ok: {client} can reach kenning ({how})")


cli.add_command(bench)
cli.add_command(token)
cli.add_command(migrate)


def main() -> None:
    cli(prog_name="kenning")


if __name__ == "__main__":
    main()
