"""The layout shows the architecture (SPEC §3): import contracts, checked with import-linter."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_the_import_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint)], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "4 kept, 0 broken" in done.stdout


def test_no_door_or_job_reaches_past_the_application_into_its_dependencies() -> None:
    """Doors and jobs call `Kenning` methods; the store, the embedder and the clock are its own."""
    reaching = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("entry", "jobs")
        for path in sorted((ROOT / "src" / "kenning" / folder).glob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\bapp\.deps\b|\.deps\.(store|embeddings|clock|tokens)\b", line)
    ]
    assert reaching == []
