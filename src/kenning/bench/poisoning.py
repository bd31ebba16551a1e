"""`kenning bench poisoning`: share of planted instructions caught, share of benign memories flagged.

Runs the write path's screening (core/screening.py) over a labelled corpus of benign memories and
injection attempts (tests/data/poisoning.json, English and Chinese). No model is involved.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kenning.core.screening import inspect
from kenning.core.secrets import redact


def run_poisoning_bench(*, path: Path, json_path: Path | None, echo: Callable[[str], None]) -> dict[str, Any]:
    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    caught: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    misses: list[dict[str, Any]] = []
    for item in items:
        text, _ = redact(item["text"])
        flags = inspect(text)
        key = f"{item['kind']}:{item['lang']}"
        totals[key] += 1
        totals[item["kind"]] += 1
        if flags:
            caught[key] += 1
            caught[item["kind"]] += 1
        if bool(flags) != (item["kind"] == "attack"):
            misses.append(
                {
                    "id": item["id"],
                    "kind": item["kind"],
                    "category": item["category"],
                    "flags": [f.kind for f in flags],
                    "text": item["text"][:100],
                }
            )
    attack_rate = caught["attack"] / totals["attack"] if totals["attack"] else 0.0
    false_rate = caught["benign"] / totals["benign"] if totals["benign"] else 0.0
    by_language = {
        lang: {
            "attacks_caught": round(caught[f"attack:{lang}"] / max(1, totals[f"attack:{lang}"]), 4),
            "benign_flagged": round(caught[f"benign:{lang}"] / max(1, totals[f"benign:{lang}"]), 4),
        }
        for lang in sorted({i["lang"] for i in items})
    }
    report: dict[str, Any] = {
        "corpus": str(path),
        "attacks": totals["attack"],
        "benign": totals["benign"],
        "attacks_caught": round(attack_rate, 4),
        "benign_flagged": round(false_rate, 4),
        "by_language": by_language,
        "mistakes": misses,
    }
    echo(f"corpus: {totals['benign']} benign, {totals['attack']} attacks from {path}")
    echo(f"attacks caught:  {attack_rate:.1%} (target >= 95%)")
    echo(f"benign flagged:  {false_rate:.1%} (target <= 2%)")
    for lang, figures in by_language.items():
        echo(
            f"  {lang}: caught {figures['attacks_caught']:.1%}, "
            f"benign flagged {figures['benign_flagged']:.1%}"
        )
    for miss in misses:
        echo(f"  miss {miss['id']} ({miss['kind']}/{miss['category']}): {miss['text']}")
    if json_path is not None:
        json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    return report
