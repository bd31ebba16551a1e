"""Validation of caller input. Every error names the field and the limit it broke."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kenning.core import limits
from kenning.core.errors import InvalidInput
from kenning.core.ontology import DEFAULT_TYPE, check_type
from kenning.core.records import MemoryState, Trust
from kenning.core.text import normalize

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]*$")
_TAG = re.compile(r"^[^\s,\x00-\x1f]+$")


@dataclass(slots=True)
class MemoryDraft:
    """What a caller asks to remember, before validation fills defaults and normalises it."""

    content: str
    type: str = DEFAULT_TYPE
    tags: Sequence[str] = ()
    entities: Sequence[str] = ()
    context: str | None = None
    importance: float = 0.5
    trust: str = Trust.AGENT_INFERRED.value
    source: str | None = None
    subject: str | None = None
    session_id: str | None = None
    event_time: float | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    supersedes: str | None = None
    pinned: bool = False


# Characters a label must not carry: controls, bidi overrides and isolates, invisible separators and
# tag characters (a label shows in lists and filters, where they hide or reorder what a reader sees).
# Joiners (U+200C, U+200D) stay: Persian, Indic scripts and emoji need them.
_HIDDEN_IN_LABEL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)


def _check_visible(label: str, field_name: str) -> None:
    found = _HIDDEN_IN_LABEL.search(label)
    if found is not None:
        raise InvalidInput(
            field_name,
            f"must not contain control, bidi or invisible characters (U+{ord(found.group(0)):04X} at "
            f"position {found.start()})",
        )


def check_content(value: str, field_name: str = "content") -> str:
    if not isinstance(value, str):
        raise InvalidInput(field_name, "must be a string")
    text = normalize(value)
    if not text:
        raise InvalidInput(field_name, "must not be empty or only whitespace")
    if len(text) > limits.CONTENT_MAX_CHARS:
        raise InvalidInput(
            field_name,
            f"is {len(text)} characters; the limit is {limits.CONTENT_MAX_CHARS}",
            limit=limits.CONTENT_MAX_CHARS,
        )
    if "\x00" in text:
        raise InvalidInput(field_name, "must not contain NUL characters")
    return text


def check_name(value: str | None, field_name: str, *, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise InvalidInput(field_name, "is required")
        return None
    if len(value) > limits.NAME_MAX_CHARS:
        raise InvalidInput(
            field_name,
            f"is {len(value)} characters; the limit is {limits.NAME_MAX_CHARS}",
            limit=limits.NAME_MAX_CHARS,
        )
    if not _NAME.match(value):
        raise InvalidInput(
            field_name, "may use letters, digits and . _ : @ / - and must start with a letter or digit"
        )
    return value


def check_tags(values: Sequence[str], field_name: str = "tags") -> list[str]:
    return _check_labels(values, field_name, limits.TAGS_MAX, limits.TAG_MAX_CHARS, lower=True)


def check_entities(values: Sequence[str], field_name: str = "entities") -> list[str]:
    return _check_labels(values, field_name, limits.ENTITIES_MAX, limits.ENTITY_MAX_CHARS, lower=False)


def _check_labels(
    values: Sequence[str], field_name: str, max_count: int, max_chars: int, *, lower: bool
) -> list[str]:
    if isinstance(values, str):
        raise InvalidInput(field_name, "must be a list of strings, not one string")
    if len(values) > max_count:
        raise InvalidInput(field_name, f"has {len(values)} items; the limit is {max_count}", limit=max_count)
    out: list[str] = []
    for index, raw in enumerate(values):
        if not isinstance(raw, str):
            raise InvalidInput(f"{field_name}[{index}]", "must be a string")
        label = normalize(raw)
        _check_visible(label, f"{field_name}[{index}]")
        if lower:
            label = label.lower()
        if not label:
            raise InvalidInput(f"{field_name}[{index}]", "must not be empty")
        if len(label) > max_chars:
            raise InvalidInput(
                f"{field_name}[{index}]",
                f"is {len(label)} characters; the limit is {max_chars}",
                limit=max_chars,
            )
        if lower and not _TAG.match(label):
            raise InvalidInput(
                f"{field_name}[{index}]", "must not contain spaces, commas or control characters"
            )
        if label not in out:
            out.append(label)
    return out


def merge_labels(groups: Iterable[Sequence[str]], cap: int) -> list[str]:
    """Tags or entities of several memories as one list: first seen first, no repeats (in any case:
    "Ana" and "ana" are one entity), at most `cap`."""
    out: list[str] = []
    seen: set[str] = set()
    for labels in groups:
        for label in labels:
            key = label.casefold()
            if key not in seen and len(out) < cap:
                seen.add(key)
                out.append(label)
    return out


def check_optional_text(value: str | None, field_name: str, max_chars: int) -> str | None:
    if value is None:
        return None
    text = normalize(value)
    if not text:
        return None
    if len(text) > max_chars:
        raise InvalidInput(
            field_name, f"is {len(text)} characters; the limit is {max_chars}", limit=max_chars
        )
    if "\x00" in text:
        raise InvalidInput(field_name, "must not contain NUL characters")
    return text


def check_unit_interval(value: float, field_name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise InvalidInput(field_name, "must be a number between 0 and 1")
    if not 0.0 <= float(value) <= 1.0:
        raise InvalidInput(field_name, f"is {value}; it must be between 0 and 1", limit=[0, 1])
    return float(value)


def check_trust(value: str) -> Trust:
    try:
        return Trust(value)
    except ValueError:
        valid = [t.value for t in Trust]
        raise InvalidInput(
            "trust", f"unknown trust {value!r}; valid: {', '.join(valid)}", valid=valid
        ) from None


def check_state(value: str, field_name: str = "state") -> MemoryState:
    try:
        return MemoryState(value)
    except ValueError:
        valid = [s.value for s in MemoryState]
        raise InvalidInput(
            field_name, f"unknown state {value!r}; valid: {', '.join(valid)}", valid=valid
        ) from None


def check_timestamp(value: float | None, field_name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(field_name, "must be a finite number of seconds since the epoch")
    # Years 1 to 9999 are what datetime can render back.
    if not -62_135_596_800 <= value <= 253_402_300_799:
        raise InvalidInput(field_name, "is outside the years 1 to 9999")
    return float(value)


def check_metadata(value: dict[str, Any] | None) -> dict[str, Any]:
    if not value:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput("metadata", "must be an object")
    try:
        encoded = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput("metadata", f"must be JSON-serialisable ({exc})") from None
    size = len(encoded.encode("utf-8"))
    if size > limits.METADATA_MAX_BYTES:
        raise InvalidInput(
            "metadata",
            f"is {size} bytes as JSON; the limit is {limits.METADATA_MAX_BYTES}",
            limit=limits.METADATA_MAX_BYTES,
        )
    return value


def check_range(value: int, field_name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(field_name, f"must be an integer between {low} and {high}")
    if not low <= value <= high:
        raise InvalidInput(field_name, f"is {value}; it must be between {low} and {high}", limit=[low, high])
    return value


def check_type_name(value: str | None) -> str:
    return check_type(value or DEFAULT_TYPE)


def parse_time(value: str | float | None, field_name: str) -> float | None:
    """ISO 8601 (naive means UTC) or seconds since the epoch, as seconds since the epoch."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return check_timestamp(float(value), field_name)
    if not isinstance(value, str):
        raise InvalidInput(field_name, "must be an ISO 8601 date-time or seconds since the epoch")
    from datetime import UTC, datetime

    text = value.strip()
    try:
        return check_timestamp(float(text), field_name)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput(
            field_name, f"{value!r} is not an ISO 8601 date-time (e.g. 2026-05-01 or 2026-05-01T14:30:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def format_time(value: float | None) -> str | None:
    if value is None:
        return None
    from datetime import UTC, datetime

    return datetime.fromtimestamp(value, tz=UTC).isoformat().replace("+00:00", "Z")
