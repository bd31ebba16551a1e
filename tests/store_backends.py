"""The store backends the contract suite runs against, and the small values its tests share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kenning.adapters.sqlite_store import SqliteStore
from kenning.ports.store import MemoryStore, StoredVector

BACKENDS = ("postgresql", "sqlite")
MODEL = "test:model"
ID1, ID2, ID3 = "01J0000000000000000000000A", "01J0000000000000000000000B", "01J0000000000000000000000C"


def unit(*values: float) -> StoredVector:
    vec = np.asarray(values, dtype=np.float32)
    return StoredVector(model=MODEL, values=vec / np.linalg.norm(vec))


def open_store(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> MemoryStore:
    """A fresh, empty store of that backend."""
    if backend == "postgresql":
        from kenning.adapters.pg_store import PostgresStore

        return PostgresStore(str(request.getfixturevalue("pg_url")))
    return SqliteStore(tmp_path / "contract.db")


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    """A fresh store of each backend (a contract module imports this fixture by name)."""
    built = open_store(request, request.param, tmp_path)
    yield built
    built.close()
