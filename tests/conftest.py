from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import HashingEmbedder, ManualClock
from kenning.ports.embedder import Embedder
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning
from pg_server import pg_server, pg_url  # noqa: F401 - a real PostgreSQL for the tests that ask
from store_backends import open_store, store  # noqa: F401 - the contract suite's fixture, one store per backend

CALLER = Caller(namespace="team-a", agent_id="agent-1")
OTHER = Caller(namespace="team-b", agent_id="agent-2")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def backend() -> str:
    """The store the `app` of a test runs on; a module parametrizes it to run on each of BACKENDS."""
    return "sqlite"


@pytest.fixture
def make_app(
    request: pytest.FixtureRequest, tmp_path: Path, clock: ManualClock, backend: str
) -> Iterator[Callable[..., Kenning]]:
    apps: list[Kenning] = []

    def build(embedder: Callable[[], Embedder] | None = HashingEmbedder, name: str = "app.db") -> Kenning:
        gate = EmbeddingGate(embedder, configured="test" if embedder else "none")
        opened = open_store(request, backend, tmp_path / name)
        app = Kenning(Deps(store=opened, embeddings=gate, clock=clock))
        apps.append(app)
        return app

    yield build
    for app in apps:
        app.close()


@pytest.fixture
def app(make_app: Callable[..., Kenning]) -> Kenning:
    return make_app()


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio, as the MCP SDK's servers and clients do."""
    return "asyncio"
