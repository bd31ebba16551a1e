"""Tokens: issued once, kept hashed, turned into a principal with its pools, scopes and trust."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes import ManualClock
from kenning.adapters.sqlite_tokens import SqliteTokens
from kenning.core.errors import ConflictError, InvalidInput, NotFound, Unauthorized
from kenning.services.principals import (
    TokenRequest,
    authenticate,
    issue,
    principal_from_claims,
    revoke,
    rotate,
)


@pytest.fixture
def tokens(tmp_path: Path) -> SqliteTokens:
    return SqliteTokens(tmp_path / "k.db")


def test_a_token_becomes_its_principal_and_only_its_hash_is_kept(
    tokens: SqliteTokens, clock: ManualClock, tmp_path: Path
) -> None:
    token, record = issue(
        tokens, clock, TokenRequest(name="ci-bot", read_pools=("team", "team"), scopes=("read",))
    )
    caller = authenticate(tokens, clock, token)
    assert caller.agent_id == "ci-bot" and caller.namespace == "agent:ci-bot"
    assert caller.readable == ("agent:ci-bot", "team") and caller.scopes == frozenset({"read"})
    assert caller.max_trust == "agent_inferred" and not caller.operator
    tokens.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert token.encode() not in stored and token.split("_", 2)[2].encode() not in stored
    assert record.secret_hash.encode() in stored


def test_a_wrong_secret_an_expired_or_a_revoked_token_is_refused(
    tokens: SqliteTokens, clock: ManualClock
) -> None:
    token, _ = issue(tokens, clock, TokenRequest(name="a", expires_in_s=3600))
    forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    for presented in (forged, "kn_short", "", "Bearer " + token):
        with pytest.raises(Unauthorized, match="not valid"):
            authenticate(tokens, clock, presented)
    clock.advance(3601)
    with pytest.raises(Unauthorized, match="expired"):
        authenticate(tokens, clock, token)
    other, _ = issue(tokens, clock, TokenRequest(name="b"))
    revoke(tokens, clock, "b")
    with pytest.raises(Unauthorized, match="revoked"):
        authenticate(tokens, clock, other)
    with pytest.raises(NotFound):
        revoke(tokens, clock, "b")


def test_rotation_keeps_the_principal_and_ends_the_old_token(
    tokens: SqliteTokens, clock: ManualClock
) -> None:
    old, _ = issue(
        tokens,
        clock,
        TokenRequest(name="a", write_pool="team", read_pools=("docs",), scopes=("read", "write", "admin")),
    )
    new, record = rotate(tokens, clock, "a")
    with pytest.raises(Unauthorized):
        authenticate(tokens, clock, old)
    caller = authenticate(tokens, clock, new)
    assert caller.readable == ("team", "docs") and caller.operator and record.name == "a"


def test_a_bad_request_names_its_field(tokens: SqliteTokens, clock: ManualClock) -> None:
    with pytest.raises(InvalidInput, match="scopes"):
        issue(tokens, clock, TokenRequest(name="a", scopes=("read", "root")))
    with pytest.raises(InvalidInput, match="read_pools"):
        issue(tokens, clock, TokenRequest(name="a", read_pools=tuple(f"p{i}" for i in range(40))))
    with pytest.raises(InvalidInput, match="name"):
        issue(tokens, clock, TokenRequest(name=""))
    issue(tokens, clock, TokenRequest(name="a"))
    with pytest.raises(ConflictError, match="exists"):
        issue(tokens, clock, TokenRequest(name="a"))


def test_a_store_that_never_issued_a_token_is_not_written_to(tmp_path: Path, clock: ManualClock) -> None:
    tokens = SqliteTokens(tmp_path / "k.db")
    assert tokens.all() == [] and tokens.named("a") is None
    with pytest.raises(Unauthorized):
        authenticate(tokens, clock, "kn_aaaaaaaaaaaa_" + "b" * 43)
    tokens.close()
    assert [p.stat().st_size for p in tmp_path.iterdir() if p.name == "k.db"] in ([], [0])


def test_an_identity_provider_subject_is_not_the_local_agent_of_the_same_name(
    tokens: SqliteTokens, clock: ManualClock
) -> None:
    token, _ = issue(tokens, clock, TokenRequest(name="ci-bot"))
    local = authenticate(tokens, clock, token)
    remote = principal_from_claims({"sub": "ci-bot", "scope": "read write"})
    assert remote.agent_id == "idp:ci-bot" != local.agent_id
    assert remote.namespace == "agent:idp:ci-bot" and local.namespace not in remote.readable
    with pytest.raises(InvalidInput, match="idp:"):
        issue(tokens, clock, TokenRequest(name="idp:ci-bot"))


def test_an_admin_token_issues_only_tokens_that_reach_no_further_than_itself(
    tokens: SqliteTokens, clock: ManualClock
) -> None:
    from kenning.core.errors import Forbidden, InsufficientScope
    from kenning.services.deps import Caller
    from kenning.services.principals import check_may_issue, check_may_manage, manageable

    issue(tokens, clock, TokenRequest(name="gone", write_pool="agent:reused"))
    issue(tokens, clock, TokenRequest(name="other", write_pool="finance"))
    lead = Caller(
        namespace="team",
        agent_id="lead",
        read_pools=("docs",),
        scopes=frozenset({"read", "admin"}),
        max_trust="agent_inferred",
    )
    existing = tokens.all()
    check_may_issue(
        lead, TokenRequest(name="bot", write_pool="team", read_pools=("docs",), scopes=("read",)), existing
    )
    check_may_issue(lead, TokenRequest(name="fresh", scopes=("read",)), existing)  # a new private pool
    refused = [
        TokenRequest(name="x", write_pool="finance", scopes=("read",)),  # a pool it does not write
        TokenRequest(name="x", read_pools=("finance",), scopes=("read",)),  # one it does not read
        TokenRequest(name="x", scopes=("read", "write")),  # a scope it lacks
        TokenRequest(name="x", scopes=("read",), max_trust="user_stated"),  # more trust than its own
        TokenRequest(name="reused", scopes=("read",)),  # the private pool of an earlier token
    ]
    for request in refused:
        with pytest.raises(Forbidden):
            check_may_issue(lead, request, existing)
    with pytest.raises(InsufficientScope):
        check_may_manage(
            Caller(namespace="team", agent_id="bob", scopes=frozenset({"read"})), "listing tokens"
        )
    issue(tokens, clock, TokenRequest(name="teammate", write_pool="team"))
    assert [t.name for t in manageable(lead, tokens.all())] == ["teammate"]


def test_an_admin_tokens_principal_is_no_console_operator(tokens: SqliteTokens, clock: ManualClock) -> None:
    """Regression: a token's admin scope made its principal the operator, which skipped every check
    kept for the operator at the console."""
    from kenning.core.errors import Forbidden
    from kenning.services.principals import check_may_issue

    token, _ = issue(tokens, clock, TokenRequest(name="lead", write_pool="team", scopes=("read", "admin")))
    lead = authenticate(tokens, clock, token)
    assert lead.operator and not lead.console  # an admin of its pools, not of the server
    with pytest.raises(Forbidden):
        check_may_issue(
            lead, TokenRequest(name="spy", write_pool="team", read_pools=("finance",)), tokens.all()
        )
