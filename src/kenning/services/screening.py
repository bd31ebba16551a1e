"""Applying write screening to a draft: secrets redacted everywhere, instruction-like text caught.

Redaction runs on what the caller sent, before validation lower-cases a tag, normalises Unicode or
trims a line: a secret must be found as written. Flags are read from the redacted text, so that no
excerpt quotes what redaction removed.

Beside the rules (core/screening) judges a learned signal (services/screening_model) over the
embedding the write path computes anyway: hidden Unicode, an encoded instruction or a breakout is a
verdict, while an instruction rule's match only raises the learned score. The signal exists for one
embedding model; with another, screening is rules-only, every match flags, and the answer says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from kenning.core.screening import WEIGHED, Flag, inspect, prepare
from kenning.core.secrets import redact, redact_label
from kenning.core.unmask import unmasked
from kenning.core.validation import MemoryDraft
from kenning.services.screening_model import RULES_ONLY, learned_screen


@dataclass(slots=True)
class Screening:
    redacted: list[str] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    degraded: str | None = None  # why only the rules judged (no classifier for this embedder)
    certain: bool = False  # the learned score passed its quarantine threshold

    @property
    def decided(self) -> bool:
        """A rule flagged what no score can clear (hidden Unicode, an encoded instruction, a breakout)."""
        return any(flag.kind not in WEIGHED and flag.kind != "learned" for flag in self.flags)

    @property
    def ruled(self) -> bool:
        """A rule's flag stands: a verdict, or an instruction rule's match the classifier agreed with
        or could not weigh."""
        return any(flag.kind != "learned" for flag in self.flags)

    def action(self, policy: str) -> str | None:
        """What the write path does with the memory under `policy` ("quarantine" or "flag"): a rule's
        flag that stands, or a learned score past the quarantine threshold, quarantines; a learned
        score between the two thresholds only flags, since a classifier is sometimes wrong about
        ordinary text."""
        if not self.flags:
            return None
        sure = self.certain or self.ruled
        return "quarantined" if policy == "quarantine" and sure else "flagged"

    def as_dict(self, action: str | None) -> dict[str, Any]:
        return {
            "redacted": self.redacted,
            "flags": [{"kind": f.kind, "excerpt": f.excerpt} for f in self.flags],
            "action": action,
        }


def screen_text(text: str, screening: Screening, *, label: bool = False) -> str:
    cleaned, kinds = (redact_label if label else redact)(text)
    screening.redacted.extend(kinds)
    return cleaned


def redact_value(value: Any, screening: Screening, *, label: bool = False, nested: bool = False) -> Any:
    """Secrets out of a string, or out of every string inside lists and dicts. Anything else passes
    through unchanged for validation to judge. `label`: the strings are short labels (tags, entities,
    ids), where any random-looking run is a key; so is a dict's key, and a nested string without spaces."""
    if isinstance(value, str):
        short = label or (nested and not any(c.isspace() for c in value))
        return screen_text(value, screening, label=short)
    if isinstance(value, list | tuple):
        return [redact_value(v, screening, label=label, nested=True) for v in value]
    if isinstance(value, dict):
        return {
            redact_value(k, screening, label=True): redact_value(v, screening, label=label, nested=True)
            for k, v in value.items()
        }
    return value


def redact_draft(draft: MemoryDraft) -> tuple[MemoryDraft, Screening]:
    """Secrets out of every string a caller sent, as sent (call before validation)."""
    screening = Screening()
    cleaned = replace(
        draft,
        content=redact_value(draft.content, screening),
        tags=redact_value(draft.tags, screening, label=True),
        entities=redact_value(draft.entities, screening, label=True),
        context=redact_value(draft.context, screening),
        source=redact_value(draft.source, screening),
        subject=redact_value(draft.subject, screening, label=True),
        session_id=redact_value(draft.session_id, screening, label=True),
        metadata=redact_value(draft.metadata, screening),
    )
    return cleaned, screening


def flag_draft(draft: MemoryDraft, screening: Screening) -> None:
    """Instruction-like content and hidden Unicode in what a reader of the (redacted) memory sees."""
    readable = "\n".join(part for part in (draft.content, draft.context or "", draft.source or "") if part)
    screening.flags = inspect(readable)


@dataclass(frozen=True, slots=True)
class Embedded:
    """What the learned signal reads of a text: its embedding, the hidden states of the encoder
    layers it asked for (None where the engine cannot give them), and the text."""

    vector: np.ndarray
    states: np.ndarray | None
    text: str

    @classmethod
    def row(cls, matrix: np.ndarray, states: np.ndarray | None, index: int, text: str) -> Embedded:
        """The reading of `text`, row `index` of an embedding call's vectors and states."""
        return cls(matrix[index], None if states is None else states[index], text)


@dataclass(frozen=True, slots=True)
class Views:
    """What the writes of a batch that hide something say unmasked (core/unmask): the learned signal
    judges that view too, from an embedding of its own, embedded after the batch's other texts."""

    found: list[tuple[int, str]]  # (index of the write in its batch, its unmasked view)

    @property
    def texts(self) -> list[str]:
        return [view for _, view in self.found]

    def embedded(self, matrix: np.ndarray, states: np.ndarray | None, first: int) -> dict[int, Embedded]:
        """Each view's reading by its write's index; the views' rows start at `first`."""
        return {
            index: Embedded.row(matrix, states, first + k, view) for k, (index, view) in enumerate(self.found)
        }


def to_unmask(texts: Sequence[str], screens: Sequence[Screening] = ()) -> Views:
    """The views of `texts` that hide something; an ordinary text needs none, nor does one whose
    screening (at the same index in `screens`) a rule already decided."""
    flagged = {index for index, screening in enumerate(screens) if screening.decided}
    return Views(
        [
            (index, view)
            for index, text in enumerate(texts)
            if index not in flagged and (view := unmasked(text)) is not None
        ]
    )


def screening_layers(model: str | None) -> tuple[int, ...]:
    """The encoder layers the learned signal for `model` reads beside the embedding: the write path
    asks the embedder for them in the same run."""
    head = learned_screen(model) if model is not None else None
    return head.layers if head is not None else ()


def judge_embedded(
    screening: Screening, model: str, written: Embedded, unmasked_view: Embedded | None = None
) -> None:
    """Judge by the learned signal what no rule decided; note when no classifier exists. An
    instruction rule's flag is evidence: it adds the reading's rule weight to the score, and stays
    (quarantining, as a rule's flag does) only when the sum passes the flag threshold. `written` is
    what the signal reads of the write's content as stored; `unmasked_view` of what it says with its
    disguises off (see `to_unmask`), judged too: the higher score counts, since an encoded or
    spaced-out instruction means nothing to a model reading it as written."""
    head = learned_screen(model)
    if head is None:
        screening.degraded = f"{RULES_ONLY}: no screening classifier for embedding model {model!r}"
        return
    if screening.decided:
        return
    judged = [head.judge(e.vector, e.states, e.text) for e in (written, unmasked_view) if e is not None]
    score, reading = max(judged, key=lambda pair: pair[0] - pair[1].threshold)
    evidence = [flag for flag in screening.flags if flag.kind in WEIGHED]
    boost = reading.rule_weight if evidence else 0.0
    if score + boost < reading.threshold:
        screening.flags = []
        return
    plus = f" + {boost:.2f} for instruction-like phrasing" if boost else ""
    excerpt = (
        f"classifier score {score:.2f}{plus}, reading {reading.reads} "
        f"(flags from {reading.threshold:.2f}, quarantines from {reading.certain:.2f})"
    )
    screening.flags.append(Flag(kind="learned", excerpt=excerpt))
    screening.certain = score + boost >= reading.certain


def prepare_screening(model: str | None) -> None:
    """Compile the rules and load the classifier for `model` ahead of the first write."""
    prepare()
    if model is not None:
        learned_screen(model)
