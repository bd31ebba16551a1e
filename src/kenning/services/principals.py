"""Principals from tokens: issuing, authenticating, revoking and rotating the HTTP server's tokens.

A token reads `kn_<id>_<secret>`. The id finds its record; only the SHA-256 of the whole token is kept,
compared in constant time. From the record come the agent id (the token's name), the pool it writes,
the pools it reads, its scopes and the most trust its writes may claim."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Any

from kenning.core.errors import Forbidden, InsufficientScope, InvalidInput, NotFound, Unauthorized
from kenning.core.records import TRUST_WEIGHT, Trust
from kenning.core.validation import check_name, check_trust
from kenning.ports.clock import Clock
from kenning.ports.tokens import TokenRecord, TokenStore
from kenning.services.deps import SCOPES, Caller

_TOKEN = re.compile(r"kn_([a-z0-9]{12})_([A-Za-z0-9_-]{43})")
_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
MAX_READ_POOLS = 32

# Agent ids of identity-provider principals start with this; no local token name may.
IDP_PREFIX = "idp:"


@dataclass(frozen=True, slots=True)
class TokenRequest:
    name: str
    write_pool: str | None = None  # default: a private pool named after the token
    read_pools: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ("read", "write")
    max_trust: str = "agent_inferred"
    expires_in_s: float | None = None


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue(tokens: TokenStore, clock: Clock, request: TokenRequest) -> tuple[str, TokenRecord]:
    """A new token and its record; the token's text exists only in what this returns."""
    name = check_name(request.name, "name", required=True)
    assert name is not None
    if name.startswith(IDP_PREFIX):
        raise InvalidInput("name", f"may not start with {IDP_PREFIX!r}: identity-provider agent ids do")
    write_pool = check_name(request.write_pool or f"agent:{name}", "write_pool", required=True)
    assert write_pool is not None
    if len(request.read_pools) > MAX_READ_POOLS:
        count = len(request.read_pools)
        raise InvalidInput("read_pools", f"names {count} pools; the limit is {MAX_READ_POOLS}")
    read_pools = tuple(
        dict.fromkeys(check_name(p, "read_pools", required=True) or "" for p in request.read_pools)
    )
    unknown = [s for s in request.scopes if s not in SCOPES]
    if unknown or not request.scopes:
        raise InvalidInput("scopes", f"must be some of {', '.join(SCOPES)}; got {', '.join(request.scopes)}")
    if request.expires_in_s is not None and request.expires_in_s <= 0:
        raise InvalidInput("expires", "must be in the future")
    now = clock.now()
    token_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(12))
    token = f"kn_{token_id}_{secrets.token_urlsafe(32)}"
    record = TokenRecord(
        id=token_id,
        name=name,
        secret_hash=_hash(token),
        write_pool=write_pool,
        read_pools=tuple(p for p in read_pools if p != write_pool),
        scopes=tuple(s for s in SCOPES if s in request.scopes),
        max_trust=check_trust(request.max_trust).value,
        created_at=now,
        expires_at=None if request.expires_in_s is None else now + request.expires_in_s,
    )
    tokens.add(record)
    return token, record


def check_may_manage(caller: Caller, what: str) -> None:
    """Tokens are managed by the operator at the console (the `kenning token` command), or by a
    principal with the admin scope within its own reach (see `check_may_issue` and `manageable`)."""
    if caller.console:
        return
    if "admin" not in caller.scopes:
        raise InsufficientScope("admin", what)


def check_may_issue(caller: Caller, request: TokenRequest, existing: list[TokenRecord]) -> None:
    """A principal that is not the operator issues only a token that reaches no further than itself:
    it writes the principal's own pool, or a new private pool of its own name that no token ever
    wrote; it reads only pools the principal reads, and has no scope or trust the principal lacks."""
    if caller.console:
        return
    if request.write_pool is not None and request.write_pool != caller.namespace:
        raise Forbidden(f"a token you issue writes your own pool {caller.namespace!r} or a new private one")
    if request.write_pool is None:
        private = f"agent:{request.name}"
        if any(token.write_pool == private or private in token.read_pools for token in existing):
            raise Forbidden(f"pool {private!r} was another token's: only the operator may issue one for it")
    outside = [pool for pool in request.read_pools if pool not in caller.readable]
    if outside:
        raise Forbidden(f"read_pools: you do not read {', '.join(outside)}")
    extra = [scope for scope in request.scopes if scope not in caller.scopes]
    if extra:
        raise Forbidden(f"scopes: you do not hold {', '.join(extra)}")
    if TRUST_WEIGHT[check_trust(request.max_trust)] > TRUST_WEIGHT[Trust(caller.max_trust)]:
        raise Forbidden(f"max_trust: you may claim at most {caller.max_trust!r}")


def manageable(caller: Caller, tokens: list[TokenRecord]) -> list[TokenRecord]:
    """The tokens a principal may see and revoke: every one for the console, otherwise those that
    write a pool it reads (whose writes it sees anyway)."""
    return tokens if caller.console else [t for t in tokens if t.write_pool in caller.readable]


_JWT = re.compile(r"[A-Za-z0-9_-]{2,4000}\.[A-Za-z0-9_-]{2,8000}\.[A-Za-z0-9_-]{2,2000}")
# Claims of an identity provider's access token that name what the principal may reach.
WRITE_POOL_CLAIM = "kenning_write_pool"
READ_POOLS_CLAIM = "kenning_read_pools"
TRUST_CLAIM = "kenning_max_trust"


def looks_like_token(presented: str, *, access_tokens: bool = False) -> bool:
    """Whether the text has the form of a Kenning token (or, when an identity provider is configured,
    of a JWT) at all: checked before any lookup."""
    text = presented.strip()
    return _TOKEN.fullmatch(text) is not None or (access_tokens and _JWT.fullmatch(text) is not None)


def is_kenning_token(presented: str) -> bool:
    return _TOKEN.fullmatch(presented.strip()) is not None


def principal_from_claims(claims: dict[str, Any]) -> Caller:
    """The principal an identity provider's verified access token describes: `idp:<sub>` is the agent
    id, the standard `scope` (or `scp`) claim its scopes, and Kenning's own claims its pools and trust.
    The prefix keeps the provider's subjects apart from local token names: a subject that happens to
    read "ci-bot" is not the local agent ci-bot and gets neither its writes nor its private pool."""
    try:
        sub = check_name(str(claims.get("sub") or ""), "sub", required=True)
        agent_id = check_name(f"{IDP_PREFIX}{sub}", "sub", required=True)
        write_pool = check_name(str(claims.get(WRITE_POOL_CLAIM) or f"agent:{agent_id}"), WRITE_POOL_CLAIM)
        read = claims.get(READ_POOLS_CLAIM) or []
        if not isinstance(read, list) or len(read) > MAX_READ_POOLS:
            raise InvalidInput(READ_POOLS_CLAIM, f"must be a list of at most {MAX_READ_POOLS} pool names")
        read_pools = tuple(
            dict.fromkeys(check_name(str(p), READ_POOLS_CLAIM, required=True) or "" for p in read)
        )
        trust = check_trust(str(claims.get(TRUST_CLAIM) or "agent_inferred")).value
    except InvalidInput as exc:
        raise Unauthorized(f"the access token's claims are not usable: {exc.message}") from exc
    granted = claims.get("scope", claims.get("scp", ""))
    names = granted.split() if isinstance(granted, str) else [str(s) for s in granted or []]
    scopes = frozenset(s for s in names if s in SCOPES)
    if not scopes:
        raise Unauthorized(f"the access token grants none of the scopes {', '.join(SCOPES)}")
    assert agent_id is not None and write_pool is not None
    return Caller(
        namespace=write_pool,
        agent_id=agent_id,
        max_trust=trust,
        operator="admin" in scopes,
        read_pools=tuple(p for p in read_pools if p != write_pool),
        scopes=scopes,
    )


def authenticate(tokens: TokenStore, clock: Clock, presented: str) -> Caller:
    """The principal behind a presented token; `Unauthorized` (saying why) for anything else."""
    match = _TOKEN.fullmatch(presented.strip())
    record = tokens.find(match.group(1)) if match else None
    # Compare even when nothing was found, so that timing tells an unknown id from a wrong secret less.
    expected = record.secret_hash if record else _hash("kn_unknown")
    if not hmac.compare_digest(expected, _hash(presented.strip())) or record is None:
        raise Unauthorized("the token is not valid")
    if record.revoked_at is not None:
        raise Unauthorized("the token was revoked")
    if record.expired(clock.now()):
        raise Unauthorized("the token has expired")
    return principal(record)


def principal(record: TokenRecord) -> Caller:
    return Caller(
        namespace=record.write_pool,
        agent_id=record.name,
        max_trust=record.max_trust,
        # An admin may change other writers' memories in its pool and release their quarantine.
        operator="admin" in record.scopes,
        read_pools=record.read_pools,
        scopes=frozenset(record.scopes),
    )


def revoke(tokens: TokenStore, clock: Clock, name: str) -> TokenRecord:
    record = tokens.named(name)
    if record is None or not tokens.revoke(record.id, clock.now()):
        raise NotFound(f"no live token named {name!r}", name=name)
    return record


def rotate(tokens: TokenStore, clock: Clock, name: str) -> tuple[str, TokenRecord]:
    """A new secret for the same principal; the old token stops working at once."""
    old = revoke(tokens, clock, name)
    remaining = None if old.expires_at is None else max(old.expires_at - clock.now(), 1.0)
    return issue(
        tokens,
        clock,
        TokenRequest(
            name=old.name,
            write_pool=old.write_pool,
            read_pools=old.read_pools,
            scopes=old.scopes,
            max_trust=old.max_trust,
            expires_in_s=remaining,
        ),
    )
