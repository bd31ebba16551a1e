"""A SQL store's whole contents as DumpBatch objects, for `dump` (backup to another backend, `kenning
migrate`). Both SQL backends keep the same logical tables, so the queries and the decoding are written
once here; each backend reads them through its own connection and decodes its own vector format."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from kenning.adapters.sql_rows import (
    COLUMNS,
    CONFLICT_COLUMNS,
    RESTATEMENT_COLUMNS,
    audit_from_row,
    conflict_from_row,
    edge_from_row,
    record_from_row,
    restatement_from_row,
)
from kenning.ports.embedder import Vector
from kenning.ports.store import DumpBatch, StoredVector

QUERIES = {
    "records": f"SELECT {COLUMNS} FROM memories ORDER BY seq",
    "vectors": "SELECT m.id, v.model, v.vec FROM vectors v JOIN memories m ON m.seq = v.seq "
    "ORDER BY m.seq, v.model",
    "edges": "SELECT src, dst, type, weight, created_at FROM edges ORDER BY src, dst, type",
    "restatements": f"SELECT m.id, {RESTATEMENT_COLUMNS} FROM restatements r "
    "JOIN memories m ON m.seq = r.seq ORDER BY m.seq, r.rseq",
    "conflicts": f"SELECT {CONFLICT_COLUMNS} FROM conflicts ORDER BY namespace, number",
    "conflict_numbers": "SELECT namespace, last FROM conflict_numbers ORDER BY namespace",
    "audit": "SELECT at, actor, namespace, action, memory_id, detail FROM audit ORDER BY seq",
    "runs": "SELECT namespace, started_at, finished_at, report FROM maintenance_runs ORDER BY id",
}


def dump_batches(
    read: Callable[[str], Iterable[Sequence[Any]]],
    vector_values: Callable[[Any], Vector],
    size: int,
) -> Iterator[DumpBatch]:
    """Every table in QUERIES order, `size` rows a batch; `read` runs a query (inside one snapshot)."""
    convert: dict[str, Callable[[Sequence[Any]], Any]] = {
        "records": record_from_row,
        "vectors": lambda r: (str(r[0]), StoredVector(model=str(r[1]), values=vector_values(r[2]))),
        "edges": edge_from_row,
        "restatements": lambda r: (str(r[0]), restatement_from_row(r[1:])),
        "conflicts": conflict_from_row,
        "conflict_numbers": lambda r: (str(r[0]), int(r[1])),
        "audit": audit_from_row,
        "runs": lambda r: (str(r[0]), float(r[1]), float(r[2]), json.loads(r[3])),
    }
    for kind, query in QUERIES.items():
        batch, count = DumpBatch(), 0
        for row in read(query):
            getattr(batch, kind).append(convert[kind](row))
            count += 1
            if count == size:
                yield batch
                batch, count = DumpBatch(), 0
        if count:
            yield batch
