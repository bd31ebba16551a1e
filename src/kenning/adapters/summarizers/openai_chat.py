"""Summaries from any OpenAI-compatible `/v1/chat/completions` endpoint (Ollama, vLLM, hosted).

Optional: maintenance writes extractive summaries without it, and keeps the extractive one whenever
this fails, so every failure here is a BackendUnavailable with a reason and never the API key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx

from kenning.core.errors import BackendUnavailable

_PROMPT = (
    "Summarise these memories of an AI agent into one short, factual paragraph. Keep names, numbers, "
    "dates and decisions. Do not add anything that is not in them. Answer with the summary only."
)


class OpenAIChatSummarizer:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)

    @property
    def model_id(self) -> str:
        return f"openai-chat:{self._model}"

    def summarize(self, texts: Sequence[str], max_chars: int) -> str:
        listing = "\n".join(f"- {text}" for text in texts)
        payload: dict[str, Any] = {
            "model": self._model,
            "messages": [
                {"role": "system", "content": _PROMPT},
                {"role": "user", "content": f"At most {max_chars} characters.\n\n{listing}"},
            ],
            "temperature": 0,
        }
        try:
            response = self._client.post(self._url, json=payload)
        except httpx.HTTPError as exc:
            raise BackendUnavailable(f"summarizer at {self._url} unreachable: {type(exc).__name__}") from exc
        if response.status_code != 200:
            raise BackendUnavailable(f"summarizer at {self._url} answered HTTP {response.status_code}")
        try:
            text = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BackendUnavailable(f"summarizer at {self._url} sent an answer without a summary") from exc
        if not isinstance(text, str) or not text.strip():
            raise BackendUnavailable(f"summarizer at {self._url} sent an empty summary")
        return text.strip()[:max_chars]

    def close(self) -> None:
        self._client.close()
