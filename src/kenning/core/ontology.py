"""Memory types: a fixed set of base types plus subtypes that map onto one of them (SPEC §4)."""

from __future__ import annotations

from kenning.core.errors import InvalidInput

BASE_TYPES: tuple[str, ...] = (
    "fact",
    "preference",
    "decision",
    "strategy",
    "learning",
    "error",
    "observation",
    "episode",
    "summary",
    "topic",
    "reference",
)

SUBTYPES: dict[str, str] = {
    "assumption": "fact",
    "config": "fact",
    "habit": "preference",
    "style": "preference",
    "architecture": "decision",
    "convention": "decision",
    "howto": "strategy",
    "procedure": "strategy",
    "workflow": "strategy",
    "lesson": "learning",
    "gotcha": "learning",
    "insight": "learning",
    "bug": "error",
    "failure": "error",
    "incident": "error",
    "note": "observation",
    "event": "episode",
    "conversation": "episode",
    "turn": "episode",
    "doc": "reference",
    "link": "reference",
}

DEFAULT_TYPE = "fact"


def valid_types() -> list[str]:
    return [*BASE_TYPES, *sorted(SUBTYPES)]


def check_type(name: str) -> str:
    """The type, lower-cased, if the ontology knows it; otherwise an error listing what it knows."""
    key = name.strip().lower()
    if key in BASE_TYPES or key in SUBTYPES:
        return key
    raise InvalidInput(
        "type",
        f"unknown type {name!r}; valid types: {', '.join(valid_types())}",
        valid=valid_types(),
    )


def base_type(name: str) -> str:
    return SUBTYPES.get(name, name)
