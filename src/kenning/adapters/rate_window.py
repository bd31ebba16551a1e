"""The one-minute window a principal's requests are counted in, whichever table keeps the counts."""

from __future__ import annotations

WINDOW_S = 60.0


def count_in(window: tuple[float, int] | None, now: float, per_minute: int) -> tuple[float, int] | float:
    """The window (start, count) after counting one more request in it, or, when it is full, the seconds
    until it ends. `window` is the stored one (None: none yet); an ended window starts anew at `now`."""
    start, count = (now, 0) if window is None or now - window[0] >= WINDOW_S else window
    if count >= per_minute:
        return max(1.0, WINDOW_S - (now - start))
    return start, count + 1
