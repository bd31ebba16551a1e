"""Embedder for any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama, vLLM, ...)."""

from __future__ import annotations

import email.utils
import logging
import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final, NoReturn, Self

import httpx
import numpy as np

from kenning.core.errors import BackendUnavailable, ContractBroken
from kenning.ports.embedder import Vector

logger = logging.getLogger(__name__)

_PROBE_TEXT: Final = "dimension probe"
_SNIPPET_CHARS: Final = 300
# 2**60 seconds is far beyond any sane backoff_max; the cap only keeps the float arithmetic finite.
_MAX_EXPONENT: Final = 60
_REDACTED: Final = "[redacted]"


class OpenAIEmbedder:
    """Embeds through ``POST {base_url}/embeddings`` with retries, rate limiting and strict validation.

    Thread-safe: one ``httpx.Client`` is shared, the rate limiter and dimension discovery are locked.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 5,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        requests_per_second: float | None = None,
        dimensions: int | None = None,
        batch_size: int = 64,
        query_prefix: str = "",
        passage_prefix: str = "",
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        try:
            url = httpx.URL(base_url)
        except httpx.InvalidURL as exc:
            raise ValueError(f"base_url is not a valid URL: {exc}") from exc
        if url.scheme not in ("http", "https") or not url.host:
            raise ValueError(f"base_url must be an absolute http(s) URL, got {_display_url(url)!r}")
        if not model:
            raise ValueError("model must not be empty")
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0, got {timeout!r}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries!r}")
        if backoff_base < 0 or backoff_max < 0:
            raise ValueError("backoff_base and backoff_max must be >= 0")
        if requests_per_second is not None and not requests_per_second > 0:
            raise ValueError(f"requests_per_second must be > 0 or None, got {requests_per_second!r}")
        if dimensions is not None and dimensions < 1:
            raise ValueError(f"dimensions must be >= 1 or None, got {dimensions!r}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size!r}")

        path = url.path.rstrip("/")
        # copy_with keeps any query string (e.g. Azure's api-version); only the path gains "/embeddings".
        self._endpoint = url.copy_with(path=f"{path}/embeddings")
        # Shown in messages, logs and model_id: never userinfo or query, either may carry credentials.
        self._url = f"{url.scheme}://{_host_port(url)}{path}/embeddings"
        self._model = model
        self._model_id = f"openai:{_host_port(url)}{path}:{model}" + (
            f":{dimensions}" if dimensions is not None else ""
        )
        self._secrets = tuple(s for s in (api_key, url.password) if s)
        self._timeout = timeout
        self._max_retries = max_retries
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        self._dimensions = dimensions
        self._batch_size = batch_size
        self._query_prefix = query_prefix
        self._passage_prefix = passage_prefix
        self._sleep = sleep
        self._monotonic = monotonic
        self._rng = random.Random()  # noqa: S311 - jitter spreads retries, it guards no secret

        self._min_interval = None if requests_per_second is None else 1.0 / requests_per_second
        self._next_slot = -math.inf
        self._rate_lock = threading.Lock()

        self._known_dim: int | None = dimensions
        self._dim_lock = threading.Lock()
        self._probe_lock = threading.Lock()

        headers = {"Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout), transport=transport)

    # -- Embedder protocol -------------------------------------------------------------------------

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        known = self._known_dim
        if known is not None:
            return known
        # One probe for all threads: concurrent first accesses must not each pay a round trip.
        with self._probe_lock:
            known = self._known_dim
            if known is not None:
                return known
            logger.debug("probing embedding dimension of model %r at %s", self._model, self._url)
            return int(self._embed_batch([self._passage_prefix + _PROBE_TEXT]).shape[1])

    def embed_passages(self, texts: Sequence[str]) -> Vector:
        if isinstance(texts, str):
            # A str is a Sequence[str]; embedding it character by character is never what was meant.
            raise TypeError("embed_passages expects a sequence of strings, not a single str")
        inputs = [self._passage_prefix + text for text in texts]
        if not inputs:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._embed_batch(inputs[start : start + self._batch_size])
            for start in range(0, len(inputs), self._batch_size)
        ]
        if len(parts) == 1:
            return parts[0]
        joined: Vector = np.concatenate(parts, axis=0)
        return joined

    def embed_query(self, text: str) -> Vector:
        row: Vector = self._embed_batch([self._query_prefix + text])[0]
        return row

    # -- lifecycle ---------------------------------------------------------------------------------

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model_id={self._model_id!r})"

    # -- internals ---------------------------------------------------------------------------------

    def _embed_batch(self, inputs: list[str]) -> Vector:
        payload: dict[str, Any] = {"model": self._model, "input": inputs, "encoding_format": "float"}
        if self._dimensions is not None:
            payload["dimensions"] = self._dimensions
        response = self._post(payload)
        try:
            body = response.json()
        except ValueError as exc:
            self._broken(f"response is not valid JSON ({type(exc).__name__})", status=response.status_code)
        return self._parse(body, len(inputs))

    def _post(self, payload: dict[str, Any]) -> httpx.Response:
        attempt = 0
        while True:
            self._throttle()
            retry_after: float | None = None
            status: int | None = None
            try:
                response = self._client.post(self._endpoint, json=payload)
            except httpx.TimeoutException as exc:
                reason = f"timed out after {self._timeout:g}s ({type(exc).__name__})"
            except (httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError) as exc:
                reason = f"connection failed ({type(exc).__name__}: {self._redact(str(exc))})"
            except httpx.HTTPError as exc:
                # Unsupported scheme, local protocol misuse, ...: retrying cannot fix configuration.
                self._broken(f"request failed ({type(exc).__name__}: {self._redact(str(exc))})")
            else:
                status = response.status_code
                if 200 <= status < 300:
                    return response
                if status != 429 and status < 500:
                    self._broken(f"HTTP {status}: {self._snippet(response)}", status=status)
                reason = f"HTTP {status}: {self._snippet(response)}"
                retry_after = _parse_retry_after(response.headers.get("Retry-After"))

            if attempt >= self._max_retries:
                details: dict[str, Any] = {"url": self._url, "model": self._model, "attempts": attempt + 1}
                if status is not None:
                    details["status"] = status
                raise BackendUnavailable(
                    f"embedding endpoint {self._url} (model {self._model!r}) unavailable "
                    f"after {attempt + 1} attempt(s): {reason}",
                    **details,
                )
            if retry_after is not None:
                delay = min(retry_after, self._backoff_max)
            else:
                delay = self._backoff_delay(attempt)
            logger.warning(
                "embedding request to %s (model %r) failed: %s; retry %d/%d in %.2fs",
                self._url,
                self._model,
                reason,
                attempt + 1,
                self._max_retries,
                delay,
            )
            self._sleep(delay)
            attempt += 1

    def _backoff_delay(self, attempt: int) -> float:
        ceiling = min(self._backoff_max, self._backoff_base * 2.0 ** min(attempt, _MAX_EXPONENT))
        # "Equal jitter": keeps a guaranteed minimum wait while still spreading synchronised clients apart.
        return ceiling / 2 + self._rng.uniform(0.0, ceiling / 2)

    def _throttle(self) -> None:
        if self._min_interval is None:
            return
        # Reserve a slot under the lock but sleep outside it, so waiting threads queue up in slot order.
        with self._rate_lock:
            now = self._monotonic()
            start = max(now, self._next_slot)
            self._next_slot = start + self._min_interval
        if start > now:
            self._sleep(start - now)

    def _parse(self, body: Any, expected: int) -> Vector:
        if not isinstance(body, dict):
            self._broken("response is not a JSON object")
        data = body.get("data")
        if not isinstance(data, list):
            self._broken("response has no 'data' list")
        if len(data) != expected:
            self._broken(f"response has {len(data)} embeddings for {expected} inputs")
        rows: list[list[Any] | None] = [None] * expected
        for item in data:
            if not isinstance(item, dict):
                self._broken("a 'data' item is not an object")
            index = item.get("index")
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < expected:
                self._broken(f"a 'data' item has invalid index {index!r} (expected 0..{expected - 1})")
            if rows[index] is not None:
                self._broken(f"index {index} appears more than once")
            embedding = item.get("embedding")
            if not isinstance(embedding, list) or not embedding:
                self._broken(f"embedding {index} is not a non-empty list of numbers")
            if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in embedding):
                self._broken(f"embedding {index} contains non-numeric values")
            rows[index] = embedding
        widths = {len(row) for row in rows if row is not None}
        if len(widths) != 1:
            self._broken(f"embeddings have differing lengths {sorted(widths)}")
        width = widths.pop()
        if self._dimensions is not None and width != self._dimensions:
            self._broken(f"embeddings have {width} dimensions but {self._dimensions} were requested")

        matrix = np.asarray(rows, dtype=np.float64)
        if not np.all(np.isfinite(matrix)):
            self._broken("embeddings contain NaN or infinite values")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if np.any(norms == 0):
            self._broken("an embedding is the zero vector and cannot be normalised")
        self._check_dim(width)
        normalised: Vector = (matrix / norms).astype(np.float32)
        return normalised

    def _check_dim(self, width: int) -> None:
        with self._dim_lock:
            if self._known_dim is None:
                self._known_dim = width
                return
            known = self._known_dim
        if width != known:
            # Same model_id but a different width means the server swapped models underneath us.
            self._broken(f"embeddings have {width} dimensions, earlier responses had {known}")

    def _broken(self, what: str, *, status: int | None = None) -> NoReturn:
        details: dict[str, Any] = {"url": self._url, "model": self._model}
        if status is not None:
            details["status"] = status
        raise ContractBroken(
            f"embedding endpoint {self._url} (model {self._model!r}): {self._redact(what)}", **details
        )

    def _snippet(self, response: httpx.Response) -> str:
        text = " ".join(response.text.split())
        if len(text) > _SNIPPET_CHARS:
            text = text[:_SNIPPET_CHARS] + "..."
        return self._redact(text) or "(empty body)"

    def _redact(self, text: str) -> str:
        # Servers sometimes echo the rejected key back in their error body.
        for secret in self._secrets:
            text = text.replace(secret, _REDACTED)
        return text


def _host_port(url: httpx.URL) -> str:
    host = url.host.lower()
    if ":" in host:
        host = f"[{host}]"
    return host if url.port is None else f"{host}:{url.port}"


def _display_url(url: httpx.URL) -> str:
    return f"{url.scheme}://{_host_port(url)}{url.path}" if url.host else url.path


def _parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait per a Retry-After header (delta-seconds or HTTP-date); None if absent or garbled."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)
