"""A scripted LangGraph agent that keeps its decisions in Kenning, over MCP (Streamable HTTP).

No LLM: each node of the graph calls one of Kenning's MCP tools, loaded with langchain-mcp-adapters,
so every run makes the same calls. The graph

    recall_context -> remember_decision -> check_recall

recalls what memory knows about a task, remembers a decision about it, then recalls again and looks
for the decision among the results. A real agent hands the same tools to its model instead.

Start a server with a token (`kenning token create NAME --write POOL`, then `kenning serve --http`) and:

    scripts/examples-env    # examples/.venv from examples/requirements.txt
    KENNING_TOKEN=kn_... examples/.venv/bin/python examples/langgraph_agent.py [TASK DECISION]

KENNING_URL is the MCP endpoint (default http://127.0.0.1:8765/mcp). Exits 0 once the decision is
recalled, 1 when it is not or the server refuses the token.
"""

# ruff: noqa: T201 - an example reports what it does on stdout

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, TypedDict
from uuid import uuid4

import httpx
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

TASK = "How do we roll out releases of the billing service?"
DECISION = "Decision: billing service releases roll out blue-green, switched over by a feature flag."


class Memory(TypedDict):
    id: str
    content: str


class AgentState(TypedDict, total=False):
    task: str
    decision: str
    known: list[Memory]  # what memory held about the task before the decision
    decision_id: str
    rank: int | None  # where the decision came back in the second recall; None: it did not


async def call(tool: BaseTool, **arguments: Any) -> dict[str, Any]:
    """The tool's structured result.

    Given a tool call rather than bare arguments, the adapter returns a ToolMessage: its text is what
    a model would read, its artifact carries the MCP result's structured content.
    """
    call_id = uuid4().hex
    message = await tool.ainvoke({"type": "tool_call", "id": call_id, "name": tool.name, "args": arguments})
    if not isinstance(message, ToolMessage) or not isinstance(message.artifact, dict):
        raise RuntimeError(f"{tool.name} returned no structured result")
    structured: dict[str, Any] = message.artifact["structured_content"]
    return structured


def _memories(recalled: dict[str, Any]) -> list[Memory]:
    return [Memory(id=r["id"], content=r["content"]) for r in recalled["results"]]


def build_graph(tools: dict[str, BaseTool]) -> CompiledStateGraph[AgentState, None, AgentState, AgentState]:
    async def recall_context(state: AgentState) -> AgentState:
        known = _memories(await call(tools["recall"], query=state["task"], limit=5))
        print(f"recall_context: {len(known)} memories about {state['task']!r}")
        for memory in known:
            print(f"  {memory['id']}  {memory['content']}")
        return {"known": known}

    async def remember_decision(state: AgentState) -> AgentState:
        stored = await call(tools["remember"], content=state["decision"], type="decision", tags=["example"])
        # A decision already held comes back "reinforced" with its id, so a rerun adds no copy.
        print(f"remember_decision: {stored['status']} {stored['id']}  {state['decision']}")
        return {"decision_id": stored["id"]}

    async def check_recall(state: AgentState) -> AgentState:
        found = _memories(await call(tools["recall"], query=state["task"], limit=5))
        ids = [memory["id"] for memory in found]
        rank = ids.index(state["decision_id"]) + 1 if state["decision_id"] in ids else None
        where = f"at rank {rank} of {len(ids)}" if rank else f"not among {len(ids)} results"
        print(f"check_recall: decision {state['decision_id']} {where}")
        return {"rank": rank}

    graph = StateGraph(AgentState)
    graph.add_node("recall_context", recall_context)
    graph.add_node("remember_decision", remember_decision)
    graph.add_node("check_recall", check_recall)
    graph.add_edge(START, "recall_context")
    graph.add_edge("recall_context", "remember_decision")
    graph.add_edge("remember_decision", "check_recall")
    graph.add_edge("check_recall", END)
    return graph.compile()


async def run(url: str, token: str, task: str, decision: str) -> dict[str, Any]:
    client = MultiServerMCPClient(
        {
            "kenning": {
                "transport": "streamable_http",
                "url": url,
                "headers": {"Authorization": f"Bearer {token}"},
            }
        }
    )
    tools = {tool.name: tool for tool in await client.get_tools()}
    print(f"loaded {len(tools)} tools from {url}: {', '.join(tools)}")
    final: dict[str, Any] = await build_graph(tools).ainvoke({"task": task, "decision": decision})
    return final


def http_error(exc: BaseException) -> httpx.HTTPStatusError | None:
    """The HTTP error inside what the MCP transport raised: it arrives wrapped in exception groups."""
    if isinstance(exc, httpx.HTTPStatusError):
        return exc
    for inner in exc.exceptions if isinstance(exc, BaseExceptionGroup) else ():
        found = http_error(inner)
        if found is not None:
            return found
    return None


def main() -> int:
    token = os.environ.get("KENNING_TOKEN", "")
    if not token:
        print("set KENNING_TOKEN to a token from `kenning token create NAME --write POOL`", file=sys.stderr)
        return 2
    if len(sys.argv) not in (1, 3):
        print("usage: langgraph_agent.py [TASK DECISION]", file=sys.stderr)
        return 2
    task, decision = sys.argv[1:] if len(sys.argv) == 3 else (TASK, DECISION)
    url = os.environ.get("KENNING_URL", "http://127.0.0.1:8765/mcp")
    try:
        final = asyncio.run(run(url, token, task, decision))
    except Exception as exc:
        refused = http_error(exc)
        if refused is None:
            raise
        # 401: no token or a bad one; 403: a scope the token lacks; the challenge header says which.
        status, challenge = refused.response.status_code, refused.response.headers.get("www-authenticate", "")
        print(f"the server refused the request: HTTP {status} {challenge}", file=sys.stderr)
        return 1
    if final.get("rank") is None:
        print("the decision was not recalled", file=sys.stderr)
        return 1
    print(f"done: the decision is in memory and comes back for {final['task']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
