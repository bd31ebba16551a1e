"""The text block of a tool result: what a model reads, compact, not a second copy of the JSON.

Structured content carries the fields for programs; the text says the same in as few tokens as it
can, one header line per memory and its content below.
"""

from __future__ import annotations

import json

from kenning.core.text import estimate_tokens
from kenning.entry.schemas import RecallHitOut, RecallOut, RememberOut


def hit_header(position: int, hit: RecallHitOut) -> str:
    when = (hit.time or "")[:10]
    flags = f" [{', '.join(hit.flags)}]" if hit.flags else ""
    conflict = f" conflicts with {', '.join(hit.in_conflict_with)}" if hit.in_conflict_with else ""
    return (
        f"{position}. {hit.id} {hit.type} · {hit.trust} · {hit.pool} · {when} · {hit.score:.2f} "
        f"({hit.why}){flags}{conflict}"
    )


def render_recall(out: RecallOut, offset: int = 0) -> str:
    lines = [out.notice]
    for position, hit in enumerate(out.results, start=offset + 1):
        lines.append(hit_header(position, hit))
        lines.append("   " + hit.content.replace("\n", "\n   "))
    if not out.results:
        lines.append("No memories found.")
    if out.note:
        lines.append(f"Note: {out.note}")
    if out.next_offset is not None:
        lines.append(f"More: offset {out.next_offset}")
    lines.extend(f"Degraded: {problem}" for problem in out.degraded)
    return "\n".join(lines)


def with_used_tokens(out: RecallOut, offset: int = 0) -> tuple[RecallOut, str]:
    """The answer with `used_tokens` set to what its text costs, and that text."""
    text = render_recall(out, offset)
    out.used_tokens = estimate_tokens(text)
    return out, text


def render_remember(out: RememberOut) -> str:
    lines = [f"{out.status} {out.id} ({out.type}, {out.trust})"]
    if out.note:
        lines.append(f"Note: {out.note}")
    lines.extend(f"Superseded {old}" for old in out.superseded)
    for conflict in out.conflicts:
        reasons = "; ".join(conflict.evidence.get("reasons", []))
        older, newer = conflict.evidence.get("older_content", ""), conflict.evidence.get("newer_content", "")
        lines.append(
            f"Conflict {conflict.id}: {conflict.older_id} (older) vs {conflict.newer_id}: {reasons}. "
            f'Older: "{older}" Newer: "{newer}". Judge it with resolve_conflict.'
        )
    if out.screening:
        lines.append(f"Screening: {json.dumps(out.screening, ensure_ascii=False, separators=(',', ':'))}")
    lines.extend(f"Degraded: {problem}" for problem in out.degraded)
    return "\n".join(lines)
