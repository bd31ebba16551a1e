"""The identity port: an issuer's access tokens (JWT), verified into their claims."""

from __future__ import annotations

from typing import Any, Protocol


class AccessTokenVerifier(Protocol):
    issuer: str

    def claims(self, token: str) -> dict[str, Any]:
        """The token's claims once its signature, issuer, audience and expiry are checked; raises
        `Unauthorized` for a token that fails any, `BackendUnavailable` when the keys cannot be had."""
        ...
