"""Access tokens from an identity provider: JWTs checked against its published keys (JWKS)."""

from __future__ import annotations

from typing import Any

import jwt

from kenning.core.errors import BackendUnavailable, Unauthorized

ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"]  # never "none" or HMAC


class JwtVerifier:
    def __init__(self, *, issuer: str, audience: str, jwks_url: str, leeway_s: float = 30.0) -> None:
        self.issuer = issuer
        self._audience = audience
        self._leeway = leeway_s
        self._keys = jwt.PyJWKClient(jwks_url, cache_keys=True, lifespan=300, timeout=10)

    def claims(self, token: str) -> dict[str, Any]:
        try:
            key = self._keys.get_signing_key_from_jwt(token)
        except jwt.PyJWKClientConnectionError as exc:
            raise BackendUnavailable(f"the identity provider's keys cannot be fetched: {exc}") from exc
        except (jwt.PyJWKClientError, jwt.DecodeError) as exc:
            raise Unauthorized(f"the access token is not valid: {exc}") from exc
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=ALGORITHMS,
                audience=self._audience,
                issuer=self.issuer,
                leeway=self._leeway,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise Unauthorized("the access token has expired") from exc
        except jwt.InvalidTokenError as exc:
            raise Unauthorized(f"the access token is not valid: {exc}") from exc
        return claims
