"""`kenning token`: the principals of the HTTP server. A token is printed once and kept only hashed."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import click

from kenning.ports.tokens import TokenRecord

_DURATION = re.compile(r"(\d{1,6})([dhm])")
_SECONDS = {"d": 86400.0, "h": 3600.0, "m": 60.0}


def parse_duration(text: str) -> float:
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise click.BadParameter(f"{text!r}: give a number of days, hours or minutes, e.g. 90d, 12h, 30m")
    return int(match.group(1)) * _SECONDS[match.group(2)]


def _when(at: float | None) -> str | None:
    return None if at is None else datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")


def _described(record: TokenRecord, now: float) -> dict[str, Any]:
    state = "revoked" if record.revoked_at else "expired" if record.expired(now) else "live"
    return {
        "name": record.name,
        "id": record.id,
        "state": state,
        "write_pool": record.write_pool,
        "read_pools": list(record.read_pools),
        "scopes": list(record.scopes),
        "max_trust": record.max_trust,
        "created": _when(record.created_at),
        "expires": _when(record.expires_at),
        "revoked": _when(record.revoked_at),
    }


def _issued(token: str, record: TokenRecord, now: float) -> None:
    click.echo(token)
    details = _described(record, now)
    reads = ", ".join([details["write_pool"], *details["read_pools"]])
    click.echo(
        f"token {details['name']!r}: writes {details['write_pool']}, reads {reads}; "
        f"scopes {','.join(details['scopes'])}; "
        f"trust up to {details['max_trust']}; expires {details['expires'] or 'never'}. "
        "It is shown only now: store it (e.g. KENNING_TOKEN) and give it to the agent.",
        err=True,
    )


@click.group()
def token() -> None:
    """Tokens for `kenning serve --http`: each names an agent, its pools, its scopes and its trust."""


@token.command("create")
@click.argument("name")
@click.option("--write", "write_pool", help="The pool its writes go to (default: a private pool agent:NAME).")
@click.option(
    "--read", "read_pools", multiple=True, help="A pool it also reads (repeatable), e.g. a team pool."
)
@click.option("--scopes", default="read,write", show_default=True, help="Some of read,write,admin.")
@click.option(
    "--trust",
    "max_trust",
    default="agent_inferred",
    show_default=True,
    type=click.Choice(["user_stated", "tool_observed", "agent_inferred", "imported"]),
    help="The most trust its writes may claim; a higher claim is lowered and says so.",
)
@click.option("--expires", help="Lifetime, e.g. 90d, 12h (default: never).")
@click.pass_obj
def create(
    ctx: Any,
    name: str,
    write_pool: str | None,
    read_pools: tuple[str, ...],
    scopes: str,
    max_trust: str,
    expires: str | None,
) -> None:
    """Create a token and print it once (stdout); what it may do goes to stderr."""
    from kenning.entry.cli import _run
    from kenning.services.principals import TokenRequest

    request = TokenRequest(
        name=name,
        write_pool=write_pool,
        read_pools=read_pools,
        scopes=tuple(s.strip() for s in scopes.split(",") if s.strip()),
        max_trust=max_trust,
        expires_in_s=parse_duration(expires) if expires else None,
    )

    def action(app: Any, caller: Any) -> None:
        issued, record = app.issue_token(caller, request)
        _issued(issued, record, app.now())

    _run(ctx, action)


@token.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_obj
def list_tokens(ctx: Any, as_json: bool) -> None:
    """Every token issued (never the token itself): name, pools, scopes, state."""
    from kenning.entry.cli import _run

    def action(app: Any, caller: Any) -> None:
        now = app.now()
        rows = [_described(r, now) for r in app.list_tokens(caller)]
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        for row in rows:
            click.echo(
                f"{row['name']}  {row['state']}  writes {row['write_pool']}  reads "
                f"{','.join(row['read_pools']) or '-'}  scopes {','.join(row['scopes'])}  "
                f"trust {row['max_trust']}  expires {row['expires'] or 'never'}"
            )
        if not rows:
            click.echo("no tokens (kenning token create NAME --write POOL)")

    _run(ctx, action)


@token.command("revoke")
@click.argument("name")
@click.pass_obj
def revoke(ctx: Any, name: str) -> None:
    """Revoke a token: it stops working at once."""
    from kenning.entry.cli import _run

    def action(app: Any, caller: Any) -> None:
        app.revoke_token(caller, name)
        click.echo(f"revoked {name}")

    _run(ctx, action)


@token.command("rotate")
@click.argument("name")
@click.pass_obj
def rotate(ctx: Any, name: str) -> None:
    """A new token for the same principal; the old one stops working at once."""
    from kenning.entry.cli import _run

    def action(app: Any, caller: Any) -> None:
        issued, record = app.rotate_token(caller, name)
        _issued(issued, record, app.now())

    _run(ctx, action)
