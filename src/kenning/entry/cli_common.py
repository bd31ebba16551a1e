"""What every CLI command shares: one line on stderr and exit 1 for anything Kenning refuses."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

from kenning.core.errors import KenningError

_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """Text for a terminal: a stored escape sequence or bidi override is shown as \\uXXXX, never run."""
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


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
