"""Our Streamable HTTP client of the SDK lines without mcp 2.3's internals (`client/streamable_http_httpx.py`,
which the public `mcp_msgpack.streamable_http_client` is on mcp 1.24-1.x and 2.0-2.2), against the TS media
server on msgpack-v1 with native bytes and against the TS SDK's stock (JSON-only) server, checked on the bytes
that crossed the wire. Run on those lines by scripts/test-python-sdks.sh; on mcp 2.3+, where the package picks
`client/streamable_http.py` (test_http_client.py), this module is still tested here on httpx2, so that a change
to what both share is caught by the main suite too."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anyio
import pytest
import mcp.shared.exceptions as mcp_exceptions
from mcp.client.session import ClientSession

from hostile_http_peer import SCENARIO, hostile_server
from http_peers import IMAGE_BYTES, free_port, media_server, recording_client, running, ts_sdk_server, write_image
import mcp_msgpack
from mcp_msgpack import call_tool_native
from mcp_msgpack.client import streamable_http_httpx
from mcp_msgpack.client.streamable_http_httpx import streamable_http_client
from mcp_msgpack.shared.sdk_compat import HTTP_UNAVAILABLE, WRAPPED_MESSAGES

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    folder = tmp_path_factory.mktemp("media")
    path, data = write_image(folder)
    with media_server(folder) as url:
        yield url, path, data


def _session(streams: Any) -> ClientSession:
    return ClientSession(streams[0], streams[1])


async def _read_image(url: str, path: Path, *, native: bool, wire: str = "auto"):
    client, recorder = recording_client()
    async with client, streamable_http_client(url, native_bytes=native, wire=wire, http_client=client) as streams:
        async with _session(streams) as session:
            await session.initialize()
            tools = await session.list_tools()
            native_result = await call_tool_native(session, "read_media_file", {"path": str(path)})
            result = await session.call_tool("read_media_file", {"path": str(path)})
    return tools, native_result, result, recorder.exchanges


def _call_exchanges(exchanges):
    return [e for e in exchanges if e["method"] == "POST" and b"read_media_file" in e["request_body"]]


def test_the_public_entry_picks_this_module_before_mcp_2_3_and_it_yields_the_sdks_shape():
    picked = mcp_msgpack.streamable_http_client.__module__
    assert picked == ("mcp_msgpack.client.streamable_http" if HTTP_UNAVAILABLE is None else streamable_http_httpx.__name__)

    async def shape(url: str) -> int:
        async with streamable_http_client(url, terminate_on_close=False) as streams:
            return len(streams)

    # Nothing listens on the port: the shape is yielded before any request is made.
    assert anyio.run(shape, f"http://127.0.0.1:{free_port()}/mcp") == (3 if WRAPPED_MESSAGES else 2)


def test_native_bytes_image_intact_and_raw_on_the_wire(media):
    url, path, data = media
    tools, native, plain, exchanges = anyio.run(lambda: _read_image(url, path, native=True))
    assert "read_media_file" in {tool.name for tool in tools.tools}
    assert isinstance(native.content[0].data, bytes) and native.content[0].data == data
    assert base64.b64decode(plain.content[0].data) == data  # a plain call_tool still gets the SDK's base64
    initialize = exchanges[0]
    assert initialize["request_type"] == "application/msgpack"
    assert b"io.github.mcp-msgpack/native-bytes" in initialize["request_body"]
    for call in _call_exchanges(exchanges):
        assert call["request_type"] == "application/msgpack"
        assert call["type"].split(";")[0] in ("application/msgpack", "application/vnd.mcp-msgpack.stream")
        assert b"mcp-msgpack/native-result" not in call["request_body"]  # the private marker never leaves
        # The image's bytes are in the body as they are (bin), not as base64: about 1.0x the file, not 1.33x.
        assert bytes(data[:4096]) in call["body"] and bytes(data[-4096:]) in call["body"]
        assert IMAGE_BYTES <= len(call["body"]) < IMAGE_BYTES * 1.01


def test_messagepack_without_native_bytes_carries_base64(media):
    url, path, data = media
    _, native, _, exchanges = anyio.run(lambda: _read_image(url, path, native=False))
    assert native.content[0].data == data
    call = _call_exchanges(exchanges)[0]
    assert call["request_type"] == "application/msgpack"
    assert bytes(data[:4096]) not in call["body"]
    assert base64.b64encode(data)[:4096] in call["body"]


def test_json_wire_speaks_only_json(media):
    url, path, data = media
    _, native, plain, exchanges = anyio.run(lambda: _read_image(url, path, native=True, wire="json"))
    assert native.content[0].data == data and base64.b64decode(plain.content[0].data) == data
    assert all(e["request_type"] in (None, "application/json") for e in exchanges)
    assert all("msgpack" not in (e["type"] or "") for e in exchanges)
    assert b"native-bytes" not in exchanges[0]["request_body"]  # never offered on JSON (SPEC 8.1 rule 1)


@pytest.mark.skipif(WRAPPED_MESSAGES, reason="mcp 1.x speaks the revisions through 2025-11-25 only")
def test_2026_07_28_through_the_sdks_client_on_msgpack_with_native_bytes(media):
    """mcp 2.0-2.2's `Client` in its default mode discovers 2026-07-28 (stateless): the offer then rides in each
    request's client capabilities (SPEC 8.1 rule 4), and the image still crosses as bin."""
    from mcp import Client

    url, path, data = media

    async def call():
        http, recorder = recording_client()
        async with http, Client(streamable_http_client(url, native_bytes=True, http_client=http)) as client:
            version = client.session.protocol_version
            result = await call_tool_native(client, "read_media_file", {"path": str(path)})
        return version, result, recorder.exchanges

    version, result, exchanges = anyio.run(call)
    assert version == "2026-07-28"
    assert result.content[0].data == data
    assert not any(b"initialize" in e["request_body"] for e in exchanges)  # no session handshake on this revision
    call = _call_exchanges(exchanges)[0]
    assert call["request_type"] == "application/msgpack" and b"io.github.mcp-msgpack/native-bytes" in call["request_body"]
    assert bytes(data[:4096]) in call["body"] and IMAGE_BYTES <= len(call["body"]) < IMAGE_BYTES * 1.01


async def _call(url: str, tool: str, arguments: dict[str, Any], **options: Any):
    client, recorder = recording_client()
    async with client, streamable_http_client(url, http_client=client, **options) as streams, _session(streams) as session:
        await session.initialize()
        result = await session.call_tool(tool, arguments)
    return result, recorder.exchanges


def test_a_tool_call_on_msgpack_v1_and_the_session_ends_with_a_delete(media):
    url, path, _ = media
    info, exchanges = anyio.run(lambda: _call(url, "get_file_info", {"path": str(path)}))
    assert not info.isError if WRAPPED_MESSAGES else not info.is_error
    assert str(IMAGE_BYTES) in info.content[0].text
    posts = [e for e in exchanges if e["method"] == "POST"]
    assert all(e["request_type"] == "application/msgpack" for e in posts)
    # Each reply is MessagePack, or a small JSON one the server chose and marked (SPEC 9.6: `replies=any`).
    assert all(e["status"] == 202 or "msgpack" in e["type"] or e["wire"] == "v1" for e in posts)
    assert any("msgpack" in (e["type"] or "") for e in posts)
    assert exchanges[-1]["method"] == "DELETE" and exchanges[-1]["status"] in (200, 204)


def test_falls_back_to_json_on_the_ts_sdk_stock_server():
    """The TS SDK's own server refuses a MessagePack body with 415 and answers JSON requests with SSE."""
    with ts_sdk_server() as url:
        result, exchanges = anyio.run(lambda: _call(url, "echo", {"text": "héllo"}, native_bytes=True))
    assert result.content[0].text == "héllo"
    posts = [e for e in exchanges if e["method"] == "POST"]
    assert posts[0]["request_type"] == "application/msgpack" and posts[0]["status"] == 415
    assert all(e["request_type"] == "application/json" for e in posts[1:])
    assert b"native-bytes" not in posts[1]["request_body"]  # the re-sent initialize offers nothing (SPEC 8.1)
    assert any((e["type"] or "").startswith("text/event-stream") for e in posts[1:])  # SSE replies were read


def test_sse_events_follow_the_stream_rules_and_stop_at_the_size_limit():
    from mcp_msgpack.shared.sse_events import sse_events

    async def lines(*items: str):
        for item in items:
            yield item

    async def read(limit: int | None, *items: str):
        return [event async for event in sse_events(lines(*items), limit)]

    events = anyio.run(read, None, ": keep-alive", "id: p1", "retry: 500", "", "event: message", "data: {\"a\":", "data: 1}", "id: e2", "")
    assert [(e.data, e.id, e.retry) for e in events] == [("", "p1", 500), ('{"a":\n1}', "e2", None)]
    with pytest.raises(ValueError, match="over 8 bytes"):
        anyio.run(read, 8, "data: 0123456789", "")


@pytest.mark.skipif(HTTP_UNAVAILABLE is None, reason="mcp 2.3's SSE reader, and this client's default with it, stop at 1 MiB")
def test_falls_back_to_json_on_the_python_sdks_own_app_and_reads_a_large_sse_event():
    """The SDK's own app on this line (FastMCP on 1.x, MCPServer on 2.x) refuses a MessagePack body (400, its
    Content-Type check) and answers on SSE: a 2 MiB image is one 2.7 MB event, which the SDK's client reads on
    these lines (no event limit), and so must ours."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "servers"))
    from highlevel_server import pattern

    port = free_port()
    script = Path(__file__).parent / "servers" / "sdk_http_server.py"

    async def calls(url: str):
        client, recorder = recording_client()
        async with client, streamable_http_client(url, native_bytes=True, http_client=client) as streams:
            async with _session(streams) as session:
                await session.initialize()
                echoed = (await session.call_tool("echo", {"text": "héllo"})).content[0].text
                picture = await call_tool_native(session, "picture", {"size": 2 * 1024 * 1024})
        return echoed, picture, recorder.exchanges

    with running([sys.executable, str(script), str(port)], port) as url:
        echoed, picture, exchanges = anyio.run(calls, url)
    assert echoed == "héllo" and picture.content[0].data == pattern(2 * 1024 * 1024)
    posts = [e for e in exchanges if e["method"] == "POST"]
    assert posts[0]["request_type"] == "application/msgpack" and posts[0]["status"] in (400, 406, 415)
    assert all(e["request_type"] == "application/json" for e in posts[1:])


# --- a hostile server (SPEC 5, 9.4): each fault loses what it must and no more; no call waits for a timeout ---

SdkError: Any = getattr(mcp_exceptions, "MCPError", None) or getattr(mcp_exceptions, "McpError")  # 2.x / 1.x name


@pytest.fixture(scope="module")
def hostile():
    with hostile_server() as url:
        yield url


def _list_tools_on(url: str, scenario: str):
    async def list_tools():
        async with streamable_http_client(url, terminate_on_close=False) as streams, _session(streams) as session:
            await session.initialize()
            try:
                return await session.list_tools()
            except SdkError as error:  # returned, not raised: the task groups around would wrap it
                return error

    SCENARIO["name"] = scenario
    try:
        return anyio.run(list_tools)
    finally:
        SCENARIO["name"] = "good"


def test_a_refused_frame_loses_only_itself(hostile):
    assert _list_tools_on(hostile, "refused-then-good").tools == []


@pytest.mark.parametrize("scenario", ["truncated", "too-large"])
def test_a_broken_stream_fails_the_call_at_once(hostile, scenario):
    failure = _list_tools_on(hostile, scenario)  # at once: the stream's end fails the call, not a read timeout
    assert isinstance(failure, SdkError) and "stream ended without a response" in str(failure)


def test_an_unnegotiated_bin_fails_the_call_by_its_id(hostile):
    failure = _list_tools_on(hostile, "bin-not-negotiated")
    assert isinstance(failure, SdkError)
    assert failure.error.code == -32700 and failure.error.data == {"reason": "forbidden-type"}


def test_a_server_that_is_not_there_fails_the_call_instead_of_hanging():
    async def initialize():
        url = f"http://127.0.0.1:{free_port()}/mcp"  # nothing listens there
        async with streamable_http_client(url) as streams, _session(streams) as session:
            try:
                await session.initialize()
            except SdkError as error:
                return error

    failure = anyio.run(initialize)
    assert isinstance(failure, SdkError) and failure.error.code == -32000 and "HTTP request failed" in failure.error.message
