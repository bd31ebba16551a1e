"""Moving a whole store to another backend (`kenning migrate`): every record, vector, edge, restatement,
conflict, audit entry, maintenance report and token, verified at the end by counts and content hashes.

The target is written in one transaction (`MemoryStore.load`): an interrupted move leaves it as it was,
so running it again is safe; a target that already holds exactly the source's contents is left alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from kenning.core.errors import ConflictError, ContractBroken
from kenning.ports.store import DumpBatch, MemoryStore
from kenning.ports.tokens import TokenStore

KINDS = tuple(f.name for f in dataclasses.fields(DumpBatch))


@dataclass(frozen=True, slots=True)
class Digest:
    """How many rows of each kind a store holds, and a hash over their contents in dump order."""

    rows: dict[str, int]
    sha256: dict[str, str]


@dataclass(slots=True)
class MigrationReport:
    written: int  # records written (0 when the target already held them)
    tokens_copied: int
    source: Digest
    target: Digest
    already_there: bool = False
    notes: list[str] = field(default_factory=list)


class _Hasher:
    """Counts and hashes the rows of each kind as a dump streams past."""

    def __init__(self) -> None:
        self.rows = dict.fromkeys(KINDS, 0)
        self.hashes = {kind: hashlib.sha256() for kind in KINDS}

    def add(self, batch: DumpBatch) -> DumpBatch:
        for kind in KINDS:
            rows = getattr(batch, kind)
            self.rows[kind] += len(rows)
            for row in rows:
                self.hashes[kind].update(_canonical(row))
        return batch

    def digest(self) -> Digest:
        return Digest(rows=dict(self.rows), sha256={k: h.hexdigest() for k, h in self.hashes.items()})


def _canonical(row: Any) -> bytes:
    """One row as bytes that are equal exactly when the rows are: vectors by their float32 bytes."""

    def plain(value: Any) -> Any:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, Enum):
            return value.value
        if isinstance(value, tuple | list):
            return [plain(v) for v in value]
        if hasattr(value, "tobytes"):
            return value.astype("<f4").tobytes().hex()
        return value

    return json.dumps(plain(row), sort_keys=True, ensure_ascii=False).encode() + b"\n"


def digest(store: MemoryStore) -> Digest:
    hasher = _Hasher()
    for batch in store.dump():
        hasher.add(batch)
    return hasher.digest()


def _tee(batches: Iterable[DumpBatch], hasher: _Hasher) -> Iterator[DumpBatch]:
    for batch in batches:
        yield hasher.add(batch)


def migrate(
    source: MemoryStore, target: MemoryStore, source_tokens: TokenStore, target_tokens: TokenStore
) -> MigrationReport:
    """Copy everything from `source` into the empty `target`, then check that the target reads back the
    same rows. The source is read from one snapshot; writes made to it meanwhile are not moved (stop the
    servers writing to it first)."""
    existing = digest(target)
    if any(existing.rows.values()):
        held = digest(source)
        if existing != held:
            raise ConflictError(
                "the target already holds memories that differ from the source's "
                f"({existing.rows['records']} records there, {held.rows['records']} here); "
                "migrate into an empty database",
                target_rows=existing.rows,
            )
        copied = _copy_tokens(source_tokens, target_tokens)
        return MigrationReport(0, copied, held, existing, already_there=True)
    streamed = _Hasher()
    written = target.load(_tee(source.dump(), streamed), replace=False)
    moved = streamed.digest()
    after = digest(target)
    if after != moved:
        wrong = [k for k in KINDS if after.rows[k] != moved.rows[k] or after.sha256[k] != moved.sha256[k]]
        raise ContractBroken(f"the target does not read back what was written: {', '.join(wrong)} differ")
    copied = _copy_tokens(source_tokens, target_tokens)
    return MigrationReport(written, copied, moved, after)


def _copy_tokens(source: TokenStore, target: TokenStore) -> int:
    """Tokens (by their hashes: no secret is read or moved) the target does not hold yet; then every
    token of the source must be there as it is."""
    copied = 0
    held = source.all()
    for token in held:
        found = target.find(token.id)
        if found is None:
            target.add(token)
            copied += 1
        elif found != token:
            raise ConflictError(f"token {token.name!r} differs in the target; revoke one of the two first")
    missing = {t.id for t in held} - {t.id for t in target.all()}
    if missing:
        raise ContractBroken(f"{len(missing)} tokens did not arrive in the target")
    return copied
