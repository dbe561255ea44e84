"""MCP 2026-07-28 (stateless, SPEC 9.5) through our client and server: the SDK's `Client` in its default 'auto'
mode discovers the revision, and each request goes as MessagePack with `Mcp-Method`/`Mcp-Name` headers."""

from __future__ import annotations

import base64

import anyio
import httpx2
import msgpack
import pytest
from mcp.client.client import Client

from http_peers import media_server, python_server, recording_client, write_image
from mcp_msgpack.client import streamable_http_client  # the client this SDK line carries (client/__init__.py)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    return write_image(tmp_path_factory.mktemp("modern"))


@pytest.fixture(scope="module")
def py_url(image):
    with python_server(image[0]) as url:
        yield url


async def _modern_calls(url: str, tool: str, arguments: dict, *, native: bool):
    http, recorder = recording_client()
    async with http, Client(streamable_http_client(url, native_bytes=native, http_client=http)) as client:
        assert client.session.protocol_version == "2026-07-28"
        names = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool(tool, arguments)
    return names, result, recorder.exchanges


def _call(exchanges, name: str) -> dict:
    return next(e for e in exchanges if e["method"] == "POST" and name.encode() in e["request_body"])


def test_our_server_serves_2026_07_28_on_msgpack_with_native_bytes(image, py_url):
    _, data = image
    names, result, exchanges = anyio.run(lambda: _modern_calls(py_url, "read_image", {}, native=True))
    assert "read_image" in names and base64.b64decode(result.content[0].data) == data
    call = _call(exchanges, "read_image")
    assert call["request_type"] == "application/msgpack" and call["type"] == "application/msgpack"
    assert bytes(data[:4096]) in call["body"]  # bin, negotiated for this request alone (SPEC 8.1 rule 5)
    assert all(e["method"] != "POST" or e["status"] in (200, 202) for e in exchanges)


def test_header_that_disagrees_with_the_msgpack_body_is_refused(py_url):
    body = msgpack.packb({
        "jsonrpc": "2.0", "id": 7, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        }},
    })
    headers = {
        "accept": "application/msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream",
        "content-type": "application/msgpack", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
    }
    response = httpx2.post(py_url, content=body, headers=headers)
    assert response.status_code == 400
    reply = msgpack.unpackb(response.content)
    assert reply["id"] == 7 and reply["error"]["code"] == -32020


def test_our_client_on_the_ts_media_server_in_auto_mode(image):
    path, data = image
    with media_server(path.parent) as url:
        _, result, exchanges = anyio.run(lambda: _modern_calls(url, "read_media_file", {"path": str(path)}, native=True))
    assert base64.b64decode(result.content[0].data) == data
    call = _call(exchanges, "read_media_file")
    assert call["request_type"] == "application/msgpack"
    assert bytes(data[:4096]) in call["body"]


def test_progress_streams_as_frames_on_2026_07_28(py_url):
    seen: list[float] = []

    async def call():
        http, recorder = recording_client()
        async with http, Client(streamable_http_client(py_url, http_client=http)) as client:

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                seen.append(progress)

            result = await client.call_tool("counted", {}, progress_callback=on_progress)
        return result, recorder.exchanges

    result, exchanges = anyio.run(call)
    assert result.content[0].text == "counted" and seen == [1, 2, 3]
    call_exchange = _call(exchanges, "counted")
    assert call_exchange["type"] == "application/vnd.mcp-msgpack.stream"


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


def test_subscriptions_listen_is_a_frame_stream(py_url):
    """SPEC 9.5: the listen stream on the reply wire 9.2 negotiates, here frames: the acknowledgement first,
    then the change notifications asked for, each tagged with the listen request's id."""
    from mcp_msgpack.wire import FrameReader

    accept = "application/msgpack;replies=any, application/vnd.mcp-msgpack.stream, application/json, text/event-stream"
    listen = {"jsonrpc": "2.0", "id": "L1", "method": "subscriptions/listen",
              "params": {"notifications": {"toolsListChanged": True}, "_meta": MODERN_META}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "changed", "arguments": {}, "_meta": MODERN_META}}

    def headers(method: str, **extra: str) -> dict[str, str]:
        return {"accept": accept, "content-type": "application/msgpack", "mcp-protocol-version": "2026-07-28",
                "mcp-method": method, **extra}

    async def run() -> list[dict]:
        got: list[dict] = []
        async with httpx2.AsyncClient(timeout=30) as http:
            async with http.stream("POST", py_url, content=msgpack.packb(listen), headers=headers("subscriptions/listen")) as response:
                assert response.headers["content-type"] == "application/vnd.mcp-msgpack.stream"
                reader = FrameReader(1 << 20)
                async for chunk in response.aiter_bytes():
                    for payload in reader.feed(chunk):
                        value = msgpack.unpackb(payload)
                        if "jsonrpc" not in value:
                            continue
                        got.append(value)
                        if value["method"] == "notifications/subscriptions/acknowledged":
                            reply = await http.post(py_url, content=msgpack.packb(call), headers=headers("tools/call", **{"mcp-name": "changed"}))
                            assert reply.status_code == 200
                        else:
                            return got
        return got

    got = anyio.run(run)
    assert [m["method"] for m in got] == ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"]
    assert got[1]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "L1"
