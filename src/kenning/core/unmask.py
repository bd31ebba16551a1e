"""What a text says once its disguises are taken off: the views write screening judges.

An attacker hides an instruction from patterns in ways a model still reads: invisible characters or
soft hyphens inside words, full-width letters, Cyrillic or Greek look-alikes, spaced-out letters,
leetspeak, or a Base64, hex, URL-encoded, ROT13 or Unicode-tag payload. These functions build
the readable views; nothing here changes what is stored (a Persian zero-width non-joiner, an emoji
sequence or a byte-order mark stays as written).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
from functools import cache
from urllib.parse import unquote

# Characters that render as nothing, or nothing visible, and can sit inside a word: zero-width
# space/joiners, word joiner, byte-order mark, Mongolian vowel separator, soft hyphen, combining
# grapheme joiner, Hangul fillers, bidi controls and marks, deprecated format characters, variation
# selectors and Unicode tag characters. Secrets (core/secrets) and screening both read past them.
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
_TAGS = re.compile("[\U000e0020-\U000e007e]{4,}")
_WORD = re.compile(r"[^\W\d_][\w@$]*+|(?<![\w@$])[\d@$]++[^\W\d_][\w@$]*+", re.UNICODE)
_SPACED = re.compile(r"(?<![\w])(?:[^\W\d_][ .\-_*]){2,}[^\W\d_](?![\w])")
# Chinese and Japanese put no spaces between characters; "规 则 ：" is spaced out to hide the words.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff1f\u3001\u3002"
_CJK_SPACED = re.compile(f"(?<=[{_CJK}]) +(?=[{_CJK}])")
HANGUL = re.compile("[\uac00-\ud7a3]")
_HANGUL_SPACED = re.compile("(?<=[\uac00-\ud7a3]) (?=[\uac00-\ud7a3:,.])")
_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "|": "l"}
)
_DIGIT = re.compile("[0-9]")
_LEET_WORD = re.compile(r"\b(?=\w*[a-zA-Z])(?=\w*[013457@$])[a-zA-Z013457@$]{4,}\b")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:(?:\\x|0x)?[0-9A-Fa-f]{2}[ :]?){12,}")
# A run of variation selectors: no text needs more than one after a character, smuggled bytes do.
SELECTOR_RUN = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{4,}")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2}[^\s%]{0,3}){3,}")
# ROT13 is tried on text that names it or holds the rotated forms of common short words (the, and,
# is, of, to, you; de, la, que, der, und, le, et, os).
_ROT13 = re.compile(
    r"\brot-?13\b|\b(?:gur|naq|vf|bs|gb|lbh|lbhe|nyy|jvgu|sbe|qr|yn|dhr|qre|haq|qvr|yr|rg|bf|hz|cnen)\b",
    re.IGNORECASE,
)
MAX_PAYLOADS = 8
_MAX_PAYLOAD_CHARS = 2000


def visible(text: str) -> str:
    """The text as a reader sees it: invisible characters dropped, compatibility forms folded (NFKC:
    full-width and styled letters become plain), look-alike letters inside Latin words made Latin,
    spaced-out letters joined, and leetspeak read as letters."""
    return _LEET_WORD.sub(_unleet, _unspaced(text))


def unmasked(text: str) -> str | None:
    """What a text that hides something says, for a judge that reads meaning rather than patterns:
    its visible form with every decodable payload after it; None when nothing is hidden. Folding
    compatibility forms alone does not count (Japanese writes full-width every day), nor does one or
    two leetspeak-like words (an e-mail address or a version number looks like one)."""
    found = payloads(text)
    unspaced = _unspaced(text)
    leet = sum(
        1 for m in _LEET_WORD.finditer(unspaced) if _unleet(m) != m.group(0) and _DIGIT.search(m.group(0))
    )
    if not found and leet < 2 and unspaced == unicodedata.normalize("NFKC", text)[: 2 * len(text) + 64]:
        return None
    return "\n".join([_LEET_WORD.sub(_unleet, unspaced), *found])


def _unspaced(text: str) -> str:
    """`visible` before leetspeak is read."""
    text = INVISIBLE.sub("", text)
    if text.isascii():
        plain = text
    else:
        # NFKC can write one character as eighteen (U+FDFA): the view is capped at twice the input.
        plain = unicodedata.normalize("NFKC", text)[: 2 * len(text) + 64]
        plain = _WORD.sub(_latin_word, plain) if _mostly_latin(plain) else _WORD.sub(_mixed_word, plain)
    plain = _SPACED.sub(lambda m: re.sub(r"[ .\-_*]", "", m.group(0)), plain)
    if not plain.isascii():
        plain = _CJK_SPACED.sub("", plain)
        if _spaced_hangul(plain):
            plain = _HANGUL_SPACED.sub("", plain)
    return plain


def _spaced_hangul(text: str) -> bool:
    """Korean puts spaces between words; text with a space after most syllables is spaced out."""
    syllables = len(HANGUL.findall(text))
    return syllables >= 6 and len(_HANGUL_SPACED.findall(text)) >= 0.6 * syllables


def payloads(text: str) -> list[str]:
    """Text hidden inside `text` in an encoding a model can read: Unicode tag characters, Base64,
    hex, percent-encoding, bytes in variation selectors and ROT13. Only decodings that read as text
    are kept, at most a few."""
    found: list[str] = []
    for match in _TAGS.finditer(text):
        found.append("".join(chr(ord(c) - 0xE0000) for c in match.group(0)))
    for match in SELECTOR_RUN.finditer(text):
        # Bytes smuggled as variation selectors after a visible character: U+FE00.. for 0-15,
        # U+E0100.. for 16-255.
        raw = bytes(ord(c) - 0xFE00 if ord(c) < 0xFE10 else ord(c) - 0xE0100 + 16 for c in match.group(0))
        decoded = _readable(raw)
        if decoded:
            found.append(decoded)
    plain = INVISIBLE.sub("", text)
    found.extend(decoded for _, _, decoded in encoded_runs(plain, words=True))
    if _PERCENT.search(plain):
        decoded = unquote(plain)
        if decoded != plain:
            found.append(decoded)
    if _ROT13.search(plain):
        # ROT13 turns English into gibberish and back; the rules then read the result like any text.
        found.append(codecs.encode(plain, "rot13"))
    return [p[:_MAX_PAYLOAD_CHARS] for p in found[:MAX_PAYLOADS]]


def encoded_runs(text: str, *, words: bool = False) -> list[tuple[int, int, str]]:
    """(start, end, decoded) for each Base64 run, then each hex run, in `text` that decodes to
    printable UTF-8: words or not by default (a key or a password encoded is text without spaces),
    only words with `words`."""
    found = []
    for pattern, decode in ((_BASE64, _base64_text), (_HEX, _hex_text)):
        for match in pattern.finditer(text):
            decoded = decode(match.group(0), words=words)
            if decoded:
                found.append((match.start(), match.end(), decoded))
    return found


def _hex_text(run: str, *, words: bool = True) -> str | None:
    digits = re.sub(r"\\x|0x|[ :]", "", run)
    return _readable(binascii.unhexlify(digits[: len(digits) // 2 * 2]), words=words)


def _base64_text(run: str, *, words: bool = True) -> str | None:
    if not re.search(r"[a-z]", run) or not re.search(r"[A-Z0-9]", run):
        return None
    body = run.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            raw = decode(padded)
        except (binascii.Error, ValueError):
            continue
        text = _readable(raw, words=words)
        if text:
            return text
    return None


def _readable(raw: bytes, *, words: bool = True) -> str | None:
    """Decoded bytes that are text: valid UTF-8, printable, and (with `words`) with spaces between
    letters."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 8 or not text.isprintable():
        return None
    if not words:
        return text
    letters = sum(c.isalpha() for c in text)
    return text if " " in text.strip() and letters >= 0.6 * len(text.replace(" ", "")) else None


def _mostly_latin(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(c.isascii() for c in letters) >= 0.6 * len(letters)


def _latin_word(match: re.Match[str]) -> str:
    """In Latin text, a word's look-alike letters (Cyrillic о, Greek ο, ...) read as Latin ones."""
    word = match.group(0)
    return word if word.isascii() else word.translate(latin_lookalikes())


def _mixed_word(match: re.Match[str]) -> str:
    """In other text, only a word that mixes Latin letters with look-alikes is read as Latin."""
    word = match.group(0)
    if word.isascii() or not any(c.isascii() and c.isalpha() for c in word):
        return word
    return word.translate(latin_lookalikes())


def _unleet(match: re.Match[str]) -> str:
    word = match.group(0)
    digits = sum(c in "013457@$" for c in word)
    # Identifiers such as sha256, x86_64, h264 or v1 have one or two digits at the end: leave them.
    if digits == len(word) or re.fullmatch(r"[A-Za-z]+\d{1,3}", word):
        return word
    return word.translate(_LEET).lower()


@cache
def latin_lookalikes() -> dict[int, str]:
    """Letters that look like a Latin letter or digit, from Unicode's confusables data (through the
    confusable-homoglyphs package), mapped to that letter."""
    from confusable_homoglyphs import confusables

    table: dict[int, str] = {}
    for char, entries in confusables.confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        for entry in entries:
            target = entry["c"]
            if len(target) == 1 and target.isascii() and target.isalnum():
                table[ord(char)] = target
                break
    return table
