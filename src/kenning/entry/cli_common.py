"""What every CLI command shares: one line on stderr and exit 1 for anything Kenning refuses."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

from kenning.core.errors import KenningError


def fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


@contextmanager
def errors() -> Iterator[None]:
    """One line on stderr and exit 1 for anything Kenning refuses; tracebacks are for bugs only."""
    try:
        yield
    except KenningError as exc:
        fail(f"{exc.code}: {exc.message}")
