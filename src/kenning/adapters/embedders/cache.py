"""An embedder wrapper that remembers vectors by (model, kind, content hash) in a small SQLite file.

Benchmarks and re-indexing embed the same texts again and again; the model is deterministic, so a
vector computed once is reused, and so are the inner layers' states the screening reads. The cache
never changes what is returned, only how fast.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from kenning.ports.embedder import Embedder, Vector


class CachingEmbedder:
    def __init__(self, inner: Embedder, path: Path, *, cache_queries: bool = True) -> None:
        self._inner = inner
        self._cache_queries = cache_queries
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT, kind TEXT, hash TEXT, vec BLOB, "
            "PRIMARY KEY (model, kind, hash))"
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dim(self) -> int:
        return self._inner.dim

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _lookup(self, kind: str, keys: list[str]) -> dict[str, Vector]:
        found: dict[str, Vector] = {}
        model = self.model_id
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            rows = self._conn.execute(
                "SELECT hash, vec FROM vectors WHERE model = ? AND kind = ? "
                f"AND hash IN ({','.join('?' * len(chunk))})",
                (model, kind, *chunk),
            ).fetchall()
            found.update((str(h), np.frombuffer(v, dtype=np.float32)) for h, v in rows)
        return found

    def _store(self, kind: str, pairs: list[tuple[str, Vector]]) -> None:
        self._conn.execute("BEGIN")
        self._conn.executemany(
            "INSERT OR REPLACE INTO vectors (model, kind, hash, vec) VALUES (?, ?, ?, ?)",
            [(self.model_id, kind, key, np.asarray(vec, dtype=np.float32).tobytes()) for key, vec in pairs],
        )
        self._conn.execute("COMMIT")

    def _remembered(
        self,
        texts: Sequence[str],
        kinds: Sequence[str],
        compute: Callable[[list[str]], Sequence[Vector | None]],
    ) -> list[Vector | None]:
        """For each of `kinds`, the rows of `texts`: what is not stored under every kind is computed
        (one matrix a kind, None where the inner embedder gives none) and stored. None for a kind that
        lacks a text."""
        keys = [self._key(t) for t in texts]
        with self._lock:
            found = [self._lookup(kind, keys) for kind in kinds]
            missing = [i for i, key in enumerate(keys) if any(key not in table for table in found)]
            self.hits += len(keys) - len(missing)
            self.misses += len(missing)
            if missing:
                for kind, table, fresh in zip(
                    kinds, found, compute([texts[i] for i in missing]), strict=True
                ):
                    if fresh is not None:
                        pairs = [(keys[i], fresh[row]) for row, i in enumerate(missing)]
                        self._store(kind, pairs)
                        table.update(pairs)
        return [
            np.stack([table[key] for key in keys]).astype(np.float32)
            if texts and all(key in table for key in keys)
            else None
            for table in found
        ]

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        (vectors,) = self._remembered(texts, ["p"], lambda missing: [self._inner.embed_passages(missing)])
        return vectors if vectors is not None else np.empty((0, self.dim), dtype=np.float32)

    def embed_passages_layers(
        self, texts: Sequence[str], layers: Sequence[int]
    ) -> tuple[Vector, Vector | None]:
        """The inner embedder's vectors and inner layers' states (see ports.embedder.LayeredEmbedder),
        both remembered; None for the states when the inner embedder cannot read them."""
        inner = getattr(self._inner, "embed_passages_layers", None)
        if inner is None or not layers or not texts:
            return self.embed_passages(texts), None
        kind = "s" + ",".join(map(str, layers))
        vectors, states = self._remembered(texts, ["p", kind], lambda missing: inner(missing, layers))
        assert vectors is not None  # every text's vector is stored, computed now or before
        return vectors, states

    def embed_query(self, text: str) -> Vector:
        if not self._cache_queries:
            return self._inner.embed_query(text)
        key = self._key(text)
        with self._lock:
            found = self._lookup("q", [key])
            if key in found:
                self.hits += 1
                return found[key]
            self.misses += 1
            vector = self._inner.embed_query(text)
            self._store("q", [(key, vector)])
        return vector

    def close(self) -> None:
        self._conn.close()
