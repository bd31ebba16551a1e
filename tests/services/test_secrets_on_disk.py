"""No secret reaches disk, and removed words leave no trace: every labelled secret of the development
set, written in every field a caller can fill, then updated and purged, is looked for in the database,
its WAL and shared memory, the full-text indexes' vocabularies and a backup."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from conftest import CALLER
from kenning.core.errors import InvalidInput
from kenning.core.unmask import INVISIBLE
from kenning.core.validation import MemoryDraft
from kenning.services.facade import Kenning
from kenning.services.records import MemoryPatch

_SET = Path(__file__).parents[1] / "data" / "secrets_dev.json"


def _items() -> list[dict[str, Any]]:
    return [item for item in json.loads(_SET.read_text(encoding="utf-8"))["items"] if item["secrets"]]


def _files(tmp_path: Path, app: Kenning) -> dict[str, bytes]:
    backup = tmp_path / "copy" / "backup.db"
    app.deps.store.backup_to(backup)
    found = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    found["backup"] = backup.read_bytes()
    return found


def _vocabulary(path: Path) -> set[str]:
    """Every term either full-text index still holds, deleted rows' included until a merge."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.words_vocab USING fts5vocab(main, fts_words_1, 'row')")
        return {str(row[0]) for row in conn.execute("SELECT term FROM temp.words_vocab")}
    finally:
        conn.close()


def _forms(secret: str) -> list[bytes]:
    visible = INVISIBLE.sub("", secret)
    return [form.encode() for form in {secret, visible, visible.lower(), visible.upper()}]


def _leaks(secret: str, files: dict[str, bytes]) -> list[str]:
    return [name for name, data in files.items() if any(form in data for form in _forms(secret))]


def test_the_development_set_has_at_least_sixty_secrets() -> None:
    assert sum(len(item["secrets"]) for item in _items()) >= 60


@pytest.mark.parametrize(
    "field", ["content", "context", "source", "tags", "entities", "subject", "session_id", "metadata"]
)
def test_no_labelled_secret_reaches_any_file_from_any_field(app: Kenning, tmp_path: Path, field: str) -> None:
    items = _items()
    for index, item in enumerate(items):
        text = str(item["text"])
        # A label field holds one short value: the secret under the name of its kind ("gitlab_token:…").
        labels = [f"{re.sub(r'[^a-z0-9]+', '_', str(item['kind']).lower())}:{s}" for s in item["secrets"]]
        draft = MemoryDraft(content=f"note {index} about credentials")
        if field in ("content", "context", "source"):
            setattr(draft, field, text)
        elif field in ("tags", "entities"):
            setattr(draft, field, [*labels, "plain"])
        elif field in ("subject", "session_id"):
            setattr(draft, field, labels[0])
        else:
            draft.metadata = {"pasted": text, labels[0]: "key", "list": labels}
        with contextlib.suppress(InvalidInput):  # a field may refuse a value: that keeps it off disk too
            app.remember(CALLER, draft)
    files = _files(tmp_path, app)
    leaked = {
        secret: names for item in items for secret in item["secrets"] if (names := _leaks(str(secret), files))
    }
    assert not leaked


def test_no_labelled_secret_reaches_any_file_through_an_update(app: Kenning, tmp_path: Path) -> None:
    items = _items()
    updated = 0
    refusals: list[str] = []
    for index, item in enumerate(items):
        text = str(item["text"])
        label = f"{re.sub(r'[^a-z0-9]+', '_', str(item['kind']).lower())}:{item['secrets'][0]}"
        memory = app.remember(CALLER, MemoryDraft(content=f"rotated credential number {index}")).record
        tags = [label] if len(label) <= 64 else ["rotated"]
        patch = MemoryPatch(content=text, context=text, source=text, tags=tags, metadata={"pasted": text})
        try:
            updated += app.update(CALLER, memory.id, 1, patch).record.version == 2
        except InvalidInput as exc:  # hidden Unicode in the text: an update refuses it outright
            refusals.append(exc.message)
    assert updated >= 0.9 * len(items)  # nearly every update landed, redacted
    assert all("hides Unicode" in message for message in refusals)
    files = _files(tmp_path, app)
    leaked = {
        secret: names for item in items for secret in item["secrets"] if (names := _leaks(str(secret), files))
    }
    assert not leaked


def test_an_update_and_a_purge_leave_no_trace_of_the_old_words(app: Kenning, tmp_path: Path) -> None:
    rewritten = app.remember(CALLER, MemoryDraft(content="The staging relay is zorbulon7quax")).record
    purged = app.remember(CALLER, MemoryDraft(content="The vault phrase is quintzephyr42")).record
    app.remember(CALLER, MemoryDraft(content="An unrelated memory about kiwi"))
    app.update(CALLER, rewritten.id, 1, MemoryPatch(content="The staging relay moved elsewhere"))
    token = "glpat-" + "Qm7Yt2Lx9Wc4Rv8Zp3Kn"  # assembled: the source holds no token-shaped literal
    app.forget(CALLER, purged.id, mode="purge", confirm=True, reason=f"pasted by mistake with {token}")
    files = _files(tmp_path, app)
    assert not _leaks(token, files)
    for word in ("zorbulon7quax", "quintzephyr42"):
        assert not _leaks(word, files), word
        assert word not in _vocabulary(tmp_path / "app.db")
    assert "kiwi" in _vocabulary(tmp_path / "app.db")
    assert app.get(CALLER, rewritten.id).content == "The staging relay moved elsewhere"
