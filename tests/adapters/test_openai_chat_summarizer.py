"""The optional summarizer against a real local HTTP server speaking the chat-completions shape."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from kenning.adapters.summarizers.openai_chat import OpenAIChatSummarizer
from kenning.core.errors import BackendUnavailable

SEEN: list[dict[str, Any]] = []


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        SEEN.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        mode = body["model"]
        if mode == "broken":
            self.send_response(500)
            self.end_headers()
            return
        answer: Any = {"choices": [{"message": {"content": "  Redis holds sessions; deploys on Sunday.  "}}]}
        if mode == "empty":
            answer = {"choices": []}
        payload = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_a_summary_comes_back_trimmed_and_the_key_is_sent_as_a_bearer_token(base_url: str) -> None:
    SEEN.clear()
    summarizer = OpenAIChatSummarizer(base_url=base_url, model="tiny", api_key="sk-test-123")
    try:
        text = summarizer.summarize(["we use redis for sessions", "deploys happen on sunday"], 30)
    finally:
        summarizer.close()
    assert text == "Redis holds sessions; deploys "
    assert SEEN[0]["path"] == "/v1/chat/completions" and SEEN[0]["auth"] == "Bearer sk-test-123"
    assert "- we use redis for sessions" in SEEN[0]["body"]["messages"][1]["content"]
    assert summarizer.model_id == "openai-chat:tiny"


@pytest.mark.parametrize(("model", "words"), [("broken", "HTTP 500"), ("empty", "without a summary")])
def test_failures_are_backend_unavailable_without_the_key(base_url: str, model: str, words: str) -> None:
    summarizer = OpenAIChatSummarizer(base_url=base_url, model=model, api_key="sk-secret-999")
    try:
        with pytest.raises(BackendUnavailable) as caught:
            summarizer.summarize(["x"], 100)
    finally:
        summarizer.close()
    assert words in caught.value.message and "sk-secret-999" not in caught.value.message


def test_an_unreachable_summarizer_is_backend_unavailable() -> None:
    summarizer = OpenAIChatSummarizer(base_url="http://127.0.0.1:9/v1", model="m", timeout=2)
    with pytest.raises(BackendUnavailable, match="unreachable"):
        summarizer.summarize(["x"], 100)
