"""Entities: named things a memory is about, normalised through an alias dictionary users can extend."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kenning.core.text import has_cjk

_CAPITALISED = re.compile(r"(?<![\w.])([A-Z][A-Za-z0-9+#]*(?:[.-][A-Za-z0-9+#]+)*|[a-z]+[A-Z][A-Za-z0-9]*)")
_ASCII_IN_CJK = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9+#.-]*[A-Za-z0-9+#]")
_ENTITY_TAG = re.compile(r"^(?:ent|entity):(.+)$")
# Capitalised words that are grammar or time, not names.
_NOT_NAMES = frozenset(
    (
        "I The A An We Our It This That These Those He She They You Your My If When Then But And Or So "
        "Also Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May "
        "June July August September October November December Note Yes No Ok OK"
    ).split()
)


@dataclass(frozen=True, slots=True)
class AliasDictionary:
    """canonical name -> aliases. Lookup is case-insensitive; unknown names keep their own spelling."""

    canonical: Mapping[str, str] = field(default_factory=dict)  # lower-cased alias or name -> canonical

    @classmethod
    def from_mapping(cls, entries: Mapping[str, Sequence[str]]) -> AliasDictionary:
        table: dict[str, str] = {}
        for name, aliases in entries.items():
            for spelling in (name, *aliases):
                table[spelling.strip().casefold()] = name.strip()
        return cls(canonical=table)

    def normalise(self, name: str) -> str:
        cleaned = " ".join(name.split())
        return self.canonical.get(cleaned.casefold(), cleaned)

    def mentioned_in(self, text: str) -> list[str]:
        """Canonical names whose name or alias appears in the text as a whole word."""
        lowered = text.casefold()
        found = []
        for spelling, name in self.canonical.items():
            if re.search(rf"(?<![\w]){re.escape(spelling)}(?![\w])", lowered) and name not in found:
                found.append(name)
        return found


def extract(text: str, tags: Iterable[str], given: Iterable[str], aliases: AliasDictionary) -> list[str]:
    """Given entities, dictionary matches, `ent:` tags and names in the text, normalised, in that order."""
    names: list[str] = [aliases.normalise(e) for e in given]
    names += aliases.mentioned_in(text)
    for tag in tags:
        match = _ENTITY_TAG.match(tag)
        if match:
            names.append(aliases.normalise(match.group(1)))
    if has_cjk(text):
        names += [aliases.normalise(m.group(0)) for m in _ASCII_IN_CJK.finditer(text)]
    else:
        for match in _CAPITALISED.finditer(text):
            word = match.group(0)
            before = text[: match.start()].rstrip()
            sentence_start = not before or before.endswith((".", "!", "?", ":", ";", "\n"))
            if word in _NOT_NAMES or (sentence_start and word.isalpha() and word[1:].islower()):
                continue
            names.append(aliases.normalise(word))
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        if name and name.casefold() not in seen:
            seen.add(name.casefold())
            out.append(name)
    return out
