"""A PostgreSQL URL as status, doctor and logs show it (without its password), importable without the
PostgreSQL driver."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def redacted(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
