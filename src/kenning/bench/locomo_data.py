"""Loading the LoCoMo data set: turns with speaker, caption and session time; questions with evidence.

Evidence ids in the public file have quirks: several ids in one string ("D8:6; D9:17"), a stray colon
("D:11:26"), leading zeros ("D30:05"), a bare "D", and ids that name no turn. They are normalised
where the intent is clear, and everything else is counted and reported, never silently dropped.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_ID = re.compile(r"^D:?(\d+):0*(\d+)$")


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None
    session: int
    time: float


@dataclass(slots=True)
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass(slots=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    questions: list[Question]
    end_time: float


@dataclass(slots=True)
class LoadReport:
    conversations: int = 0
    turns: int = 0
    questions_total: int = 0
    questions_excluded_category: int = 0
    questions_without_valid_evidence: int = 0
    questions_used: int = 0
    quirks: Counter[str] = field(default_factory=Counter)


def parse_session_time(text: str) -> float:
    """'1:56 pm on 8 May, 2023' as UTC seconds (LoCoMo gives no zone; UTC keeps it deterministic)."""
    cleaned = re.sub(r"\s+", " ", text.strip())
    for pattern in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y"):
        try:
            return datetime.strptime(cleaned, pattern).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    raise ValueError(f"unrecognised LoCoMo session time {text!r}")


def normalise_evidence(raw: str, known: set[str], report: LoadReport) -> list[str]:
    ids: list[str] = []
    parts = [p for p in re.split(r"[;,\s]+", raw.strip()) if p]
    if len(parts) > 1:
        report.quirks["several ids in one string"] += 1
    for part in parts:
        match = _ID.match(part)
        if match is None:
            report.quirks[f"malformed id {part!r}"] += 1
            continue
        if part.startswith("D:"):
            report.quirks["stray colon (D:11:26)"] += 1
        if re.search(r":0\d", part):
            report.quirks["leading zero (D30:05)"] += 1
        normal = f"D{int(match.group(1))}:{int(match.group(2))}"
        if normal not in known:
            report.quirks["id names no turn"] += 1
            continue
        if normal not in ids:
            ids.append(normal)
    return ids


def load(path: Path) -> tuple[list[Conversation], LoadReport]:
    data = json.loads(path.read_text())
    report = LoadReport()
    conversations: list[Conversation] = []
    for sample in data:
        convo = sample["conversation"]
        turns: list[Turn] = []
        sessions = sorted(
            int(key.split("_")[1])
            for key, value in convo.items()
            if re.fullmatch(r"session_\d+", key) and isinstance(value, list)
        )
        for number in sessions:
            when = parse_session_time(convo[f"session_{number}_date_time"])
            for turn in convo[f"session_{number}"]:
                turns.append(
                    Turn(
                        dia_id=turn["dia_id"],
                        speaker=turn["speaker"],
                        text=turn["text"],
                        caption=turn.get("blip_caption"),
                        session=number,
                        time=when,
                    )
                )
        known = {t.dia_id for t in turns}
        questions: list[Question] = []
        for qa in sample["qa"]:
            report.questions_total += 1
            category = int(qa["category"])
            if category not in CATEGORIES:
                report.questions_excluded_category += 1
                continue
            evidence: list[str] = []
            for raw in qa.get("evidence") or []:
                evidence.extend(e for e in normalise_evidence(str(raw), known, report) if e not in evidence)
            if not evidence:
                report.questions_without_valid_evidence += 1
                continue
            questions.append(Question(text=str(qa["question"]), category=category, evidence=evidence))
        report.conversations += 1
        report.turns += len(turns)
        report.questions_used += len(questions)
        conversations.append(
            Conversation(
                sample_id=str(sample["sample_id"]),
                speakers=(str(convo["speaker_a"]), str(convo["speaker_b"])),
                turns=turns,
                questions=questions,
                end_time=max(t.time for t in turns),
            )
        )
    return conversations, report
