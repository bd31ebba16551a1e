"""The door bench times calls through a spawned `kenning serve` and reads its stage log."""

from __future__ import annotations

from pathlib import Path

from kenning.bench.door import measure_http, measure_stdio


def test_each_call_is_timed_by_the_client_and_broken_down_by_the_server(tmp_path: Path) -> None:
    said: list[str] = []
    found = measure_stdio(
        tmp_path / "door.db", embedder="none", namespace="bench", samples=4, seed=1, echo=said.append
    )
    remember, recall = found["remember"], found["recall"]
    assert remember["calls"] == recall["calls"] == 4  # the warm-up calls are not counted
    assert {"service", "store", "screen", "framing"} <= set(remember["stages_ms"])
    assert {"service", "bm25", "fetch", "fusion", "serialise", "framing"} <= set(recall["stages_ms"])
    for op in (remember, recall):
        assert op["p50_ms"] <= op["p95_ms"] <= op["p99_ms"]
        assert 0 < op["server_wall_mean_ms"] <= op["mean_ms"]  # the client waited at least as long
        assert op["server_cpu_mean_ms"] > 0
        assert op["stages_ms"]["service"]["wall_ms"] <= op["server_wall_mean_ms"]
    assert len(said) == 2 and said[1].startswith("  stdio recall: p50")


def test_the_http_door_is_timed_through_an_mcp_session_with_a_token(tmp_path: Path) -> None:
    said: list[str] = []
    found = measure_http(
        tmp_path / "door.db", embedder="none", namespace="bench", samples=3, seed=2, echo=said.append
    )
    assert found["remember"]["calls"] == found["recall"]["calls"] == 3
    assert {"service", "bm25", "serialise", "framing"} <= set(found["recall"]["stages_ms"])
    assert found["recall"]["server_wall_mean_ms"] <= found["recall"]["mean_ms"]
    assert said[1].startswith("  HTTP recall: p50")
