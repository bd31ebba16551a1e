"""OpenAIEmbedder against a real local HTTP server that can be scripted to misbehave."""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import numpy as np
import pytest

from kenning.adapters.embedders.openai_http import OpenAIEmbedder
from kenning.core.errors import BackendUnavailable, ContractBroken
from kenning.ports.embedder import Embedder, Vector

API_KEY = "sk-test-5up3r-s3cr3t"


# -- scripted server ---------------------------------------------------------------------------------


@dataclass
class Reply:
    """One scripted answer. body=None means "compute good embeddings for the request"."""

    status: int = 200
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    action: Literal["reply", "drop", "hang"] = "reply"


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    payload: dict[str, Any]


def fake_embedding(text: str, dim: int) -> list[float]:
    """Deterministic, text-dependent and deliberately not normalised."""
    digest = hashlib.sha256(text.encode()).digest()
    return [float(digest[i % len(digest)]) - 100.0 + i for i in range(dim)]


def unit(values: list[float]) -> Vector:
    arr = np.asarray(values, dtype=np.float64)
    out: Vector = (arr / np.linalg.norm(arr)).astype(np.float32)
    return out


def json_reply(obj: object, status: int = 200) -> Reply:
    return Reply(status=status, body=json.dumps(obj).encode())


class ScriptedServer:
    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.seen: list[Seen] = []
        self.dim = 4
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        # A short poll interval keeps shutdown() (once per test) from costing half a second.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def push(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def good_body(self, payload: dict[str, Any]) -> bytes:
        texts = payload["input"]
        dim = payload.get("dimensions", self.dim)
        data = [
            {"object": "embedding", "index": i, "embedding": fake_embedding(t, dim)}
            for i, t in enumerate(texts)
        ]
        # Reversed on purpose: the client must order by "index", not by position.
        return json.dumps({"object": "list", "data": data[::-1], "model": payload["model"]}).encode()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                payload = json.loads(raw)
                with server._lock:
                    server.seen.append(
                        Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, payload)
                    )
                    reply = server.script.popleft() if server.script else Reply()
                if reply.action == "drop":
                    self.close_connection = True
                    return
                if reply.action == "hang":
                    server.release.wait(10)
                body = server.good_body(payload) if reply.body is None else reply.body
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client gave up (timeout test); nothing to report to

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    srv.start()
    yield srv
    srv.stop()


class SleepRecorder:
    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


EmbedderFactory = Callable[..., OpenAIEmbedder]


@pytest.fixture
def make(server: ScriptedServer, sleeps: SleepRecorder) -> Iterator[EmbedderFactory]:
    made: list[OpenAIEmbedder] = []

    def factory(**overrides: Any) -> OpenAIEmbedder:
        kwargs: dict[str, Any] = {
            "base_url": server.base_url,
            "model": "test-model",
            "api_key": API_KEY,
            "sleep": sleeps,
            "timeout": 5.0,
        }
        kwargs.update(overrides)
        embedder = OpenAIEmbedder(**kwargs)
        made.append(embedder)
        return embedder

    yield factory
    for embedder in made:
        embedder.close()


def assert_no_secret(exc: BaseException) -> None:
    assert isinstance(exc, BackendUnavailable | ContractBroken)
    assert API_KEY not in str(exc)
    assert API_KEY not in json.dumps(exc.to_dict(), default=str)


# -- happy path ----------------------------------------------------------------------------------------


def test_satisfies_the_embedder_protocol(make: EmbedderFactory) -> None:
    embedder: Embedder = make()
    assert embedder.model_id.startswith("openai:")


def test_passages_are_ordered_by_index_and_l2_normalised(
    server: ScriptedServer, make: EmbedderFactory
) -> None:
    texts = ["alpha", "beta", "gamma"]
    out = make().embed_passages(texts)

    assert out.shape == (3, 4)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-6)
    for row, text in zip(out, texts, strict=True):
        np.testing.assert_allclose(row, unit(fake_embedding(text, 4)), rtol=1e-6)
    assert len(server.seen) == 1


def test_request_shape_bearer_key_and_passage_prefix(server: ScriptedServer, make: EmbedderFactory) -> None:
    make(passage_prefix="passage: ").embed_passages(["x"])

    seen = server.seen[0]
    assert seen.path == "/v1/embeddings"
    assert seen.headers["authorization"] == f"Bearer {API_KEY}"
    assert seen.payload == {"model": "test-model", "input": ["passage: x"], "encoding_format": "float"}


def test_no_authorization_header_without_api_key(server: ScriptedServer, make: EmbedderFactory) -> None:
    make(api_key=None).embed_query("q")
    assert "authorization" not in server.seen[0].headers


def test_query_gets_query_prefix_and_is_a_normalised_vector(
    server: ScriptedServer, make: EmbedderFactory
) -> None:
    vec = make(query_prefix="query: ", passage_prefix="passage: ").embed_query("where")

    assert server.seen[0].payload["input"] == ["query: where"]
    assert vec.shape == (4,)
    assert vec.dtype == np.float32
    np.testing.assert_allclose(vec, unit(fake_embedding("query: where", 4)), rtol=1e-6)


def test_dimensions_are_sent_and_used(server: ScriptedServer, make: EmbedderFactory) -> None:
    embedder = make(dimensions=8)

    assert embedder.dim == 8
    assert server.seen == []  # known from configuration, no probe needed
    assert embedder.embed_passages(["a"]).shape == (1, 8)
    assert server.seen[0].payload["dimensions"] == 8


def test_batches_split_and_keep_order(server: ScriptedServer, make: EmbedderFactory) -> None:
    texts = [f"text number {i}" for i in range(10)]
    out = make(batch_size=3).embed_passages(texts)

    assert [s.payload["input"] for s in server.seen] == [texts[0:3], texts[3:6], texts[6:9], texts[9:10]]
    expected = np.stack([unit(fake_embedding(t, 4)) for t in texts])
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_empty_input_returns_an_empty_matrix_of_the_right_width(
    server: ScriptedServer, make: EmbedderFactory
) -> None:
    out = make(dimensions=6).embed_passages([])
    assert out.shape == (0, 6)
    assert out.dtype == np.float32
    assert server.seen == []


def test_a_single_string_is_refused_rather_than_embedded_per_character(make: EmbedderFactory) -> None:
    with pytest.raises(TypeError):
        make().embed_passages("abc")


# -- dimension discovery -------------------------------------------------------------------------------


def test_dim_is_discovered_once_by_probing(server: ScriptedServer, make: EmbedderFactory) -> None:
    server.dim = 5
    embedder = make()

    assert embedder.dim == 5
    assert embedder.dim == 5
    assert len(server.seen) == 1


def test_dim_is_learned_from_the_first_real_call_without_a_probe(
    server: ScriptedServer, make: EmbedderFactory
) -> None:
    server.dim = 7
    embedder = make()
    embedder.embed_query("hello")

    assert embedder.dim == 7
    assert len(server.seen) == 1


def test_width_change_between_responses_is_a_broken_contract(
    server: ScriptedServer, make: EmbedderFactory
) -> None:
    embedder = make()
    embedder.embed_query("first")
    server.dim = 3

    with pytest.raises(ContractBroken, match="earlier responses had 4"):
        embedder.embed_query("second")


# -- model_id ------------------------------------------------------------------------------------------


def test_model_id_names_endpoint_and_model_and_differs_with_dimensions() -> None:
    plain = OpenAIEmbedder(base_url="http://127.0.0.1:11434/v1/", model="nomic-embed-text")
    sized = OpenAIEmbedder(base_url="http://127.0.0.1:11434/v1", model="nomic-embed-text", dimensions=256)
    other_host = OpenAIEmbedder(base_url="https://API.example.com/v1", model="nomic-embed-text")
    try:
        assert plain.model_id == "openai:127.0.0.1:11434/v1:nomic-embed-text"
        assert sized.model_id == "openai:127.0.0.1:11434/v1:nomic-embed-text:256"
        assert other_host.model_id == "openai:api.example.com/v1:nomic-embed-text"
    finally:
        for embedder in (plain, sized, other_host):
            embedder.close()


def test_model_id_never_contains_url_credentials_or_query() -> None:
    embedder = OpenAIEmbedder(base_url="https://user:pw@host.example/v1?key=abc", model="m")
    try:
        assert embedder.model_id == "openai:host.example/v1:m"
        assert "pw" not in repr(embedder)
    finally:
        embedder.close()


# -- retries -------------------------------------------------------------------------------------------


def test_429_retry_after_seconds_is_honoured(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder
) -> None:
    server.push(Reply(status=429, body=b'{"error": "slow down"}', headers={"Retry-After": "2"}))
    out = make().embed_query("q")

    assert sleeps.calls == [2.0]
    assert len(server.seen) == 2
    assert out.shape == (4,)


def test_retry_after_is_capped_by_backoff_max(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder
) -> None:
    server.push(Reply(status=429, body=b"{}", headers={"Retry-After": "3600"}))
    make(backoff_max=7.5).embed_query("q")
    assert sleeps.calls == [7.5]


def test_retry_after_http_date_is_honoured(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder
) -> None:
    future = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    past = format_datetime(datetime.now(UTC) - timedelta(hours=1), usegmt=True)
    server.push(
        Reply(status=503, body=b"{}", headers={"Retry-After": future}),
        Reply(status=503, body=b"{}", headers={"Retry-After": past}),
    )
    make(backoff_max=12.0).embed_query("q")
    # A date an hour away is capped; a date already gone means "now".
    assert sleeps.calls == [12.0, 0.0]


def test_garbled_retry_after_falls_back_to_backoff(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder
) -> None:
    server.push(Reply(status=429, body=b"{}", headers={"Retry-After": "soon-ish"}))
    make(backoff_base=1.0).embed_query("q")
    assert len(sleeps.calls) == 1
    assert 0.5 <= sleeps.calls[0] <= 1.0


def test_5xx_backs_off_exponentially_with_jitter_then_succeeds(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder
) -> None:
    server.push(*[Reply(status=503, body=b"busy") for _ in range(4)])
    out = make(backoff_base=1.0, backoff_max=5.0, max_retries=5).embed_query("q")

    assert out.shape == (4,)
    assert len(server.seen) == 5
    ceilings = [1.0, 2.0, 4.0, 5.0]  # base * 2**attempt, capped at backoff_max
    assert len(sleeps.calls) == len(ceilings)
    for slept, ceiling in zip(sleeps.calls, ceilings, strict=True):
        assert ceiling / 2 <= slept <= ceiling


def test_exhausted_retries_raise_backend_unavailable(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder
) -> None:
    server.push(*[Reply(status=502, body=f"bad gateway for {API_KEY}".encode()) for _ in range(3)])
    embedder = make(max_retries=2)

    with pytest.raises(BackendUnavailable) as info:
        embedder.embed_query("q")

    assert len(server.seen) == 3
    assert len(sleeps.calls) == 2
    message = str(info.value)
    assert f"{server.base_url}/embeddings" in message
    assert "test-model" in message
    assert "HTTP 502" in message
    assert info.value.details["status"] == 502
    assert_no_secret(info.value)


def test_dropped_connection_is_retried(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder
) -> None:
    server.push(Reply(action="drop"))
    out = make().embed_query("q")

    assert out.shape == (4,)
    assert len(server.seen) == 2
    assert len(sleeps.calls) == 1


def test_connection_refused_maps_to_backend_unavailable(sleeps: SleepRecorder) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # The port is closed now, so every connect is refused.
    embedder = OpenAIEmbedder(
        base_url=f"http://127.0.0.1:{port}/v1", model="m", api_key=API_KEY, max_retries=3, sleep=sleeps
    )
    try:
        with pytest.raises(BackendUnavailable, match="connection failed") as info:
            embedder.embed_query("q")
    finally:
        embedder.close()
    assert len(sleeps.calls) == 3
    assert f"127.0.0.1:{port}" in str(info.value)
    assert_no_secret(info.value)


def test_timeout_maps_to_backend_unavailable(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder
) -> None:
    server.push(Reply(action="hang"), Reply(action="hang"))
    embedder = make(timeout=0.2, max_retries=1)

    with pytest.raises(BackendUnavailable, match="timed out") as info:
        embedder.embed_query("q")
    assert len(sleeps.calls) == 1
    assert_no_secret(info.value)


def test_retry_warnings_are_logged_without_the_key(
    server: ScriptedServer, make: EmbedderFactory, caplog: pytest.LogCaptureFixture
) -> None:
    server.push(Reply(status=500, body=f"echo {API_KEY}".encode()))
    with caplog.at_level(logging.WARNING, logger="kenning.adapters.embedders.openai_http"):
        make().embed_query("q")

    assert len(caplog.records) == 1
    assert "HTTP 500" in caplog.text
    assert API_KEY not in caplog.text


# -- permanent failures --------------------------------------------------------------------------------


def test_401_fails_at_once_without_leaking_the_key(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder
) -> None:
    server.push(json_reply({"error": {"message": f"Incorrect API key provided: {API_KEY}"}}, status=401))

    with pytest.raises(ContractBroken) as info:
        make().embed_query("q")

    assert len(server.seen) == 1
    assert sleeps.calls == []
    assert "HTTP 401" in str(info.value)
    assert "Incorrect API key provided" in str(info.value)
    assert info.value.details["status"] == 401
    assert_no_secret(info.value)


@pytest.mark.parametrize("status", [400, 404, 422])
def test_other_4xx_fail_at_once(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder, status: int
) -> None:
    server.push(Reply(status=status, body=b'{"error": "nope"}'))
    with pytest.raises(ContractBroken, match=f"HTTP {status}"):
        make().embed_query("q")
    assert len(server.seen) == 1
    assert sleeps.calls == []


def _item(index: object, embedding: object) -> dict[str, object]:
    return {"object": "embedding", "index": index, "embedding": embedding}


@pytest.mark.parametrize(
    ("body", "match"),
    [
        pytest.param(b"this is not json", "not valid JSON", id="not-json"),
        pytest.param(b"[1, 2]", "not a JSON object", id="not-an-object"),
        pytest.param(b'{"object": "list"}', "no 'data' list", id="no-data"),
        pytest.param(
            json.dumps({"data": [_item(0, [1.0, 2.0])]}).encode(), "1 embeddings for 2", id="too-few"
        ),
        pytest.param(
            json.dumps({"data": [_item(i, [1.0, 2.0]) for i in range(3)]}).encode(),
            "3 embeddings for 2",
            id="too-many",
        ),
        pytest.param(
            json.dumps({"data": [_item(0, [1.0, 2.0]), _item(0, [3.0, 4.0])]}).encode(),
            "more than once",
            id="duplicate-index",
        ),
        pytest.param(
            json.dumps({"data": [_item(0, [1.0, 2.0]), _item(5, [3.0, 4.0])]}).encode(),
            "invalid index 5",
            id="index-out-of-range",
        ),
        pytest.param(
            json.dumps({"data": [_item(0, [1.0, 2.0]), {"embedding": [3.0, 4.0]}]}).encode(),
            "invalid index None",
            id="missing-index",
        ),
        pytest.param(
            json.dumps({"data": [_item(0, [1.0, 2.0]), _item(1, [1.0, 2.0, 3.0])]}).encode(),
            "differing lengths",
            id="ragged",
        ),
        pytest.param(
            json.dumps({"data": [_item(0, [1.0, 2.0]), _item(1, ["a", "b"])]}).encode(),
            "non-numeric",
            id="strings",
        ),
        pytest.param(
            json.dumps({"data": [_item(0, [1.0, 2.0]), _item(1, "AAAA")]}).encode(),
            "not a non-empty list",
            id="base64-string",
        ),
        pytest.param(
            json.dumps({"data": [_item(0, [1.0, 2.0]), _item(1, [])]}).encode(),
            "not a non-empty list",
            id="empty-embedding",
        ),
        pytest.param(
            json.dumps({"data": [_item(0, [1.0, 2.0]), _item(1, [0.0, 0.0])]}).encode(),
            "zero vector",
            id="zero-vector",
        ),
        pytest.param(
            b'{"data": [{"index": 0, "embedding": [1.0, NaN]}, ' + b'{"index": 1, "embedding": [1.0, 2.0]}]}',
            "NaN",
            id="nan",
        ),
    ],
)
def test_malformed_responses_are_a_broken_contract(
    server: ScriptedServer, make: EmbedderFactory, sleeps: SleepRecorder, body: bytes, match: str
) -> None:
    server.push(Reply(body=body))
    with pytest.raises(ContractBroken, match=match) as info:
        make().embed_passages(["one", "two"])
    assert len(server.seen) == 1
    assert sleeps.calls == []
    assert "test-model" in str(info.value)
    assert_no_secret(info.value)


def test_server_ignoring_dimensions_is_a_broken_contract(
    server: ScriptedServer, make: EmbedderFactory
) -> None:
    server.push(json_reply({"data": [_item(0, [1.0, 2.0, 3.0])]}))
    with pytest.raises(ContractBroken, match="3 dimensions but 8 were requested"):
        make(dimensions=8).embed_query("q")


# -- rate limiting -------------------------------------------------------------------------------------


class FakeTime:
    """A monotonic clock that only moves when something sleeps on it (or the test moves it)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_requests_per_second_spaces_requests(server: ScriptedServer, make: EmbedderFactory) -> None:
    clock = FakeTime()
    embedder = make(requests_per_second=2.0, batch_size=1, sleep=clock.sleep, monotonic=clock.monotonic)

    embedder.embed_passages(["a", "b", "c"])

    assert len(server.seen) == 3
    assert clock.sleeps == pytest.approx([0.5, 0.5])


def test_rate_limit_does_not_wait_when_enough_time_has_passed(
    server: ScriptedServer, make: EmbedderFactory
) -> None:
    clock = FakeTime()
    embedder = make(requests_per_second=2.0, sleep=clock.sleep, monotonic=clock.monotonic)

    embedder.embed_query("a")
    clock.now += 10.0
    embedder.embed_query("b")

    assert clock.sleeps == []


# -- configuration -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides",
    [
        {"base_url": "127.0.0.1:11434/v1"},
        {"base_url": "ftp://host/v1"},
        {"base_url": "http://host:abc/v1"},
        {"model": ""},
        {"batch_size": 0},
        {"dimensions": 0},
        {"timeout": 0},
        {"max_retries": -1},
        {"requests_per_second": 0},
    ],
)
def test_bad_configuration_is_rejected(overrides: dict[str, Any]) -> None:
    kwargs: dict[str, Any] = {"base_url": "http://127.0.0.1:11434/v1", "model": "m"} | overrides
    with pytest.raises(ValueError):  # noqa: PT011 - the message varies per field
        OpenAIEmbedder(**kwargs)
