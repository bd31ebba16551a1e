"""Resource-server mode: access tokens from an identity provider (JWT, checked against its JWKS),
their claims mapped to pools and scopes, and the protected-resource metadata (RFC 9728)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from http_server import LiveServer, live_server, serving

pytestmark = pytest.mark.slow

AUDIENCE = "https://kenning.test/mcp"


@pytest.fixture(scope="module")
def signing_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def issuer(signing_key: rsa.RSAPrivateKey) -> Iterator[str]:
    """A stand-in identity provider on loopback that publishes its public key as a JWKS."""
    public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(signing_key.public_key()))
    keys = {"keys": [{**public, "kid": "k1", "use": "sig", "alg": "RS256"}]}

    async def jwks(_: Any) -> JSONResponse:
        return JSONResponse(keys)

    with serving(Starlette(routes=[Route("/.well-known/jwks.json", jwks)]), lifespan="off") as url:
        yield url


@pytest.fixture(scope="module")
def server(issuer: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("jwt"), jwt_issuer=issuer, jwt_audience=AUDIENCE) as live:
        yield live


def access_token(key: rsa.RSAPrivateKey, issuer: str, **claims: Any) -> str:
    now = int(time.time())
    body = {"iss": issuer, "aud": AUDIENCE, "sub": "ci-agent", "iat": now, "exp": now + 300, **claims}
    return jwt.encode(body, key, algorithm="RS256", headers={"kid": "k1"})


def rest(
    server: LiveServer, token: str, operation: str, body: dict[str, Any] | None = None
) -> httpx.Response:
    return httpx.post(
        f"{server.url}/api/v1/{operation}",
        json=body or {},
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )


def test_an_access_token_s_claims_name_the_principal(
    server: LiveServer, issuer: str, signing_key: rsa.RSAPrivateKey
) -> None:
    token = access_token(
        signing_key, issuer, scope="read write", kenning_write_pool="team", kenning_read_pools=["docs"]
    )
    stored = rest(
        server, token, "remember", {"content": "Releases go out on Tuesdays.", "trust": "user_stated"}
    )
    assert stored.status_code == 200, stored.text
    assert stored.json()["trust"] == "agent_inferred"  # the default ceiling of an access token
    record = rest(server, token, "get", {"id": stored.json()["id"]}).json()
    assert record["namespace"] == "team" and record["agent_id"] == "idp:ci-agent"
    assert rest(server, token, "status").json()["namespace"] == "team"
    reader = access_token(signing_key, issuer, sub="reader", scope="read")
    denied = rest(server, reader, "remember", {"content": "x"})
    assert denied.status_code == 403 and denied.json()["code"] == "insufficient_scope"
    missing = rest(server, reader, "get", {"id": stored.json()["id"]})
    assert missing.status_code == 404  # it reads agent:idp:reader only


def test_a_token_failing_any_check_is_refused_and_points_at_the_metadata(
    server: LiveServer, issuer: str, signing_key: rsa.RSAPrivateKey
) -> None:
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    bad = {
        "expired": access_token(signing_key, issuer, scope="read", exp=int(time.time()) - 3600),
        "audience": access_token(signing_key, issuer, scope="read", aud="https://elsewhere/mcp"),
        "issuer": access_token(signing_key, "https://evil.example", scope="read"),
        "signature": access_token(other_key, issuer, scope="read"),
        "no scope": access_token(signing_key, issuer, scope="profile email"),
        "hmac": jwt.encode(
            {"iss": issuer, "aud": AUDIENCE, "sub": "x", "exp": int(time.time()) + 60}, "s" * 32
        ),
    }
    for why, token in bad.items():
        refused = rest(server, token, "status")
        assert refused.status_code == 401, (why, refused.text)
        challenge = refused.headers["WWW-Authenticate"]
        assert (
            'error="invalid_token"' in challenge and "/.well-known/oauth-protected-resource" in challenge
        ), why
    metadata = httpx.get(f"{server.url}/.well-known/oauth-protected-resource").json()
    assert metadata["authorization_servers"] == [issuer] and metadata["resource"].endswith("/mcp")
    assert metadata["scopes_supported"] == ["read", "write", "admin"]


def test_kenning_tokens_still_work_beside_access_tokens(server: LiveServer, tmp_path: Path) -> None:
    token = server.token("local", write="team")
    assert rest(server, token, "status").status_code == 200


def test_behind_a_proxy_the_metadata_names_the_public_url(
    issuer: str, signing_key: rsa.RSAPrivateKey, tmp_path: Path
) -> None:
    public = "https://memory.example.com"
    with live_server(
        tmp_path, embedder="none", jwt_issuer=issuer, jwt_audience=AUDIENCE, public_url=public
    ) as live:
        metadata = httpx.get(f"{live.url}/.well-known/oauth-protected-resource").json()
        assert metadata["resource"] == f"{public}/mcp"
        refused = rest(live, access_token(signing_key, issuer, scope="read", aud="nope"), "status")
        assert (
            f'resource_metadata="{public}/.well-known/oauth-protected-resource"'
            in refused.headers["WWW-Authenticate"]
        )
