"""The fault benchmark at a small scale: real processes, real kill -9, a real flipped byte."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

KENNING = str(Path(sys.executable).with_name("kenning"))


@pytest.mark.slow
def test_concurrent_writers_and_killed_writers_lose_nothing(tmp_path: Path) -> None:
    out = tmp_path / "faults.json"
    done = subprocess.run(
        [KENNING, "bench", "faults", "--writers", "3", "--writes", "40", "--rounds", "4", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(out.read_text())
    assert report["concurrent"]["stored"] == 120 and report["concurrent"]["problems"] == []
    assert report["kill9"]["rounds_without_a_write"] == [] and report["kill9"]["rounds"] == 4
    assert report["kill9"]["acknowledged"] > 0 and report["kill9"]["lost"] == 0
    assert report["kill9"]["rounds_with_problems"] == 0
    assert report["flipped_byte"]["detected"] is True and report["flipped_byte"]["after_reindex"] == []
