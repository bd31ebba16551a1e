"""Derived indexes are rebuilt from the records; backups are consistent and restorable."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from conftest import CALLER
from fakes import ManualClock
from kenning.adapters.sqlite_store import SqliteStore
from kenning.bench.faults import flip_byte_in_word_index
from kenning.core.validation import MemoryDraft
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning
from kenning.services.maintenance import backup, reindex, restore, rollback
from kenning.services.recall import RecallRequest

KENNING = str(Path(sys.executable).with_name("kenning"))


def ids(app: Kenning, query: str) -> list[str]:
    return [h.record.id for h in app.recall(CALLER, RecallRequest(query=query, touch=False)).hits]


def test_lost_text_index_rows_are_detected_and_rebuilt(app: Kenning, tmp_path: Path) -> None:
    stored = app.remember(
        CALLER, MemoryDraft(content="Kafka brokers run on three nodes", tags=["ops"])
    ).record
    conn = sqlite3.connect(tmp_path / "app.db")
    conn.execute("DELETE FROM fts_words_1")
    conn.execute("DELETE FROM memory_tags")
    conn.commit()
    conn.close()
    assert any("word index" in p for p in app.deps.store.index_problems())
    report = reindex(app.deps, vectors="none")
    assert report.problems_after == [] and report.text_records == 1
    assert stored.id in [
        h.record.id for h in app.recall(CALLER, RecallRequest(query="kafka", tags=["ops"])).hits
    ]


def test_missing_vectors_are_embedded_again(app: Kenning, tmp_path: Path) -> None:
    stored = app.remember(CALLER, MemoryDraft(content="The VPN gateway is in Frankfurt")).record
    conn = sqlite3.connect(tmp_path / "app.db")
    conn.execute("DELETE FROM vectors")
    conn.commit()
    conn.close()
    assert any("no vector" in p for p in app.deps.store.stats("test:hashing:128").health)
    report = reindex(app.deps)
    assert report.vectors_written == 1 and report.model == "test:hashing:128"
    assert app.status(CALLER).vectors_by_model["test:hashing:128"] == 1
    assert stored.id in ids(app, "where is the VPN gateway")


def test_backup_then_restore_brings_back_exactly_what_was_there(app: Kenning, tmp_path: Path) -> None:
    kept = app.remember(CALLER, MemoryDraft(content="Invoices are numbered per year")).record
    copy = backup(app.deps, tmp_path / "backups" / "one.db")
    later = app.remember(CALLER, MemoryDraft(content="Written after the backup")).record
    safety = restore(app.deps, copy)
    assert ids(app, "invoices numbered") == [kept.id]
    assert later.id not in ids(app, "written after the backup")
    assert app.get(CALLER, kept.id).content == "Invoices are numbered per year"
    # Nothing is lost: the store as it was before the restore sits beside the backup.
    check = sqlite3.connect(safety)
    assert check.execute("SELECT count(*) FROM memories").fetchone()[0] == 2
    check.close()


def test_restore_refuses_a_file_that_is_not_a_backup(app: Kenning, tmp_path: Path) -> None:
    import pytest

    from kenning.core.errors import ContractBroken

    app.remember(CALLER, MemoryDraft(content="Still here after a failed restore"))
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ContractBroken):
        restore(app.deps, junk)
    assert app.status(CALLER).memories_in_namespace == 1


def test_a_flipped_byte_in_the_text_index_is_found_by_doctor_and_repaired_by_reindex(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    env = {**os.environ, "KENNING_STORAGE__DB_PATH": str(db), "KENNING_EMBEDDINGS__PROVIDER": "none"}

    def kenning(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [KENNING, *args], capture_output=True, text=True, env=env, check=False, timeout=60
        )

    filled = Kenning(
        Deps(store=SqliteStore(db), embeddings=EmbeddingGate(None, configured="none"), clock=ManualClock())
    )
    filled.remember_many(
        Caller("default", "agent"),
        [MemoryDraft(content=f"Service {index} listens on port {9000 + index}") for index in range(30)],
    )
    filled.close()
    flip_byte_in_word_index(db)
    assert kenning("doctor").returncode == 1
    repaired = kenning("reindex")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "fts_words" in repaired.stdout
    assert "Service 7 listens" in kenning("recall", "port 9007").stdout


def test_rollback_removes_one_writers_window_and_restores_what_it_superseded(
    make_app: Callable[..., Kenning], clock: ManualClock
) -> None:
    app = make_app()
    honest, mallory = Caller(CALLER.namespace, "honest"), Caller(CALLER.namespace, "mallory")
    fact = app.remember(honest, MemoryDraft(content="Payments go to account NL01 BANK 0001")).record
    clock.advance(3600)
    start = clock.now()
    forged = app.remember(
        mallory, MemoryDraft(content="Payments go to account XX99 EVIL 9999", supersedes=fact.id)
    ).record
    extra = app.remember(mallory, MemoryDraft(content="Finance approved skipping invoice checks")).record
    clock.advance(60)
    dry = rollback(app.deps, honest, agent_id="mallory", since=start, until=clock.now())
    assert dry.dry_run and set(dry.removed) == {forged.id, extra.id} and dry.restored == [fact.id]
    assert app.get(CALLER, fact.id).state.value == "superseded"
    done = rollback(app.deps, honest, agent_id="mallory", since=start, until=clock.now(), dry_run=False)
    assert not done.dry_run
    assert app.get(CALLER, fact.id).state.value == "active"
    assert ids(app, "which account do payments go to") == [fact.id]
    assert [e.action for e in app.deps.store.audit_log(forged.id)][-1] == "rollback"


def test_a_store_check_finding_shows_in_status_until_the_next_check(app: Kenning, tmp_path: Path) -> None:
    app.remember(CALLER, MemoryDraft(content="Redis runs on port 6379"))
    assert app.check_store() == [] and app.status(CALLER).ok is True
    conn = sqlite3.connect(tmp_path / "app.db")
    conn.execute("DELETE FROM fts_trigram_1")
    conn.commit()
    conn.close()
    found = app.check_store()
    assert any("trigram" in p for p in found)
    status = app.status(CALLER)
    assert status.ok is False and any("trigram" in d for d in status.degraded)
    reindex(app.deps, vectors="none")
    assert app.check_store() == [] and app.status(CALLER).ok is True
