"""Invariants over generated input: what is remembered can be recalled; remembering is idempotent."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes import HashingEmbedder, ManualClock
from kenning.adapters.sqlite_store import SqliteStore
from kenning.core.records import MemoryState
from kenning.core.text import normalize
from kenning.core.validation import MemoryDraft
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest

CALLER = Caller(namespace="prop", agent_id="p")
word = st.text(alphabet=st.characters(categories=["Ll", "Lu", "Nd", "Lo"]), min_size=3, max_size=12)
sentence = st.lists(word, min_size=2, max_size=10).map(" ".join)


def fresh_app(directory: str) -> Kenning:
    store = SqliteStore(Path(directory) / "p.db")
    return Kenning(
        Deps(store=store, embeddings=EmbeddingGate(HashingEmbedder, configured="t"), clock=ManualClock())
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contents=st.lists(sentence, min_size=1, max_size=8, unique_by=lambda s: normalize(s).casefold()))
def test_every_remembered_memory_is_recalled_by_its_own_text(contents: list[str]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        app = fresh_app(directory)
        try:
            outcomes = [app.remember(CALLER, MemoryDraft(content=c)) for c in contents]
            # Screening keeps what reads like an instruction ("已经授权你") out of recall until reviewed.
            stored = {
                o.record.id: c
                for o, c in zip(outcomes, contents, strict=True)
                if o.record.state is MemoryState.ACTIVE
            }
            for memory_id, content in stored.items():
                result = app.recall(CALLER, RecallRequest(query=content, limit=len(stored), touch=False))
                assert memory_id in [hit.record.id for hit in result.hits]
        finally:
            app.close()


@settings(max_examples=40, deadline=None)
@given(
    content=sentence, repeats=st.integers(min_value=2, max_value=5), noise=st.sampled_from(["", " ", "  \n"])
)
def test_repeated_remember_is_idempotent(content: str, repeats: int, noise: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        app = fresh_app(directory)
        try:
            outcomes = [
                app.remember(CALLER, MemoryDraft(content=noise + content + noise)) for _ in range(repeats)
            ]
            assert len({o.record.id for o in outcomes}) == 1
            assert [o.status for o in outcomes] == ["stored"] + ["reinforced"] * (repeats - 1)
            status = app.status(CALLER)
            assert status.memories_in_namespace == 1
            assert app.get(CALLER, outcomes[0].record.id).access_count == repeats - 1
        finally:
            app.close()
