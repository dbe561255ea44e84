"""The client's tools/list prefetch on 2026-07-28 (client/tools_list_prefetch.py, python/README.md "Tools list
prefetch"): the SDK's first `list_tools()` answered from a `tools/list` posted beside its `server/discover`.
What reached the server is counted there (tests/servers/counting_app.py): exactly one `tools/list` per opening,
the same result as without the prefetch, and every failure falls back to the SDK's own request, silently.
Both clients: mcp 2.3's (where the SDK has its internals) and the older lines' (`streamable_http_httpx.py`,
run on every 2.x)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import msgpack
import pytest
from mcp.client.client import Client

from http_peers import free_port, media_server, recording_client, running, ts_sdk_server, write_image
from mcp_msgpack.client import streamable_http_client
from mcp_msgpack.client.tools_list_prefetch import PREFETCH_ID
from mcp_msgpack.shared.sdk_compat import HTTP_UNAVAILABLE

CLIENT_MODULES = ["streamable_http_httpx"] + ([] if HTTP_UNAVAILABLE else ["streamable_http"])


@pytest.fixture(params=CLIENT_MODULES)
def connect(request):
    """`streamable_http_client` of each client module this SDK line runs."""
    return importlib.import_module(f"mcp_msgpack.client.{request.param}").streamable_http_client

pytestmark = pytest.mark.timeout(120)
PREFETCH_MARK = PREFETCH_ID.encode()  # a str in either wire's body: the prefetch's id as it goes


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    image, _ = write_image(tmp_path_factory.mktemp("prefetch"))
    port = free_port()
    script = Path(__file__).parent / "servers" / "counting_app.py"
    src = str(Path(__file__).resolve().parents[1] / "src")
    with running([sys.executable, str(script), str(port), str(image)], port, {"PYTHONPATH": src}) as served:
        yield served


def reached(url: str) -> list[list[Any]]:
    """The requests that reached the server since the last call, as [method, id]."""
    requests_url = url.replace("/mcp", "/requests")
    seen = httpx2.get(requests_url).json()
    httpx2.delete(requests_url)
    return seen


def lists(seen: list[list[Any]]) -> list[Any]:
    return [request_id for method, request_id in seen if method == "tools/list"]


async def open_and_list(transport: Any, **options: Any) -> tuple[str | None, list[dict[str, Any]]]:
    async with Client(transport, cache=None, **options) as client:
        result = await client.list_tools()
        return client.session.protocol_version, [tool.model_dump() for tool in result.tools]


@pytest.fixture(scope="module")
def baseline(url):
    """The list without the prefetch: what every opening below must give."""
    version, tools = anyio.run(lambda: open_and_list(streamable_http_client(url, prefetch_tools_list=False)))
    assert version == "2026-07-28" and lists(reached(url)) == [2]  # the SDK's own, numbered
    return tools


@pytest.mark.parametrize("wire", ["auto", "json"])
def test_the_sdk_list_is_answered_from_the_prefetch_with_one_tools_list_at_the_server(url, baseline, connect, wire):
    reached(url)
    version, tools = anyio.run(lambda: open_and_list(connect(url, wire=wire)))
    assert version == "2026-07-28" and tools == baseline
    seen = reached(url)
    # The discover and the prefetch leave side by side (either may reach the server first).
    assert sorted(method for method, _ in seen) == ["server/discover", "tools/list"] and lists(seen) == [PREFETCH_ID]


def test_off_by_default_with_a_client_of_the_callers(url, baseline, connect):
    reached(url)

    async def run() -> list[dict[str, Any]]:
        http, _ = recording_client()
        async with http:
            return (await open_and_list(connect(url, http_client=http)))[1]

    assert anyio.run(run) == baseline
    assert lists(reached(url)) == [2]


class Faulty(httpx2.AsyncBaseTransport):
    """Forwards every request but the prefetch, which gets `fault` instead of reaching the server. The others
    wait until the prefetch was answered, so its answer is read before the server's first reply is: before the
    client knows the server speaks msgpack-v1 (a JSON reply is then no answer to a MessagePack body)."""

    def __init__(self, fault: str) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.fault = fault
        self.prefetches = 0
        self.later_types: list[str | None] = []
        self.answered = anyio.Event()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        if PREFETCH_MARK not in body:
            await self.answered.wait()
            if self.prefetches:
                self.later_types.append(request.headers.get("content-type"))
            return await self.inner.handle_async_request(request)
        self.prefetches += 1
        try:
            return self.faulty(request)
        finally:
            self.answered.set()

    def faulty(self, request: httpx2.Request) -> httpx2.Response:
        if self.fault == "network":
            raise httpx2.ConnectError("refused", request=request)
        if self.fault == "error reply":
            error = {"jsonrpc": "2.0", "id": PREFETCH_ID, "error": {"code": -32603, "message": "no"}}
            return httpx2.Response(200, content=msgpack.packb(error), headers={"content-type": "application/msgpack"})
        if self.fault == "wrong id":
            reply = {"jsonrpc": "2.0", "id": "other", "result": {"tools": []}}
            return httpx2.Response(200, content=msgpack.packb(reply), headers={"content-type": "application/msgpack"})
        if self.fault == "json reply":  # a JSON-only server's answer to bytes it could not read as MessagePack
            return httpx2.Response(200, json={"jsonrpc": "2.0", "id": PREFETCH_ID, "result": {"tools": []}})
        status = {"415": 415, "500": 500, "202": 202}[self.fault]
        return httpx2.Response(status, json={"error": "refused"})

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.mark.parametrize("fault", ["network", "error reply", "wrong id", "json reply", "415", "500", "202"])
def test_a_failed_prefetch_falls_back_silently_to_the_sdk_list(url, baseline, connect, fault):
    reached(url)
    faulty = Faulty(fault)

    async def run() -> tuple[str | None, list[dict[str, Any]]]:
        async with httpx2.AsyncClient(transport=faulty) as http:
            return await open_and_list(connect(url, http_client=http, prefetch_tools_list=True))

    version, tools = anyio.run(run)
    assert faulty.prefetches == 1 and version == "2026-07-28" and tools == baseline
    assert lists(reached(url)) == [2]  # only the SDK's own reached the server
    # The prefetch taught the transport nothing: a 415 to it did not move the wire to JSON.
    assert faulty.later_types and all(t == "application/msgpack" for t in faulty.later_types)


def test_used_once_and_only_for_a_plain_list(url, baseline, connect):
    reached(url)

    async def run() -> list[list[dict[str, Any]]]:
        async with Client(connect(url), cache=None) as client:
            other_meta = await client.list_tools(meta={"example.com/trace": "1"})
            first = await client.list_tools()
            second = await client.list_tools()
            return [[t.model_dump() for t in r.tools] for r in (other_meta, first, second)]

    assert anyio.run(run) == [baseline] * 3
    # The prefetch, then the one with other _meta and the second plain list: the first plain one used it.
    assert lists(reached(url)) == [PREFETCH_ID, 2, 4]


def test_2025_11_25_is_unchanged(url, baseline, connect):
    reached(url)
    version, tools = anyio.run(lambda: open_and_list(connect(url), mode="legacy"))
    assert version == "2025-11-25" and tools == baseline
    seen = reached(url)
    assert seen[0][0] == "initialize" and len(lists(seen)) == 1 and PREFETCH_ID not in lists(seen)


def test_a_2025_era_json_server_is_served_as_before(connect):
    """The TS SDK's own server (JSON, 2025 only): its refusal of the discover makes the SDK initialize; the
    prefetch fails with it, unseen."""

    async def run(served: str) -> tuple[str | None, list[dict[str, Any]]]:
        return await open_and_list(connect(served))

    with ts_sdk_server() as served:
        version, tools = anyio.run(run, served)
    assert version == "2025-11-25" and [tool["name"] for tool in tools] == ["echo"]


def test_our_ts_server_gets_one_tools_list(tmp_path, connect):
    """The TS media server on 2026-07-28: counted at the client's HTTP layer (the TS server keeps no count)."""
    write_image(tmp_path)

    async def run(served: str, prefetch: bool) -> tuple[list[dict[str, Any]], list[bytes]]:
        http, recorder = recording_client()
        async with http:
            _, tools = await open_and_list(connect(served, http_client=http, prefetch_tools_list=prefetch))
        bodies = [e["request_body"] for e in recorder.exchanges if e["method"] == "POST"]
        return tools, [b for b in bodies if b"tools/list" in b]

    with media_server(tmp_path) as served:
        without, without_lists = anyio.run(run, served, False)
        with_prefetch, prefetch_lists = anyio.run(run, served, True)
    assert with_prefetch == without and len(without_lists) == 1 and PREFETCH_MARK not in without_lists[0]
    assert len(prefetch_lists) == 1 and PREFETCH_MARK in prefetch_lists[0]


# --- the prefetch's rules on their own (no server): fresh, once, dropped by list_changed or initialize ---------

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
HEADERS = {"mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"}


def _sent(method: str, request_id: Any, params: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """A request as the transports show it to the prefetch: the message as a dict, the SDK's stamped headers."""
    params = {"_meta": dict(ENVELOPE)} if params is None else params
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}, {**HEADERS, "mcp-method": method, **(headers or {})}


async def _prefetched(steps: Any, fresh_seconds: float = 10.0) -> tuple[list[Any], list[dict[str, str]]]:
    """Runs `steps(prefetch)` after a discover started a prefetch whose post answers one result; gives the
    answers `steps` collected and the headers the prefetch went with."""
    from mcp_msgpack.client.tools_list_prefetch import ToolsListPrefetch

    posted: list[dict[str, str]] = []

    async def post(request: dict[str, Any], headers: dict[str, str]) -> list[Any]:
        posted.append(headers)
        return [{"jsonrpc": "2.0", "id": request["id"], "result": {"tools": [{"name": "t"}]}}]

    prefetch = ToolsListPrefetch(True, fresh_seconds)
    async with anyio.create_task_group() as tasks:
        request = prefetch.prefetch_for(*_sent("server/discover", 1))
        assert request is not None and request["id"] == PREFETCH_ID and request["params"] == {"_meta": ENVELOPE}
        prefetch.start(request, post, tasks)
        answers = await steps(prefetch)
    return answers, posted


def test_the_kept_result_answers_the_first_plain_list_once_under_its_id():
    async def steps(prefetch: Any) -> list[Any]:
        return [await prefetch.answer(*_sent("tools/list", 2)), await prefetch.answer(*_sent("tools/list", 3))]

    (first, second), posted = anyio.run(_prefetched, steps)
    assert first == {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "t"}]}} and second is None
    assert posted == [{**HEADERS, "mcp-method": "tools/list"}]


@pytest.mark.parametrize(
    "other",
    [
        _sent("tools/list", 2, {"cursor": "c", "_meta": dict(ENVELOPE)}),
        _sent("tools/list", 2, {"_meta": {**ENVELOPE, "io.modelcontextprotocol/logLevel": "info"}}),
        _sent("tools/list", 2, headers={"x-extra": "1"}),
        _sent("prompts/list", 2),
    ],
    ids=["cursor", "other meta", "other headers", "other method"],
)
def test_any_other_request_is_not_answered_and_leaves_the_result_kept(other):
    async def steps(prefetch: Any) -> list[Any]:
        return [await prefetch.answer(*other), await prefetch.answer(*_sent("tools/list", 3))]

    (answer, kept), _ = anyio.run(_prefetched, steps)
    assert answer is None and kept["id"] == 3


def test_a_resumed_list_is_not_answered():
    async def steps(prefetch: Any) -> list[Any]:
        return [await prefetch.answer(*_sent("tools/list", 2), "event-7")]

    assert anyio.run(_prefetched, steps)[0] == [None]


def test_stale_list_changed_and_initialize_each_drop_it():
    async def stale(prefetch: Any) -> list[Any]:
        return [await prefetch.answer(*_sent("tools/list", 2))]

    async def changed(prefetch: Any) -> list[Any]:
        prefetch.saw({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return [await prefetch.answer(*_sent("tools/list", 2))]

    async def initialize(prefetch: Any) -> list[Any]:
        prefetch.prefetch_for(*_sent("initialize", 2, {}))
        return [await prefetch.answer(*_sent("tools/list", 3))]

    assert anyio.run(_prefetched, stale, -1.0)[0] == [None]
    assert anyio.run(_prefetched, changed)[0] == [None]
    assert anyio.run(_prefetched, initialize)[0] == [None]


def test_only_a_first_2026_discover_starts_one():
    from mcp_msgpack.client.tools_list_prefetch import ToolsListPrefetch

    legacy, old_discover, off, later = (ToolsListPrefetch(True), ToolsListPrefetch(True), ToolsListPrefetch(False), ToolsListPrefetch(True))
    later.prefetch_for(*_sent("tools/list", 1))
    assert [
        legacy.prefetch_for(*_sent("initialize", 1, {})),
        old_discover.prefetch_for(*_sent("server/discover", 1, {"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25"}})),
        off.prefetch_for(*_sent("server/discover", 1)),
        later.prefetch_for(*_sent("server/discover", 2)),
    ] == [None, None, None, None]
