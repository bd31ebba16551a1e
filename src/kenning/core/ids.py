"""ULIDs: 48-bit millisecond time + 80 random bits, Crockford base32, sortable as text."""

from __future__ import annotations

import os
import threading

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_lock = threading.Lock()
_last: tuple[int, int] = (0, 0)


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def new_ulid(now_ms: int) -> str:
    """A ULID for the given time; monotonic within one process even in the same millisecond."""
    global _last
    with _lock:
        last_ms, last_rand = _last
        if now_ms <= last_ms:
            now_ms = last_ms
            rand = last_rand + 1
        else:
            rand = int.from_bytes(os.urandom(10), "big")
        _last = (now_ms, rand)
    return _encode(now_ms, 10) + _encode(rand & ((1 << 80) - 1), 16)


def is_ulid(value: str) -> bool:
    return len(value) == 26 and all(c in _ALPHABET for c in value.upper())
