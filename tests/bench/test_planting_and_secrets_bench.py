"""The structural poisoning bench and the secrets bench, run small through their CLI commands."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kenning.bench.secrets import leaked
from kenning.entry.cli import cli

DATA = Path(__file__).parents[1] / "data"


def test_the_planting_bench_counts_every_topic_and_keeps_the_users_answers_in_view(tmp_path: Path) -> None:
    out = tmp_path / "planting.json"
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "planting",
            str(DATA / "planting.json"),
            "--embedder",
            "none",
            "--fillers",
            "20",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    found = json.loads(out.read_text())
    assert found["topics"] == 50 and found["planted"] == 200 and len(found["per_topic"]) == 50
    assert found["user_answer_missing_from_top10"] == 0
    assert found["planted_above_user"] == sum(
        1
        for t in found["per_topic"]
        if t["best_planted_rank"] and (t["user_rank"] or 99) > t["best_planted_rank"]
    )


def test_a_partly_redacted_secret_counts_as_leaked() -> None:
    secret = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
    assert leaked(secret, f"token {secret[:10]}[REDACTED:github_token]")
    assert not leaked(secret, "token [REDACTED:github_token]")
    assert leaked("hunter2!", "pw hunter2!")


def test_the_secrets_bench_scores_the_development_set(tmp_path: Path) -> None:
    out = tmp_path / "secrets.json"
    result = CliRunner().invoke(cli, ["bench", "secrets", str(DATA / "secrets_dev.json"), "--json", str(out)])
    assert result.exit_code == 0, result.output
    found = json.loads(out.read_text())
    assert found["secrets"] >= 160 and found["benign"] >= 60
    assert (
        found["redacted"] + len([m for m in found["misses"] if "secret" in m["problem"]]) == found["secrets"]
    )
