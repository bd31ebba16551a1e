"""The token port: where the principals of the HTTP server are kept, by the hash of their secret."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A principal as issued. The token's secret is never kept; only its SHA-256 is."""

    id: str  # public, in the token's text: how a presented token finds its record
    name: str  # the agent id its writes carry
    secret_hash: str
    write_pool: str
    read_pools: tuple[str, ...]
    scopes: tuple[str, ...]
    max_trust: str
    created_at: float
    expires_at: float | None = None
    revoked_at: float | None = None

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at

    def live(self, now: float) -> bool:
        return self.revoked_at is None and not self.expired(now)


class TokenStore(Protocol):
    def add(self, token: TokenRecord) -> None:
        """Keep a new token; `ConflictError` if an unrevoked one has that name."""
        ...

    def find(self, token_id: str) -> TokenRecord | None: ...

    def named(self, name: str) -> TokenRecord | None:
        """The unrevoked token of that name, if any."""
        ...

    def all(self) -> list[TokenRecord]:
        """Every token ever issued, oldest first, revoked ones included."""
        ...

    def revoke(self, token_id: str, at: float) -> bool:
        """Revoke it; False if it was unknown or already revoked."""
        ...

    def close(self) -> None: ...
