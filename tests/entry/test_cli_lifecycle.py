"""`kenning maintain`, `beliefs`, `insights` as a user runs them, on a store written months ago."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

from fakes import ManualClock
from kenning.adapters.sqlite_store import SqliteStore
from kenning.core.decay import DAY
from kenning.core.validation import MemoryDraft
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning

sys.path.insert(0, str(Path(__file__).parent))
from test_cli import run

CALLER = Caller(namespace="default", agent_id="agent")


def _aged_store(db: Path) -> dict[str, str]:
    """A keyword-only store whose memories were written 200 days ago, as the CLI will see it."""
    clock = ManualClock(time.time() - 200 * DAY)
    app = Kenning(Deps(store=SqliteStore(db), embeddings=EmbeddingGate(None, configured="none"), clock=clock))
    try:
        weak = app.remember(CALLER, MemoryDraft(content="the lunch order was pizza", importance=0.1)).record
        pinned = app.remember(
            CALLER, MemoryDraft(content="prod db is in eu-west-1", importance=0.1, pinned=True)
        )
        tagged = [
            app.remember(
                CALLER, MemoryDraft(content=f"incident {i} hit payments", tags=["pay", "inc", "p1"])
            ).record
            for i in range(5)
        ]
    finally:
        app.close()
    return {"weak": weak.id, "pinned": pinned.record.id, "tagged": tagged[0].id}


def test_maintain_dry_run_then_real_run_then_status(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    ids = _aged_store(db)
    before = db.read_bytes()
    dry = run(db, "maintain", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    planned = json.loads(dry.stdout)
    assert planned["dry_run"] is True and planned["run_id"] is None
    assert planned["counts"]["archive"] == 6 and planned["kept"] == {"pinned": 1}
    assert any(a["id"] == ids["weak"] and a["action"] == "archive" for a in planned["actions"])
    assert "no vectors" in " ".join(planned["notes"])  # keyword-only says what it could not do
    assert db.read_bytes() == before
    done = run(db, "maintain")
    assert done.returncode == 0 and done.stdout.startswith("run 1:")
    status = run(db, "status")
    assert 'maintained run 1: {"archive": 6' in status.stdout
    shown = json.loads(run(db, "get", ids["pinned"]).stdout)
    assert shown["state"] == "active" and shown["pinned"] is True
    assert json.loads(run(db, "get", ids["weak"]).stdout)["state"] == "archived"


def test_maintain_refuses_an_unknown_policy_or_step_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _aged_store(db)
    before = db.read_bytes()
    bad = run(db, "maintain", "--policy", "shred")
    assert bad.returncode == 1
    assert bad.stderr.strip() == (
        "error: invalid_input: policy: unknown policy 'shred'; valid policies: keep, archive, delete"
    )
    step = run(db, "maintain", "--step", "defrag")
    assert step.returncode == 1 and "steps" in step.stderr and "consolidate, episodes, forget" in step.stderr
    assert db.read_bytes() == before


def test_absurd_or_negative_intervals_are_refused_before_anything_opens(tmp_path: Path) -> None:
    for value, words in (("-1", "greater than or equal to 0"), ("100000", "less than or equal to 8784")):
        result = run(tmp_path / "x.db", "status", env={"KENNING_LIFECYCLE__INTERVAL_HOURS": value})
        assert result.returncode == 1
        assert "lifecycle.interval_hours" in result.stderr and words in result.stderr
    result = run(tmp_path / "x.db", "status", env={"KENNING_LIFECYCLE__POLICY": "shred"})
    assert result.returncode == 1 and "lifecycle.policy" in result.stderr
    assert not (tmp_path / "x.db").exists()


def test_maintain_on_a_store_held_by_another_writer_fails_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    ids = _aged_store(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        held = run(db, "maintain", env={"KENNING_STORAGE__BUSY_TIMEOUT_S": "0.2"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert held.returncode == 1
    assert held.stderr.startswith("error: backend_unavailable:") and "busy" in held.stderr
    assert len(held.stderr.strip().splitlines()) == 1
    assert json.loads(run(db, "get", ids["weak"]).stdout)["state"] == "active"


def test_insights_and_beliefs_print_json(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    ids = _aged_store(db)
    cards = json.loads(run(db, "insights", "--kind", "pattern").stdout)["insights"]
    assert (
        len(cards) == 1
        and cards[0]["tags"] == ["inc", "p1", "pay"]
        and ids["tagged"] in cards[0]["memory_ids"]
    )
    gaps = json.loads(run(db, "insights", "--kind", "gap").stdout)["insights"]
    assert {tuple(c["tags"]) for c in gaps} == {("inc",), ("p1",), ("pay",)}
    assert json.loads(run(db, "beliefs").stdout)["beliefs"] == []
