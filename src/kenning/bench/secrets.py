"""How many labelled secrets write redaction removes, and how many benign texts it changes.

A secret counts as leaked if any 8 characters of it in a row (its invisible characters ignored) are
still in the redacted text, so a key redacted only in part is a leak. A benign text counts as wrongly
redacted if redaction changed it at all.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kenning.core.unmask import INVISIBLE

_FRAGMENT = 8


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    text: str
    secrets: tuple[str, ...]
    kind: str
    lang: str


def load_items(path: Path) -> list[Item]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        Item(
            id=str(raw["id"]),
            text=str(raw["text"]),
            secrets=tuple(str(s) for s in raw.get("secrets", [])),
            kind=str(raw.get("kind", "")),
            lang=str(raw.get("lang", "")),
        )
        for raw in data["items"]
    ]


def leaked(secret: str, redacted: str) -> bool:
    secret = INVISIBLE.sub("", secret)
    seen = INVISIBLE.sub("", redacted)
    if len(secret) <= _FRAGMENT:
        return secret in seen
    return any(secret[i : i + _FRAGMENT] in seen for i in range(len(secret) - _FRAGMENT + 1))


def run_secrets_bench(
    *,
    path: Path,
    json_path: Path | None,
    echo: Callable[[str], None],
    redactor: Callable[[str], tuple[str, list[str]]] | None = None,
) -> dict[str, Any]:
    from kenning.core.secrets import redact as default

    redact = redactor or default
    items = load_items(path)
    caught = missed = benign = wrongly = 0
    missed_kinds: Counter[str] = Counter()
    wrong_kinds: Counter[str] = Counter()
    misses: list[dict[str, str]] = []
    took: list[float] = []
    for item in items:
        start = time.perf_counter()
        redacted, _ = redact(item.text)
        took.append((time.perf_counter() - start) * 1000)
        if not item.secrets:
            benign += 1
            if redacted != item.text:
                wrongly += 1
                wrong_kinds[item.kind] += 1
                misses.append({"id": item.id, "kind": item.kind, "problem": "benign text redacted"})
            continue
        for secret in item.secrets:
            if leaked(secret, redacted):
                missed += 1
                missed_kinds[item.kind] += 1
                misses.append({"id": item.id, "kind": item.kind, "problem": "secret reached the output"})
            else:
                caught += 1
    total = caught + missed
    took.sort()
    result: dict[str, Any] = {
        "set": path.name,
        "secrets": total,
        "redacted": caught,
        "recall": round(caught / total, 3) if total else None,
        "benign": benign,
        "benign_changed": wrongly,
        "false_positive_rate": round(wrongly / benign, 3) if benign else None,
        "p95_ms": round(took[int(0.95 * (len(took) - 1))], 3) if took else None,
        "missed_kinds": dict(missed_kinds.most_common()),
        "wrong_kinds": dict(wrong_kinds.most_common()),
        "misses": misses,
    }
    echo(f"{path.name}: {caught}/{total} secrets redacted (recall {result['recall']})")
    echo(f"benign texts changed: {wrongly}/{benign} (rate {result['false_positive_rate']})")
    echo(f"redaction p95 {result['p95_ms']} ms per text")
    for entry in misses:
        echo(f"  {entry['id']} {entry['kind']}: {entry['problem']}")
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=2))
    return result
