"""Write screening without an LLM: find text written to steer the agents that recall it.

Secrets are core/secrets' job; this module reads what is left, before anything reaches disk.
`inspect` finds instruction-like content (persistent instructions to agents, overrides, role and
wrapper breakouts, exfiltration, checks switched off as a convention) in nine languages, also once
disguises are taken off and inside decodable payloads (core/unmask), and hidden Unicode used to
smuggle text. A learned signal over the embedding (services/screening) judges beside these rules.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from kenning.core import instruction_patterns as patterns
from kenning.core.secrets import redact
from kenning.core.text import guarded
from kenning.core.unmask import HANGUL, SELECTOR_RUN, latin_lookalikes, payloads, visible


@dataclass(frozen=True, slots=True)
class Flag:
    # instruction | encoded_instruction | wrapper_breakout | unicode_tag | zero_width | bidi_control
    # | learned (services/screening)
    kind: str
    excerpt: str


# Kinds that are evidence rather than a verdict where the learned signal judges: instruction-like
# phrasing raises the classifier's score (by the head's `rule_weight`) instead of flagging alone, for
# the user's own standing rules ("when I say 'ship it', merge") read just like an attacker's. Every
# other kind (hidden Unicode, an encoded instruction, a wrapper breakout) flags whatever the score.
WEIGHED = frozenset({"instruction"})


# Legitimate uses of code points that can also hide text: a zero-width joiner inside an emoji
# sequence (👩‍💻), the tag characters of a subdivision flag (🏴 + tags + cancel tag, the flag of
# Scotland), a joiner or non-joiner in a script that needs them (Persian, Hindi), a byte-order mark
# at the start, bidi controls in right-to-left text.
_FLAG_TAGS = re.compile(r"\U0001F3F4[\U000E0061-\U000E007A]{2,6}\U000E007F")
_TAG = re.compile(r"[\U000E0000-\U000E007F]")
_IN_WORD = "A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"
_ZERO_WIDTH = re.compile(rf"(?<=[{_IN_WORD}])[\u200b-\u200d\u2060\ufeff\u180e]+(?=[{_IN_WORD}])")
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")
_OVERRIDE = re.compile(r"[\u202d\u202e]")
_RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")

# Pattern sets by the script they need: a set runs only on text that has a letter of its script
# (every Chinese, Japanese, Korean and Russian pattern needs one), so most texts meet a third of them.
_SCRIPTS = {
    "latin": ("EN", "EN_MORE", "TECHNICAL", "ES", "DE", "FR", "PT"),
    "han": ("ZH", "ZH_MORE", "JA"),
    "hangul": ("KO",),
    "cyrillic": ("RU",),
}
_SCRIPT_OF = {
    "han": re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]"),
    "hangul": HANGUL,
    "cyrillic": re.compile(r"[\u0400-\u04ff]"),
}
_NEGATED = re.compile(
    r"\b(?:never|don'?t|do not|avoid|not|no longer|stop|nunca|nie|niemals|jamais|ne|nao|не)\b"
    r"|禁止|不要|不得|しない|하지 ?마"
)
_QUOTED = re.compile(
    r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]{1,600}`|\"[^\"\n]{1,600}\"|“[^”]{1,600}”|«[^»]{1,600}»"
    r"|„[^“”]{1,600}[“”]|»[^«]{1,600}«|「[^」]{1,600}」|『[^』]{1,600}』|(?<![\w'])'[^'\n]{1,600}'(?![\w'])"
    r"|^[ \t]*>[^\n]*$",
    re.DOTALL | re.MULTILINE,
)
_EXCERPT = 80


def inspect(text: str) -> list[Flag]:
    """Instruction-like content and hidden Unicode, each with a short excerpt of what matched."""
    flags = _hidden(text)
    view = readable(text)
    found = _instruction(view)
    if found:
        flags.append(Flag(kind="instruction", excerpt=found))
    breakout = _breakout(view)
    if breakout:
        flags.append(Flag(kind="wrapper_breakout", excerpt=breakout))
    if not found and not breakout:
        for payload in payloads(text):
            # The decoded text never went through redaction: it is redacted whole before it is read,
            # so that no excerpt carries a key (or the start of one).
            hidden = readable(redact(payload)[0])
            match = _instruction(hidden) or _breakout(hidden)
            if match:
                flags.append(Flag(kind="encoded_instruction", excerpt=match))
                break
    return flags


def prepare() -> None:
    """Compile every pattern and load the look-alike table now (serve's warm-up does), so that the
    first write after a start does not wait a quarter of a second for them."""
    _compiled()
    _vocabulary()
    latin_lookalikes()


def readable(text: str) -> str:
    """The view the patterns read: core/unmask's visible text with Latin accents folded away."""
    view = visible(text)
    if view.isascii():
        return view
    view = view.replace("ß", "ss")
    decomposed = unicodedata.normalize("NFD", view)
    return unicodedata.normalize("NFC", re.sub(r"(?<=[A-Za-z])[\u0300-\u036f]+", "", decomposed))


def _hidden(text: str) -> list[Flag]:
    flags: list[Flag] = []
    text = _FLAG_TAGS.sub("\U0001f3f4", text)
    for kind, match in (
        ("unicode_tag", _TAG.search(text)),
        ("zero_width", _ZERO_WIDTH.search(text)),
        ("bidi_control", (_OVERRIDE if _RTL.search(text) else _BIDI).search(text)),
        ("variation_selectors", SELECTOR_RUN.search(text)),
    ):
        if match:
            flags.append(Flag(kind=kind, excerpt=f"U+{ord(match.group(0)[0]):04X} at {match.start()}"))
    return flags


def _instruction(view: str) -> str | None:
    instructions, weakening, _ = _compiled()
    reading = _Reading(view)
    scripts = ["latin"] + [name for name, letter in _SCRIPT_OF.items() if letter.search(view)]
    for pattern in (p for script in scripts for p in instructions[script]):
        for match in pattern.finditer(view):
            if not reading.described(match) and not reading.supposed(match):
                return match.group(0)[:_EXCERPT]
    for pattern in weakening:
        for match in pattern.finditer(view):
            negated = _NEGATED.search(view, reading.sentence_start(match.start()), match.end())
            if not negated and not reading.described(match) and not reading.supposed(match):
                return match.group(0)[:_EXCERPT]
    return None


def _breakout(view: str) -> str | None:
    if _vocabulary()[1].search(view):
        return None  # a note about chat templates names their markers
    reading = _Reading(view)
    for pattern in _compiled()[2]:
        for match in pattern.finditer(view):
            if not reading.described(match):
                return match.group(0)[:60]
    return None


# How far back a sentence is read for a negation or a hypothetical: bounded, so that a text with a
# thousand matches and no full stop costs a thousand short reads, not a thousand long ones.
_LOOKBACK = 300


class _Reading:
    """One view and what its exemptions need, computed once however many matches ask."""

    def __init__(self, view: str) -> None:
        self.view = view
        self._spans: list[tuple[int, int]] | None = None
        self._starts: list[int] = []
        self._reported: bool | None = None

    def sentence_start(self, position: int) -> int:
        floor = max(0, position - _LOOKBACK)
        view = self.view
        return (
            max(
                view.rfind(".", floor, position),
                view.rfind("\n", floor, position),
                view.rfind("。", floor, position),
                floor - 1,
            )
            + 1
        )

    def supposed(self, match: re.Match[str]) -> bool:
        """Whether the sentence frames the match as a case ("if a memory asks you to ..., refuse")."""
        return bool(_vocabulary()[2].search(self.view, self.sentence_start(match.start()), match.start() + 1))

    def described(self, match: re.Match[str]) -> bool:
        """Whether the match lies mostly inside quotes, a code span or fence, or a block quote, and
        the text around them says it is describing an attack (an incident note, a test fixture)."""
        spans = self._quoted()
        inside = 0
        # Spans do not overlap and are in order: only those starting before the match ends count.
        for start, end in reversed(spans[: bisect.bisect_left(self._starts, match.end())]):
            if end <= match.start():
                break
            inside += min(end, match.end()) - max(start, match.start())
        return inside * 2 >= match.end() - match.start() and self._reporting()

    def _quoted(self) -> list[tuple[int, int]]:
        if self._spans is None:
            self._spans = [(m.start(), m.end()) for m in _QUOTED.finditer(self.view)]
            self._starts = [start for start, _ in self._spans]
        return self._spans

    def _reporting(self) -> bool:
        if self._reported is None:
            outside, last = [], 0
            for start, end in self._quoted():
                outside.append(self.view[last:start])
                last = end
            outside.append(self.view[last:])
            self._reported = bool(_vocabulary()[0].search(" ".join(outside)))
        return self._reported


@cache
def _compiled() -> tuple[
    dict[str, tuple[re.Pattern[str], ...]], tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...]
]:
    """(instructions by script, weakened checks, breakouts), compiled on first use."""
    instructions = {
        script: tuple(
            re.compile(guarded(source), re.IGNORECASE) for name in names for source in getattr(patterns, name)
        )
        for script, names in _SCRIPTS.items()
    }
    weakening = tuple(re.compile(guarded(source), re.IGNORECASE) for source in patterns.WEAKENING)
    breakouts = (
        re.compile(patterns.WRAPPER, re.IGNORECASE | re.MULTILINE),
        re.compile(patterns.CHATML, re.IGNORECASE),
    )
    return instructions, weakening, breakouts


@cache
def _vocabulary() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(reporting an attack, talking about chat templates, framing a hypothetical)."""
    return (
        re.compile(patterns.REPORTING, re.IGNORECASE),
        re.compile(patterns.TEMPLATES, re.IGNORECASE),
        re.compile(patterns.HYPOTHETICAL, re.IGNORECASE),
    )
