"""Text normalisation, hashing, token estimates and script detection. Pure functions."""

from __future__ import annotations

import hashlib
import importlib
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

_WS = re.compile(r"\s+")
# CJK ideographs, kana, hangul (syllables and jamo), CJK punctuation-free ranges.
_CJK = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
    r"\U00020000-\U0002a6df]"
)
_CJK_RUN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
    r"\U00020000-\U0002a6df]+"
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def normalize(text: str) -> str:
    """NFC, collapsed whitespace, trimmed: the form that is stored and indexed."""
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


def content_hash(text: str) -> str:
    """Hash of the normalised, case-folded text: the identity used for idempotent writes."""
    key = normalize(text).casefold()
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def cjk_runs(text: str) -> list[str]:
    return _CJK_RUN.findall(text)


def words(text: str) -> list[str]:
    """Word tokens outside CJK runs, lower-cased (CJK runs have their own channel)."""
    return [w.lower() for w in _WORD.findall(_CJK_RUN.sub(" ", text))]


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: one token per CJK character, one per four other characters."""
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


def truncate_to_tokens(text: str, tokens: int) -> str:
    """The longest prefix of `text` whose estimate_tokens() fits in `tokens` (at least one character)."""
    if estimate_tokens(text) <= tokens:
        return text
    low, high = 1, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) <= tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def stem(word: str) -> str:
    """A light suffix strip (deploys, deployed, deploying -> deploy) for coverage and conflict checks."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def literal_alternation(words: Iterable[str]) -> str:
    """A regex matching any of `words`, longest first, built as a trie: Python's engine tries the
    branches of a plain alternation one by one at every position, which for hundreds of cue phrases
    costs far more than the one branch a trie leaves at each character."""
    trie: dict[str, Any] = {}
    for word in set(words):
        if not word:
            continue
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    if not trie:
        return _trie_regex(trie)
    # The first characters as one class, ahead: Python's engine then rejects most positions with a
    # single test instead of entering each first branch (it cannot skip them itself when they ignore case).
    first = "".join(re.escape(char) for char in sorted(trie))
    return f"(?=[{first}])" + _trie_regex(trie)


def _trie_regex(node: dict[str, Any]) -> str:
    ends = "" in node
    branches = [re.escape(char) + _trie_regex(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends:
        return "(?:" + body + ")?"  # greedy: the longer phrase is tried first
    return body


def guarded(pattern: str) -> str:
    """`pattern` behind a lookahead for the characters any of its matches can start with (both cases),
    when those can be read off its syntax; Python's engine then rejects most positions with one test,
    which it cannot do itself for a pattern that ignores case or opens with a group or an anchor."""
    parser = importlib.import_module("re._parser")  # the stdlib's own parser, the one compile() uses
    first = _first_chars(list(parser.parse(pattern)))
    if not first:
        return pattern
    both = {variant for char in first for variant in (char, char.lower(), char.upper()) if len(variant) == 1}
    return "(?=[" + "".join(re.escape(c) for c in sorted(both)) + "])(?:" + pattern + ")"


def _first_chars(items: list[Any]) -> set[str] | None:
    """The characters a match of this parsed sequence can start with; None when any could."""
    c = importlib.import_module("re._constants")
    found: set[str] = set()
    for op, arg in items:
        if op is c.AT or (op is c.ASSERT_NOT and arg[0] < 0) or (op is c.ASSERT and arg[0] < 0):
            continue  # anchors and lookbehinds consume nothing
        if op is c.LITERAL:
            return found | {chr(arg)}
        if op is c.IN:
            chars: set[str] = set()
            for kind, value in arg:
                if kind is not c.LITERAL:
                    return None  # a range, a category or a negated class: too wide to list
                chars.add(chr(value))
            return found | chars
        if op is c.BRANCH:
            for branch in arg[1]:
                more = _first_chars(list(branch))
                if more is None:
                    return None
                found |= more
            return found
        if op is c.SUBPATTERN:
            more = _first_chars(list(arg[3]))
            return None if more is None else found | more
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            low, _, body = arg
            more = _first_chars(list(body))
            if more is None:
                return None
            found |= more
            if low >= 1:
                return found
            continue  # optional: the match may start with what follows
        return None
    return None  # the whole pattern may match the empty string
