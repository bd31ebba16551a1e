"""The HTTP load bench, run for real at a tiny size: a server subprocess, stdio subprocesses, real limits."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kenning.bench.http_load import (
    DEFAULT_MIX,
    KINDS,
    TEAM_POOL,
    Plan,
    agents_for,
    pool_shares,
    run_http_bench,
)

# Every kind as likely as any other, so that the first two operations of four agents (all an agent is
# sure to make in a short run) include each of them; the default mix is checked on its own below.
EVEN = {kind: 1 / len(KINDS) for kind in KINDS}


def test_half_the_agents_share_the_team_pool_and_a_smaller_crew_is_a_subset() -> None:
    crew = agents_for(5)
    assert [a.pool for a in crew].count(TEAM_POOL) == 3
    assert {a.pool for a in crew if a.pool != TEAM_POOL} == {"agent:solo-01", "agent:solo-02"}
    assert set(agents_for(2)) <= set(crew)
    assert len({a.ordinal for a in agents_for(40)}) == 40


def test_the_store_is_half_team_and_every_pool_gets_a_share() -> None:
    shares = pool_shares(10_000, [TEAM_POOL, "agent:a", "agent:b", "agent:c"])
    assert shares[TEAM_POOL] == 5000 and sum(shares.values()) == 10_000
    assert sorted(shares.values())[0] >= 1666
    with pytest.raises(ValueError, match="at least one memory"):
        pool_shares(2, [TEAM_POOL, "agent:a", "agent:b"])


def test_a_plan_follows_the_mix_and_is_the_same_through_either_door() -> None:
    agent = agents_for(1)[0]
    plan = Plan(agent, ["id"], 7)
    drawn = Counter(plan.next()[0] for _ in range(5000))
    for kind, share in DEFAULT_MIX.items():
        assert abs(drawn[kind] / 5000 - share) < 0.02, kind
    first, again = Plan(agent, ["id"], 7), Plan(agent, ["id"], 7)
    assert [first.next() for _ in range(50)] == [again.next() for _ in range(50)]
    writes = [args["content"] for kind, args in (first.next() for _ in range(200)) if kind == "remember"]
    assert len(set(writes)) == len(writes)


def _ordered(report: dict[str, Any]) -> None:
    for kind, row in report["kinds"].items():
        if row["ok"]:
            assert row["p50_ms"] <= row["p95_ms"] <= row["p99_ms"], kind


@pytest.mark.slow
def test_the_bench_drives_both_doors_loses_no_write_and_sees_the_rate_limit(tmp_path: Path) -> None:
    lines: list[str] = []
    report = run_http_bench(
        size=50,
        seconds=3,
        agents=4,
        stdio_agents=2,
        stdio_seconds=2,
        embedder="none",  # keyword-only: the mechanism, in well under a minute
        cache_dir=None,
        requests_per_minute=30,
        concurrent_requests=2,  # the burst at once is then 6 recalls
        json_path=tmp_path / "http.json",
        echo=lines.append,
        mix=EVEN,
    )
    http, stdio = report["http"], report["stdio"]
    assert all(http["kinds"][kind]["ok"] > 0 for kind in KINDS), http["kinds"]
    assert http["errors"] == {} and http["acknowledged_writes"] > 0 and http["lost_writes"] == 0
    assert http["rss_mb"]["processes"] == 1 and http["rss_mb"]["end"] > 0
    assert stdio["kinds"]["remember"]["ok"] > 0 and stdio["errors"] == {}
    assert stdio["acknowledged_writes"] > 0 and stdio["lost_writes"] == 0
    assert stdio["rss_mb"]["processes"] == 2 and stdio["rss_mb"]["end"] > http["rss_mb"]["end"] / 2
    _ordered(http)
    _ordered(stdio)
    rate = report["limits"]["rate"]
    assert rate["statuses"].get("429", 0) > 0 and rate["retry_after_s"][0] >= 1
    assert rate["statuses"].get("200", 0) <= 30
    table = "\n".join(lines)
    assert "| HTTP (1 process) | recall |" in table and "| stdio (2 processes) |" in table
    assert "Target: recall p95" in table and "Machine:" in table and "Model: none" in table
    assert (tmp_path / "http.json").exists()
