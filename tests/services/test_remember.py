from __future__ import annotations

from collections.abc import Callable

import pytest

from conftest import CALLER, OTHER
from fakes import FailingEmbedder, ManualClock
from kenning.core import limits
from kenning.core.errors import InvalidInput
from kenning.core.validation import MemoryDraft
from kenning.services.facade import Kenning
from kenning.services.recall import RecallRequest


def test_remember_stores_a_validated_record_with_a_vector(app: Kenning) -> None:
    out = app.remember(
        CALLER, MemoryDraft(content="  We deploy   on Tuesdays ", type="Decision", tags=["Ops"])
    )
    assert out.status == "stored"
    record = app.get(CALLER, out.record.id)
    assert record.content == "We deploy on Tuesdays"
    assert record.type == "decision" and record.tags == ["ops"]
    assert record.namespace == CALLER.namespace and record.agent_id == CALLER.agent_id
    assert app.status(CALLER).vectors_by_model == {"test:hashing:128": 1}


def test_identical_content_reinforces_instead_of_duplicating(app: Kenning, clock: ManualClock) -> None:
    first = app.remember(CALLER, MemoryDraft(content="Use ruff for linting", tags=["lang:python"]))
    clock.advance(60)
    again = app.remember(CALLER, MemoryDraft(content="use RUFF  for linting", tags=["tooling"]))
    assert again.status == "reinforced" and again.record.id == first.record.id
    record = app.get(CALLER, first.record.id)
    assert record.access_count == 1
    assert record.tags == ["lang:python", "tooling"]
    assert app.status(CALLER).memories_in_namespace == 1


def test_the_same_content_in_another_namespace_is_a_separate_memory(app: Kenning) -> None:
    a = app.remember(CALLER, MemoryDraft(content="Standup is at 9:30"))
    b = app.remember(OTHER, MemoryDraft(content="Standup is at 9:30"))
    assert a.status == b.status == "stored" and a.record.id != b.record.id


def test_remembering_an_archived_memory_again_brings_it_back(app: Kenning) -> None:
    first = app.remember(CALLER, MemoryDraft(content="The VPN needs re-login every Monday"))
    app.forget(CALLER, first.record.id)
    again = app.remember(CALLER, MemoryDraft(content="The VPN needs re-login every Monday"))
    assert again.status == "reinforced" and again.note is not None
    assert app.get(CALLER, first.record.id).state.value == "active"


@pytest.mark.parametrize(
    ("draft", "field", "text"),
    [
        (MemoryDraft(content=""), "content", "empty"),
        (MemoryDraft(content=" \n\t "), "content", "empty"),
        (MemoryDraft(content="x" * (limits.CONTENT_MAX_CHARS + 1)), "content", str(limits.CONTENT_MAX_CHARS)),
        (MemoryDraft(content="ok", type="wish"), "type", "valid types: fact, preference"),
        (MemoryDraft(content="ok", importance=1.5), "importance", "between 0 and 1"),
        (MemoryDraft(content="ok", trust="rumour"), "trust", "user_stated"),
        (
            MemoryDraft(content="ok", tags=["a"] * 0 + [f"t{i}" for i in range(limits.TAGS_MAX + 1)]),
            "tags",
            "33",
        ),
        (MemoryDraft(content="ok", tags=["has space"]), "tags[0]", "spaces"),
        (MemoryDraft(content="ok", valid_from=10.0, valid_to=5.0), "valid_to", "earlier"),
        (MemoryDraft(content="ok", event_time=float("inf")), "event_time", "finite"),
        (
            MemoryDraft(content="ok", metadata={"blob": "x" * 9000}),
            "metadata",
            str(limits.METADATA_MAX_BYTES),
        ),
    ],
)
def test_bad_input_names_the_field_and_limit_and_stores_nothing(
    app: Kenning, draft: MemoryDraft, field: str, text: str
) -> None:
    app.remember(CALLER, MemoryDraft(content="already here"))
    with pytest.raises(InvalidInput) as info:
        app.remember(CALLER, draft)
    assert info.value.field == field
    assert text in info.value.message
    assert app.status(CALLER).memories_in_namespace == 1


def test_unknown_type_error_lists_every_valid_type(app: Kenning) -> None:
    with pytest.raises(InvalidInput) as info:
        app.remember(CALLER, MemoryDraft(content="x", type="nonsense"))
    assert "decision" in info.value.details["valid"] and "bug" in info.value.details["valid"]


def test_batch_errors_name_the_item(app: Kenning) -> None:
    with pytest.raises(InvalidInput) as info:
        app.remember_many(CALLER, [MemoryDraft(content="fine"), MemoryDraft(content="bad", importance=-1)])
    assert info.value.field == "memories[1].importance"
    assert app.status(CALLER).memories_in_namespace == 0


def test_an_embedder_that_fails_to_load_degrades_to_keyword_only(make_app: Callable[..., Kenning]) -> None:
    def broken() -> FailingEmbedder:
        raise RuntimeError("weights missing")

    app = make_app(broken)
    out = app.remember(CALLER, MemoryDraft(content="Backups run nightly at 02:00"))
    assert out.status == "stored"
    assert out.degraded and out.degraded[0].startswith("keyword_only")
    result = app.recall(CALLER, RecallRequest(query="when do backups run"))
    assert [h.record.id for h in result.hits] == [out.record.id]
    assert result.degraded and "weights missing" in result.degraded[0]
    assert "dense" not in result.channels_used
    status = app.status(CALLER)
    assert not status.ok and status.degraded[0].startswith("keyword_only")


def test_an_embedding_outage_mid_write_stores_the_memory_and_says_so(
    make_app: Callable[..., Kenning],
) -> None:
    app = make_app(FailingEmbedder)
    out = app.remember(CALLER, MemoryDraft(content="Invoices are generated on the 1st"))
    assert out.status == "stored"
    assert any(d.startswith("not_embedded") for d in out.degraded)
    assert "no vector" in " ".join(app.status(CALLER).degraded)
