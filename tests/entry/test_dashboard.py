"""The dashboard over real HTTP on loopback: sign-in by cookie, CSRF, scopes and pools, inert content.

Its pages are enumerated from the running app's routes, so a page added later is covered here too.
The real browser's tests are in test_dashboard_browser.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from http_server import LiveServer, live_server
from kenning.core.validation import MemoryDraft
from kenning.entry.dashboard import is_page
from kenning.entry.http_guard import SESSION_COOKIE
from kenning.services.deps import Caller
from pg_server import database_for
from store_backends import BACKENDS

pytestmark = pytest.mark.slow

XSS = '<script>document.title="owned"</script><img src=x onerror="alert(1)"> [see](javascript:alert(2))'


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The dashboard of a server on each backend."""
    with (
        database_for(request, request.param) as url,
        live_server(tmp_path_factory.mktemp("dash"), embedder="none", storage_url=url) as live,
    ):
        yield live


@pytest.fixture(scope="module")
def tokens(server: LiveServer) -> dict[str, str]:
    return {
        "lead": server.token("lead", write="team", scopes=("read", "write", "admin")),
        "reader": server.token("reader", read=("team",), scopes=("read",)),
        "outsider": server.token("outsider", scopes=("read", "write", "admin")),
    }


def signed_in(server: LiveServer, token: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=60)
    answer = client.post("/login", data={"token": token, "next": "/memories"})
    assert answer.status_code == 303 and answer.headers["location"] == "/memories", answer.text
    return client


def csrf(page: httpx.Response) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', page.text)
    assert found, "the page has no form with a CSRF token"
    return found.group(1)


def remember(server: LiveServer, agent: str, pool: str, content: str) -> str:
    caller = Caller(namespace=pool, agent_id=agent, scopes=frozenset({"read", "write"}))
    return server.app.remember(caller, MemoryDraft(content=content)).record.id


def test_the_session_cookie_is_http_only_and_same_site_strict(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    answer = httpx.post(f"{server.url}/login", data={"token": tokens["lead"]})
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=") and "HttpOnly" in cookie and "SameSite=strict" in cookie


def test_a_page_without_a_session_asks_to_sign_in_and_comes_back(server: LiveServer) -> None:
    answer = httpx.get(f"{server.url}/search?q=deploys")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/login?next=%2Fsearch%3Fq%3Ddeploys"


def test_a_bad_token_is_refused_and_counts_as_a_failed_login(tmp_path: Any) -> None:
    with live_server(tmp_path, embedder="none", failed_logins_per_minute=3) as live:
        statuses = [
            httpx.post(f"{live.url}/login", data={"token": "kn_" + "x" * 40}).status_code for _ in range(4)
        ]
        assert statuses == [401, 401, 401, 429]


def test_signing_in_goes_only_to_a_page_of_this_server(server: LiveServer, tokens: dict[str, str]) -> None:
    for target in ("https://evil.example/", "//evil.example/", "/\\evil.example"):
        answer = httpx.post(f"{server.url}/login", data={"token": tokens["lead"], "next": target})
        assert answer.headers["location"] == "/memories", target


def test_only_the_dashboards_own_paths_are_signed_in_by_cookie() -> None:
    assert is_page("/memories") and is_page("/memory/01JAAAAAAAAAAAAAAAAAAAAAAA")
    assert not is_page("/memory/x/../../mcp") and not is_page("/mcp") and not is_page("/api/v1/recall")


def test_every_page_needs_a_session(server: LiveServer) -> None:
    pages = [
        route
        for route in _dashboard_routes(server)
        if route[0] not in ("/login", "/dashboard.css", "/favicon.svg", "/")
    ]
    assert {"/memories", "/search", "/memory/{memory_id}", "/conflicts", "/quarantine"} <= {
        p for p, _ in pages
    }
    for path, method in pages:
        url = server.url + path.replace("{memory_id}", "01JAAAAAAAAAAAAAAAAAAAAAAA")
        answer = httpx.request(method, url, data={"csrf": "0" * 64})
        assert answer.status_code == 303 and answer.headers["location"].startswith("/login"), (path, method)


def test_a_change_without_the_forms_csrf_token_is_refused(server: LiveServer, tokens: dict[str, str]) -> None:
    memory_id = remember(server, "lead", "team", "The release train leaves on Fridays")
    client = signed_in(server, tokens["lead"])
    for forged in ("0" * 64, "é" * 64, ""):
        answer = client.post(f"/memory/{memory_id}", data={"action": "archive", "csrf": forged})
        assert answer.status_code == 403 and "CSRF" in answer.text
    assert server.app.get(_operator(), memory_id).state.value == "active"


def test_a_cross_origin_post_is_refused_before_any_page_sees_it(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    memory_id = remember(server, "lead", "team", "Backups run at 02:00 UTC")
    client = signed_in(server, tokens["lead"])
    token = csrf(client.get(f"/memory/{memory_id}"))
    answer = client.post(
        f"/memory/{memory_id}",
        data={"action": "archive", "csrf": token},
        headers={"Origin": "https://evil.example"},
    )
    assert answer.status_code == 403
    assert server.app.get(_operator(), memory_id).state.value == "active"


def test_a_read_only_token_sees_no_edit_controls_and_its_post_is_refused(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    memory_id = remember(server, "lead", "team", "The staging database listens on port 6543")
    client = signed_in(server, tokens["reader"])
    page = client.get(f"/memory/{memory_id}")
    assert page.status_code == 200 and "port 6543" in page.text
    assert '<form method="post" action="/memory/' not in page.text
    # The form's token is the session's own, so a reader can compute it; the scope still refuses.
    from kenning.entry.dashboard_pages import csrf_token

    answer = client.post(
        f"/memory/{memory_id}", data={"action": "archive", "csrf": csrf_token(tokens["reader"])}
    )
    assert answer.status_code == 403 and "write" in answer.text
    assert server.app.get(_operator(), memory_id).state.value == "active"


def test_another_pools_memory_does_not_exist_for_the_page(server: LiveServer, tokens: dict[str, str]) -> None:
    memory_id = remember(server, "lead", "team", "The VPN gateway is vpn.internal.example")
    page = signed_in(server, tokens["outsider"]).get(f"/memory/{memory_id}")
    missing = signed_in(server, tokens["outsider"]).get("/memory/01JAAAAAAAAAAAAAAAAAAAAAAA")
    assert page.status_code == missing.status_code == 404
    assert "vpn.internal" not in page.text


def test_content_that_looks_like_markup_is_shown_as_text(server: LiveServer, tokens: dict[str, str]) -> None:
    memory_id = remember(server, "lead", "team", XSS)
    client = signed_in(server, tokens["lead"])
    for page in (client.get(f"/memory/{memory_id}"), client.get("/memories")):
        assert "<script>document.title" not in page.text and "<img src=x" not in page.text
        assert "&lt;script&gt;" in page.text
        assert 'href="javascript:' not in page.text
        assert "script-src" not in page.headers["content-security-policy"]  # none at all: default-src 'none'
        assert page.headers["content-security-policy"].startswith("default-src 'none'")
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert page.headers["x-frame-options"] == "DENY"


def test_an_edit_with_a_stale_version_is_refused_and_changes_nothing(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    memory_id = remember(server, "lead", "team", "Deploys happen on Tuesdays")
    client = signed_in(server, tokens["lead"])
    token = csrf(client.get(f"/memory/{memory_id}"))
    form = {"action": "edit", "csrf": token, "content": "Deploys happen on Wednesdays", "version": "1"}
    assert client.post(f"/memory/{memory_id}", data=form).status_code == 200
    stale = client.post(f"/memory/{memory_id}", data={**form, "content": "Deploys happen on Thursdays"})
    assert stale.status_code == 409
    record = server.app.get(_operator(), memory_id)
    assert record.content == "Deploys happen on Wednesdays" and record.version == 2
    entries = server.app.audit(_operator(), memory_id)
    assert any(e.actor == "lead" and e.action == "update" for e in entries), entries


def _dashboard_routes(server: LiveServer) -> list[tuple[str, str]]:
    """(path, method) of every dashboard route the running server's app serves."""
    from starlette.routing import Route

    app = server.asgi.app  # the guard's inner FastAPI app, as served
    found: list[tuple[str, str]] = []
    for route in app.routes:
        if isinstance(route, Route) and is_page(route.path.replace("{memory_id}", "x")):
            found.extend((route.path, method) for method in sorted(route.methods or ()) if method != "HEAD")
    return found


def _operator() -> Caller:
    """A principal that reads the team pool, to check what the pages did."""
    return Caller(namespace="team", agent_id="check", operator=True)


def test_an_admin_issues_a_token_whose_session_ends_when_it_is_revoked(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    admin = signed_in(server, tokens["lead"])
    form = {
        "csrf": csrf(admin.get("/tokens")),
        "action": "issue",
        "name": "helper",
        "write": "mine",
        "scope_read": "yes",
    }
    page = admin.post("/tokens", data=form)
    issued = re.search(r'id="issued" value="(kn_[^"]+)"', page.text)
    assert page.status_code == 200 and issued, page.text
    helper = signed_in(server, issued.group(1))
    assert helper.get("/memories").status_code == 200
    assert (
        admin.post("/tokens", data={"csrf": form["csrf"], "action": "revoke", "name": "helper"}).status_code
        == 200
    )
    ended = helper.get("/memories")
    assert ended.status_code == 303 and ended.headers["location"].startswith("/login")
    # A token that reaches further than its issuer is refused.
    wider = admin.post("/tokens", data={**form, "name": "wider", "read_pools": "finance"})
    assert wider.status_code == 403 and "finance" in wider.text


def test_tokens_are_for_admins_and_pages_keep_to_the_pool_asked_for(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    reader = signed_in(server, tokens["reader"])
    assert reader.get("/tokens").status_code == 403
    assert 'href="/tokens"' not in reader.get("/memories").text
    own = remember(server, "reader", "agent:reader", "Reader keeps notes on the pager rotation")
    team = remember(server, "lead", "team", "The pager rotation changes on Mondays")
    everything = reader.get("/memories").text
    only_team = reader.get("/memories?pool=team").text
    assert own in everything and team in everything
    assert team in only_team and own not in only_team
    assert reader.get("/memories?pool=finance").status_code == 422


def test_archive_restore_and_a_purge_that_needs_its_confirmation(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    memory_id = remember(server, "lead", "team", "The old build farm lives in rack 12")
    client = signed_in(server, tokens["lead"])
    token = csrf(client.get(f"/memory/{memory_id}"))
    archived = client.post(f"/memory/{memory_id}", data={"action": "archive", "csrf": token})
    assert archived.status_code == 200 and server.app.get(_operator(), memory_id).state.value == "archived"
    assert ">Restore</button>" in archived.text
    client.post(f"/memory/{memory_id}", data={"action": "restore", "csrf": token})
    assert server.app.get(_operator(), memory_id).state.value == "active"
    unconfirmed = client.post(f"/memory/{memory_id}", data={"action": "purge", "csrf": token})
    assert unconfirmed.status_code == 422 and "confirm" in unconfirmed.text
    gone = client.post(f"/memory/{memory_id}", data={"action": "purge", "csrf": token, "confirm": "yes"})
    assert gone.status_code == 303
    assert client.get(f"/memory/{memory_id}").status_code == 404


def test_signing_out_needs_the_forms_token_and_ends_the_session(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    client = signed_in(server, tokens["lead"])
    token = csrf(client.get("/memories"))
    assert client.post("/logout", data={"csrf": "0" * 64}).status_code == 403
    assert client.get("/memories").status_code == 200  # a forged sign-out changed nothing
    out = client.post("/logout", data={"csrf": token})
    assert out.status_code == 303 and out.headers["location"] == "/login"
    assert client.get("/memories").status_code == 303


def test_a_memorys_graph_is_drawn_two_steps_out_and_every_node_is_a_link(
    server: LiveServer, tokens: dict[str, str]
) -> None:
    from kenning.services.deps import Caller as Principal

    lead = Principal(namespace="team", agent_id="lead", scopes=frozenset({"read", "write"}))
    hub = remember(server, "lead", "team", "The <b>payments</b> service owns invoices")
    near = remember(server, "lead", "team", "Invoices are rendered by the PDF worker")
    far = remember(server, "lead", "team", "The PDF worker runs on node 3")
    server.app.link(lead, hub, near, "causes")
    server.app.link(lead, near, far, "part_of")
    page = signed_in(server, tokens["lead"]).get(f"/graph/{hub}")
    assert page.status_code == 200
    svg = page.text[page.text.index("<svg") : page.text.index("</svg>")]
    for memory_id in (hub, near, far):  # the start, one step and two steps out
        assert f'href="/graph/{memory_id}"' in svg
    assert ">causes<" in svg and ">part_of<" in svg
    assert "<b>" not in svg and "&lt;b&gt;payments" in svg
