"""Our ASGI endpoint (a Python MCPServer on uvicorn): JSON clients keep JSON, MessagePack clients get it, native
bytes negotiated, and the transport's refusals (SPEC 9.4) on hostile bodies."""

from __future__ import annotations

import base64

import anyio
import httpx2
import msgpack
import pytest
from mcp.client.session import ClientSession

from fixtures import payload_bytes, sources
from http_peers import sdk_json_client, python_server, recording_client, write_image
from mcp_msgpack.client import streamable_http_client  # the client this SDK line carries (client/__init__.py)

pytestmark = pytest.mark.timeout(120)

MSGPACK_ACCEPT = "application/msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    path, data = write_image(tmp_path_factory.mktemp("image"))
    with python_server(path) as url:
        yield url, data


async def _session_calls(url: str, client_factory):
    client, recorder = recording_client()
    async with client, client_factory(url, client) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        echoed = (await session.call_tool("echo", {"text": "héllo"})).content[0].text
        records = (await session.call_tool("records", {})).content[0].text
        image = base64.b64decode((await session.call_tool("read_image", {})).content[0].data)
    return names, echoed, records, image, recorder.exchanges


def test_the_sdk_json_client_gets_json(server):
    url, data = server
    names, echoed, records, image, exchanges = anyio.run(
        _session_calls, url, sdk_json_client
    )
    assert {"echo", "records", "read_image"} <= names and echoed == "héllo" and image == data
    assert "record 599" in records
    for exchange in exchanges:
        assert "msgpack" not in (exchange["type"] or "")
        assert exchange["type"] is None or exchange["type"].startswith(("application/json", "text/event-stream"))


def test_our_client_speaks_msgpack_with_native_bytes(server):
    url, data = server
    names, echoed, records, image, exchanges = anyio.run(
        _session_calls, url, lambda u, c: streamable_http_client(u, native_bytes=True, http_client=c)
    )
    assert {"echo", "records", "read_image"} <= names and echoed == "héllo" and image == data
    assert "record 599" in records
    posts = [e for e in exchanges if e["method"] == "POST"]
    assert all(e["request_type"] == "application/msgpack" for e in posts)
    assert all("application/msgpack;replies=any" in e["accept"] for e in posts)  # SPEC 9.6 rule 1
    replies = [e for e in posts if e["status"] == 200]
    # Held replies (SPEC 9.6.2), each one body chosen per reply (9.6, 'cheapest-cpu'): MessagePack for the
    # initialize result that confirms native bytes and for the image (bin), JSON for the small ones.
    kinds = [(e["type"], e["wire"]) for e in replies]
    assert kinds == [
        ("application/msgpack", None),  # initialize: the confirmation counts on msgpack-v1 only (rule 4)
        ("application/json", "v1"),  # tools/list
        ("application/json", "v1"),  # echo
        ("application/msgpack", None),  # records: one 88 KB str (the tool's JSON text), cheaper as MessagePack
        ("application/msgpack", None),  # read_image: bin
    ]
    call = next(e for e in posts if b"read_image" in e["request_body"])
    assert bytes(data[:4096]) in call["body"] and len(call["body"]) < len(data) * 1.01
    assert b"io.github.mcp-msgpack/native-bytes" in posts[0]["body"]  # the confirmation (SPEC 8.1 rule 2)


def test_our_client_without_native_bytes_gets_base64(server):
    url, data = server
    *_, image, exchanges = anyio.run(_session_calls, url, lambda u, c: streamable_http_client(u, http_client=c))
    assert image == data
    call = next(e for e in exchanges if e["method"] == "POST" and b"read_image" in e["request_body"])
    assert bytes(data[:4096]) not in call["body"] and base64.b64encode(data)[:4096] in call["body"]
    assert b"native-bytes" not in exchanges[0]["body"]


def _post(url: str, body: bytes, content_type: str = "application/msgpack", **headers: str) -> httpx2.Response:
    return httpx2.post(url, content=body, headers={"accept": MSGPACK_ACCEPT, "content-type": content_type, **headers})


def _initialize_body(capabilities: dict | None = None) -> bytes:
    return msgpack.packb({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities or {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    })


def _native_session(url: str) -> dict[str, str]:
    """A session whose server confirmed native bytes; the headers that post in it."""
    offer = {"extensions": {"io.github.mcp-msgpack/native-bytes": {"version": 1}}}
    response = _post(url, _initialize_body(offer))
    assert b"io.github.mcp-msgpack/native-bytes" in response.content
    headers = {"mcp-session-id": response.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    initialized = msgpack.packb({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert _post(url, initialized, **headers).status_code == 202
    return headers


def _error(response: httpx2.Response) -> dict:
    assert response.headers["content-type"] == "application/msgpack"
    assert response.headers["vary"] == "Accept, Content-Type, Accept-Encoding"
    return msgpack.unpackb(response.content)["error"]


def test_oversized_body_is_413_before_reading(server):
    url, _ = server
    response = _post(url, b"\x80" * (4 * 1024 * 1024 + 1))
    assert response.status_code == 413
    assert response.headers.get("connection") == "close"
    assert _error(response)["code"] == -32600


def test_truncated_body_is_a_parse_error(server):
    url, _ = server
    response = _post(url, _initialize_body()[:-7])
    assert response.status_code == 400
    error = _error(response)
    assert error["code"] == -32700 and error["data"]["reason"] == "malformed-msgpack"


@pytest.mark.parametrize("name,source", [(n, s) for n, s, _ in sources("refuse")], ids=[n for n, _, _ in sources("refuse")])
def test_the_refuse_set_over_http(server, name, source):
    url, _ = server
    # Sources that need native bytes in force (allowBin) are posted in a session that negotiated it.
    headers = _native_session(url) if source.get("allowBin") else {}
    response = _post(url, payload_bytes(source), **headers)
    assert response.status_code == 400
    assert _error(response)["data"]["reason"] == source["code"]
    if "answer" in source:  # the JSON-RPC code the fixture pins (SPEC 4.3): -32600 for valid MessagePack, not JSON-RPC
        assert _error(response)["code"] == source["answer"]["code"]


def test_unknown_body_type_is_415_and_a_version_we_do_not_speak_too(server):
    url, _ = server
    assert _post(url, b"{}", "text/plain").status_code == 415
    assert _post(url, _initialize_body(), "application/msgpack; v=2").status_code == 415


def test_the_iana_name_is_read_as_msgpack(server):
    url, _ = server
    response = _post(url, _initialize_body(), "application/vnd.msgpack")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/msgpack"  # a held reply: one body (SPEC 9.6.2)


def test_host_and_origin_are_checked(server):
    url, _ = server
    assert _post(url, _initialize_body(), host="evil.example").status_code == 403  # SPEC 9.4 (the SDK answered 421)
    assert _post(url, _initialize_body(), origin="http://evil.example").status_code == 403


def test_stateless_mode_speaks_msgpack_but_never_confirms_native_bytes(tmp_path):
    path, data = write_image(tmp_path)
    with python_server(path, "--stateless") as url:
        names, echoed, _, image, exchanges = anyio.run(
            _session_calls, url, lambda u, c: streamable_http_client(u, native_bytes=True, http_client=c)
        )
    assert "read_image" in names and echoed == "héllo" and image == data
    posts = [e for e in exchanges if e["method"] == "POST"]
    assert all(e["request_type"] == "application/msgpack" for e in posts)
    # No confirmation to send, so a small initialize result goes as JSON, saying the server read MessagePack.
    assert (posts[0]["type"], posts[0]["wire"]) == ("application/json", "v1")
    # A server that forgets the session after each request cannot keep the extension (SPEC 8.1 rule 2).
    assert b"native-bytes" not in posts[0]["body"]
    call = next(e for e in posts if b"read_image" in e["request_body"])
    assert bytes(data[:4096]) not in call["body"]
    assert call["type"] == "application/msgpack"  # 7 MB of base64 text: MessagePack costs less (one long str)


@pytest.mark.parametrize("stateless", [False, True], ids=["sessions", "stateless"])
def test_our_client_falls_back_to_json_on_the_sdk_stock_server(tmp_path, stateless):
    path, data = write_image(tmp_path)
    extra = ("--json-sdk", "--stateless") if stateless else ("--json-sdk",)
    with python_server(path, *extra) as url:
        names, echoed, _, image, exchanges = anyio.run(
            _session_calls, url,
            lambda u, c: streamable_http_client(u, native_bytes=True, http_client=c, max_sse_event_size=None),
        )
    assert "read_image" in names and echoed == "héllo" and image == data
    posts = [e for e in exchanges if e["method"] == "POST"]
    # The first POST tries MessagePack, the SDK refuses its Content-Type (400), the same message goes as JSON.
    assert posts[0]["request_type"] == "application/msgpack" and posts[0]["status"] == 400
    assert all(e["request_type"] == "application/json" for e in posts[1:])
    assert b"native-bytes" not in posts[1]["request_body"]  # never offered on JSON (SPEC 8.1 rule 1)


def test_a_request_id_already_in_flight_is_refused_and_the_first_goes_on(server):
    url, _ = server
    headers = _native_session(url)
    call = msgpack.packb({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                          "params": {"name": "slow", "arguments": {"seconds": 1.5}}})

    async def both():
        async with httpx2.AsyncClient(timeout=30) as http:
            post_headers = {"accept": MSGPACK_ACCEPT, "content-type": "application/msgpack", **headers}
            replies = {}

            async def first():
                replies["first"] = await http.post(url, content=call, headers=post_headers)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(first)
                await anyio.sleep(0.5)
                replies["second"] = await http.post(url, content=call, headers=post_headers)
        return replies

    replies = anyio.run(both)
    second = replies["second"]
    assert second.status_code == 400
    reply = msgpack.unpackb(second.content)
    assert reply["id"] == 5 and reply["error"]["code"] == -32600 and reply["error"]["data"]["reason"] == "duplicate-id"
    first = replies["first"]
    assert first.status_code == 200 and b"slow" in first.content  # the first request is unaffected
