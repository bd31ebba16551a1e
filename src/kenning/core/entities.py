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
        names += [aliases.normalise(name) for name in _capitalised_names(text)]
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        if name and name.casefold() not in seen:
            seen.add(name.casefold())
            out.append(name)
    return out


def _not_a_name(word: str) -> bool:
    """Grammar or time, also as a plural or possessive ("Tuesdays", "Monday's")."""
    return any(form in _NOT_NAMES for form in (word, word.removesuffix("'s"), word.removesuffix("s")))


def _capitalised_names(text: str) -> list[str]:
    """Capitalised words, with words next to each other joined into one name ("GitHub Actions")."""
    runs: list[tuple[list[str], bool]] = []  # words, and whether the run begins a sentence plainly
    end = -1
    for match in _CAPITALISED.finditer(text):
        word = match.group(0)
        if _not_a_name(word):
            end = -1
            continue
        before = text[: match.start()].rstrip()
        plain_start = (not before or before.endswith((".", "!", "?", ":", ";", "\n"))) and (
            word.isalpha() and word[1:].islower()
        )
        if runs and match.start() == end + 1 and text[end] == " ":
            runs[-1][0].append(word)
        else:
            runs.append(([word], plain_start))
        end = match.end()
    # A sentence's plainly capitalised first word is most often a verb or a common word ("Ask Alice",
    # "Deploys ..."), so it is left out, also from a run; the rest of the run stays one name.
    return [
        " ".join(words[1:] if plain_start else words) for words, plain_start in runs if words[plain_start:]
    ]
