"""The HTTP client's opening, as the TS client's (issue 39 item 2): `notifications/initialized` to a msgpack-v1
server is posted without waiting for its 202, so the session's first request leaves beside it (two round trips,
not three); a request the server refuses as `not-initialized` (SPEC 9.4) goes again once, after the notification
was accepted. A JSON-only server keeps the SDK's order. The server here is a scripted one on the HTTP library's
MockTransport, which records what arrived and what it answered, in order. Both clients: the mcp 2.3 one
(`client/streamable_http.py`, skipped on older SDKs) and the one of older SDK lines
(`client/streamable_http_httpx.py`, on every line: scripts/test-python-sdks.sh runs this file)."""

from __future__ import annotations

import importlib
import json
from typing import Any

import anyio
import pytest
from mcp import ClientSession

from mcp_msgpack.client import streamable_http_httpx
from mcp_msgpack.shared import http_media_types as media_types
from mcp_msgpack.shared.sdk_compat import HTTP_UNAVAILABLE
from mcp_msgpack.shared.http_codec import decode_msgpack, encode_msgpack
from mcp_msgpack.wire import ReceiveLimits

pytestmark = pytest.mark.timeout(60)

httpx: Any = streamable_http_httpx.httpx  # the installed SDK's HTTP library (httpx2 on 2.3, httpx before)


@pytest.fixture(params=["2.3", "older-sdks"])
def client_module(request):
    """The client under test: its `streamable_http_client`."""
    if request.param == "2.3":
        if HTTP_UNAVAILABLE is not None:
            pytest.skip(f"the mcp 2.3 client needs its internals: {HTTP_UNAVAILABLE}")
        return importlib.import_module("mcp_msgpack.client.streamable_http")
    return streamable_http_httpx

INITIALIZE_RESULT = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "scripted", "version": "1"}}


class ScriptedServer:
    """A msgpack-v1 (or JSON-only) endpoint that never waits for the notification: a request before it is 400
    `not-initialized`. With `hold_notification`, its 202 is held until a request was refused, which a client
    that awaits the 202 first never lets happen (it would hang: the test's deadline fails it)."""

    def __init__(self, *, msgpack: bool, hold_notification: bool) -> None:
        self.msgpack = msgpack
        self.hold_notification = hold_notification
        self.events: list[tuple[str, str, int | None]] = []  # ("arrived" | "answered", method, status)
        self.initialized = False
        self.refused = anyio.Event()

    def body(self, value: dict) -> tuple[bytes, dict[str, str]]:
        if self.msgpack:
            return encode_msgpack(value, native=False), {"content-type": media_types.MSGPACK, media_types.WIRE_HEADER: "msgpack-v1"}
        return json.dumps(value).encode(), {"content-type": "application/json"}

    async def handle(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST":
            return httpx.Response(405 if request.method == "GET" else 200)
        content = await request.aread()
        if request.headers.get("content-type", "").startswith("application/json"):
            message = json.loads(content)
        else:
            if not self.msgpack:
                return httpx.Response(415)
            message = decode_msgpack(content, ReceiveLimits(), native=False)
        method = message.get("method", "response")
        self.events.append(("arrived", method, None))
        status, value = 202, None
        if method == "initialize":
            status, value = 200, {"jsonrpc": "2.0", "id": message["id"], "result": INITIALIZE_RESULT}
        elif method == "notifications/initialized":
            if self.hold_notification:
                await self.refused.wait()
            self.initialized = True
        elif "id" in message and not self.initialized:
            error = {"code": -32000, "message": "Bad Request: notifications/initialized not received", "data": {"reason": "not-initialized"}}
            status, value = 400, {"jsonrpc": "2.0", "id": message["id"], "error": error}
            self.refused.set()
        elif method == "tools/list":
            status, value = 200, {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}
        self.events.append(("answered", method, status))
        headers = {"mcp-session-id": "s1"}
        if value is None:
            return httpx.Response(status, headers=headers)
        body, more = self.body(value)
        return httpx.Response(status, headers=headers | more, content=body)


async def _open_and_list(client_module: Any, server: ScriptedServer) -> int:
    http = httpx.AsyncClient(transport=httpx.MockTransport(server.handle))
    with anyio.fail_after(20):
        async with http, client_module.streamable_http_client("http://127.0.0.1:9/mcp", http_client=http) as streams:
            read, write = streams[0], streams[1]  # 1.x also yields get_session_id
            async with ClientSession(read, write) as session:
                await session.initialize()
                return len((await session.list_tools()).tools)


def test_the_first_request_leaves_beside_the_notification_and_a_refusal_is_retried_once(client_module):
    server = ScriptedServer(msgpack=True, hold_notification=True)
    assert anyio.run(_open_and_list, client_module, server) == 0
    answered = [(method, status) for kind, method, status in server.events if kind == "answered"]
    # The request was refused while the notification's 202 was still held, then sent again after it.
    assert answered == [
        ("initialize", 200), ("tools/list", 400), ("notifications/initialized", 202), ("tools/list", 200),
    ]
    arrived = [method for kind, method, _ in server.events if kind == "arrived"]
    assert arrived.count("tools/list") == 2  # retried once, no more


def test_a_request_refused_twice_is_answered_with_the_refusal(client_module):
    """The retry is once: a server that still refuses after the 202 gives the caller its error."""

    class StillRefusing(ScriptedServer):
        async def handle(self, request: httpx.Request) -> httpx.Response:
            response = await super().handle(request)
            self.initialized = False  # forgets the notification: every request is refused
            return response

    server = StillRefusing(msgpack=True, hold_notification=False)

    async def run() -> str:
        try:
            await _open_and_list(client_module, server)
        except Exception as exc:  # the SDK raises the server's JSON-RPC error (in the transport's task group)
            while len(getattr(exc, "exceptions", ())) == 1:  # an exception group of one
                exc = exc.exceptions[0]  # type: ignore[attr-defined]
            return str(exc)
        return "no error"

    assert "notifications/initialized not received" in anyio.run(run)
    arrived = [method for kind, method, _ in server.events if kind == "arrived"]
    assert arrived.count("tools/list") == 2


def test_a_json_only_server_gets_the_sdks_order(client_module):
    """A server that answers in JSON is not known to wait for the notification: its 202 is awaited first,
    as the SDK's own client does, so the request is never refused."""
    server = ScriptedServer(msgpack=False, hold_notification=False)
    assert anyio.run(_open_and_list, client_module, server) == 0
    answered = [(method, status) for kind, method, status in server.events if kind == "answered" and status != 415]
    assert answered == [("initialize", 200), ("notifications/initialized", 202), ("tools/list", 200)]
