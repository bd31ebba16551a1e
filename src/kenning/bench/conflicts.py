"""`kenning bench conflicts`: precision and recall of "duplicate" and "conflict" on labelled write pairs.

Each pair is (memory already stored, memory being written, label). The labels map to the decision
the write path should take: duplicate/paraphrase -> duplicate, preference_reversal/value_change ->
conflict, compatible/unrelated -> new. Two operating points are reported: `ask` flags every conflict
(recall matters, the caller judges) and `latest_wins` supersedes alone only on decisive evidence
(precision matters). With `--calibrate`, the cosine thresholds that serve this set
best are searched and printed, per embedder: they belong in core/conflict.py THRESHOLDS.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kenning.bench.embedders import named_embedder
from kenning.bench.machine import describe, machine_info
from kenning.core.conflict import ConflictThresholds, judge, thresholds_for

DECISION = {
    "duplicate": "duplicate",
    "paraphrase": "duplicate",
    "preference_reversal": "conflict",
    "value_change": "conflict",
    "compatible": "new",
    "unrelated": "new",
}


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    lang: str
    first: str
    second: str
    label: str

    @property
    def expected(self) -> str:
        return DECISION[self.label]


def load_pairs(path: Path) -> list[Pair]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Pair(p["id"], p["lang"], p["first"], p["second"], p["label"]) for p in data["pairs"]]


def scores(pairs: Sequence[Pair], verdicts: Sequence[str]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for decision in ("duplicate", "conflict"):
        tp = sum(1 for p, v in zip(pairs, verdicts, strict=True) if v == decision and p.expected == decision)
        predicted = sum(1 for v in verdicts if v == decision)
        actual = sum(1 for p in pairs if p.expected == decision)
        precision = tp / predicted if predicted else 0.0
        recall = tp / actual if actual else 0.0
        out[decision] = {
            "precision": round(precision, 3),
            "recall": round(recall, 3),
            "predicted": predicted,
            "actual": actual,
        }
    return out


def calibrate(pairs: Sequence[Pair], cosines: Sequence[float]) -> ConflictThresholds:
    """Thresholds maximising conflict F1 + duplicate F1, preferring duplicate precision >= 0.95."""
    best: tuple[tuple[bool, float], ConflictThresholds] | None = None
    for duplicate in np.arange(0.70, 0.995, 0.01):
        for floor in np.arange(0.40, float(duplicate) + 0.001, 0.01):
            limits = ConflictThresholds(
                duplicate=round(float(duplicate), 2),
                conflict_floor=round(float(floor), 2),
                related=round(float(floor), 2),
            )
            verdicts = [
                judge(p.first, p.second, c, limits).verdict for p, c in zip(pairs, cosines, strict=True)
            ]
            result = scores(pairs, verdicts)
            f1 = sum(
                2 * r["precision"] * r["recall"] / (r["precision"] + r["recall"])
                if r["precision"] + r["recall"]
                else 0
                for r in result.values()
            )
            key = (result["duplicate"]["precision"] >= 0.95, f1)
            if best is None or key > best[0]:
                best = (key, limits)
    assert best is not None
    return best[1]


def run_conflict_bench(
    *,
    path: Path,
    embedders: Sequence[str],
    calibrate_thresholds: bool,
    json_path: Path | None,
    echo: Callable[[str], None],
) -> dict[str, Any]:
    pairs = load_pairs(path)
    info = machine_info()
    echo(f"machine: {describe(info)}")
    counts = Counter(p.label for p in pairs)
    echo(f"pairs:   {len(pairs)} from {path} ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    report: dict[str, Any] = {"machine": info, "pairs": len(pairs), "labels": dict(counts), "embedders": {}}
    for name in embedders:
        factory = named_embedder(name)
        if factory is None:
            raise ValueError("the conflict benchmark needs an embedder")
        embedder = factory()
        first = embedder.embed_passages([p.first for p in pairs])
        second = embedder.embed_passages([p.second for p in pairs])
        cosines = [float(a @ b) for a, b in zip(first, second, strict=True)]
        limits = calibrate(pairs, cosines) if calibrate_thresholds else thresholds_for(embedder.model_id)
        judged = [judge(p.first, p.second, c, limits) for p, c in zip(pairs, cosines, strict=True)]
        verdicts = [e.verdict for e in judged]
        result = scores(pairs, verdicts)
        # The second operating point: what `latest_wins` would supersede without asking.
        decisive = [p for p, e in zip(pairs, judged, strict=True) if e.decisive]
        right = sum(1 for p in decisive if p.expected == "conflict")
        actual = sum(1 for p in pairs if p.expected == "conflict")
        latest_wins = {
            "precision": round(right / len(decisive), 3) if decisive else 0.0,
            "recall": round(right / actual, 3) if actual else 0.0,
            "superseded": len(decisive),
            "wrongly_superseded": len(decisive) - right,
        }
        by_lang = {
            lang: scores(
                [p for p in pairs if p.lang == lang],
                [v for p, v in zip(pairs, verdicts, strict=True) if p.lang == lang],
            )
            for lang in sorted({p.lang for p in pairs})
        }
        mistakes = [
            {"id": p.id, "label": p.label, "expected": p.expected, "got": v, "cosine": round(c, 3)}
            for p, v, c in zip(pairs, verdicts, cosines, strict=True)
            if v != p.expected
        ]
        report["embedders"][embedder.model_id] = {
            "thresholds": {
                "duplicate": limits.duplicate,
                "conflict_floor": limits.conflict_floor,
                "related": limits.related,
            },
            "calibrated_now": calibrate_thresholds,
            "overall": result,
            "latest_wins": latest_wins,
            "by_language": by_lang,
            "mistakes": mistakes,
        }
        echo(
            f"\n{embedder.model_id}: thresholds duplicate {limits.duplicate}, conflict floor "
            f"{limits.conflict_floor}{' (calibrated on this set now)' if calibrate_thresholds else ''}"
        )
        for decision, r in result.items():
            label = "conflict (ask)" if decision == "conflict" else decision
            echo(
                f"  {label:>14}: precision {r['precision']:.3f} recall {r['recall']:.3f} "
                f"({r['predicted']} predicted, {r['actual']} labelled)"
            )
        echo(
            f"  {'latest_wins':>14}: precision {latest_wins['precision']:.3f} "
            f"recall {latest_wins['recall']:.3f} "
            f"({latest_wins['superseded']} superseded alone, {latest_wins['wrongly_superseded']} wrongly)"
        )
        for lang, table in by_lang.items():
            conflict, duplicate = table["conflict"], table["duplicate"]
            echo(
                f"  {lang}: conflict P {conflict['precision']:.3f} R {conflict['recall']:.3f}; "
                f"duplicate P {duplicate['precision']:.3f} R {duplicate['recall']:.3f}"
            )
        echo(f"  mistakes: {len(mistakes)} of {len(pairs)}")
    if json_path is not None:
        json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    return report
