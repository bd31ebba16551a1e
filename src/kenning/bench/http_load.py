"""`kenning bench http`: many agents, each with its own token, against one `kenning serve --http`; then
the same operations through one `kenning serve` stdio process per agent, on a copy of the same store.

Half the agents (rounded up) share the pool `team`: their tokens write and read it. Each of the others
writes and reads a private pool `agent:<name>` (and reads no other, so that the stdio run, where a
process reads only its own namespace, does the same work). The store is seeded in this process before
any server starts: half of `size` memories in the team pool, the rest spread over the private pools.

Each agent fires one operation a second at its own random phase, open loop: 70% recall, 25% remember,
5% status, get or conflicts; the sequence is drawn from the agent's own seed, so both doors get the
same operations. An agent never has more than one operation in flight: a tick that comes while one
still runs fires as soon as it ends and counts as late; a tick that passes entirely counts as skipped.
Latency percentiles are over successful operations, from sending to the answer.

After the run every id that a successful `remember` returned is read back with `get` by its writer:
an acknowledged write that is missing is lost, and there must be none. Then, over HTTP only and
counted apart, the limits are provoked on purpose: one extra token bursts past the per-principal rate
and another sends more requests at once than a principal may have in flight.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from kenning.bench.embedders import named_gate
from kenning.bench.machine import describe, machine_info
from kenning.bench.metrics import percentile
from kenning.bench.stdio_peer import StdioPeer
from kenning.bench.synthetic import memory_text, query_text
from kenning.core.validation import MemoryDraft
from kenning.entry.client_config import serve_argv
from kenning.services.principals import TokenRequest

TEAM_POOL = "team"
KINDS = ("recall", "remember", "status", "get", "conflicts")
DEFAULT_MIX = {"recall": 0.70, "remember": 0.25, "status": 0.05 / 3, "get": 0.05 / 3, "conflicts": 0.05 / 3}
RECALL_P95_TARGET_MS = 150.0
_SEED_BATCH = 256
_WRITE_BASE = 1_000_000  # memory_text indices of the load's writes: far from the seeded ones
_PER_AGENT = 100_000  # ... and a block of them per agent, so no two agents write the same text
_READY_TIMEOUT_S = 120.0
_REQUEST_TIMEOUT_S = 120.0  # an overloaded server answers late; that is a latency, not an error
_OVER_THE_RATE = 10  # requests the burst sends past the per-minute limit
_AT_ONCE_FACTOR = 3  # the second burst sends this many times the in-flight limit at once


@dataclass(frozen=True, slots=True)
class Agent:
    name: str
    pool: str  # the pool it writes and reads
    ordinal: int  # its own, whatever the crew: it seeds the agent's operations


def agents_for(count: int) -> list[Agent]:
    """`count` agents: the first half (rounded up) in the team pool, the others each in its own. A
    smaller count names a subset of a larger one, so every pool it uses has been seeded."""
    team = [Agent(f"team-{i + 1:02d}", TEAM_POOL, 2 * i) for i in range((count + 1) // 2)]
    solo = [f"solo-{i + 1:02d}" for i in range(count - len(team))]
    return team + [Agent(name, f"agent:{name}", 2 * i + 1) for i, name in enumerate(solo)]


def pool_shares(size: int, pools: Sequence[str]) -> dict[str, int]:
    """Memories to seed per pool: half in the team pool when there are private ones too, the rest spread
    evenly over the private pools."""
    private = [p for p in pools if p != TEAM_POOL]
    if size < len(pools):
        raise ValueError(f"--size {size} cannot seed {len(pools)} pools with at least one memory each")
    shares = {}
    if TEAM_POOL in pools:
        shares[TEAM_POOL] = size if not private else size // 2
    rest = size - sum(shares.values())
    for position, pool in enumerate(private):
        shares[pool] = rest // len(private) + (1 if position < rest % len(private) else 0)
    return shares


@dataclass(frozen=True, slots=True)
class Reply:
    outcome: str  # "ok"; else the HTTP status, the tool's error code, or the transport failure
    body: dict[str, Any]


# How an agent's operation reaches a server: (agent index, tool, arguments) -> reply.
Door = Callable[[int, str, dict[str, Any]], Awaitable[Reply]]


class Plan:
    """One agent's operations, drawn from its own seed: the same sequence through either door."""

    def __init__(
        self, agent: Agent, seeded: Sequence[str], seed: int, mix: Mapping[str, float] = DEFAULT_MIX
    ) -> None:
        self._weights = [mix.get(kind, 0.0) for kind in KINDS]
        self._rng = random.Random(seed * 1_000_003 + agent.ordinal)  # noqa: S311 - reproducible load
        self.phase = self._rng.random()
        self._index = agent.ordinal
        self._seeded = list(seeded)
        self._writes = 0
        self._asks = 0

    def next(self) -> tuple[str, dict[str, Any]]:
        kind = self._rng.choices(KINDS, self._weights)[0]
        if kind == "recall":
            self._asks += 1
            return kind, {"query": query_text(self._index * _PER_AGENT + self._asks), "limit": 5}
        if kind == "remember":
            content, type_, tags = memory_text(_WRITE_BASE + self._index * _PER_AGENT + self._writes)
            self._writes += 1
            return kind, {"content": content, "type": type_, "tags": tags}
        if kind == "get":
            return kind, {"id": self._rng.choice(self._seeded)}
        return kind, {}


@dataclass
class Tally:
    attempts: Counter[str] = field(default_factory=Counter)
    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: {kind: [] for kind in KINDS})
    errors: Counter[str] = field(default_factory=Counter)
    remembered: Counter[str] = field(default_factory=Counter)  # statuses of successful writes
    written: list[tuple[int, str]] = field(default_factory=list)  # (agent index, id) acknowledged
    late: int = 0
    skipped: int = 0

    def record(self, index: int, kind: str, reply: Reply, took_ms: float) -> None:
        self.attempts[kind] += 1
        if reply.outcome != "ok":
            self.errors[reply.outcome] += 1
            return
        self.latencies_ms[kind].append(took_ms)
        if kind == "remember":
            self.remembered[str(reply.body.get("status"))] += 1
            memory_id = reply.body.get("id")
            if isinstance(memory_id, str):
                self.written.append((index, memory_id))


async def _agent(index: int, plan: Plan, door: Door, tally: Tally, *, start: float, end: float) -> None:
    loop = asyncio.get_running_loop()
    tick = start + plan.phase
    while tick < end:
        wait = tick - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        kind, arguments = plan.next()
        began = time.perf_counter()
        reply = await door(index, kind, arguments)
        tally.record(index, kind, reply, (time.perf_counter() - began) * 1000)
        tick += 1.0
        behind = loop.time() - tick
        if behind > 0 and tick < end:
            passed = min(int(behind), math.ceil(end - tick) - 1)  # ticks gone while this one ran
            tally.skipped += passed
            tick += passed
            tally.late += 1


def _status_kb(pid: int, key: str) -> int | None:
    """A figure of /proc/<pid>/status in kB (VmRSS, VmHWM), or None off Linux or once it has exited."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    return None


def summed_mb(pids: Sequence[int], key: str) -> float | None:
    found = [kb for kb in (_status_kb(pid, key) for pid in pids) if kb is not None]
    return round(sum(found) / 1024, 1) if found else None


def with_children(pid: int) -> list[int]:
    """The server and its worker processes (http.workers above 1), from /proc."""
    found = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) in found:  # the name in parentheses may hold spaces
                found.append(int(entry.name))
    return found


def _cpu_seconds(pids: Sequence[int]) -> float:
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime and stime, fields 14 and 15 of stat(5)
    return ticks / os.sysconf("SC_CLK_TCK")


def settle(pids: Callable[[], Sequence[int]], *, busy: float = 0.1, timeout: float = 180.0) -> float:
    """Wait until the processes together use less than `busy` of a core (or `timeout` passes); the
    seconds waited. A stdio server checks its store after loading the model, in the background, which
    the HTTP server does before /readyz says ready: the timed run must not share the CPU with it."""
    start = time.monotonic()
    before = _cpu_seconds(pids())
    while time.monotonic() - start < timeout:
        time.sleep(1.0)
        now = _cpu_seconds(pids())
        if now - before < busy:
            break
        before = now
    return time.monotonic() - start


class RssSampler:
    """The summed VmRSS of some processes, sampled every second: the peak and the last value."""

    def __init__(self, pids: Callable[[], Sequence[int]]) -> None:
        self._pids = pids
        self.peak_mb = 0.0
        self.last_mb: float | None = None

    def sample(self) -> None:
        self.last_mb = summed_mb(self._pids(), "VmRSS")
        if self.last_mb is not None:
            self.peak_mb = max(self.peak_mb, self.last_mb)

    async def run(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(1.0)

    def cpu_seconds(self) -> float:
        """CPU time the processes have used so far, user and system."""
        return _cpu_seconds(self._pids())

    def report(self) -> dict[str, Any]:
        pids = self._pids()
        return {
            "end": self.last_mb,
            "peak_sampled": self.peak_mb or None,
            "peak_kernel": summed_mb(pids, "VmHWM"),  # each process's own high-water mark, summed
            "processes": len(pids),
        }


async def _patient(door: Door, index: int, tool: str, arguments: dict[str, Any]) -> Reply:
    """A call repeated while the server says 429, for the read-back, which must not count a limit as loss."""
    for _ in range(120):
        reply = await door(index, tool, arguments)
        if reply.outcome not in ("429", "quota_exceeded"):
            return reply
        await asyncio.sleep(1.0)
    return reply


async def lost_writes(door: Door, written: Sequence[tuple[int, str]]) -> Counter[str]:
    """Acknowledged writes its writer cannot `get` back, by what the server answered."""
    by_agent: dict[int, list[str]] = {}
    for index, memory_id in written:
        by_agent.setdefault(index, []).append(memory_id)
    missing: Counter[str] = Counter()

    async def check(index: int, ids: list[str]) -> None:
        for memory_id in dict.fromkeys(ids):  # a reinforced write names the memory it reinforced
            reply = await _patient(door, index, "get", {"id": memory_id})
            if reply.outcome != "ok":
                missing[reply.outcome] += 1
            elif reply.body.get("id") != memory_id:
                missing["another id"] += 1

    await asyncio.gather(*(check(index, ids) for index, ids in by_agent.items()))
    return missing


def _ms(values: list[float], q: float) -> float | None:
    return round(percentile(values, q), 1) if values else None


async def measure(
    door: Door, plans: Sequence[Plan], *, seconds: float, sampler: RssSampler, reader: Door | None = None
) -> dict[str, Any]:
    """Run every agent's plan through `door` for `seconds`, then read back what was acknowledged
    (through `reader` when given: another server process)."""
    loop = asyncio.get_running_loop()
    tally = Tally()
    sampling = asyncio.create_task(sampler.run())
    server_cpu, own_cpu = sampler.cpu_seconds(), time.process_time()
    start = loop.time() + 0.05
    try:
        await asyncio.gather(
            *(
                _agent(index, plan, door, tally, start=start, end=start + seconds)
                for index, plan in enumerate(plans)
            )
        )
    finally:
        sampling.cancel()
        with suppress(asyncio.CancelledError):
            await sampling
    elapsed = loop.time() - start
    server_cpu, own_cpu = sampler.cpu_seconds() - server_cpu, time.process_time() - own_cpu
    sampler.sample()
    rss = sampler.report()
    acknowledged = len(set(tally.written))
    missing = await lost_writes(reader or door, tally.written)
    ops = sum(tally.attempts.values())
    return {
        "agents": len(plans),
        "seconds": round(elapsed, 1),
        "ops": ops,
        "ops_per_s": round(ops / elapsed, 2) if elapsed > 0 else None,
        "late": tally.late,
        "skipped": tally.skipped,
        "kinds": {
            kind: {
                "ops": tally.attempts[kind],
                "ok": len(tally.latencies_ms[kind]),
                "p50_ms": _ms(tally.latencies_ms[kind], 0.50),
                "p95_ms": _ms(tally.latencies_ms[kind], 0.95),
                "p99_ms": _ms(tally.latencies_ms[kind], 0.99),
            }
            for kind in KINDS
        },
        "errors": dict(sorted(tally.errors.items())),
        "remember_statuses": dict(sorted(tally.remembered.items())),
        "acknowledged_writes": acknowledged,
        "lost_writes": sum(missing.values()),
        "lost_by": dict(sorted(missing.items())),
        "rss_mb": rss,
        # What the load cost: the server's CPU time a completed operation, and the driving clients'.
        "server_cpu_ms_per_op": round(server_cpu * 1000 / ops, 1) if ops else None,
        "server_cpu_cores": round(server_cpu / elapsed, 2) if elapsed > 0 else None,
        "client_cpu_cores": round(own_cpu / elapsed, 2) if elapsed > 0 else None,
    }


# --- the store ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seeded:
    ids: dict[str, list[str]]  # seeded memory ids by pool
    tokens: dict[str, str]  # token by name: every agent's, and the two the limits phase uses
    model: str
    seconds: float


def seed_store(
    db: Path,
    crew: Sequence[Agent],
    *,
    size: int,
    embedder: str,
    cache_dir: Path | None,
    copy_to: Path | None,
    extra_tokens: Sequence[TokenRequest] = (),
    store_url: str | None = None,
) -> Seeded:
    """Fill the store in this process (embedding in batches, through the cache when given), issue
    the tokens (the crew's, the limit probes' and `extra_tokens`), and copy the whole store to
    `copy_to` for the stdio run. With `store_url` the store is that PostgreSQL database, emptied first
    (its live tokens of the same names are revoked)."""
    from kenning.ports.clock import SystemClock
    from kenning.services.deps import Caller, Deps
    from kenning.services.facade import Kenning

    shares = pool_shares(size, list(dict.fromkeys(agent.pool for agent in crew)))
    store, tokens_at = _bench_store(db, store_url)
    gate = named_gate(embedder, cache_dir)
    app = Kenning(Deps(store=store, tokens=tokens_at, embeddings=gate, clock=SystemClock()))
    try:
        start = time.perf_counter()
        ids: dict[str, list[str]] = {}
        index = 0
        for pool, share in shares.items():
            writer = Caller(namespace=pool, agent_id="seed")
            for offset in range(0, share, _SEED_BATCH):
                drafts = []
                for _ in range(min(_SEED_BATCH, share - offset)):
                    content, type_, tags = memory_text(index)
                    drafts.append(MemoryDraft(content=content, type=type_, tags=tags))
                    index += 1
                outcomes = app.remember_many(writer, drafts)
                ids.setdefault(pool, []).extend(o.record.id for o in outcomes)
                sys.stderr.write(f"\rseeding: {index}/{size}")
                sys.stderr.flush()
        sys.stderr.write("\n")
        seconds = time.perf_counter() - start
        operator = Caller(namespace="bench", agent_id="bench-operator", operator=True, console=True)
        requests = [TokenRequest(name=a.name, write_pool=a.pool) for a in crew]
        # The second reads the team pool too, so that its recalls last long enough to overlap.
        requests += [
            TokenRequest(name="burst-rate", write_pool="agent:burst-rate"),
            TokenRequest(name="burst-at-once", write_pool="agent:burst-at-once", read_pools=(TEAM_POOL,)),
            *extra_tokens,
        ]
        for request in requests:  # a previous run's, on a database that outlives it
            if any(t.name == request.name and t.live(time.time()) for t in app.list_tokens(operator)):
                app.revoke_token(operator, request.name)
        tokens = {request.name: app.issue_token(operator, request)[0] for request in requests}
        if copy_to is not None:
            store.backup_to(copy_to)
        model = gate.model_id() or "none (keyword-only)"
    finally:
        app.close()
    return Seeded(
        ids={pool: list(dict.fromkeys(found)) for pool, found in ids.items()},
        tokens=tokens,
        model=model,
        seconds=seconds,
    )


def _bench_store(db: Path, store_url: str | None) -> tuple[Any, Any]:
    """(store, tokens): the SQLite file `db`, or the PostgreSQL database at `store_url`, emptied."""
    if store_url is None:
        from kenning.adapters.sqlite_store import SqliteStore
        from kenning.adapters.sqlite_tokens import SqliteTokens

        return SqliteStore(db), SqliteTokens(db)
    from kenning.adapters.pg_store import PostgresStore
    from kenning.adapters.pg_tokens import PgTokens

    store = PostgresStore(store_url)
    store.load(iter(()), replace=True)
    return store, PgTokens(store_url)


# --- over HTTP ------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-2000:]
    except OSError:
        return ""


def _wait_ready(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Until /readyz says ready (a keyword-only server is ready too, and says it is degraded)."""
    deadline = time.monotonic() + _READY_TIMEOUT_S
    problems: list[str] = []
    with httpx.Client(base_url=url, timeout=5.0) as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"kenning serve --http exited with {proc.returncode}: {_tail(log)}")
            try:
                response = client.get("/readyz")
            except httpx.HTTPError:
                time.sleep(0.25)
                continue
            problems = list(response.json().get("problems", []))
            if response.status_code == 200:
                return
            time.sleep(0.25)
    raise RuntimeError(f"kenning serve --http not ready after {_READY_TIMEOUT_S:.0f} s: {problems}")


@contextmanager
def http_server(env: dict[str, str], log: Path) -> Iterator[tuple[str, int]]:
    """A `kenning serve --http` subprocess on a free loopback port: (its URL, its pid) once ready;
    terminated on the way out, whatever happened."""
    port = _free_port()
    with log.open("wb") as sink:
        proc = subprocess.Popen(  # noqa: S603 - our own executable
            [*serve_argv(), "--http", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=sink,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_ready(url, proc, log)
            yield url, proc.pid
        finally:
            if proc.poll() is not None:
                sys.stderr.write(f"kenning serve --http had exited ({proc.returncode}): {_tail(log)}\n")
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def http_door(clients: Sequence[httpx.AsyncClient], tokens: Sequence[str], *, shift: int = 0) -> Door:
    """Agent `index` calls server `(index + shift) % len(clients)`: with several servers and a shift of
    one, each agent's writes are read back through another process than the one that took them."""

    async def call(index: int, tool: str, arguments: dict[str, Any]) -> Reply:
        client = clients[(index + shift) % len(clients)]
        try:
            response = await client.post(
                f"/api/v1/{tool}", json=arguments, headers={"Authorization": f"Bearer {tokens[index]}"}
            )
        except httpx.HTTPError as exc:
            return Reply(type(exc).__name__, {})
        try:
            body = response.json()
        except ValueError:
            body = {}
        return Reply(
            "ok" if response.status_code == 200 else str(response.status_code),
            body if isinstance(body, dict) else {},
        )

    return call


@dataclass(frozen=True, slots=True)
class LimitProbe:
    """The server's per-principal limits (0: off), and the two tokens that provoke them."""

    per_minute: int
    at_once: int
    rate_token: str
    at_once_token: str


async def provoke_limits(client: httpx.AsyncClient, probe: LimitProbe) -> dict[str, Any]:
    """One token bursts `per_minute` + a few requests (never more in flight than it may have), another
    sends three times the requests it may have in flight at once. Counted apart from the load."""
    per_minute, at_once = probe.per_minute, probe.at_once
    found: dict[str, Any] = {"requests_per_minute": per_minute, "concurrent_requests": at_once}

    async def send(
        token: str, tool: str, arguments: dict[str, Any], seen: Counter[str], waits: list[int]
    ) -> None:
        response = await client.post(
            f"/api/v1/{tool}", json=arguments, headers={"Authorization": f"Bearer {token}"}
        )
        seen[str(response.status_code)] += 1
        if response.status_code == 429:
            waits.append(int(response.headers.get("Retry-After", "0")))

    if per_minute:
        statuses: Counter[str] = Counter()
        waits: list[int] = []
        gate = asyncio.Semaphore(max(1, at_once - 1) if at_once else 4)  # stay under the in-flight limit

        async def paced() -> None:
            async with gate:
                await send(probe.rate_token, "conflicts", {}, statuses, waits)

        await asyncio.gather(*(paced() for _ in range(per_minute + _OVER_THE_RATE)))
        found["rate"] = _burst_report(per_minute + _OVER_THE_RATE, statuses, waits)
    if at_once:
        statuses, waits = Counter(), []
        query = {"query": "which port is the billing API on", "limit": 5}
        await asyncio.gather(
            *(
                send(probe.at_once_token, "recall", query, statuses, waits)
                for _ in range(_AT_ONCE_FACTOR * at_once)
            )
        )
        found["at_once"] = _burst_report(_AT_ONCE_FACTOR * at_once, statuses, waits)
    return found


def _burst_report(sent: int, statuses: Counter[str], waits: list[int]) -> dict[str, Any]:
    return {
        "sent": sent,
        "statuses": dict(sorted(statuses.items())),
        "retry_after_s": [min(waits), max(waits)] if waits else None,
    }


async def _drive_http(
    servers: Sequence[tuple[str, int]],
    plans: Sequence[Plan],
    tokens: Sequence[str],
    *,
    seconds: float,
    probe: LimitProbe,
) -> tuple[dict[str, Any], dict[str, Any]]:
    pool_size = len(plans) + _AT_ONCE_FACTOR * probe.at_once + 8
    limits = httpx.Limits(max_connections=pool_size, max_keepalive_connections=pool_size)
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=url, timeout=_REQUEST_TIMEOUT_S, limits=limits)
            )
            for url, _ in servers
        ]
        sampler = RssSampler(lambda: [p for _, pid in servers for p in with_children(pid)])
        report = await measure(
            http_door(clients, tokens),
            plans,
            seconds=seconds,
            sampler=sampler,
            reader=http_door(clients, tokens, shift=1) if len(clients) > 1 else None,
        )
        provoked = await provoke_limits(clients[0], probe)
    report["servers"] = len(servers)
    return report, provoked


# --- over stdio -----------------------------------------------------------------------------------


def _tool_error_code(result: dict[str, Any]) -> str:
    """The code of a tool error: MCP carries it only as the head of the text ("not_found: ...")."""
    for block in result.get("content") or []:
        head = str(block.get("text", "")).split(":", 1)[0].strip()
        if head.replace("_", "").isalpha() and head.islower():
            return head
    return "tool_error"


def _stdio_call(peer: StdioPeer, tool: str, arguments: dict[str, Any]) -> Reply:
    try:
        result = peer.request("tools/call", {"name": tool, "arguments": arguments})
    except (RuntimeError, ValueError) as exc:  # a JSON-RPC error, a garbled line, or the server exited
        return Reply(type(exc).__name__, {})
    if result.get("isError"):
        return Reply(_tool_error_code(result), {})
    return Reply("ok", dict(result.get("structuredContent") or {}))


def stdio_door(peers: Sequence[StdioPeer], pool: ThreadPoolExecutor) -> Door:
    async def call(index: int, tool: str, arguments: dict[str, Any]) -> Reply:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool, _stdio_call, peers[index], tool, arguments)

    return call


def _stdio_run(
    db: Path, crew: Sequence[Agent], plans: Sequence[Plan], *, seconds: float, env: dict[str, str]
) -> dict[str, Any]:
    envs = [
        {
            **env,
            "KENNING_STORAGE__DB_PATH": str(db),
            "KENNING_SERVER__NAMESPACE": a.pool,
            "KENNING_SERVER__AGENT_ID": a.name,
        }
        for a in crew
    ]
    with ThreadPoolExecutor(max_workers=len(crew), thread_name_prefix="stdio-agent") as pool:
        starting = [pool.submit(StdioPeer, e) for e in envs]
        try:
            peers = [future.result() for future in starting]
            # The first call waits for the model each process loads: not part of the figures.
            list(pool.map(lambda p: p.call("status", {}), peers))
            pids = [peer.pid for peer in peers]  # only ours: the test runner may have other children
            settle(lambda: pids)
            return asyncio.run(
                measure(stdio_door(peers, pool), plans, seconds=seconds, sampler=RssSampler(lambda: pids))
            )
        finally:  # every peer that started is closed, even when another failed to
            started = [f.result() for f in starting if f.exception() is None]
            list(pool.map(StdioPeer.close, started))


# --- the bench ------------------------------------------------------------------------------------


def run_http_bench(
    *,
    size: int,
    seconds: float,
    agents: int,
    stdio_agents: int,
    stdio_seconds: float,
    embedder: str,
    cache_dir: Path | None,
    requests_per_minute: int,
    concurrent_requests: int,
    json_path: Path | None,
    echo: Callable[[str], None],
    seed: int = 7,
    mix: Mapping[str, float] = DEFAULT_MIX,
    store_url: str | None = None,
    servers: int = 1,
) -> dict[str, Any]:
    """Seed, run the HTTP server under load, provoke its limits, then the stdio processes (unless
    `stdio_agents` is 0); print the figures with the machine and model, and return them. Each agent
    draws its operations from `seed` and its own number, with the weights of `mix`. With `store_url`
    the store is that PostgreSQL database (emptied first), served by `servers` processes at once."""
    if stdio_agents > agents:
        raise ValueError("the stdio run takes a subset of the agents: --stdio-agents <= --agents")
    info = machine_info()
    crew = agents_for(agents)
    echo(f"machine: {describe(info)}")
    with tempfile.TemporaryDirectory(prefix="kenning-bench-http-") as scratch:
        db, copy = Path(scratch) / "http.db", Path(scratch) / "stdio.db"
        seeded = seed_store(
            db,
            crew,
            size=size,
            embedder=embedder,
            cache_dir=cache_dir,
            copy_to=copy if stdio_agents else None,
            store_url=store_url,
        )
        echo(f"model:   {seeded.model}")
        echo(f"store:   {'postgresql, ' + str(servers) + ' server processes' if store_url else 'sqlite'}")
        pools = {pool: len(ids) for pool, ids in seeded.ids.items()}
        stored = sum(pools.values())  # fewer than the writes if some restated another
        echo(f"seeded {stored} memories from {size} writes in {seeded.seconds:.1f} s: {_pools_line(pools)}")
        env = {
            **os.environ,
            "KENNING_EMBEDDINGS__PROVIDER": embedder,
            "KENNING_EMBEDDINGS__QUERY_CACHE": "0",  # the synthetic queries repeat: embed each afresh
            "KENNING_LIFECYCLE__INTERVAL_HOURS": "0",  # no maintenance run in the middle of the figures
        }
        server_env = {
            **env,
            "KENNING_STORAGE__DB_PATH": str(db),
            **({"KENNING_STORAGE__URL": store_url} if store_url else {}),
            "KENNING_HTTP__REQUESTS_PER_MINUTE": str(requests_per_minute),
            "KENNING_HTTP__CONCURRENT_REQUESTS": str(concurrent_requests),
        }
        probe = LimitProbe(
            requests_per_minute,
            concurrent_requests,
            seeded.tokens["burst-rate"],
            seeded.tokens["burst-at-once"],
        )
        plans = [Plan(agent, seeded.ids[agent.pool], seed, mix) for agent in crew]
        tokens = [seeded.tokens[agent.name] for agent in crew]
        log = Path(scratch) / "server.log"
        echo(f"HTTP: {agents} agents against {servers} `kenning serve --http` for {seconds:g} s ...")
        with ExitStack() as running:
            started = [
                running.enter_context(http_server(server_env, log.with_name(f"server-{n}.log")))
                for n in range(servers)
            ]
            http, provoked = asyncio.run(_drive_http(started, plans, tokens, seconds=seconds, probe=probe))
        stdio = None
        if stdio_agents:
            echo(f"stdio: {stdio_agents} `kenning serve` processes, one per agent, for {stdio_seconds:g} s")
            subset = agents_for(stdio_agents)
            plans = [Plan(agent, seeded.ids[agent.pool], seed, mix) for agent in subset]
            stdio = _stdio_run(copy, subset, plans, seconds=stdio_seconds, env=env)
    result: dict[str, Any] = {
        "machine": info,
        "model": seeded.model,
        "size": size,
        "store": "postgresql" if store_url else "sqlite",
        "stored": stored,
        "pools": pools,
        "seed_seconds": round(seeded.seconds, 1),
        "mix": {kind: round(mix.get(kind, 0.0), 4) for kind in KINDS},
        "http": http,
        "limits": provoked,
        "stdio": stdio,
        "target_recall_p95_ms": RECALL_P95_TARGET_MS,
    }
    echo("")
    echo(markdown_table(result))
    if json_path is not None:
        json_path.write_text(json.dumps(result, indent=2))
    return result


def _pools_line(pools: dict[str, int]) -> str:
    private = [count for pool, count in pools.items() if pool != TEAM_POOL]
    parts = [f"{pools[TEAM_POOL]} in the team pool"] if TEAM_POOL in pools else []
    if private:
        spread = str(min(private)) if min(private) == max(private) else f"{min(private)}-{max(private)}"
        parts.append(f"{spread} in each of {len(private)} private pools")
    return ", ".join(parts)


def _fig(value: float | None, unit: str = " ms") -> str:
    return "-" if value is None else f"{value:g}{unit}"


def _door_name(door: str, report: dict[str, Any]) -> str:
    count = report["rss_mb"]["processes"] or report["agents"]
    return f"{door} ({count} process{'es' if count != 1 else ''})"


def _latency_rows(door: str, report: dict[str, Any]) -> list[str]:
    rows = []
    for kind, row in report["kinds"].items():
        rows.append(
            f"| {door} | {kind} | {row['ops']} | {row['ok']} | {_fig(row['p50_ms'])} | "
            f"{_fig(row['p95_ms'])} | {_fig(row['p99_ms'])} |"
        )
    return rows


def _summary_row(door: str, report: dict[str, Any]) -> str:
    errors = ", ".join(f"{code}: {n}" for code, n in report["errors"].items()) or "none"
    rss = report["rss_mb"]
    return (
        f"| {door} | {report['agents']} | {report['seconds']:g} s | {report['ops']} | "
        f"{report['ops_per_s']} | "
        f"{report['late']} / {report['skipped']} | {errors} | {report['acknowledged_writes']} | "
        f"{report['lost_writes']} | {_fig(rss['end'], ' MB')} | {_fig(rss['peak_sampled'], ' MB')} | "
        f"{_fig(report.get('server_cpu_ms_per_op'))} | "
        f"{_fig(report.get('server_cpu_cores'), '')} / {_fig(report.get('client_cpu_cores'), '')} |"
    )


def _target_line(result: dict[str, Any]) -> str:
    target = result["target_recall_p95_ms"]
    parts = []
    for door in ("http", "stdio"):
        report = result[door]
        if report is None:
            continue
        p95 = report["kinds"]["recall"]["p95_ms"]
        verdict = "no recalls" if p95 is None else ("met" if p95 <= target else "missed")
        parts.append(f"{'HTTP' if door == 'http' else 'stdio'} {_fig(p95)} ({verdict})")
    return f"Target: recall p95 ≤ {target:g} ms under load. Measured: {'; '.join(parts)}."


def _limits_line(limits: dict[str, Any]) -> str:
    def said(found: dict[str, Any]) -> str:
        statuses = ", ".join(f"{code}: {n}" for code, n in found["statuses"].items())
        waits = found["retry_after_s"]
        if not waits:
            return statuses
        return statuses + f" (Retry-After {'-'.join(dict.fromkeys(str(w) for w in waits))} s)"

    parts = []
    if "rate" in limits:
        parts.append(
            f"one token sent {limits['rate']['sent']} requests at a limit of "
            f"{limits['requests_per_minute']}/min: {said(limits['rate'])}"
        )
    if "at_once" in limits:
        parts.append(
            f"another sent {limits['at_once']['sent']} recalls at once at a limit of "
            f"{limits['concurrent_requests']} in flight: {said(limits['at_once'])}"
        )
    return "Limits provoked on purpose, counted apart: " + ("; ".join(parts) or "both off") + "."


def markdown_table(result: dict[str, Any]) -> str:
    doors = [("HTTP", result["http"])] + ([("stdio", result["stdio"])] if result["stdio"] else [])
    lines = [
        "| door | operation | ops | ok | p50 | p95 | p99 |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for door, report in doors:
        lines += _latency_rows(_door_name(door, report), report)
    lines += [
        "",
        "| door | agents | run | ops | ops/s | late / skipped | errors | acknowledged writes | lost "
        "| RSS at end | peak RSS | server CPU an op | server / client cores |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [_summary_row(_door_name(door, report), report) for door, report in doors]
    lines += [
        "",
        _target_line(result),
        _limits_line(result["limits"]),
        f"Store: {result['stored']:,} memories seeded in {result['seed_seconds']:g} s, "
        f"{_pools_line(result['pools'])}; half the agents share the team pool, the others write and "
        "read a private pool each.",
        "One operation per agent and second: "
        + ", ".join(f"{kind} {share:.1%}" for kind, share in result["mix"].items() if share)
        + f". Machine: {describe(result['machine'])}. Model: {result['model']}.",
    ]
    return "\n".join(lines)
