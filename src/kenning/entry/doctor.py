"""`kenning doctor`: checks of the install, each with a verdict a user can act on."""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kenning.core.errors import KenningError
from kenning.settings import Settings


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str


def run_checks(load: Callable[[], Settings]) -> list[Check]:
    from kenning.adapters.pg_url import redacted
    from kenning.adapters.sqlite_store import SqliteStore, fts5_available
    from kenning.entry.compose import embedder_factory, open_store

    checks = [Check("python", sys.version_info >= (3, 11), sys.version.split()[0])]
    try:
        settings = load()
    except KenningError as exc:
        return [*checks, Check("settings", False, exc.message)]
    checks.append(Check("settings", True, "valid"))
    checks.append(
        Check(
            "sqlite fts5", fts5_available(), f"SQLite {sqlite3.sqlite_version}, FTS5 with trigram tokenizer"
        )
    )
    from kenning.adapters.alias_file import load_aliases
    from kenning.entry.compose import aliases_path

    aliases_file = aliases_path(settings)
    try:
        known = load_aliases(aliases_file)
        checks.append(
            Check("aliases", True, f"{aliases_file}: {len(set(known.canonical.values()))} entities")
        )
    except KenningError as exc:
        checks.append(Check("aliases", False, exc.message))
    where = (
        redacted(settings.storage.url) if settings.storage.url else str(settings.storage.resolved_db_path())
    )
    try:
        # Opening checks the server, its extensions and the schema version (and migrates an older one).
        store = open_store(settings)
        try:
            problems = store.index_problems()
            stats = store.stats(None)
        finally:
            store.close()
        detail = f"{stats.backend} {where}: schema v{stats.schema_version}, {stats.total} memories"
        checks.append(Check("store", not problems, "; ".join([detail, *problems])))
    except KenningError as exc:
        checks.append(Check("store", False, f"{where}: {exc.message}"))
    factory = embedder_factory(settings.embeddings)
    if factory is None:
        checks.append(Check("embedder", False, "provider is 'none': recall is keyword-only (degraded)"))
        return checks
    try:
        embedder = factory()
        vector = embedder.embed_query("doctor check")
        checks.append(
            Check(
                "embedder",
                vector.shape == (embedder.dim,),
                f"{embedder.model_id}, dim {embedder.dim}"
                + (f", on {engine}" if (engine := getattr(embedder, "engine_name", "")) else ""),
            )
        )
    except (KenningError, OSError, RuntimeError, ValueError, ImportError) as exc:
        checks.append(Check("embedder", False, f"{settings.embeddings.provider} failed: {exc}"))
    with tempfile.TemporaryDirectory() as scratch:
        probe = Path(scratch) / "probe.db"
        try:
            SqliteStore(probe).close()
            checks.append(Check("wal", True, "WAL journal works in a scratch directory"))
        except KenningError as exc:
            checks.append(Check("wal", False, exc.message))
    return checks
