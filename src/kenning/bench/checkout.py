"""Finding the labelled sets of this checkout (tests/data) from wherever a bench command runs."""

from __future__ import annotations

from pathlib import Path


def labelled_set(name: str) -> Path | None:
    """tests/data/`name` in the current directory or the nearest parent that has it."""
    for base in (Path.cwd(), *Path.cwd().parents):
        candidate = base / "tests" / "data" / name
        if candidate.is_file():
            return candidate
    return None
