"""Our Python client against the TS media server over Streamable HTTP (SPEC 9): MessagePack and native bytes
checked on the bytes that crossed the wire, JSON when asked."""

from __future__ import annotations

import base64
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession

from http_peers import IMAGE_BYTES, free_port, media_server, recording_client, running, write_image
from mcp_msgpack import call_tool_native
from mcp_msgpack.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    folder = tmp_path_factory.mktemp("media")
    path, data = write_image(folder)
    with media_server(folder) as url:
        yield url, path, data


async def _read_image(url: str, path, *, native: bool, wire: str = "auto"):
    client, recorder = recording_client()
    async with client, streamable_http_client(url, native_bytes=native, wire=wire, http_client=client, max_sse_event_size=None) as (r, w):
        async with ClientSession(r, w) as session:
            await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool("read_media_file", {"path": str(path)})
    return tools, result, recorder.exchanges


def _call_exchange(exchanges):
    return next(e for e in exchanges if e["method"] == "POST" and b"read_media_file" in e["request_body"])


def test_native_bytes_image_intact_and_raw_on_the_wire(media):
    url, path, data = media
    tools, result, exchanges = anyio.run(lambda: _read_image(url, path, native=True))
    assert "read_media_file" in {tool.name for tool in tools.tools}
    assert base64.b64decode(result.content[0].data) == data
    call = _call_exchange(exchanges)
    assert call["request_type"] == "application/msgpack"
    assert call["type"].split(";")[0] in ("application/msgpack", "application/vnd.mcp-msgpack.stream")
    # The image's bytes are in the body as they are (bin), not as base64: about 1.0x the file, not 1.33x.
    assert bytes(data[:4096]) in call["body"] and bytes(data[-4096:]) in call["body"]
    assert IMAGE_BYTES <= len(call["body"]) < IMAGE_BYTES * 1.01
    initialize = exchanges[0]
    assert b"io.github.mcp-msgpack/native-bytes" in initialize["request_body"]


def test_messagepack_without_native_bytes_carries_base64(media):
    url, path, data = media
    _, result, exchanges = anyio.run(lambda: _read_image(url, path, native=False))
    assert base64.b64decode(result.content[0].data) == data
    call = _call_exchange(exchanges)
    assert call["request_type"] == "application/msgpack"
    assert bytes(data[:4096]) not in call["body"]
    assert base64.b64encode(data)[:4096] in call["body"]


def test_json_wire_is_the_sdk_transport(media):
    url, path, data = media
    _, result, exchanges = anyio.run(lambda: _read_image(url, path, native=True, wire="json"))
    assert base64.b64decode(result.content[0].data) == data
    assert all(e["request_type"] in (None, "application/json") for e in exchanges)
    assert all("msgpack" not in (e["type"] or "") for e in exchanges)
    assert b"native-bytes" not in exchanges[0]["request_body"]  # never offered on JSON (SPEC 8.1 rule 1)


def test_call_tool_native_hands_over_bytes(media):
    url, path, data = media

    async def call():
        async with streamable_http_client(url, native_bytes=True) as (r, w), ClientSession(r, w) as session:
            await session.initialize()
            native = await call_tool_native(session, "read_media_file", {"path": str(path)})
            plain = await session.call_tool("read_media_file", {"path": str(path)})
        return native, plain

    native, plain = anyio.run(call)
    assert isinstance(native.content[0].data, bytes) and native.content[0].data == data
    assert base64.b64decode(plain.content[0].data) == data  # other calls on the session still get base64


def test_our_client_falls_back_to_json_on_the_ts_sdk_stock_server():
    port = free_port()
    script = Path(__file__).parent / "ts" / "sdk_server.mjs"

    async def call(url):
        client, recorder = recording_client()
        async with client, streamable_http_client(url, native_bytes=True, http_client=client) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                echoed = (await session.call_tool("echo", {"text": "héllo"})).content[0].text
        return echoed, recorder.exchanges

    with running(["node", str(script), str(port)], port) as url:
        echoed, exchanges = anyio.run(call, url)
    assert echoed == "héllo"
    posts = [e for e in exchanges if e["method"] == "POST"]
    assert posts[0]["request_type"] == "application/msgpack" and posts[0]["status"] == 415
    assert all(e["request_type"] == "application/json" for e in posts[1:])


def test_the_stock_python_sdk_client_reads_a_5_mib_image_from_the_ts_media_server(media):
    """The SDK's own streamable_http_client on its defaults: its SSE reader refuses an event over 1 MiB
    (max_sse_event_size), so a tool result that is the reply's only message must come as one JSON body
    (SPEC 9.6.2), which it reads whatever its size."""
    from mcp.client.streamable_http import streamable_http_client as sdk_streamable_http_client

    url, path, data = media

    async def call():
        # Bounded: on a stream the SDK's reader fails the event and the call would wait for its timeout.
        with anyio.fail_after(60):
            async with sdk_streamable_http_client(url) as (r, w), ClientSession(r, w) as session:
                await session.initialize()
                return await session.call_tool("read_media_file", {"path": str(path)})

    result = anyio.run(call)
    assert not result.is_error, result.content
    assert base64.b64decode(result.content[0].data) == data
