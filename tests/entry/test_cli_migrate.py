"""`kenning migrate`: a store moved whole to PostgreSQL and back, verified, and safe to run again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from fakes import HashingEmbedder, ManualClock
from kenning.adapters.pg_schema import LATEST_VERSION
from kenning.adapters.pg_store import PostgresStore
from kenning.adapters.pg_tokens import PgTokens
from kenning.adapters.sqlite_store import SqliteStore
from kenning.adapters.sqlite_tokens import SqliteTokens
from kenning.core.errors import BackendUnavailable, ConflictError
from kenning.core.validation import MemoryDraft
from kenning.entry.cli import cli
from kenning.ports.store import DumpBatch
from kenning.services.deps import Caller, Deps
from kenning.services.embedding import EmbeddingGate
from kenning.services.facade import Kenning
from kenning.services.migration import digest, migrate
from kenning.services.principals import TokenRequest

OPERATOR = Caller(namespace="team", agent_id="cli", operator=True, console=True)


def seeded_store(db: Path) -> None:
    """A store with memories, vectors, a supersede edge, a conflict, restatements, audit and a token."""
    store = SqliteStore(db)
    gate = EmbeddingGate(HashingEmbedder, configured="test")
    app = Kenning(Deps(store=store, embeddings=gate, clock=ManualClock(), tokens=SqliteTokens(db)))
    writer = Caller(namespace="team", agent_id="alice")
    first = app.remember(writer, MemoryDraft(content="The deploy window is Friday at 16:00")).record
    app.remember(writer, MemoryDraft(content="The deploy window is Tuesday at 10:00", supersedes=first.id))
    app.remember(writer, MemoryDraft(content="Kafka runs three brokers in eu-west-1", tags=["infra"]))
    app.remember(writer, MemoryDraft(content="kafka runs three brokers in  EU-WEST-1", tags=["infra"]))
    app.remember(Caller(namespace="other", agent_id="bob"), MemoryDraft(content="Bob prefers tabs"))
    app.issue_token(OPERATOR, TokenRequest(name="agent-7", write_pool="team"))
    app.close()


def kenning(db: Path, *args: str) -> tuple[int, str]:
    env = {
        "KENNING_STORAGE__DB_PATH": str(db),
        "KENNING_EMBEDDINGS__PROVIDER": "none",
        "KENNING_CONFIG": None,
    }
    done = CliRunner().invoke(cli, list(args), env=env, prog_name="kenning")
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return done.exit_code, done.output


@pytest.fixture
def source(tmp_path: Path) -> Path:
    db = tmp_path / "source.db"
    seeded_store(db)
    return db


def test_a_store_moves_to_postgresql_and_back_unchanged(source: Path, pg_url: str, tmp_path: Path) -> None:
    code, out = kenning(source, "migrate", "--to", pg_url)
    assert code == 0 and "verified: 4 records written" in out and "tokens copied: 1" in out
    original, moved = SqliteStore(source), PostgresStore(pg_url)
    try:
        before = digest(original)
        assert digest(moved) == before and before.rows["vectors"] == 4 and before.rows["restatements"] == 1
        assert [t.name for t in PgTokens(pg_url).all()] == ["agent-7"]
        # Again: the target already holds exactly this; nothing is written twice.
        code, out = kenning(source, "migrate", "--to", pg_url)
        assert code == 0 and "already holds exactly" in out and digest(moved) == before
        # And back, into a new SQLite file, from the PostgreSQL store.
        back = tmp_path / "back.db"
        env_db = tmp_path / "unused.db"
        done = CliRunner().invoke(
            cli,
            ["migrate", "--to", str(back)],
            env={
                "KENNING_STORAGE__URL": pg_url,
                "KENNING_STORAGE__DB_PATH": str(env_db),
                "KENNING_CONFIG": None,
            },
        )
        assert done.exit_code == 0, done.output
        returned = SqliteStore(back)
        assert digest(returned) == before and [t.name for t in SqliteTokens(back).all()] == ["agent-7"]
        returned.close()
    finally:
        original.close()
        moved.close()


def test_an_interrupted_move_leaves_the_target_empty_and_runs_again(source: Path, pg_url: str) -> None:
    original, target = SqliteStore(source), PostgresStore(pg_url)

    def broken(batches: Iterator[DumpBatch]) -> Iterator[DumpBatch]:
        for number, batch in enumerate(batches):
            if number == 3:
                raise BackendUnavailable("connection lost")
            yield batch

    with pytest.raises(BackendUnavailable):
        target.load(broken(original.dump(batch_size=1)), replace=False)
    assert not any(digest(target).rows.values())
    report = migrate(original, target, SqliteTokens(source), PgTokens(pg_url))
    assert report.written == 4 and report.target == digest(original)
    original.close()
    target.close()


def test_a_target_holding_other_memories_is_refused(source: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    seeded_store(other)
    SqliteStore(other).close()
    kept = digest(SqliteStore(other))
    with pytest.raises(ConflictError, match="differ"):
        # Same texts, other ids: not the same store.
        migrate(SqliteStore(source), SqliteStore(other), SqliteTokens(source), SqliteTokens(other))
    assert digest(SqliteStore(other)) == kept


def test_doctor_reaches_the_database_and_names_what_is_wrong(pg_url: str, tmp_path: Path) -> None:
    env = {"KENNING_STORAGE__URL": pg_url, "KENNING_EMBEDDINGS__PROVIDER": "none", "KENNING_CONFIG": None}
    env["KENNING_STORAGE__DB_PATH"] = str(tmp_path / "unused.db")
    done = CliRunner().invoke(cli, ["doctor"], env=env)
    store_line = next(line for line in done.output.splitlines() if "store:" in line)
    assert (
        store_line.startswith("[ok")
        and "postgresql" in store_line
        and f"schema v{LATEST_VERSION}" in store_line
    )
    assert ":kenning@" not in store_line  # the password is never printed
    env["KENNING_STORAGE__URL"] = pg_url.replace("/kenning_test_", "/no_such_database_")
    done = CliRunner().invoke(cli, ["doctor"], env=env)
    store_line = next(line for line in done.output.splitlines() if "store:" in line)
    assert store_line.startswith("[FAIL") and "cannot reach PostgreSQL" in store_line and done.exit_code == 1
