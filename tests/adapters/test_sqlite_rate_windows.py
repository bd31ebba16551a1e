"""Rate windows that the processes of one server count together."""

from __future__ import annotations

from pathlib import Path

from kenning.adapters.sqlite_rate_windows import SqliteRateWindows
from kenning.entry.http_guard import GuardPolicy, Limits


def test_two_processes_count_one_principal_s_requests_together(tmp_path: Path) -> None:
    first, second = SqliteRateWindows(tmp_path / "k.limits"), SqliteRateWindows(tmp_path / "k.limits")
    try:
        admitted = [w.admit("ci-bot", 1000.0, 5) for w in (first, second, first, second, first)]
        assert admitted == [None] * 5
        assert second.admit("ci-bot", 1010.0, 5) == 50.0  # the window began at 1000
        assert first.admit("other", 1010.0, 5) is None  # another principal has its own window
        assert second.admit("ci-bot", 1060.0, 5) is None  # a new window
    finally:
        first.close()
        second.close()


def test_the_rate_is_shared_and_requests_in_flight_stay_per_process(tmp_path: Path) -> None:
    policy = GuardPolicy(
        allowed_hosts=("127.0.0.1",),
        allowed_origins=(),
        max_body_bytes=1000,
        requests_per_minute=3,
        concurrent_requests=1,
    )
    shared = SqliteRateWindows(tmp_path / "k.limits")
    try:
        one, two = (Limits(policy, shared, wall_clock=lambda: 500.0) for _ in range(2))
        assert one.admit("a", 0.0) is None
        assert one.admit("a", 0.0) == 1.0  # one in flight in this process already
        assert two.admit("a", 0.0) is None  # the other process has none in flight
        one.release("a")
        two.release("a")
        assert one.admit("a", 0.0) is None  # the third request of the minute
        one.release("a")
        assert two.admit("a", 0.0) == 60.0  # the fourth: over the rate both count
    finally:
        shared.close()
