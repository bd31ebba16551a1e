"""Deterministic, varied memories and queries of the kind coding agents store, for load benchmarks."""

from __future__ import annotations

import random

_SUBJECTS = [
    "the auth service",
    "the billing API",
    "the search indexer",
    "our CI pipeline",
    "the mobile app",
    "the data warehouse",
    "the payments worker",
    "the admin dashboard",
    "the notification queue",
    "the onboarding flow",
    "the reporting job",
    "the GraphQL gateway",
    "the cache layer",
    "the ML feature store",
    "the deployment scripts",
    "the logging stack",
    "the rate limiter",
    "the session store",
    "the email sender",
    "the export tool",
]
_FACTS = [
    "uses PostgreSQL {n} with pgbouncer in transaction mode",
    "listens on port {p} behind nginx",
    "is written in {lang} and built with {tool}",
    "must stay under {n} ms p95 latency according to the SLO",
    "stores timestamps in UTC and renders them in the user's zone",
    "retries failed calls {n} times with exponential backoff",
    "is owned by the {team} team since release {n}",
    "reads its configuration from environment variables prefixed {prefix}",
    "was migrated from {lang} to {lang2} in sprint {n}",
    "breaks when the {tool} cache is stale; clearing it fixes the build",
    "depends on the {team} team's feature flags service",
    "keeps {n} days of audit logs in cold storage",
]
_PREFS = [
    "The user prefers {lang} over {lang2} for new services",
    "Always run {tool} before committing changes to {subject}",
    "Avoid adding dependencies to {subject} without a review from the {team} team",
    "Use tabs, not spaces, in the {subject} Makefiles",
    "Write tests first for bug fixes in {subject}",
    "Keep pull requests for {subject} under {n} lines",
]
_LANGS = ["Python", "Go", "TypeScript", "Rust", "Java", "Kotlin", "Ruby", "Elixir"]
_TOOLS = ["ruff", "mypy", "eslint", "cargo clippy", "gradle", "bazel", "webpack", "vite", "poetry", "make"]
_TEAMS = ["platform", "growth", "infra", "security", "data", "payments", "mobile", "search"]
_TYPES = ["fact", "fact", "fact", "decision", "preference", "learning", "error", "observation", "strategy"]
_TAGS = [
    "proj:auth",
    "proj:billing",
    "proj:search",
    "proj:ci",
    "team:infra",
    "team:data",
    "lang:python",
    "ops",
]


def _fill(template: str, rng: random.Random, subject: str) -> str:
    lang, lang2 = rng.sample(_LANGS, 2)
    return template.format(
        n=rng.randint(2, 900),
        p=rng.randint(1024, 65000),
        lang=lang,
        lang2=lang2,
        tool=rng.choice(_TOOLS),
        team=rng.choice(_TEAMS),
        prefix=subject.split()[-1].upper()[:6] + "_",
        subject=subject,
    )


def memory_text(index: int, seed: int = 7) -> tuple[str, str, list[str]]:
    """(content, type, tags) for the index-th memory; unique per index."""
    rng = random.Random(seed * 1_000_003 + index)  # noqa: S311 - reproducible test data
    subject = rng.choice(_SUBJECTS)
    if rng.random() < 0.3:
        text = _fill(rng.choice(_PREFS), rng, subject)
    else:
        text = f"{subject.capitalize()} {_fill(rng.choice(_FACTS), rng, subject)}"
    return f"{text} (note {index})", rng.choice(_TYPES), rng.sample(_TAGS, rng.randint(0, 2))


def query_text(index: int, seed: int = 11) -> str:
    rng = random.Random(seed * 1_000_003 + index)  # noqa: S311 - reproducible test data
    subject = rng.choice(_SUBJECTS)
    asks = [
        f"what database does {subject} use",
        f"which port is {subject} on",
        f"who owns {subject}",
        f"how do we retry errors in {subject}",
        f"what language is {subject} written in",
        f"{rng.choice(_TOOLS)} rules for {subject}",
        f"latency target of {subject}",
        f"which team's flags does {subject} depend on",
    ]
    return rng.choice(asks)
