from __future__ import annotations

from kenning.bench.latency import markdown_table
from kenning.bench.machine import machine_info
from kenning.bench.metrics import percentile
from kenning.bench.synthetic import memory_text, query_text


def test_percentile_interpolates_like_numpy_linear() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([5.0], 0.95) == 5.0
    assert percentile(list(map(float, range(101))), 0.95) == 95.0


def test_synthetic_memories_are_unique_and_deterministic() -> None:
    texts = [memory_text(i)[0] for i in range(2000)]
    assert len(set(texts)) == 2000
    assert memory_text(5) == memory_text(5) and query_text(3) == query_text(3)


def test_table_names_machine_and_model() -> None:
    result = {
        "machine": machine_info(),
        "model": "m",
        "sizes": [
            {
                "memories": 10,
                "remember_p50_ms": 1,
                "remember_p95_ms": 2,
                "recall_p50_ms": 3,
                "recall_p95_ms": 4,
                "dated_recall_p50_ms": 6,
                "dated_recall_p95_ms": 7,
                "peak_rss_mb": 5,
            }
        ],
        "cold_start_s": {"median": 1.0, "max": 1.2},
    }
    table = markdown_table(result)
    assert "| 10 | 1 ms | 2 ms | 3 ms | 4 ms | 6 / 7 ms | 5 MB |" in table
    assert "Model: m" in table and "cores" in table
