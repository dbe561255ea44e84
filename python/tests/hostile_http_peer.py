"""A hostile Streamable HTTP server for the client tests (SPEC 5, 9.4): it answers `initialize` in MessagePack
and every other request with the frame stream `SCENARIO["name"]` names (cut mid-frame, a header over the cap, a
refused frame then the reply, a bin nobody negotiated, or a good one). Used against both HTTP clients
(test_http_hostile_server.py on mcp 2.3, test_older_sdk_http_client.py on every line)."""

from __future__ import annotations

import contextlib
import struct
import threading
import time
from collections.abc import Iterator

import msgpack
import uvicorn

from http_peers import free_port

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



@contextlib.contextmanager
def hostile_server() -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(hostile_app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)
