"""Token rows as both SQL token tables hold them: the columns, encoding and decoding, written once."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kenning.ports.tokens import TokenRecord

COLUMNS = (
    "id, name, secret_hash, write_pool, read_pools, scopes, max_trust, created_at, expires_at, revoked_at"
)
COLUMN_COUNT = len(COLUMNS.split(","))


def token_values(token: TokenRecord) -> tuple[Any, ...]:
    return (
        token.id,
        token.name,
        token.secret_hash,
        token.write_pool,
        json.dumps(list(token.read_pools)),
        json.dumps(list(token.scopes)),
        token.max_trust,
        token.created_at,
        token.expires_at,
        token.revoked_at,
    )


def token_from_row(r: Sequence[Any]) -> TokenRecord:
    return TokenRecord(
        id=r[0],
        name=r[1],
        secret_hash=r[2],
        write_pool=r[3],
        read_pools=tuple(json.loads(r[4])),
        scopes=tuple(json.loads(r[5])),
        max_trust=r[6],
        created_at=float(r[7]),
        expires_at=None if r[8] is None else float(r[8]),
        revoked_at=None if r[9] is None else float(r[9]),
    )
