"""Issue 39 item 1: a tool's `native_image` reaches every client on every HTTP path as the file's bytes (bin
with native bytes in force, standard base64 otherwise), never as a placeholder, and nothing stays held in the
server process after replies written, held, streamed, stored or dropped."""

from __future__ import annotations

import base64
import json

import anyio
import httpx2
import msgpack
import pytest
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client as sdk_streamable_http_client

from http_peers import python_server, recording_client, write_image
from mcp_msgpack import call_tool_native
from mcp_msgpack.client.streamable_http import streamable_http_client
from mcp_msgpack.wire import FrameReader

pytestmark = pytest.mark.timeout(180)

ANY = "application/msgpack;replies=any, application/vnd.mcp-msgpack.stream, application/json, text/event-stream"


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    return write_image(tmp_path_factory.mktemp("native-media"))


@pytest.fixture(scope="module")
def url(image):
    with python_server(image[0]) as address:
        yield address


@pytest.fixture(scope="module")
def stored_url(image):
    """Our app with an event store: every reply a stream (reply_streams 'always'), each message stored."""
    with python_server(image[0], "--event-store") as address:
        yield address


def _check(result, data: bytes) -> None:
    assert result.is_error is not True
    block = result.content[-1]
    assert block.type == "image" and block.mime_type == "image/png"
    assert isinstance(block.data, str) and base64.b64decode(block.data, validate=True) == data


async def _stock_client(address: str, tool: str, arguments: dict):
    """The SDK's `Client(url)`, as a user writes it: 2026-07-28 in its default auto mode."""
    async with Client(address) as client:
        return await client.call_tool(tool, arguments)


async def _session(address: str, transport_factory, tool: str, arguments: dict, *, native_call: bool = False):
    http, recorder = recording_client()
    async with http, transport_factory(address, http) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        if native_call:
            result = await call_tool_native(session, tool, arguments)
        else:
            result = await session.call_tool(tool, arguments)
    call = next(e for e in recorder.exchanges if e["method"] == "POST" and tool.encode() in e["request_body"])
    return result, call


SDK = lambda a, h: sdk_streamable_http_client(a, http_client=h, max_sse_event_size=None)  # noqa: E731
OURS = lambda a, h: streamable_http_client(a, http_client=h)  # noqa: E731
OURS_JSON = lambda a, h: streamable_http_client(a, wire="json", http_client=h)  # noqa: E731
OURS_NATIVE = lambda a, h: streamable_http_client(a, native_bytes=True, http_client=h)  # noqa: E731


@pytest.mark.parametrize("tool", ["read_image_native", "read_image_native_later"])
def test_the_stock_client_gets_the_image(url, image, tool):
    _check(anyio.run(_stock_client, url, tool, {}), image[1])


@pytest.mark.parametrize("tool", ["read_image_native", "read_image_native_later"], ids=["one-body", "stream"])
@pytest.mark.parametrize("factory", [SDK, OURS, OURS_JSON, OURS_NATIVE], ids=["sdk", "ours", "ours-json", "ours-native"])
def test_every_session_client_gets_the_image(url, image, factory, tool):
    _, data = image
    result, call = anyio.run(_session, url, factory, tool, {})
    _check(result, data)
    if factory is OURS_NATIVE:
        assert bytes(data[:4096]) in call["body"]  # bin on the wire
    else:
        assert base64.b64encode(data)[:4096] in call["body"]  # standard base64 on the wire


def test_call_tool_native_gets_the_bytes(url, image):
    for factory in (OURS, OURS_NATIVE, SDK):
        result, _ = anyio.run(lambda: _session(url, factory, "read_image_native", {}, native_call=True))
        assert result.content[0].data == image[1]


@pytest.mark.parametrize("factory", [SDK, OURS_NATIVE], ids=["sdk-sse", "ours-frames"])
def test_stored_streams_carry_the_image(stored_url, image, factory):
    result, call = anyio.run(_session, stored_url, factory, "read_image_native_later", {})
    _check(result, image[1])


def _frames(body: bytes) -> list[dict]:
    reader = FrameReader(1 << 26)
    values = [msgpack.unpackb(p) for p in reader.feed(body)]
    reader.close()
    return values


def test_a_stored_reply_replayed_carries_the_image(stored_url, image):
    """Resumption (SPEC 9.3): the stored events after the priming id, replayed on a GET frame stream."""
    _, data = image
    post = lambda message, headers: httpx2.post(  # noqa: E731
        stored_url, content=msgpack.packb(message), headers={"accept": ANY, "content-type": "application/msgpack", **headers}, timeout=60
    )
    first = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}, {})
    headers = {"mcp-session-id": first.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    assert post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers).status_code == 202
    streamed = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read_image_native", "arguments": {}}}, headers)
    frames = _frames(streamed.content)
    prime = frames[0]["prime"]
    answered = [f for f in frames if f.get("id") == 2][0]
    assert base64.b64decode(answered["result"]["content"][0]["data"]) == data

    async def replay() -> list[dict]:
        async with httpx2.AsyncClient(timeout=60) as http:
            got = bytearray()
            request_headers = {"accept": "application/vnd.mcp-msgpack.stream", "last-event-id": str(prime), **headers}
            async with http.stream("GET", stored_url, headers=request_headers) as response:
                assert response.status_code == 200
                async for chunk in response.aiter_bytes():
                    got += chunk
                    values = [v for v in _frames_partial(got) if v.get("id") == 2]
                    if values:
                        return values
        return []

    replayed = anyio.run(replay)
    assert base64.b64decode(replayed[0]["result"]["content"][0]["data"]) == data


def _frames_partial(data: bytes) -> list[dict]:
    reader = FrameReader(1 << 26)
    return [msgpack.unpackb(p) for p in reader.feed(bytes(data))]


def _held_media(address: str) -> int:
    async def ask() -> int:
        async with Client(address) as client:
            return int((await client.call_tool("held_media", {})).content[0].text)

    return anyio.run(ask)


@pytest.mark.parametrize("native", [False, True], ids=["base64", "native-bytes"])
def test_dropped_held_replies_keep_nothing(url, native):
    """Rounds of clients that leave while a `native_image` reply is held: nothing stays set aside (with native
    bytes in force the bytes are held for the reply, shared/held_media.py, and released when it is dropped)."""
    from mcp_msgpack.shared.extension import announce

    capabilities = announce({}) if native else {}
    first = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}}}

    async def leave_while_held(count: int) -> None:
        async with httpx2.AsyncClient(timeout=30) as http:
            base = {"accept": ANY, "content-type": "application/msgpack"}
            opened = await http.post(url, content=msgpack.packb(first), headers=base)
            headers = {**base, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
            await http.post(url, content=msgpack.packb({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers=headers)

            async def one(request_id: int) -> None:
                call = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                        "params": {"name": "read_image_native_slow", "arguments": {"seconds": 0.5}}}
                with anyio.move_on_after(0.1):
                    await http.post(url, content=msgpack.packb(call), headers=headers)

            async with anyio.create_task_group() as tasks:
                for request_id in range(count):
                    tasks.start_soon(one, 10 + request_id)
        await anyio.sleep(1.5)  # every tool has answered by now (its answer dropped)

    counts = []
    for _ in range(3):
        anyio.run(leave_while_held, 10)
        counts.append(_held_media(url))
    assert counts == [0, 0, 0]
    json.dumps(counts)
