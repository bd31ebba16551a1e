"""The store backends the contract suite runs against, and the small values its tests share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kenning.adapters.sqlite_store import SqliteStore
from kenning.ports.store import MemoryStore, StoredVector
from pg_server import drop_database, new_database

BACKENDS = ("postgresql", "sqlite")
MODEL = "test:model"
ID1, ID2, ID3 = "01J0000000000000000000000A", "01J0000000000000000000000B", "01J0000000000000000000000C"


def unit(*values: float) -> StoredVector:
    vec = np.asarray(values, dtype=np.float32)
    return StoredVector(model=MODEL, values=vec / np.linalg.norm(vec))


def open_store(request: pytest.FixtureRequest, backend: str, path: Path) -> MemoryStore:
    """A fresh, empty store of that backend (`path` names the SQLite file; PostgreSQL gets a new
    database, dropped when the test ends)."""
    if backend == "postgresql":
        from kenning.adapters.pg_store import PostgresStore

        server = request.getfixturevalue("pg_server")
        url = new_database(server)
        request.addfinalizer(lambda: drop_database(server, url))
        return PostgresStore(url)
    return SqliteStore(path)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    """A fresh store of each backend (a contract module imports this fixture by name)."""
    built = open_store(request, request.param, tmp_path / "contract.db")
    yield built
    built.close()
