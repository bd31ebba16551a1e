"""`kenning bench faults`: concurrent writers, kill -9 during writes, a flipped byte in a derived index.

Three experiments on real processes and a real file:
1. N processes each remember M distinct memories in the same store at once: exactly N*M must exist.
2. Rounds of: start a writer, kill -9 it at a random moment, then check the file (SQLite's check, the
   FTS5 checks, index row counts) and that every write the writer acknowledged is present.
3. Flip one byte inside the word index: the checks must find it and `reindex` must repair it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kenning.adapters.sqlite_text_index import WORDS, table_name
from kenning.bench.machine import describe, machine_info


def writer_main(db: str, prefix: str, count: int) -> None:
    """Run in a child process: remember `count` memories, printing each id once its commit returned."""
    from kenning.adapters.sqlite_store import SqliteStore
    from kenning.core.errors import BackendUnavailable
    from kenning.core.validation import MemoryDraft
    from kenning.ports.clock import SystemClock
    from kenning.services.deps import Caller, Deps
    from kenning.services.embedding import EmbeddingGate
    from kenning.services.facade import Kenning

    app = Kenning(
        Deps(store=SqliteStore(db), embeddings=EmbeddingGate(None, configured="none"), clock=SystemClock())
    )
    caller = Caller(namespace="faults", agent_id=prefix)
    for index in range(count):
        draft = MemoryDraft(content=f"{prefix} wrote fact number {index} about service {index % 17}")
        for attempt in range(20):
            try:
                out = app.remember(caller, draft)
                break
            except BackendUnavailable:  # retryable: another writer held the lock too long; a client retries
                if attempt == 19:
                    raise
        sys.stdout.write(out.record.id + "\n")
        sys.stdout.flush()
    app.close()


def flip_byte_in_word_index(db: Path) -> None:
    """Damage the store the way a bad disk would: invert one byte in the middle of a word-index block."""
    conn = sqlite3.connect(db)
    try:
        # The first namespace's word table; its largest block: a segment leaf holding words (rowids 1
        # and 10 are FTS5's own bookkeeping).
        number = int(conn.execute("SELECT min(number) FROM text_indexes").fetchone()[0])
        table = f"{table_name(WORDS, number)}_data"
        row = conn.execute(
            f"SELECT rowid, block FROM {table} ORDER BY rowid > 10 DESC, length(block) DESC LIMIT 1"
        ).fetchone()
        if row is None or len(row[1]) < 4:
            raise RuntimeError(f"{db}: the word index holds no block to damage; nothing was written")
        block = bytearray(row[1])
        block[len(block) // 2] ^= 0xFF
        conn.execute(f"UPDATE {table} SET block = ? WHERE rowid = ?", (bytes(block), row[0]))
        conn.commit()
    finally:
        conn.close()


def _spawn(db: Path, prefix: str, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [
            sys.executable,
            "-c",
            f"from kenning.bench.faults import writer_main; writer_main({str(db)!r}, {prefix!r}, {count})",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _check(db: Path) -> list[str]:
    from kenning.adapters.sqlite_store import SqliteStore

    store = SqliteStore(db)
    try:
        return store.index_problems()
    finally:
        store.close()


def _ids(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {str(r[0]) for r in conn.execute("SELECT id FROM memories")}
    finally:
        conn.close()


def run_fault_bench(
    *,
    writers: int,
    writes: int,
    rounds: int,
    json_path: Path | None,
    echo: Callable[[str], None],
    seed: int = 7,
) -> dict[str, Any]:
    from kenning.adapters.sqlite_store import SqliteStore
    from kenning.ports.clock import SystemClock
    from kenning.services.deps import Deps
    from kenning.services.embedding import EmbeddingGate
    from kenning.services.maintenance import reindex

    rng = random.Random(seed)  # noqa: S311 - timing jitter, not crypto
    info = machine_info()
    echo(f"machine: {describe(info)}")
    report: dict[str, Any] = {"machine": info}
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "concurrent.db"
        SqliteStore(db).close()
        started = time.perf_counter()
        procs = [_spawn(db, f"w{n}", writes) for n in range(writers)]
        acknowledged = 0
        failures = []
        for proc in procs:
            out, err = proc.communicate(timeout=600)
            acknowledged += len(out.split())
            if proc.returncode != 0:
                failures.append(err.strip().splitlines()[-1] if err.strip() else f"exit {proc.returncode}")
        elapsed = time.perf_counter() - started
        stored = len(_ids(db))
        problems = _check(db)
        report["concurrent"] = {
            "writers": writers,
            "writes_each": writes,
            "acknowledged": acknowledged,
            "stored": stored,
            "problems": problems,
            "failures": failures,
            "seconds": round(elapsed, 1),
        }
        echo(
            f"concurrent: {writers} processes x {writes} writes -> {stored} memories stored, {acknowledged} "
            f"acknowledged, {len(failures)} writer failures, checks: {problems or 'ok'} "
            f"({elapsed:.1f} s)"
        )

        db = Path(scratch) / "killed.db"
        SqliteStore(db).close()
        lost: list[str] = []
        unstarted: list[str] = []  # rounds whose writer acknowledged nothing before it was to be killed
        damaged = 0
        acknowledged_total = 0
        for round_ in range(rounds):
            proc = _spawn(db, f"k{round_}", 10_000)
            # The kill must land while writes are under way, however slowly the writer started: wait for
            # its first acknowledged write, then kill it at a random moment after.
            assert proc.stdout is not None
            first = proc.stdout.readline()
            if not first.strip():  # the writer died before any write: not a kill round, and said so
                _, err = proc.communicate()
                unstarted.append(err.strip().splitlines()[-1] if err.strip() else f"exit {proc.returncode}")
                continue
            time.sleep(rng.uniform(0.05, 0.3))
            os.kill(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            ids = (first + out).split()
            acknowledged_total += len(ids)
            present = _ids(db)
            lost += [i for i in ids if i not in present]
            if _check(db):
                damaged += 1
        report["kill9"] = {
            "rounds": rounds - len(unstarted),
            "rounds_without_a_write": unstarted,
            "acknowledged": acknowledged_total,
            "lost": len(lost),
            "rounds_with_problems": damaged,
            "stored": len(_ids(db)),
        }
        echo(
            f"kill -9: {rounds - len(unstarted)} rounds, {acknowledged_total} acknowledged writes, "
            f"{len(lost)} lost, {damaged} rounds left a store failing its checks"
            + (f"; {len(unstarted)} writers acknowledged nothing: {unstarted[0]}" if unstarted else "")
        )

        flip_byte_in_word_index(db)
        found = _check(db)
        store = SqliteStore(db)
        repaired = reindex(
            Deps(store=store, embeddings=EmbeddingGate(None, configured="none"), clock=SystemClock()),
            vectors="none",
        )
        store.close()
        report["flipped_byte"] = {
            "detected": bool(found),
            "problems": found,
            "after_reindex": repaired.problems_after,
        }
        echo(
            f"flipped byte in the word index: detected {bool(found)}, after reindex: "
            f"{'ok' if not repaired.problems_after else repaired.problems_after}"
        )
    if json_path is not None:
        json_path.write_text(json.dumps(report, indent=2))
    return report
