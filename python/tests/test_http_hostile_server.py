"""Our HTTP client against a hostile server (SPEC 5, 9.4): a frame stream cut mid-frame, a header over the cap,
a refused frame, a bin nobody negotiated. Each loses what it must and no more; no call waits for a timeout."""

from __future__ import annotations

import struct
import threading
import time

import anyio
import msgpack
import pytest
import uvicorn
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from http_peers import free_port
from mcp_msgpack.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.timeout(60)

SCENARIO = {"name": "good"}


def _frame(value: object) -> bytes:
    payload = value if isinstance(value, bytes) else msgpack.packb(value)
    return struct.pack(">I", len(payload)) + payload


def _tools_result(request_id: object) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": {"tools": []}}


def _stream_body(request_id: object) -> bytes:
    name = SCENARIO["name"]
    if name == "truncated":
        return struct.pack(">I", 100) + b"\x84" * 10
    if name == "too-large":
        return struct.pack(">I", 0xFFFFFFF0) + b"\x80"
    if name == "refused-then-good":
        # A notification holding an ext type (refused, 4.1.3; it has no id to answer), then the real reply.
        bad = msgpack.packb({"jsonrpc": "2.0", "method": "notifications/message"})[:-1] + b"\xd4\x01\x00"
        return _frame(bad) + _frame(_tools_result(request_id))
    if name == "bin-not-negotiated":
        return _frame({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [], "x": b"\x00"}})
    return _frame(_tools_result(request_id))


async def hostile_app(scope, receive, send):
    if scope["type"] != "http":
        return
    if scope["method"] != "POST":
        await send({"type": "http.response.start", "status": 405, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    request = msgpack.unpackb(body)
    if "id" not in request:
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    if request["method"] == "initialize":
        reply = {"jsonrpc": "2.0", "id": request["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"},
        }}
        # The IANA name, which other MessagePack stacks send: read as application/msgpack (SPEC 9.1).
        headers = [(b"content-type", b"application/vnd.msgpack"), (b"mcp-session-id", b"s1")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": msgpack.packb(reply)})
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/vnd.mcp-msgpack.stream")]})
    await send({"type": "http.response.body", "body": _stream_body(request["id"])})


@pytest.fixture(scope="module")
def url():
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(hostile_app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(10)


async def _list_tools(url: str):
    async with streamable_http_client(url, terminate_on_close=False) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        try:
            return await session.list_tools()
        except MCPError as error:  # returned, not raised: the task groups around would wrap it
            return error


def _run(url: str, scenario: str):
    SCENARIO["name"] = scenario
    start = time.monotonic()
    try:
        return anyio.run(_list_tools, url), time.monotonic() - start
    finally:
        SCENARIO["name"] = "good"


def test_a_refused_frame_loses_only_itself(url):
    result, _ = _run(url, "refused-then-good")
    assert result.tools == []


@pytest.mark.parametrize("scenario", ["truncated", "too-large"])
def test_a_broken_stream_fails_the_call_at_once(url, scenario):
    failure, elapsed = _run(url, scenario)
    assert isinstance(failure, MCPError) and "frame stream ended" in str(failure)
    assert elapsed < 10  # not a read timeout: the stream's end fails the call


def test_an_unnegotiated_bin_fails_the_call_by_its_id(url):
    failure, _ = _run(url, "bin-not-negotiated")
    assert isinstance(failure, MCPError)
    assert failure.error.code == -32700 and failure.error.data == {"reason": "forbidden-type"}
