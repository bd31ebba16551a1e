"""The simulated-year benchmark at a small scale, through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

KENNING = str(Path(sys.executable).with_name("kenning"))


def _year(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [KENNING, "bench", "year", "--memories", "400", "--days", "100", "--recalls-per-day", "2",
         "--embedder", "none", "--cache-dir", str(tmp_path / "cache"), *extra],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_a_small_year_forgets_cold_memories_and_keeps_every_important_one(tmp_path: Path) -> None:
    out = tmp_path / "year.json"
    done = _year(tmp_path, "--json", str(out))
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert len(report["runs"]) == 14 and report["written"] == 400
    assert report["totals"].get("delete", 0) + report["totals"].get("archive", 0) > 0
    assert report["important"]["count"] > 0 and report["important"]["share_active"] == 1.0
    assert report["important"]["forgotten_by_any_run"] == 0
    assert "important memories still active" in done.stdout and "machine:" in done.stdout


def test_bad_year_options_are_refused(tmp_path: Path) -> None:
    bad = _year(tmp_path, "--every", "-1")
    assert bad.returncode == 1 and "--every" in bad.stderr
